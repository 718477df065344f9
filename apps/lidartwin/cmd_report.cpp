// lidartwin report: metrics.json files to report.json, report.md and report.html; with a
// baseline and tolerances, the regression gate (exit code 3 on a regression;
// jobs/make_report.h).
#include "built_in.h"
#include "command.h"
#include "commands.h"
#include "lidartwin/jobs/make_report.h"

namespace lt::cli {

int ReportCommand(const std::vector<std::string>& argv) {
  const Command report{"report",
                       "",
                       {{"--out", "--baseline", "--tolerances", "--viewer-frames"}, {}, 1000},
                       {{"viewer_frames", "--viewer-frames"}}};
  return RunCommand(report, argv, [](const Args& args) -> Expected<int> {
    if (Status s = FirstError({Require(args, "METRICS.json", {"--out"}),
                               RefuseStandardOutput(args, {{"--out", "a folder"}})});
        !s.ok())
      return s.error();
    if (args.Has("--baseline") != args.Has("--tolerances"))
      return Usage("--baseline and --tolerances go together");
    jobs::MakeReportOptions o;
    o.metrics.assign(args.positionals().begin(), args.positionals().end());
    auto frames = args.GetUIntIn("--viewer-frames", 2, 0, jobs::kMaxViewerFrames);
    if (Status s = FirstError({args.Into("--out", o.out), args.Into("--baseline", o.baseline),
                               args.Into("--tolerances", o.tolerances), frames.status()});
        !s.ok())
      return s.error();
    if (args.Has("--viewer-frames")) o.viewer_frames = static_cast<uint32_t>(*frames);
    o.mesh_loader = BuiltInMeshLoader();
    o.log = PrintingLog("report");
    auto regressed = jobs::MakeReport(o);
    if (!regressed.ok()) return regressed.error();
    return *regressed ? 3 : 0;
  });
}

}  // namespace lt::cli
