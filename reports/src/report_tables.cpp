#include "report_tables.h"

#include <fmt/core.h>

#include <cmath>

namespace lt::reports {
namespace {

std::string F(double v, const char* format = "{:.4g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(format), v) : "-";
}

std::string Cm(double metres) {
  return F(100 * metres, "{:.2f}");
}

std::vector<std::string> ErrorCells(const compare::BinMetrics& b) {
  return {fmt::format("{}", b.depth_m.n()),
          Cm(b.depth_m.abs_error.mean),
          Cm(b.depth_m.abs_error.Std()),
          Cm(b.depth_m.signed_error.mean),
          F(b.intensity.abs_error.mean, "{:.3g}"),
          F(b.intensity.abs_error.Std(), "{:.3g}"),
          F(b.intensity.signed_error.mean, "{:.3g}")};
}

const std::vector<std::string> kErrorHeader = {
    "pairs",           "depth |err| mean cm", "depth |err| std cm", "depth bias cm",
    "int. |err| mean", "int. |err| std",      "int. bias"};

}  // namespace

Table RunsTable(const Report& r) {
  Table t{
      "Comparisons",
      {"label", "real", "simulated", "frames", "association", "real points", "sim points", "pairs"},
      {}};
  for (const auto& m : r.runs)
    t.rows.push_back({m.label, m.real_file, m.sim_file, fmt::format("{}", m.frames), m.association,
                      fmt::format("{}", m.real_points), fmt::format("{}", m.sim_points),
                      fmt::format("{}", m.returns.both)});
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
                        const std::vector<compare::BinMetrics>& bins) {
  Table t{std::move(title), {first}, {}};
  t.header.insert(t.header.end(), kErrorHeader.begin(), kErrorHeader.end());
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
                    m.by_distance);
}

Table MaterialTable(const compare::ComparisonMetrics& m) {
  return ErrorTable("Error by material (simulated surface), cf. seed 000 Table II", "material",
                    m.by_material);
}

Table TargetTable(const compare::ComparisonMetrics& m) {
  Table t{"Targets: N_points, I_mean, d_error = d_GT - d_mean (seed 002 eq. 13-14)",
          {"target", "material", "frame", "d_GT m", "N real", "N sim", "I_mean real", "I_mean sim",
           "d_error real cm", "d_error sim cm"},
          {}};
  for (const auto& x : m.targets) {
    const double gt = x.d_gt_m.value_or(NAN);
    t.rows.push_back(
        {x.name, x.material.empty() ? "-" : x.material, fmt::format("{}", x.frame), F(gt, "{:.2f}"),
         fmt::format("{}", x.n_real), fmt::format("{}", x.n_sim),
         x.n_real ? F(x.i_mean_real, "{:.4g}") : "-", x.n_sim ? F(x.i_mean_sim, "{:.4g}") : "-",
         x.n_real ? Cm(gt - x.d_mean_real) : "-", x.n_sim ? Cm(gt - x.d_mean_sim) : "-"});
  }
  return t;
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
