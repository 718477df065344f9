// Small, dependency-free SVG charts for the HTML report: x-y plots with optional error bars
// and grouped bar charts. Output is a standalone <svg> element (inline in the page).
#pragma once

#include <string>
#include <vector>

namespace lt::reports {

struct Series {
  std::string name;
  std::vector<double> x;    // x values (ignored by bar charts)
  std::vector<double> y;    // non-finite values are skipped
  std::vector<double> err;  // +-error bar half-lengths; empty for none
  bool lines = true;        // join the points (false: markers only)
};

struct PlotSpec {
  std::string title;
  std::string x_label;
  std::string y_label;
  int width_px = 640;
  int height_px = 360;
};

// Points joined by lines (sorted by x), with error bars where given.
std::string LinePlotSvg(const PlotSpec& spec, const std::vector<Series>& series);
// One group per category, one bar per series, error bars where given.
std::string BarPlotSvg(const PlotSpec& spec, const std::vector<std::string>& categories,
                       const std::vector<Series>& series);

// Tick positions: "nice" steps (1, 2, 5 x 10^k) covering [lo, hi], about `target` of them.
std::vector<double> NiceTicks(double lo, double hi, int target);
std::string EscapeXml(const std::string& text);

}  // namespace lt::reports
