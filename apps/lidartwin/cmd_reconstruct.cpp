// lidartwin reconstruct: recorded frames (+ poses) to a scene the simulator loads.
#include <fmt/core.h>

#include <algorithm>

#include "args.h"
#include "commands.h"
#include "lidartwin/jobs/reconstruct_recording.h"
#include "lidartwin/reconstruct/posed_recording.h"
#include "lidartwin/reconstruct/reconstruction.h"
#include "option_flags.h"
#include "progress.h"

namespace lt::cli {

namespace {

// The flags of the job's option keys: an error about one of them is a usage error.
const OptionFlags kFlags = {{"method", "--method"},           {"poisson_depth", "--depth"},
                            {"voxel_m", "--voxel-m"},         {"max_range_m", "--max-range-m"},
                            {"columns", "--columns"},         {"frames", "--frames"},
                            {"incremental", "--incremental"}, {"pose_at", "--pose-at"}};

constexpr const char* kUsage =
    "usage: lidartwin reconstruct REC [--metadata M.json | --calibration C.yaml]\n"
    "         [--format kitti|nuscenes]\n"
    "         [--poses KITTI.txt [--pose-at start|middle|end] | --static] [--incremental]\n"
    "         [--frames I,J,..]\n"
    "         [--method range-image|surfels|poisson|ball-pivoting|tsdf] [--no-carve]\n"
    "         [--depth 10] [--voxel-m 0.05] [--max-range-m 80] [--columns W] --out DIR\n"
    "  --method: range-image (default) joins each frame's neighbouring returns (needs the\n"
    "  channel field); poisson and ball-pivoting mesh the merged points; tsdf fuses the\n"
    "  frames' depth in a signed distance volume of --voxel-m voxels (at most 2^26 of them).\n"
    "  --no-carve keeps what another frame saw through (visibility carving is on by\n"
    "  default).\n"
    "  --voxel-m: the thinning voxel of poisson and ball-pivoting, tsdf's voxel; --depth:\n"
    "  poisson's octree; range-image and surfels use neither (the scan's own spacing).\n"
    "  --columns: columns per frame, so each point gets the pose of its firing time\n"
    "  --pose-at: the instant of its frame each pose holds (default start; SLAM poses of\n"
    "  deskewed scans hold the instant the scan was deskewed to). Without --poses: a\n"
    "  lidartwin .h5's own frame poses, else poses estimated by ICP over the frames (all\n"
    "  held in memory); --static: the sensor did not move.\n"
    "  --incremental: frames streamed one at a time into a surface bounded by the scene,\n"
    "  not by the capture's length (range-image and surfels; needs poses; no consensus)\n"
    "  ranges: --depth 4..14, --voxel-m [0.001, 100] m and below the cloud's extent (at\n"
    "  most 1048576 voxels along it), --max-range-m (1, 10000] m, --columns 0..1048576\n"
    "  writes DIR/scene.yaml (simulate --scene), DIR/materials.yaml and the meshes.\n";

// Runs the job with its lines printed and its progress on stderr; the exit status.
int Run(jobs::ReconstructRecordingOptions& job) {
  auto usage_error = [](const std::string& message) {
    fmt::print(stderr, "lidartwin reconstruct: {}\n", message);
    return 2;
  };
  job.log.info = [](const std::string& line) { fmt::print("{}", line); };
  job.log.note = [](const std::string& line) {
    fmt::print(stderr, "lidartwin reconstruct: {}\n", line);
  };
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
  if (s.ok()) return 0;
  if (IsAboutOption(s.error(), kFlags)) return usage_error(FlagMessage(s.error(), kFlags));
  fmt::print(stderr, "lidartwin reconstruct: error: {}{}\n",
             FlagMessage(s.error(), {{"out", "--out"}}),
             s.message().find("voxel_m") != std::string::npos ? " (option --voxel-m)" : "");
  return 1;
}

}  // namespace

int ReconstructCommand(const std::vector<std::string>& argv) {
  auto args = Args::Parse(
      argv, {{"--metadata", "--calibration", "--format", "--poses", "--pose-at", "--frames",
              "--method", "--depth", "--voxel-m", "--max-range-m", "--columns", "--out"},
             {"--help", "--no-carve", "--static", "--incremental"},
             1});
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin reconstruct: {}\n{}", args.message(), kUsage);
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("{}", kUsage);
    return 0;
  }
  if (const std::string missing = MissingArguments(*args, "REC", {"--out"}); !missing.empty()) {
    fmt::print(stderr, "lidartwin reconstruct: {}\n{}", missing, kUsage);
    return 2;
  }
  auto usage_error = [](const std::string& message) {
    fmt::print(stderr, "lidartwin reconstruct: {}\n", message);
    return 2;
  };
  ReconstructOptions o;
  o.method = args->Get("--method", o.method);
  o.carve = !args->Has("--no-carve");
  auto depth = args->GetUInt("--depth", 10);
  auto voxel = args->GetDouble("--voxel-m", o.voxel_m);
  auto range = args->GetDouble("--max-range-m", o.max_range_m);
  auto columns = args->GetUInt("--columns", 0);
  auto frames = args->GetDoubleList("--frames", {});
  for (const Status& s :
       {depth.status(), voxel.status(), range.status(), columns.status(), frames.status()})
    if (!s.ok()) return usage_error(s.message());
  // Clamped before the narrowing cast so that 2^40 reads as too deep, not as 0.
  o.poisson_depth = static_cast<int>(std::min<uint64_t>(*depth, 1000));
  o.voxel_m = *voxel;
  o.max_range_m = *range;
  // Every option against its documented range before the recording is read, named by flag.
  ConfigCheck check;
  o.Check(check);
  if (const auto& p = check.problem())
    return usage_error(
        FlagMessage(OptionError(p->key_path, p->key_path + ": " + p->problem), kFlags));
  if (*columns > jobs::kMaxColumns)  // as typed: the job's field is 32 bits
    return usage_error(fmt::format(
        "option --columns: must be in 0..{} (0: every point at its frame's start pose), got {}",
        jobs::kMaxColumns, *columns));
  if (args->Has("--static") && args->Has("--poses"))
    return usage_error("give --poses or --static, not both");
  auto pose_fraction = PoseFractionOf(args->Get("--pose-at", "start"));
  if (!pose_fraction.ok()) return usage_error(FlagMessage(pose_fraction.error(), kFlags));
  if (args->Has("--pose-at") && !args->Has("--poses"))
    return usage_error("--pose-at says when the poses of --poses hold; give it with --poses");
  jobs::ReconstructRecordingOptions job;
  job.recording = args->positionals()[0];
  job.sidecar = args->Get("--metadata", args->Get("--calibration"));
  job.format = args->Get("--format");
  job.frames = *frames;
  job.poses = args->Get("--poses");
  job.pose_fraction = *pose_fraction;
  job.static_sensor = args->Has("--static");
  job.incremental = args->Has("--incremental");
  job.columns = static_cast<uint32_t>(*columns);
  job.reconstruct = o;
  job.out = args->Get("--out");
  job.names.names = {{"incremental", "--incremental"},
                     {"poses", "--poses KITTI.txt"},
                     {"static_sensor", "--static"},
                     {"frames", "--frames"},
                     {"method", "--method"}};
  return Run(job);
}

}  // namespace lt::cli
