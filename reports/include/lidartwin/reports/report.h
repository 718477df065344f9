// The fidelity report: one or more comparisons (metrics.json files), their pooled summary and,
// with a baseline, the regression gate; rendered as JSON, Markdown (CI job summary) and a
// self-contained HTML page with SVG plots.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/reports/regression_gate.h"

namespace lt::reports {

struct Report {
  std::vector<compare::ComparisonMetrics> runs;
  std::map<std::string, double> summary;  // pooled over runs
  std::string baseline_file;              // empty without a baseline
  std::map<std::string, double> baseline;
  std::vector<GateRow> gate;
  // The viewer embedded for each run's worst frames (issue 13; viewer/report_viewers.h): HTML
  // to place under the run (empty: none), why a run has none, and the bundle's <script>
  // element, once per page.
  std::vector<std::string> run_viewers;
  std::vector<std::string> run_viewer_notes;
  std::string viewer_script;

  bool Regressed() const;
};

Report BuildReport(std::vector<compare::ComparisonMetrics> runs);
void AddBaseline(Report& report, const std::string& baseline_file,
                 std::map<std::string, double> baseline, const std::vector<Tolerance>& tolerances);

std::string RenderJson(const Report& r);
std::string RenderMarkdown(const Report& r);
std::string RenderHtml(const Report& r);

// Writes report.json, report.md and report.html into dir (created if needed), each atomically.
Status WriteReport(const Report& r, const std::filesystem::path& dir);

}  // namespace lt::reports
