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

struct Frame2d {
  double x0, x1, y0, y1;  // data range
  double left = 70, right = 20, top = 36, bottom = 56;
  int w = 0, h = 0;
  double X(double x) const { return left + (x - x0) / (x1 - x0) * (w - left - right); }
  double Y(double y) const { return h - bottom - (y - y0) / (y1 - y0) * (h - top - bottom); }
};

void Range(double v, double* lo, double* hi) {
  if (!std::isfinite(v)) return;
  *lo = std::min(*lo, v);
  *hi = std::max(*hi, v);
}

void Pad(double* lo, double* hi) {
  if (!std::isfinite(*lo)) *lo = 0, *hi = 1;
  if (*hi - *lo < 1e-12) {
    const double d = std::max(std::fabs(*lo) * 0.1, 1e-3);
    *lo -= d;
    *hi += d;
  }
}

std::string Num(double v) {
  return fmt::format("{:.1f}", v);
}

std::string TickLabel(double v) {
  if (v == 0) return "0";
  return fmt::format("{:.4g}", v);
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

std::string Axes(const PlotSpec& s, const Frame2d& f, bool x_ticks) {
  std::string out;
  out += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n",
      Num(f.left), Num(f.top), Num(f.w - f.left - f.right), Num(f.h - f.top - f.bottom));
  for (double t : NiceTicks(f.y0, f.y1, 6)) {
    const double y = f.Y(t);
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#ddd\"/>"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
        Num(f.left), Num(f.w - f.right), Num(y), Num(f.left - 6), Num(y + 4), TickLabel(t));
  }
  if (x_ticks) {
    for (double t : NiceTicks(f.x0, f.x1, 8)) {
      const double x = f.X(t);
      out += fmt::format(
          "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#ddd\"/>"
          "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
          Num(x), Num(f.top), Num(f.h - f.bottom), Num(f.h - f.bottom + 16), TickLabel(t));
    }
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     Num((f.left + f.w - f.right) / 2), Num(f.h - 12), EscapeXml(s.x_label));
  out += fmt::format(
      "<text x=\"16\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {0})\">{1}"
      "</text>\n",
      Num((f.top + f.h - f.bottom) / 2), EscapeXml(s.y_label));
  return out;
}

std::string Legend(const Frame2d& f, const std::vector<Series>& series) {
  std::string out;
  double x = f.left + 8;
  for (size_t i = 0; i < series.size(); ++i) {
    const char* c = kColours[i % std::size(kColours)];
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>\n",
        Num(x), Num(f.top + 6), c, Num(x + 14), Num(f.top + 15), EscapeXml(series[i].name));
    x += 24 + 7.0 * static_cast<double>(series[i].name.size());
  }
  return out;
}

double ErrAt(const Series& s, size_t i) {
  return i < s.err.size() && std::isfinite(s.err[i]) ? s.err[i] : 0.0;
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
  if (!(hi > lo) || target < 2) return ticks;
  const double raw = (hi - lo) / (target - 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9 * step; t += step)
    ticks.push_back(std::fabs(t) < 1e-12 * step ? 0.0 : t);
  return ticks;
}

std::string LinePlotSvg(const PlotSpec& spec, const std::vector<Series>& series) {
  Frame2d f{INFINITY, -INFINITY, INFINITY, -INFINITY};
  f.w = spec.width_px;
  f.h = spec.height_px;
  for (const Series& s : series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      Range(s.x[i], &f.x0, &f.x1);
      Range(s.y[i] - ErrAt(s, i), &f.y0, &f.y1);
      Range(s.y[i] + ErrAt(s, i), &f.y0, &f.y1);
    }
  Pad(&f.x0, &f.x1);
  Range(0.0, &f.y0, &f.y1);  // errors and counts read best against zero
  Pad(&f.y0, &f.y1);
  f.y1 += 0.12 * (f.y1 - f.y0);  // room for the legend
  std::string out = Open(spec) + Axes(spec, f, true);
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    const char* c = kColours[k % std::size(kColours)];
    std::vector<size_t> order(std::min(s.x.size(), s.y.size()));
    std::iota(order.begin(), order.end(), size_t{0});
    std::erase_if(order,
                  [&](size_t i) { return !std::isfinite(s.x[i]) || !std::isfinite(s.y[i]); });
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return s.x[a] < s.x[b]; });
    std::string path;
    for (size_t i : order)
      path += fmt::format("{}{},{} ", path.empty() ? "M" : "L", Num(f.X(s.x[i])), Num(f.Y(s.y[i])));
    if (!path.empty() && s.lines)
      out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>\n",
                         path, c);
    for (size_t i : order) {
      const double x = f.X(s.x[i]), e = ErrAt(s, i);
      if (e > 0)
        out += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\"/>\n",
                           Num(x), Num(f.Y(s.y[i] - e)), Num(f.Y(s.y[i] + e)), c);
      out += fmt::format(
          "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"><title>{}: {:.4g}, {:.4g}"
          "</title></circle>\n",
          Num(x), Num(f.Y(s.y[i])), c, EscapeXml(s.name), s.x[i], s.y[i]);
    }
  }
  return out + Legend(f, series) + "</svg>\n";
}

std::string BarPlotSvg(const PlotSpec& spec, const std::vector<std::string>& categories,
                       const std::vector<Series>& series) {
  Frame2d f{0, std::max<double>(1.0, static_cast<double>(categories.size())), INFINITY, -INFINITY};
  f.w = spec.width_px;
  f.h = spec.height_px;
  f.bottom = 90;  // rotated category labels
  for (const Series& s : series)
    for (size_t i = 0; i < s.y.size(); ++i) {
      Range(s.y[i] + ErrAt(s, i), &f.y0, &f.y1);
      Range(s.y[i] - ErrAt(s, i), &f.y0, &f.y1);
    }
  Range(0.0, &f.y0, &f.y1);
  Pad(&f.y0, &f.y1);
  f.y1 += 0.12 * (f.y1 - f.y0);
  std::string out = Open(spec) + Axes(spec, f, false);
  const double group = f.X(1) - f.X(0);
  const double bar = 0.8 * group / std::max<size_t>(1, series.size());
  for (size_t c = 0; c < categories.size(); ++c) {
    const double gx = f.X(static_cast<double>(c)) + 0.1 * group;
    for (size_t k = 0; k < series.size(); ++k) {
      const Series& s = series[k];
      if (c >= s.y.size() || !std::isfinite(s.y[c])) continue;
      const char* col = kColours[k % std::size(kColours)];
      const double x = gx + static_cast<double>(k) * bar;
      const double y = f.Y(std::max(0.0, s.y[c])), y0 = f.Y(std::min(0.0, s.y[c]));
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} {}: {:.4g}"
          "</title></rect>\n",
          Num(x), Num(y), Num(bar * 0.9), Num(y0 - y), col, EscapeXml(categories[c]),
          EscapeXml(s.name), s.y[c]);
      const double e = ErrAt(s, c);
      if (e > 0)
        out += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#222\"/>\n",
                           Num(x + bar * 0.45), Num(f.Y(s.y[c] - e)), Num(f.Y(s.y[c] + e)));
    }
    const double lx = f.X(static_cast<double>(c) + 0.5), ly = f.h - f.bottom + 12;
    out += fmt::format(
        "<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" transform=\"rotate(-35 {0} {1})\">{2}"
        "</text>\n",
        Num(lx), Num(ly), EscapeXml(categories[c]));
  }
  return out + Legend(f, series) + "</svg>\n";
}

}  // namespace lt::reports
