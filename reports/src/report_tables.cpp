#include "report_tables.h"

#include <fmt/core.h>

#include <cmath>
#include <cstdlib>

namespace lt::reports {
namespace {

std::string F(double v, const char* format = "{:.4g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(format), v) : "-";
}

// Depth errors in metres with enough digits for millimetres.
std::string Metres(double metres) {
  return F(metres, "{:.4g}");
}

std::vector<std::string> ErrorCells(const compare::BinMetrics& b) {
  return {fmt::format("{}", b.depth_m.n()),          Metres(b.depth_m.abs_error.mean),
          Metres(b.depth_m.abs_error.Std()),         Metres(b.depth_m.signed_error.mean),
          F(b.intensity.abs_error.mean, "{:.3g}"),   F(b.intensity.abs_error.Std(), "{:.3g}"),
          F(b.intensity.signed_error.mean, "{:.3g}")};
}

std::string WithUnit(const std::string& name, const char* unit) {
  return name + " [" + unit + "]";
}

std::vector<std::string> ErrorHeader(const std::string& intensity_unit) {
  const char* i = intensity_unit.c_str();
  return {"pairs",
          WithUnit("depth |err| mean", kDepthUnit),
          WithUnit("depth |err| std", kDepthUnit),
          WithUnit("depth bias", kDepthUnit),
          WithUnit("int. |err| mean", i),
          WithUnit("int. |err| std", i),
          WithUnit("int. bias", i)};
}

}  // namespace

std::string IntensityUnit(const compare::ComparisonMetrics& m) {
  const std::string& real = m.real_intensity_unit;
  const std::string& sim = m.sim_intensity_unit;
  if (real.empty() && sim.empty()) return "a.u.";
  if (real == sim) return real;
  return fmt::format("real {} / sim {}", real.empty() ? "?" : real, sim.empty() ? "?" : sim);
}

Table RunsTable(const Report& r) {
  Table t{"Comparisons",
          {"label", "real", "simulated", "intensity unit", "frames", "association", "real points",
           "sim points", "pairs", "non-finite dropped (real / sim)"},
          {}};
  for (const auto& m : r.runs)
    t.rows.push_back({m.label, m.real_file, m.sim_file, IntensityUnit(m),
                      fmt::format("{}", m.frames), m.association, fmt::format("{}", m.real_points),
                      fmt::format("{}", m.sim_points), fmt::format("{}", m.returns.both),
                      fmt::format("{} / {}", m.real_non_finite, m.sim_non_finite)});
  return t;
}

Table SummaryTable(const Report& r) {
  Table t{"Summary", {"metric", "value", "meaning"}, {}};
  const bool gated = !r.baseline_file.empty();
  if (gated) t.header = {"metric", "value", "baseline", "worse by", "allowed", "status", "meaning"};
  for (const auto& info : compare::SummaryMetrics()) {
    auto it = r.summary.find(info.name);
    const GateRow* row = nullptr;
    for (const GateRow& g : r.gate)
      if (g.metric == info.name) row = &g;
    if (it == r.summary.end() && !row) continue;
    const std::string value = it == r.summary.end() ? "-" : F(it->second, "{:.6g}");
    if (!gated) {
      t.rows.push_back({info.name, value, info.description});
      continue;
    }
    auto b = r.baseline.find(info.name);
    const std::string base = b == r.baseline.end() ? "-" : F(b->second, "{:.6g}");
    std::string status = "not gated", worse = "-", allowed = "-";
    if (row) {
      status = row->missing ? "MISSING" : row->regression ? "REGRESSION" : "ok";
      if (!row->missing) {
        worse = F(row->worse_by, "{:+.3g}");
        allowed = F(row->allowed, "{:.3g}");
      }
    }
    t.rows.push_back({info.name, value, base, worse, allowed, status, info.description});
  }
  return t;
}

// One row per bin: the label, then the error columns.
static Table ErrorTable(std::string title, const char* first,
                        const std::vector<compare::BinMetrics>& bins,
                        const std::string& intensity_unit) {
  Table t{std::move(title), {first}, {}};
  const auto header = ErrorHeader(intensity_unit);
  t.header.insert(t.header.end(), header.begin(), header.end());
  for (const auto& b : bins) {
    std::vector<std::string> row{b.label};
    auto cells = ErrorCells(b);
    row.insert(row.end(), cells.begin(), cells.end());
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table DistanceTable(const compare::ComparisonMetrics& m) {
  return ErrorTable("Error by distance (real range), cf. seed 000 Table I", "distance",
                    m.by_distance, IntensityUnit(m));
}

Table MaterialTable(const compare::ComparisonMetrics& m) {
  return ErrorTable("Error by material (simulated surface), cf. seed 000 Table II", "material",
                    m.by_material, IntensityUnit(m));
}

Table TargetTable(const compare::ComparisonMetrics& m) {
  Table t{"Targets: N_points, I_mean, d_error = d_GT - d_mean (seed 002 eq. 13-14)",
          {"target", "material", "frame", WithUnit("d_GT", kDistanceUnit), "N real", "N sim",
           WithUnit("I_mean real",
                    (m.real_intensity_unit.empty() ? "a.u." : m.real_intensity_unit).c_str()),
           WithUnit("I_mean sim",
                    (m.sim_intensity_unit.empty() ? "a.u." : m.sim_intensity_unit).c_str()),
           WithUnit("d_error real", kDepthUnit), WithUnit("d_error sim", kDepthUnit), "points"},
          {}};
  for (const auto& x : m.targets) {
    const double gt = x.d_gt_m.value_or(NAN);
    // A target without points says so in its row rather than leaving blanks.
    const char* none = "no points";
    t.rows.push_back({x.name, x.material.empty() ? "-" : x.material, fmt::format("{}", x.frame),
                      F(gt, "{:.2f}"), fmt::format("{}", x.n_real), fmt::format("{}", x.n_sim),
                      x.n_real ? F(x.i_mean_real, "{:.4g}") : none,
                      x.n_sim ? F(x.i_mean_sim, "{:.4g}") : none,
                      x.n_real   ? Metres(gt - x.d_mean_real)
                      : x.d_gt_m ? none
                                 : "-",
                      x.n_sim    ? Metres(gt - x.d_mean_sim)
                      : x.d_gt_m ? none
                                 : "-",
                      x.PointsStatus()});
  }
  return t;
}

namespace {

// A number as the tables write them: 0.01, -3, +1.2e-05, 12 / 3; or a placeholder.
bool NumericCell(const std::string& c) {
  if (c == "-" || c == "no points" || c.empty()) return true;
  size_t at = 0;
  for (;;) {
    const char* begin = c.c_str() + at;
    char* end = nullptr;
    std::strtod(begin, &end);
    if (end == begin) return false;
    at += static_cast<size_t>(end - begin);
    if (at == c.size()) return true;
    if (c.compare(at, 3, " / ") != 0) return false;
    at += 3;
  }
}

}  // namespace

std::vector<bool> TextColumns(const Table& t) {
  std::vector<bool> text(t.header.size(), false);
  if (!text.empty()) text[0] = true;
  for (const auto& row : t.rows)
    for (size_t i = 0; i < row.size() && i < text.size(); ++i)
      if (!NumericCell(row[i])) text[i] = true;
  return text;
}

std::string GateVerdict(const Report& r) {
  if (r.baseline_file.empty()) return "";
  std::string worse;
  for (const GateRow& g : r.gate)
    if (g.regression) worse += (worse.empty() ? "" : ", ") + g.metric;
  if (worse.empty())
    return fmt::format("No regression against {} ({} gated metrics within tolerance).",
                       r.baseline_file, r.gate.size());
  return fmt::format("REGRESSION against {}: {}.", r.baseline_file, worse);
}

}  // namespace lt::reports
