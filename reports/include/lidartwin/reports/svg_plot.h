// Small, dependency-free SVG charts for the HTML report: x-y plots with optional error bars
// and grouped bar charts. Output is a standalone <svg> element (inline in the page).
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace lt::reports {

// Series k is drawn in colour k and with marker shape k (circle, square, triangle, diamond),
// so two series differ in both even where colours cannot be told apart (print, colour
// blindness); the legend shows each series' marker.
struct Series {
  std::string name{};
  std::vector<double> x{};    // x values (ignored by bar charts)
  std::vector<double> y{};    // non-finite values are skipped
  std::vector<double> err{};  // +-error bar half-lengths; empty for none
  bool lines = true;          // join the points (false: markers only)
  // How many pairs (or points) each value rests on; empty for unweighted. Given, the count is
  // written under each point or bar, and a value resting on few is drawn smaller and fainter
  // (opacity and size grow with log(1 + count) up to the plot's largest count; below
  // kFewCount the marker is hollow).
  std::vector<double> count{};
  // Error bars end here at the bottom: 0 for magnitudes (|error|), whose mean - std may be
  // negative although no value is.
  double err_floor = -std::numeric_limits<double>::infinity();
};

// Below this many pairs a bin's mean is mostly noise: its marker is drawn hollow.
constexpr double kFewCount = 30;

struct PlotSpec {
  std::string title{};
  std::string x_label{};  // with the unit in brackets: "real range [m]"
  std::string y_label{};
  int width_px = 640;
  int height_px = 380;
  // What Series::count counts ("pairs", "points"): named in the legend and, with count_row,
  // over the row of counts written under the x axis (line plots; bar plots write each count
  // above its bar). Without count_row only the weighting and each marker's tooltip show them.
  std::string count_name = "pairs";
  bool count_row = true;
  std::string note{};  // optional line under the plot area ("2 targets without points")
};

// Points joined by lines (sorted by x), with error bars where given. The value axis spans
// RobustRange of the values, widened for their error bars by at most a quarter of that span
// each side: a value outside it is drawn on the frame's edge (its marker, an arrow and the
// value written; the note line counts them), an error bar reaching further is cut at the edge.
std::string LinePlotSvg(const PlotSpec& spec, const std::vector<Series>& series);
// One group per category, one bar per series, error bars where given; the value axis as
// LinePlotSvg's, a bar beyond it cut at the edge with a break mark and its value written.
std::string BarPlotSvg(const PlotSpec& spec, const std::vector<std::string>& categories,
                       const std::vector<Series>& series);

// Tick positions: "nice" steps (1, 2, 5 x 10^k) covering [lo, hi], about `target` of them.
std::vector<double> NiceTicks(double lo, double hi, int target);
// A value axis over data in [lo, hi]: padded by 8 % of the span above and below (so no
// marker sits on the frame), with at least min_ticks nice ticks inside it.
struct Axis {
  double lo = 0, hi = 1;
  std::vector<double> ticks;
};
Axis ValueAxis(double lo, double hi, int min_ticks = 4);

// The span of `values` a plot's value axis shows, robust against a lone far-off value (a bin
// of one pair at 230 m error must not flatten the others): the quartiles of the values (and
// `must`, 0 for errors and counts), then grown outward one value at a time, the nearest
// first, while the next value at most kMaxStretch-folds the span so far (a degenerate span
// takes its first neighbour whatever it is). A value that would stretch it further, and every
// value beyond it, is left outside: plots draw those at the edge of the frame, write their
// value and count them in the legend. Non-finite values are ignored.
inline constexpr double kMaxStretch = 10;
struct BulkRange {
  double lo = 0, hi = 0;
  bool Holds(double v) const;  // v within [lo, hi] (as RobustRange clamps extreme values)
};
BulkRange RobustRange(std::vector<double> values, double must = 0);
std::string EscapeXml(const std::string& text);

}  // namespace lt::reports
