// lidartwin reconstruct: recorded frames (+ poses) to a scene the simulator loads.
#include <fmt/core.h>

#include <algorithm>

#include "command.h"
#include "commands.h"
#include "lidartwin/base/terminal_progress.h"
#include "lidartwin/jobs/reconstruct_recording.h"
#include "reconstruct_args.h"

namespace lt::cli {

namespace {

// The flags of the job's option keys: an error about one of them is a usage error.
const OptionFlags kFlags = {{"method", "--method"},           {"poisson_depth", "--depth"},
                            {"voxel_m", "--voxel-m"},         {"min_range_m", "--min-range-m"},
                            {"max_range_m", "--max-range-m"}, {"columns", "--columns"},
                            {"frames", "--frames"},           {"incremental", "--incremental"},
                            {"pose_at", "--pose-at"},         {"topic", "--topic"},
                            {"firetimes", "--firetimes"}};

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

}  // namespace

int ReconstructCommand(const std::vector<std::string>& argv) {
  const Command reconstruct{"reconstruct",
                            "",
                            {{"--metadata", "--calibration", "--firetimes", "--format", "--topic",
                              "--poses", "--pose-at", "--frames", "--method", "--depth",
                              "--voxel-m", "--min-range-m", "--max-range-m", "--columns", "--out"},
                             {"--no-carve", "--static", "--incremental"},
                             1},
                            kFlags,
                            {{"out", "--out"}}};
  return RunCommand(reconstruct, argv, [](const Args& args) -> Expected<int> {
    if (Status s = FirstError(
            {Require(args, "REC", {"--out"}), RefuseStandardOutput(args, {{"--out", "a folder"}})});
        !s.ok())
      return s.error();
    jobs::ReconstructRecordingOptions job;
    uint64_t columns = 0;
    if (Status s =
            FirstError({ReadReconstructOptions(args, job.reconstruct),
                        args.Into("--columns", columns), args.Into("--frames", job.frames),
                        ReadPoseOptions(args, job.poses, job.pose_fraction, job.static_sensor)});
        !s.ok())
      return s.error();
    if (columns > jobs::kMaxColumns)  // as typed: the job's field is 32 bits
      return FlagError("--columns", fmt::format("option --columns: must be in 0..{} (0: every "
                                                "point at its frame's start pose), got {}",
                                                jobs::kMaxColumns, columns));
    job.recording = args.positionals()[0];
    job.sidecar = args.Get("--metadata", args.Get("--calibration"));
    job.format = args.Get("--format");
    job.topic = args.Get("--topic");
    job.firetimes = args.Get("--firetimes");
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
