#include "lidartwin/jobs/make_report.h"

#include <fmt/core.h>

#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/reports/report.h"
#if LT_WITH_VIEWER
#include "lidartwin/viewer/report_viewers.h"
#endif

namespace lt::jobs {
namespace {

// The gate's rows that got worse, and its verdict.
void LogGate(const reports::Report& report, const JobLog& log) {
  for (const reports::GateRow& g : report.gate) {
    if (!g.regression) continue;
    if (g.missing)
      log.Info(fmt::format("REGRESSION {}: missing from the {}\n", g.metric,
                           report.summary.count(g.metric) ? "baseline" : "current run"));
    else
      log.Info(fmt::format("REGRESSION {}: {:.6g} -> {:.6g} (worse by {:.3g}, allowed {:.3g})\n",
                           g.metric, g.baseline, g.current, g.worse_by, g.allowed));
  }
  if (!report.gate.empty())
    log.Info(report.Regressed() ? "regression gate: FAILED\n" : "regression gate: passed\n");
}

}  // namespace

Status MakeReportOptions::Validate() const {
  if (metrics.empty()) return OptionError("metrics", "metrics: no metrics files given");
  if (out.empty()) return OptionError("out", "out: no report folder given");
  if (baseline.empty() != tolerances.empty())
    return OptionError("baseline", "baseline and tolerances go together");
  if (viewer_frames.value_or(0) > kMaxViewerFrames)
    return OptionError("viewer_frames", fmt::format("viewer_frames: must be in 0..{}, got {}",
                                                    kMaxViewerFrames, *viewer_frames));
  return {};
}

Expected<bool> MakeReport(const MakeReportOptions& o) {
  if (Status s = o.Validate(); !s.ok()) return s.error();
  std::vector<compare::ComparisonMetrics> runs;
  for (const auto& file : o.metrics) {
    auto m = compare::ReadMetricsFile(file);
    if (!m.ok()) return m.error();
    runs.push_back(std::move(*m));
  }
  reports::Report report = reports::BuildReport(std::move(runs));
  if (!o.baseline.empty()) {
    auto tolerances = reports::LoadTolerances(o.tolerances);
    if (!tolerances.ok()) return tolerances.error();
    auto baseline = reports::LoadBaselineSummary(o.baseline);
    if (!baseline.ok()) return baseline.error();
    reports::AddBaseline(report, o.baseline.string(), std::move(*baseline), *tolerances);
  }
#if LT_WITH_VIEWER
  const uint32_t frames = o.viewer_frames.value_or(2);
  viewer::AttachViewers(report, frames, o.mesh_loader);
  for (size_t i = 0; i < report.run_viewer_notes.size(); ++i)
    if (!report.run_viewer_notes[i].empty() && frames > 0)
      o.log.Note(fmt::format("no viewer for {} ({}): {}", o.metrics[i].string(),
                             report.runs[i].label, report.run_viewer_notes[i]));
#else
  if (o.viewer_frames.value_or(0) > 0)
    o.log.Warn(
        "this build has no viewer (built without Node.js and npm): the report shows no "
        "frames");
#endif
  if (Status s = reports::WriteReport(report, o.out); !s.ok()) return s.error();
  o.log.Info(fmt::format("wrote {}, {} and {}\n", (o.out / "report.json").string(),
                         (o.out / "report.md").string(), (o.out / "report.html").string()));
  LogGate(report, o.log);
  return report.Regressed();
}

}  // namespace lt::jobs
