// lidartwin report: metrics.json files to report.json, report.md and report.html; with a
// baseline and tolerances, the regression gate (exit code 3 on a regression).
#include <fmt/core.h>

#include "args.h"
#include "built_in.h"
#include "commands.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/reports/report.h"
#if LT_WITH_VIEWER
#include "lidartwin/viewer/report_viewers.h"
#endif

namespace lt::cli {
namespace {

constexpr const char* kUsage =
    "usage: lidartwin report METRICS.json... --out DIR\n"
    "         [--baseline BASELINE.json --tolerances TOLERANCES.yaml] [--viewer-frames N]\n"
    "  writes DIR/report.json, DIR/report.md and DIR/report.html. With a baseline (a\n"
    "  metrics.json or report.json) it lists what got worse and exits with 3 when a\n"
    "  tolerance is exceeded (1: error, 2: usage). report.html embeds the viewer with each\n"
    "  run's N worst frame pairs by return agreement (default 2; 0: none), reading the\n"
    "  recordings its metrics.json names again.\n";

// Frame pairs a run's embedded viewer may show: each is a few MB of the report.
constexpr uint64_t kMaxViewerFrames = 16;

}  // namespace

int ReportCommand(const std::vector<std::string>& argv) {
  auto args = Args::Parse(
      argv, {{"--out", "--baseline", "--tolerances", "--viewer-frames"}, {"--help"}, 1000});
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin report: {}\n{}", args.message(), kUsage);
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("{}", kUsage);
    return 0;
  }
  auto fail = [](const std::string& message, int code) {
    fmt::print(stderr, "lidartwin report: {}\n", message);
    return code;
  };
  if (args->positionals().empty() || !args->Has("--out"))
    return fail(std::string("metrics files and --out are required\n") + kUsage, 2);
  if (args->Has("--baseline") != args->Has("--tolerances"))
    return fail("--baseline and --tolerances go together", 2);

  auto viewer_frames = args->GetUIntIn("--viewer-frames", 2, 0, kMaxViewerFrames);
  if (!viewer_frames.ok()) return fail(viewer_frames.message(), 2);

  std::vector<compare::ComparisonMetrics> runs;
  for (const std::string& file : args->positionals()) {
    auto m = compare::ReadMetricsFile(file);
    if (!m.ok()) return fail("error: " + m.message(), 1);
    runs.push_back(std::move(*m));
  }
  reports::Report report = reports::BuildReport(std::move(runs));
  if (args->Has("--baseline")) {
    auto tolerances = reports::LoadTolerances(args->Get("--tolerances"));
    if (!tolerances.ok()) return fail("error: " + tolerances.message(), 1);
    auto baseline = reports::LoadBaselineSummary(args->Get("--baseline"));
    if (!baseline.ok()) return fail("error: " + baseline.message(), 1);
    reports::AddBaseline(report, args->Get("--baseline"), std::move(*baseline), *tolerances);
  }
#if !LT_WITH_VIEWER
  if (args->Has("--viewer-frames") && *viewer_frames > 0)
    fmt::print(stderr,
               "lidartwin report: warning: this build has no viewer (built without Node.js and "
               "npm); --viewer-frames is ignored\n");
#else
  viewer::AttachViewers(report, *viewer_frames, BuiltInMeshLoader());
  for (size_t i = 0; i < report.run_viewer_notes.size(); ++i)
    if (!report.run_viewer_notes[i].empty() && *viewer_frames > 0)
      fmt::print(stderr, "lidartwin report: no viewer for {} ({}): {}\n", args->positionals()[i],
                 report.runs[i].label, report.run_viewer_notes[i]);
#endif
  const std::filesystem::path out = args->Get("--out");
  if (Status s = reports::WriteReport(report, out); !s.ok())
    return fail("error: " + s.message(), 1);
  fmt::print("wrote {}, {} and {}\n", (out / "report.json").string(), (out / "report.md").string(),
             (out / "report.html").string());
  for (const reports::GateRow& g : report.gate) {
    if (!g.regression) continue;
    if (g.missing)
      fmt::print("REGRESSION {}: missing from the {}\n", g.metric,
                 report.summary.count(g.metric) ? "baseline" : "current run");
    else
      fmt::print("REGRESSION {}: {:.6g} -> {:.6g} (worse by {:.3g}, allowed {:.3g})\n", g.metric,
                 g.baseline, g.current, g.worse_by, g.allowed);
  }
  if (!report.gate.empty())
    fmt::print("{}\n", report.Regressed() ? "regression gate: FAILED" : "regression gate: passed");
  return report.Regressed() ? 3 : 0;
}

}  // namespace lt::cli
