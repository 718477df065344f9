#include "lidartwin/reports/report.h"

#include <fmt/core.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "lidartwin/base/atomic_file.h"
#include "lidartwin/compare/metrics_json.h"

namespace lt::reports {

bool Report::Regressed() const {
  for (const GateRow& g : gate)
    if (g.regression) return true;
  return false;
}

Report BuildReport(std::vector<compare::ComparisonMetrics> runs) {
  Report r;
  r.summary = compare::Summarize(runs);
  r.runs = std::move(runs);
  return r;
}

void AddBaseline(Report& report, const std::string& baseline_file,
                 std::map<std::string, double> baseline, const std::vector<Tolerance>& tolerances) {
  report.baseline_file = baseline_file;
  report.gate = ApplyGate(report.summary, baseline, tolerances);
  report.baseline = std::move(baseline);
}

std::string RenderJson(const Report& r) {
  using nlohmann::json;
  json j;
  j["schema"] = "lidartwin.report";
  j["schema_version"] = 1;
  json summary = json::object();
  for (const auto& [k, v] : r.summary)
    summary[k] = std::isfinite(v) ? json(v) : json(nullptr);
  j["summary"] = summary;
  j["runs"] = json::array();
  for (const auto& m : r.runs)
    j["runs"].push_back(json::parse(compare::MetricsToJson(m)));
  if (!r.baseline_file.empty()) {
    j["baseline"] = r.baseline_file;
    j["gate"] = json::array();
    for (const GateRow& g : r.gate)
      j["gate"].push_back({{"metric", g.metric},
                           {"baseline", g.baseline},
                           {"current", g.current},
                           {"worse_by", g.worse_by},
                           {"allowed", g.allowed},
                           {"missing", g.missing},
                           {"regression", g.regression}});
    j["regressed"] = r.Regressed();
  }
  return j.dump(2) + "\n";
}

Status WriteReport(const Report& r, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{fmt::format("{}: cannot create: {}", dir.string(), ec.message())};
  if (Status s = WriteTextFileAtomically(dir / "report.json", RenderJson(r)); !s.ok()) return s;
  if (Status s = WriteTextFileAtomically(dir / "report.md", RenderMarkdown(r)); !s.ok()) return s;
  return WriteTextFileAtomically(dir / "report.html", RenderHtml(r));
}

}  // namespace lt::reports
