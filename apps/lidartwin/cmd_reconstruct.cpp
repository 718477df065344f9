// lidartwin reconstruct: recorded frames (+ poses) to a scene the simulator loads.
#include <fmt/core.h>

#include <algorithm>

#include "command.h"
#include "commands.h"
#include "lidartwin/base/terminal_progress.h"
#include "lidartwin/jobs/reconstruct_recording.h"
#include "lidartwin/reconstruct/posed_recording.h"
#include "lidartwin/reconstruct/reconstruction.h"

namespace lt::cli {

namespace {

// The flags of the job's option keys: an error about one of them is a usage error.
const OptionFlags kFlags = {{"method", "--method"},           {"poisson_depth", "--depth"},
                            {"voxel_m", "--voxel-m"},         {"max_range_m", "--max-range-m"},
                            {"columns", "--columns"},         {"frames", "--frames"},
                            {"incremental", "--incremental"}, {"pose_at", "--pose-at"}};

// Runs the job with its lines printed and its progress on stderr.
Status Run(jobs::ReconstructRecordingOptions& job) {
  job.log = PrintingLog("reconstruct");
  job.log.warning = [](const std::string& message) { fmt::print(stderr, "{}\n", message); };
  Progress progress("reconstruct", 0);
  int steps = 0;
  job.on_step = [&progress, &steps](int step, int count, const char* what) {
    steps = count;
    progress.SetTotal(static_cast<uint64_t>(count));
    progress.Step(static_cast<uint64_t>(step), what);
  };
  job.on_frame = [&progress](const std::string& text) { progress.Status(0, text); };
  job.on_finish = [&progress, &steps] {
    if (steps > 0) progress.Step(static_cast<uint64_t>(steps), "done");
    progress.Finish();
  };
  const Status s = jobs::ReconstructRecording(job);
  if (s.ok() || IsAboutOption(s.error(), kFlags) ||
      s.message().find("voxel_m") == std::string::npos)
    return s;
  Error e = s.error();  // a voxel count that failed: say which option sets the voxel
  e.message += " (option --voxel-m)";
  return e;
}

// The reconstruction's options, each against its documented range before the recording is
// read, named by flag.
Status ReadReconstructOptions(const Args& args, ReconstructOptions& o) {
  o.carve = !args.Has("--no-carve");
  auto depth = args.GetUInt("--depth", 10);
  if (Status s = FirstError({depth.status(), args.Into("--method", o.method),
                             args.Into("--voxel-m", o.voxel_m),
                             args.Into("--max-range-m", o.max_range_m)});
      !s.ok())
    return s;
  // Clamped before the narrowing cast so that 2^40 reads as too deep, not as 0.
  o.poisson_depth = static_cast<int>(std::min<uint64_t>(*depth, 1000));
  ConfigCheck check;
  o.Check(check);
  if (const auto& p = check.problem())
    return OptionError(p->key_path, p->key_path + ": " + p->problem);
  return {};
}

}  // namespace

int ReconstructCommand(const std::vector<std::string>& argv) {
  const Command reconstruct{
      "reconstruct",
      "",
      {{"--metadata", "--calibration", "--format", "--poses", "--pose-at", "--frames", "--method",
        "--depth", "--voxel-m", "--max-range-m", "--columns", "--out"},
       {"--no-carve", "--static", "--incremental"},
       1},
      kFlags,
      {{"out", "--out"}}};
  return RunCommand(reconstruct, argv, [](const Args& args) -> Expected<int> {
    if (Status s = Require(args, "REC", {"--out"}); !s.ok()) return s.error();
    jobs::ReconstructRecordingOptions job;
    uint64_t columns = 0;
    if (Status s = FirstError({ReadReconstructOptions(args, job.reconstruct),
                               args.Into("--columns", columns), args.Into("--frames", job.frames)});
        !s.ok())
      return s.error();
    if (columns > jobs::kMaxColumns)  // as typed: the job's field is 32 bits
      return FlagError("--columns", fmt::format("option --columns: must be in 0..{} (0: every "
                                                "point at its frame's start pose), got {}",
                                                jobs::kMaxColumns, columns));
    if (args.Has("--static") && args.Has("--poses"))
      return ArgumentError("give --poses or --static, not both");
    auto pose_fraction = PoseFractionOf(args.Get("--pose-at", "start"));
    if (!pose_fraction.ok()) return pose_fraction.error();
    if (args.Has("--pose-at") && !args.Has("--poses"))
      return ArgumentError("--pose-at says when the poses of --poses hold; give it with --poses");
    job.recording = args.positionals()[0];
    job.sidecar = args.Get("--metadata", args.Get("--calibration"));
    job.format = args.Get("--format");
    job.poses = args.Get("--poses");
    job.pose_fraction = *pose_fraction;
    job.static_sensor = args.Has("--static");
    job.incremental = args.Has("--incremental");
    job.columns = static_cast<uint32_t>(columns);
    job.out = args.Get("--out");
    job.names.names = {{"incremental", "--incremental"},
                       {"poses", "--poses KITTI.txt"},
                       {"static_sensor", "--static"},
                       {"frames", "--frames"},
                       {"method", "--method"}};
    if (Status s = Run(job); !s.ok()) return s.error();
    return 0;
  });
}

}  // namespace lt::cli
