#include "lidartwin/reports/regression_gate.h"
#include "lidartwin/base/json_text.h"
#include "lidartwin/base/text_file.h"

#include <fmt/core.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "lidartwin/base/config_reader.h"
#include "lidartwin/compare/metrics.h"

namespace lt::reports {

void Tolerance::Check(ConfigCheck& check) const {
  if (!compare::FindSummaryMetric(metric)) {
    check.Fail(metric, "unknown metric (see docs/validation.md for the summary metrics)");
    return;
  }
  ConfigCheck m = check.Sub(metric);
  if (!(max_worse >= 0 && std::isfinite(max_worse)))
    m.Fail("max_worse", "must be a finite number >= 0, got " + NumberText(max_worse));
  if (!(max_worse_fraction >= 0 && std::isfinite(max_worse_fraction))) {
    m.Fail("max_worse_fraction",
           "must be a finite number >= 0, got " + NumberText(max_worse_fraction));
  }
}

Status Tolerance::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("tolerance");
}

void CheckTolerances(const std::vector<Tolerance>& tolerances, ConfigCheck& check) {
  for (size_t i = 0; i < tolerances.size(); ++i) {
    tolerances[i].Check(check);
    for (size_t j = 0; j < i; ++j)
      if (tolerances[i].metric == tolerances[j].metric)
        check.Fail(tolerances[i].metric, "is listed twice");
  }
}

Expected<std::vector<Tolerance>> LoadTolerances(const std::filesystem::path& file) {
  auto root = ConfigMap::FromFile(file);
  if (!root.ok()) return root.error();
  std::vector<Tolerance> out;
  for (const std::string& key : root->Keys()) {
    if (!compare::FindSummaryMetric(key)) {
      root->Fail(key, "unknown metric (see docs/validation.md for the summary metrics)");
      continue;
    }
    ConfigMap m = root->Map(key);
    Tolerance t;
    t.metric = key;
    t.max_worse = m.Number("max_worse", 0);
    t.max_worse_fraction = m.Number("max_worse_fraction", 0);
    out.push_back(t);
  }
  if (out.empty() && root->FirstError().ok())
    return Error{fmt::format("{}: no tolerances", file.string())};
  if (Status s = root->FirstError(); !s.ok()) return s.error();
  ConfigCheck check;
  CheckTolerances(out, check);
  if (!check.ok()) root->Fail(*check.problem());
  if (Status s = root->Finish(); !s.ok()) return s.error();
  return out;
}

Expected<std::map<std::string, double>> LoadBaselineSummary(const std::filesystem::path& file) {
  auto text = ReadTextFile(file);
  if (!text.ok()) return text.error();
  auto parsed = ParseJsonText(*text, file.string());
  if (!parsed.ok()) return parsed.error();
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) return Error{fmt::format("{}: not a JSON object", file.string())};
  if (!j.contains("summary") || !j["summary"].is_object())
    return Error{fmt::format("{}: summary: missing (expected a metrics.json or report.json)",
                             file.string())};
  std::map<std::string, double> out;
  for (const auto& [name, value] : j["summary"].items()) {
    if (value.is_null()) continue;
    if (!value.is_number())
      return Error{fmt::format("{}: summary.{}: expected a number", file.string(), name)};
    out[name] = value.get<double>();
  }
  return out;
}

std::vector<GateRow> ApplyGate(const std::map<std::string, double>& current,
                               const std::map<std::string, double>& baseline,
                               const std::vector<Tolerance>& tolerances) {
  std::vector<GateRow> rows;
  for (const Tolerance& t : tolerances) {
    GateRow row;
    row.metric = t.metric;
    auto c = current.find(t.metric), b = baseline.find(t.metric);
    if (c == current.end() || b == baseline.end()) {
      // A gated number the baseline has and this run lost is a failure; one neither run has
      // (no targets, say) or only this run has was never measured against anything.
      row.missing = true;
      row.regression = b != baseline.end();
      if (c != current.end()) row.current = c->second;
      if (b != baseline.end()) row.baseline = b->second;
      rows.push_back(row);
      continue;
    }
    const auto* info = compare::FindSummaryMetric(t.metric);
    const bool lower_is_better = info ? info->lower_is_better : true;
    row.baseline = b->second;
    row.current = c->second;
    row.worse_by = lower_is_better ? row.current - row.baseline : row.baseline - row.current;
    row.allowed = std::max(t.max_worse, t.max_worse_fraction * std::fabs(row.baseline));
    // A relative 1e-9 slack absorbs the last-digit differences of JSON round trips.
    row.regression = row.worse_by > row.allowed + 1e-9 * std::fabs(row.baseline);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace lt::reports
