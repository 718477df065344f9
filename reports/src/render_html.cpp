// HTML: one self-contained page (inline CSS and SVG, no scripts, no external files).
#include <fmt/core.h>

#include <cmath>
#include <map>

#include "lidartwin/reports/report.h"
#include "lidartwin/reports/svg_plot.h"
#include "report_tables.h"

namespace lt::reports {
namespace {

std::string Html(const Table& t) {
  if (t.rows.empty()) return "";
  // Text columns left-aligned, numbers right-aligned (the page's default).
  const std::vector<bool> text = TextColumns(t);
  const auto left = [&](size_t i, bool bad) -> std::string {
    const bool l = i < text.size() && text[i];
    if (!l && !bad) return "";
    return fmt::format(" class=\"{}\"", l && bad ? "text bad" : l ? "text" : "bad");
  };
  std::string out = fmt::format("<h3>{}</h3>\n<table>\n<tr>", EscapeXml(t.title));
  for (size_t i = 0; i < t.header.size(); ++i)
    out += fmt::format("<th{}>{}</th>", left(i, false), EscapeXml(t.header[i]));
  out += "</tr>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string& c = row[i];
      out +=
          fmt::format("<td{}>{}</td>", left(i, c == "REGRESSION" || c == "MISSING"), EscapeXml(c));
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// Where to draw a distance bin: its middle; an open-ended last bin a quarter beyond its start.
double BinX(const compare::BinMetrics& b) {
  return std::isfinite(b.hi_m) ? 0.5 * (b.lo_m + b.hi_m) : 1.25 * b.lo_m + 1.0;
}

// One unit per quantity in every table and plot (report_tables.h): distances and depth errors
// in metres, intensity in the recordings' own unit (IntensityUnit), counts in points or pairs.
std::string ErrorVsDistance(const compare::ComparisonMetrics& m, bool depth) {
  // |error| is never negative: its bars stop at 0 where the std exceeds the mean.
  Series abs{.name = "|error| mean +- std", .err_floor = 0};
  Series bias{.name = "bias (signed mean)"};
  for (const auto& b : m.by_distance) {
    const auto& e = depth ? b.depth_m : b.intensity;
    const auto pairs = static_cast<double>(e.n());
    abs.x.push_back(BinX(b));
    abs.y.push_back(e.abs_error.mean);
    abs.err.push_back(e.abs_error.Std());
    abs.count.push_back(pairs);
    bias.x.push_back(BinX(b));
    bias.y.push_back(e.signed_error.mean);
    bias.count.push_back(pairs);
  }
  PlotSpec spec{.title = depth ? "Depth error vs distance" : "Intensity error vs distance",
                .x_label = "real range [" + std::string(kDistanceUnit) + "]",
                .y_label = depth ? "sim - real range [" + std::string(kDepthUnit) + "]"
                                 : "sim - real intensity [" + IntensityUnit(m) + "]"};
  return LinePlotSvg(spec, {abs, bias});
}

std::string ErrorByMaterial(const compare::ComparisonMetrics& m, bool depth) {
  std::vector<std::string> names;
  Series abs{.name = "|error| mean +- std", .err_floor = 0};
  bool unnamed = false;  // compare had no scene to name the ids (compare --scene)
  for (const auto& b : m.by_material) {
    unnamed |= b.label.rfind("id ", 0) == 0;
    const auto& e = depth ? b.depth_m : b.intensity;
    names.push_back(b.label);
    abs.y.push_back(e.abs_error.mean);
    abs.err.push_back(e.abs_error.Std());
    abs.count.push_back(static_cast<double>(e.n()));
  }
  PlotSpec spec{.title = depth ? "Depth error by material" : "Intensity error by material",
                .x_label = unnamed ? "simulated material, by id where no scene named it (n = pairs)"
                                   : "simulated material (n = pairs)",
                .y_label = depth ? "|sim - real range| [" + std::string(kDepthUnit) + "]"
                                 : "|sim - real intensity| [" + IntensityUnit(m) + "]"};
  return BarPlotSvg(spec, names, {abs});
}

// N_points or I_mean of each target, real and simulated, against its distance (d_GT where the
// target has one, else the real mean range). I_mean is weighted by the points it rests on; a
// target without points has no I_mean and is counted in the note instead.
std::string TargetKpi(const compare::ComparisonMetrics& m, bool n_points) {
  Series real{.name = "real", .lines = false}, sim{.name = "simulated", .lines = false};
  size_t no_real = 0, no_sim = 0;
  for (const auto& t : m.targets) {
    const double d = t.d_gt_m.value_or(t.n_real ? t.d_mean_real : t.n_sim ? t.d_mean_sim : NAN);
    no_real += t.n_real == 0;
    no_sim += t.n_sim == 0;
    if (n_points || t.n_real) {
      real.x.push_back(d);
      real.y.push_back(n_points ? static_cast<double>(t.n_real) : t.i_mean_real);
      if (!n_points) real.count.push_back(static_cast<double>(t.n_real));
    }
    if (n_points || t.n_sim) {
      sim.x.push_back(d);
      sim.y.push_back(n_points ? static_cast<double>(t.n_sim) : t.i_mean_sim);
      if (!n_points) sim.count.push_back(static_cast<double>(t.n_sim));
    }
  }
  PlotSpec spec{.title = n_points ? "N_points per target" : "I_mean per target",
                .x_label = "target distance [" + std::string(kDistanceUnit) + "]",
                .y_label = n_points ? "points on the target [points]"
                                    : "mean intensity [" + IntensityUnit(m) + "]"};
  spec.count_name = "points";
  spec.count_row = false;  // targets at one distance would overwrite each other's counts
  if (no_real + no_sim > 0)
    spec.note = fmt::format("{} of {} target(s) with no real points, {} with no simulated points{}",
                            no_real, m.targets.size(), no_sim, n_points ? "" : " (not drawn)");
  return LinePlotSvg(spec, {real, sim});
}

const char* kStyle =
    "body{font-family:sans-serif;margin:24px;max-width:1400px;color:#222}"
    "table{border-collapse:collapse;margin:8px 0 20px;font-size:13px}"
    "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}"
    "th{background:#f2f2f2}.text{text-align:left}"
    ".bad{background:#fdd;font-weight:bold}.verdict{font-size:16px;font-weight:bold}"
    ".plots{display:flex;flex-wrap:wrap;gap:12px}";

}  // namespace

std::string RenderHtml(const Report& r) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>lidartwin fidelity report</title><style>{}</style></head><body>\n{}"
      "<h1>lidartwin fidelity report</h1>\n",
      // The viewer's bundle, first in the body: the viewers' mount calls below need it.
      kStyle, r.viewer_script.empty() ? "" : r.viewer_script + "\n");
  if (const std::string v = GateVerdict(r); !v.empty())
    out +=
        fmt::format("<p class=\"verdict{}\">{}</p>\n", r.Regressed() ? " bad" : "", EscapeXml(v));
  out += Html(RunsTable(r)) + Html(SummaryTable(r));
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const compare::ComparisonMetrics& m = r.runs[i];
    out +=
        fmt::format("<h2>{}</h2>\n<p>Association: {} ({}).</p>\n<div class=\"plots\">\n",
                    EscapeXml(m.label), EscapeXml(m.association), EscapeXml(m.association_reason));
    if (!m.by_distance.empty()) out += ErrorVsDistance(m, true) + ErrorVsDistance(m, false);
    if (!m.by_material.empty()) out += ErrorByMaterial(m, true) + ErrorByMaterial(m, false);
    if (!m.targets.empty()) out += TargetKpi(m, true) + TargetKpi(m, false);
    out += "</div>\n" + Html(DistanceTable(m)) + Html(MaterialTable(m)) + Html(TargetTable(m));
    if (i < r.run_viewers.size() && !r.run_viewers[i].empty())
      out += "<h3>Worst frames in the viewer</h3>\n" + r.run_viewers[i];
    else if (i < r.run_viewer_notes.size() && !r.run_viewer_notes[i].empty())
      out += fmt::format("<p>No viewer: {}</p>\n", EscapeXml(r.run_viewer_notes[i]));
  }
  return out + "</body></html>\n";
}

}  // namespace lt::reports
