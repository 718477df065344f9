#include "lidartwin/reports/svg_plot.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace lt::reports {
namespace {

// Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                          "#E69F00", "#56B4E9", "#F0E442", "#000000"};
// Series k gets shape k % kShapes: circle, square, triangle, diamond.
constexpr size_t kShapes = 4;
// Data beyond this magnitude are drawn at it: spans of +-1e308 would overflow to infinity.
constexpr double kMaxMagnitude = 1e300;

// Rows above the plot area: the title, the legend, then (with a note) the note.
constexpr double kLegendY = 40, kTopPlain = 54, kTopWithNote = 68;

const char* ColourOf(size_t k) {
  return kColours[k % std::size(kColours)];
}

struct Frame2d {
  double x0, x1, y0, y1;  // data range
  double left = 70, right = 20, top = kTopPlain, bottom = 62;
  int w = 0, h = 0;
  double X(double x) const { return left + (x - x0) / (x1 - x0) * (w - left - right); }
  double Y(double y) const { return h - bottom - (y - y0) / (y1 - y0) * (h - top - bottom); }
};

void Range(double v, double* lo, double* hi) {
  if (!std::isfinite(v)) return;
  *lo = std::min(*lo, v);
  *hi = std::max(*hi, v);
}

// An x range: [lo, hi] widened by 4 % each side so no marker sits on the frame.
void PadX(double* lo, double* hi) {
  if (!std::isfinite(*lo)) *lo = 0, *hi = 1;
  *lo = std::max(*lo, -kMaxMagnitude);
  *hi = std::min(*hi, kMaxMagnitude);
  if (*hi - *lo <= 1e-9 * std::max(std::fabs(*lo), std::fabs(*hi)) || *hi - *lo < 1e-12) {
    const double d = std::max(std::fabs(*lo) * 0.1, 1e-3);
    *lo -= d;
    *hi += d;
  }
  const double pad = 0.04 * (*hi - *lo);
  *lo -= pad;
  *hi += pad;
}

// A pixel coordinate; values far off the page (from extreme data) are clamped to it.
std::string Num(double v) {
  return fmt::format("{:.1f}", std::isnan(v) ? 0.0 : std::clamp(v, -1e6, 1e6));
}

std::string TickLabel(double v) {
  if (v == 0) return "0";
  return fmt::format("{:.4g}", v);
}

// A count in at most five characters: 987, 12.3k, 4.56M.
std::string CountLabel(double n) {
  if (n < 1000) return fmt::format("{:.0f}", n);
  if (n < 1e6) return fmt::format("{:.3g}k", n / 1e3);
  if (n < 1e9) return fmt::format("{:.3g}M", n / 1e6);
  return fmt::format("{:.3g}G", n / 1e9);
}

std::string Open(const PlotSpec& s) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"{2}\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{3}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" "
      "font-weight=\"bold\">{2}</text>\n",
      s.width_px, s.height_px, EscapeXml(s.title), s.width_px / 2);
}

std::string Axes(const PlotSpec& s, const Frame2d& f, const std::vector<double>& y_ticks,
                 bool x_ticks) {
  std::string out;
  out += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n",
      Num(f.left), Num(f.top), Num(f.w - f.left - f.right), Num(f.h - f.top - f.bottom));
  for (double t : y_ticks) {
    const double y = f.Y(t);
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#ddd\"/>"
        "<text class=\"ytick\" x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
        Num(f.left), Num(f.w - f.right), Num(y), Num(f.left - 6), Num(y + 4), TickLabel(t));
  }
  if (f.y0 < 0 && f.y1 > 0)  // the zero line, darker than the grid
    out += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#999\"/>\n",
                       Num(f.left), Num(f.w - f.right), Num(f.Y(0)));
  if (x_ticks) {
    for (double t : NiceTicks(f.x0, f.x1, 8)) {
      const double x = f.X(t);
      out += fmt::format(
          "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#ddd\"/>"
          "<text class=\"xtick\" x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
          Num(x), Num(f.top), Num(f.h - f.bottom), Num(f.h - f.bottom + 16), TickLabel(t));
    }
  }
  out += fmt::format("<text class=\"xlabel\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     Num((f.left + f.w - f.right) / 2), Num(f.h - 8), EscapeXml(s.x_label));
  out += fmt::format(
      "<text class=\"ylabel\" x=\"16\" y=\"{0}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 16 {0})\">{1}</text>\n",
      Num((f.top + f.h - f.bottom) / 2), EscapeXml(s.y_label));
  if (!s.note.empty())  // its own line between the legend and the plot area (Frame2d::top)
    out += fmt::format(
        "<text class=\"note\" x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"11\" "
        "fill=\"#555\">{}</text>\n",
        Num(f.w - f.right), Num(f.top - 6), EscapeXml(s.note));
  return out;
}

// A marker of series k's shape, radius r; hollow ones are white inside.
std::string Marker(size_t k, double x, double y, double r, double opacity, bool hollow,
                   const std::string& title, const char* cls = "marker") {
  const char* c = ColourOf(k);
  const std::string paint =
      fmt::format("fill=\"{}\" stroke=\"{}\" stroke-width=\"1.2\" opacity=\"{:.2f}\"",
                  hollow ? "white" : c, c, opacity);
  const std::string t = title.empty() ? "" : "<title>" + EscapeXml(title) + "</title>";
  switch (k % kShapes) {
    case 0:
      return fmt::format("<circle class=\"{} s{}\" cx=\"{}\" cy=\"{}\" r=\"{}\" {}>{}</circle>",
                         cls, k, Num(x), Num(y), Num(r), paint, t);
    case 1:
      return fmt::format(
          "<rect class=\"{} s{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {}>{}</rect>", cls,
          k, Num(x - 0.9 * r), Num(y - 0.9 * r), Num(1.8 * r), Num(1.8 * r), paint, t);
    case 2:
      return fmt::format("<polygon class=\"{} s{}\" points=\"{},{} {},{} {},{}\" {}>{}</polygon>",
                         cls, k, Num(x), Num(y - 1.2 * r), Num(x - 1.1 * r), Num(y + 0.8 * r),
                         Num(x + 1.1 * r), Num(y + 0.8 * r), paint, t);
    default:
      return fmt::format(
          "<polygon class=\"{} s{}\" points=\"{},{} {},{} {},{} {},{}\" {}>{}</polygon>", cls, k,
          Num(x), Num(y - 1.3 * r), Num(x + 1.3 * r), Num(y), Num(x), Num(y + 1.3 * r),
          Num(x - 1.3 * r), Num(y), paint, t);
  }
}

// The legend's copy of a marker: the same shape and colour, as a path (so that counting a
// plot's <circle> elements counts its data points).
std::string LegendMarker(size_t k, double x, double y, double r) {
  if (k % kShapes != 0) return Marker(k, x, y, r, 1.0, false, "", "legend-marker");
  return fmt::format(
      "<path d=\"M{0},{1} a{2},{2} 0 1,0 {3},0 a{2},{2} 0 1,0 -{3},0\" fill=\"{4}\" "
      "stroke=\"{4}\"/>",
      Num(x - r), Num(y), Num(r), Num(2 * r), ColourOf(k));
}

// Above the plot area, one entry per series: its marker (and line) in its colour, its name,
// and what the marker weighting means when a series has counts.
std::string Legend(const PlotSpec& spec, const Frame2d& f, const std::vector<Series>& series,
                   bool bars) {
  std::string out = "<g class=\"legend\">\n";
  double x = f.left + 8;
  const double y = kLegendY;
  bool weighted = false;
  for (size_t i = 0; i < series.size(); ++i) {
    const char* c = ColourOf(i);
    if (bars)
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"10\" fill=\"{}\"/>", Num(x),
                         Num(y - 5), c);
    else if (series[i].lines)
      out += fmt::format(
          "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"1.5\"/>",
          Num(x - 4), Num(x + 16), Num(y), c);
    if (!bars) out += LegendMarker(i, x + 6, y, 4);
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", Num(x + 22), Num(y + 4),
                       EscapeXml(series[i].name));
    x += 34 + 7.0 * static_cast<double>(series[i].name.size());
    weighted |= !series[i].count.empty();
  }
  if (weighted && !bars)
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#555\">faint: few {}, hollow: "
        "&lt; {:g}</text>\n",
        Num(x), Num(y + 4), EscapeXml(spec.count_name), kFewCount);
  return out + "</g>\n";
}

double ErrAt(const Series& s, size_t i) {
  return i < s.err.size() && std::isfinite(s.err[i]) ? s.err[i] : 0.0;
}

// The largest finite count over every series (0 when none has counts).
double MaxCount(const std::vector<Series>& series) {
  double m = 0;
  for (const Series& s : series)
    for (double c : s.count)
      if (std::isfinite(c)) m = std::max(m, c);
  return m;
}

// 0..1: how much of the plot's largest count value i rests on, on a log scale (1 without
// counts).
double WeightAt(const Series& s, size_t i, double max_count) {
  if (s.count.empty()) return 1.0;
  const double c = i < s.count.size() && std::isfinite(s.count[i]) ? std::max(0.0, s.count[i]) : 0;
  return max_count > 0 ? std::log1p(c) / std::log1p(max_count) : 0.0;
}

bool FewAt(const Series& s, size_t i) {
  return !s.count.empty() && !(i < s.count.size() && s.count[i] >= kFewCount);
}

// The bottom end of value i's error bar: y - err, but not below the series' floor.
double BarBottom(const Series& s, size_t i) {
  return std::max(s.y[i] - ErrAt(s, i), s.err_floor);
}

// The values a plot shows (not their error bars), which set its value axis.
std::vector<double> PlottedValues(const std::vector<Series>& series, bool need_x) {
  std::vector<double> out;
  for (const Series& s : series)
    for (size_t i = 0; i < s.y.size(); ++i)
      if ((!need_x || (i < s.x.size() && std::isfinite(s.x[i]))) && std::isfinite(s.y[i]))
        out.push_back(s.y[i]);
  return out;
}

// The axis' data range: the values' range, widened for the error bars of the values inside
// it by at most kBarReach of its span each side (a bar reaching further is cut at the frame:
// a heavy-tailed |error| has a std many times its mean, which would flatten the means again).
constexpr double kBarReach = 0.25;
BulkRange WithErrorBars(const BulkRange& r, const std::vector<Series>& series) {
  const double reach = kBarReach * (r.hi - r.lo);
  BulkRange out = r;
  for (const Series& s : series)
    for (size_t i = 0; i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i]) || !r.Holds(s.y[i]) || ErrAt(s, i) <= 0) continue;
      out.lo = std::min(out.lo, std::max(BarBottom(s, i), r.lo - reach));
      out.hi = std::max(out.hi, std::min(s.y[i] + ErrAt(s, i), r.hi + reach));
    }
  return out;
}

// How many values (not error-bar ends) lie outside the range.
size_t CountBeyond(const std::vector<Series>& series, const BulkRange& r, bool need_x) {
  size_t n = 0;
  for (const Series& s : series)
    for (size_t i = 0; i < s.y.size(); ++i)
      if ((!need_x || (i < s.x.size() && std::isfinite(s.x[i]))) && std::isfinite(s.y[i]) &&
          !r.Holds(s.y[i]))
        ++n;
  return n;
}

// The note line, with the count of values beyond the axis added.
PlotSpec WithBeyondNote(PlotSpec spec, size_t beyond) {
  if (beyond == 0) return spec;
  const std::string counted = fmt::format("{} value{} beyond the axis (at its edge, value written)",
                                          beyond, beyond == 1 ? "" : "s");
  spec.note = spec.note.empty() ? counted : spec.note + "; " + counted;
  return spec;
}

// A value written at the frame's edge for a point or bar beyond the axis: an arrow pointing
// off the plot and the value, `row` lines in from the edge (series k of several).
std::string BeyondLabel(double x, bool above, const Frame2d& f, size_t row, double value) {
  const double edge = above ? f.top : f.h - f.bottom;
  const double y = above ? edge + 14 + 11.0 * static_cast<double>(row)
                         : edge - 6 - 11.0 * static_cast<double>(row);
  return fmt::format(
      "<text class=\"beyond\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\" "
      "fill=\"#333\">{} {}</text>\n",
      Num(x), Num(y), above ? "\u2191" : "\u2193", TickLabel(value));
}

// Type 7 quantile (linear between order statistics) of sorted values.
double Quantile(const std::vector<double>& sorted, double q) {
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto i = static_cast<size_t>(std::floor(h));
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] + (h - static_cast<double>(i)) * (sorted[i + 1] - sorted[i]);
}

}  // namespace

std::string EscapeXml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || target < 2 || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  const double raw = (hi - lo) / (target - 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  if (!(step > 0) || !std::isfinite(step)) return ticks;
  // By index, not by adding steps: at magnitudes far above the step, t += step would not move.
  const double first = std::ceil(lo / step), last = std::floor(hi / step + 1e-9);
  for (double k = first; k <= last && ticks.size() < 1000; ++k) {
    const double t = k * step;
    ticks.push_back(std::fabs(t) < 1e-12 * step ? 0.0 : t);
  }
  return ticks;
}

Axis ValueAxis(double lo, double hi, int min_ticks) {
  Axis a;
  if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi) lo = 0, hi = 1;
  lo = std::clamp(lo, -kMaxMagnitude, kMaxMagnitude);
  hi = std::clamp(hi, -kMaxMagnitude, kMaxMagnitude);
  // A flat series: a span around it, so the ticks say where it is.
  if (hi - lo <= 1e-9 * std::max(std::fabs(lo), std::fabs(hi)) || hi - lo < 1e-12) {
    const double d = std::max(std::fabs(lo) * 0.1, 1e-3);
    lo -= d;
    hi += d;
  }
  const double pad = 0.08 * (hi - lo);
  a.lo = lo - pad;
  a.hi = hi + pad;
  for (int target = 6; target <= 30; ++target) {
    a.ticks = NiceTicks(a.lo, a.hi, target);
    if (static_cast<int>(a.ticks.size()) >= min_ticks) break;
  }
  return a;
}

bool BulkRange::Holds(double v) const {
  v = std::clamp(v, -kMaxMagnitude, kMaxMagnitude);
  return v >= lo && v <= hi;
}

BulkRange RobustRange(std::vector<double> values, double must) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  for (double& v : values)
    v = std::clamp(v, -kMaxMagnitude, kMaxMagnitude);
  values.push_back(std::clamp(must, -kMaxMagnitude, kMaxMagnitude));
  std::sort(values.begin(), values.end());
  BulkRange r{Quantile(values, 0.25), Quantile(values, 0.75)};
  r.lo = std::min(r.lo, must);
  r.hi = std::max(r.hi, must);
  // Values below the range are [begin, below), above it [above, end).
  auto below = std::lower_bound(values.begin(), values.end(), r.lo);
  auto above = std::upper_bound(values.begin(), values.end(), r.hi);
  bool down = below != values.begin(), up = above != values.end();
  while (down || up) {
    // The side whose next value widens the range least goes first.
    const double span_down = down ? r.hi - *(below - 1) : INFINITY;
    const double span_up = up ? *above - r.lo : INFINITY;
    const bool take_up = span_up <= span_down;
    const double span = r.hi - r.lo;
    if (span > 0 && (take_up ? span_up : span_down) > kMaxStretch * span) {
      (take_up ? up : down) = false;  // it, and all beyond it, stay outside
      continue;
    }
    if (take_up) {
      r.hi = *above++;
      up = above != values.end();
    } else {
      r.lo = *--below;
      down = below != values.begin();
    }
  }
  return r;
}

std::string LinePlotSvg(const PlotSpec& plot_spec, const std::vector<Series>& series) {
  // Errors and counts read best against zero.
  const BulkRange range = RobustRange(PlottedValues(series, true), 0.0);
  const PlotSpec spec = WithBeyondNote(plot_spec, CountBeyond(series, range, true));
  Frame2d f{INFINITY, -INFINITY, INFINITY, -INFINITY};
  f.w = spec.width_px;
  f.h = spec.height_px;
  if (!spec.note.empty()) f.top = kTopWithNote;
  const Series* counted = nullptr;  // the series whose counts are written under the axis
  for (const Series& s : series)
    if (!s.count.empty() && !counted && spec.count_row) counted = &s;
  if (counted) f.bottom = 92;  // tick labels, then a strip of vertical count labels
  for (const Series& s : series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) Range(s.x[i], &f.x0, &f.x1);
  PadX(&f.x0, &f.x1);
  const BulkRange shown = WithErrorBars(range, series);
  const Axis axis = ValueAxis(shown.lo, shown.hi);
  f.y0 = axis.lo;
  f.y1 = axis.hi;
  // A value's place: on the frame's edge where it lies beyond the axis.
  const auto at = [&](double y) { return f.Y(std::clamp(y, f.y0, f.y1)); };
  std::string out = Open(spec) + Axes(spec, f, axis.ticks, true);
  const double max_count = MaxCount(series);
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    const char* c = ColourOf(k);
    std::vector<size_t> order(std::min(s.x.size(), s.y.size()));
    std::iota(order.begin(), order.end(), size_t{0});
    std::erase_if(order,
                  [&](size_t i) { return !std::isfinite(s.x[i]) || !std::isfinite(s.y[i]); });
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return s.x[a] < s.x[b]; });
    std::string path;
    for (size_t i : order)
      path += fmt::format("{}{},{} ", path.empty() ? "M" : "L", Num(f.X(s.x[i])), Num(at(s.y[i])));
    if (!path.empty() && s.lines)
      out += fmt::format(
          "<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" opacity=\"0.6\"/>\n",
          path, c);
    // Series of markers only are drawn side by side (dodged 5 px apart), so that a real and a
    // simulated value at the same x and y both stay visible.
    const double dodge =
        s.lines ? 0.0
                : 5.0 * (static_cast<double>(k) - 0.5 * static_cast<double>(series.size() - 1));
    for (size_t i : order) {
      const double x = f.X(s.x[i]) + dodge, e = ErrAt(s, i), w = WeightAt(s, i, max_count);
      const double opacity = 0.25 + 0.75 * w;
      const bool inside = range.Holds(s.y[i]);
      if (e > 0 && inside)  // cut at the frame where it reaches beyond the axis
        out += fmt::format(
            "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\" "
            "opacity=\"{4:.2f}\"/>\n",
            Num(x), Num(at(BarBottom(s, i))), Num(at(s.y[i] + e)), c, opacity);
      std::string title = fmt::format("{}: {:.4g}, {:.4g}", s.name, s.x[i], s.y[i]);
      if (e > 0) title += fmt::format(" +- {:.4g}", e);
      if (!s.count.empty())
        title +=
            fmt::format(" ({:.0f} {})", i < s.count.size() ? s.count[i] : 0.0, spec.count_name);
      if (!inside) title += " (beyond the axis)";
      out += Marker(k, x, at(s.y[i]), 2 + 2.5 * w, opacity, FewAt(s, i) || !inside, title) + "\n";
      if (!inside) out += BeyondLabel(x, s.y[i] > range.hi, f, k, s.y[i]);
    }
  }
  if (counted) {
    // The pairs under each bin, vertical so that close bins do not overwrite each other.
    const double y = f.h - f.bottom + 24;
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"10\" fill=\"#555\">{}</text>\n",
        Num(f.left - 6), Num(y + 8), EscapeXml(spec.count_name));
    for (size_t i = 0; i < counted->x.size() && i < counted->count.size(); ++i) {
      if (!std::isfinite(counted->x[i]) || !std::isfinite(counted->count[i])) continue;
      const double x = f.X(counted->x[i]);
      out += fmt::format(
          "<text class=\"count\" x=\"{0}\" y=\"{1}\" text-anchor=\"end\" font-size=\"10\" "
          "fill=\"#555\" transform=\"rotate(-90 {0} {1})\">{2}</text>\n",
          Num(x + 3), Num(y), CountLabel(counted->count[i]));
    }
  }
  return out + Legend(spec, f, series, false) + "</svg>\n";
}

std::string BarPlotSvg(const PlotSpec& plot_spec, const std::vector<std::string>& categories,
                       const std::vector<Series>& series) {
  const BulkRange range = RobustRange(PlottedValues(series, false), 0.0);
  const PlotSpec spec = WithBeyondNote(plot_spec, CountBeyond(series, range, false));
  Frame2d f{0, std::max<double>(1.0, static_cast<double>(categories.size())), INFINITY, -INFINITY};
  f.w = spec.width_px;
  f.h = spec.height_px;
  f.bottom = 100;  // rotated category labels
  if (!spec.note.empty()) f.top = kTopWithNote;
  // Room above the tallest bar for its count label.
  const BulkRange shown = WithErrorBars(range, series);
  double top = shown.hi;
  if (MaxCount(series) > 0 && shown.hi > shown.lo) top += 0.1 * (shown.hi - shown.lo);
  const Axis axis = ValueAxis(shown.lo, top);
  f.y0 = axis.lo;
  f.y1 = axis.hi;
  const auto at = [&](double y) { return f.Y(std::clamp(y, f.y0, f.y1)); };
  std::string out = Open(spec) + Axes(spec, f, axis.ticks, false);
  const double group = f.X(1) - f.X(0);
  const double bar = 0.8 * group / static_cast<double>(std::max<size_t>(1, series.size()));
  const double max_count = MaxCount(series);
  for (size_t c = 0; c < categories.size(); ++c) {
    const double gx = f.X(static_cast<double>(c)) + 0.1 * group;
    for (size_t k = 0; k < series.size(); ++k) {
      const Series& s = series[k];
      if (c >= s.y.size() || !std::isfinite(s.y[c])) continue;
      const char* col = ColourOf(k);
      const double x = gx + static_cast<double>(k) * bar;
      const bool inside = range.Holds(s.y[c]);
      const double y = at(std::max(0.0, s.y[c])), y0 = at(std::min(0.0, s.y[c]));
      const double w = WeightAt(s, c, max_count);
      std::string title = fmt::format("{} {}: {:.4g}", categories[c], s.name, s.y[c]);
      if (ErrAt(s, c) > 0) title += fmt::format(" +- {:.4g}", ErrAt(s, c));
      if (!s.count.empty())
        title +=
            fmt::format(" ({:.0f} {})", c < s.count.size() ? s.count[c] : 0.0, spec.count_name);
      if (!inside) title += " (beyond the axis)";
      // Few pairs: a pale bar with a dashed outline.
      out += fmt::format(
          "<rect class=\"bar s{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
          "fill-opacity=\"{:.2f}\" stroke=\"{}\"{}><title>{}</title></rect>\n",
          k, Num(x), Num(y), Num(bar * 0.9), Num(y0 - y), col, 0.2 + 0.8 * w, col,
          FewAt(s, c) ? " stroke-dasharray=\"3 2\"" : "", EscapeXml(title));
      const double e = inside ? ErrAt(s, c) : 0.0;
      if (e > 0)
        out += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#222\"/>\n",
                           Num(x + bar * 0.45), Num(at(BarBottom(s, c))), Num(at(s.y[c] + e)));
      if (!inside) {
        // A bar cut at the frame: a white break across it near the edge, and its value.
        const bool above = s.y[c] > range.hi;
        const double by = above ? f.top + 8 : f.h - f.bottom - 8;
        out += fmt::format(
            "<path class=\"break\" d=\"M{},{} l{},-4 M{},{} l{},-4\" stroke=\"white\" "
            "stroke-width=\"2\"/>\n",
            Num(x - 1), Num(by + 2), Num(bar * 0.9 + 2), Num(x - 1), Num(by + 6),
            Num(bar * 0.9 + 2));
        out += BeyondLabel(x + bar * 0.45, above, f, 1, s.y[c]);
      }
      if (c < s.count.size() && std::isfinite(s.count[c])) {
        // Above the bar (inside the frame where its error bar is cut at the top), or under the
        // value written at the edge where the bar itself is cut.
        const double tx = x + bar * 0.45,
                     ty = inside || s.y[c] < 0
                              ? std::max(std::min(at(s.y[c] + e), y) - 4, f.top + 12)
                              : f.top + 40;
        // Vertical where the bar is too narrow for the number.
        const std::string rotate =
            bar < 30 ? fmt::format(" transform=\"rotate(-90 {} {})\"", Num(tx + 3), Num(ty))
                     : std::string();
        out += fmt::format(
            "<text class=\"count\" x=\"{}\" y=\"{}\" text-anchor=\"{}\" font-size=\"10\" "
            "fill=\"#555\"{}>{}</text>\n",
            Num(bar < 30 ? tx + 3 : tx), Num(ty), bar < 30 ? "start" : "middle", rotate,
            (bar < 30 ? "" : "n=") + CountLabel(s.count[c]));
      }
    }
    const double lx = f.X(static_cast<double>(c) + 0.5), ly = f.h - f.bottom + 12;
    out += fmt::format(
        "<text class=\"category\" x=\"{0}\" y=\"{1}\" text-anchor=\"end\" "
        "transform=\"rotate(-35 {0} {1})\">{2}</text>\n",
        Num(lx), Num(ly), EscapeXml(categories[c]));
  }
  return out + Legend(spec, f, series, true) + "</svg>\n";
}

}  // namespace lt::reports
