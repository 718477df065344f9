// lidartwin reproduce: the real-vs-sim loop on one recording (issue 12): the arguments into
// jobs::ReproduceOptions, the run in jobs/ (reproduce.h), its lines printed.
#include <fmt/core.h>

#include "args.h"
#include "built_in.h"
#include "commands.h"
#include "lidartwin/jobs/reproduce.h"
#include "lidartwin/reconstruct/posed_recording.h"
#include "option_flags.h"

namespace lt::cli {
namespace {

const OptionFlags kReproduceFlags = {{"recording", "--recording"},
                                     {"sidecar", "--metadata"},
                                     {"simulate_frame", "--simulate-frame"},
                                     {"reconstruct_frames", "--reconstruct-frames"},
                                     {"poses", "--poses"},
                                     {"pose_at", "--pose-at"},
                                     {"static_sensor", "--static"},
                                     {"rotation_rate_hz", "--rotation-rate-hz"},
                                     {"detector", "--detector"},
                                     {"intensity", "--intensity"},
                                     {"method", "--method"},
                                     {"poisson_depth", "--depth"},
                                     {"voxel_m", "--voxel-m"},
                                     {"max_range_m", "--max-range-m"},
                                     {"seed", "--seed"},
                                     {"out", "--out"}};

constexpr const char* kUsage =
    "usage: lidartwin reproduce --recording REC (--metadata M.json | --calibration C.yaml)\n"
    "         --simulate-frame K [--reconstruct-frames I,J,..]\n"
    "         [--poses KITTI.txt [--pose-at start|middle|end] | --static]\n"
    "         [--rotation-rate-hz R] [--detector recording|capability|ideal]\n"
    "         [--intensity auto|reflectivity|raw] [--method range-image|surfels|poisson|\n"
    "         ball-pivoting|tsdf] [--depth 10] [--voxel-m 0.05] [--max-range-m 80] [--seed S]\n"
    "         --out DIR\n"
    "  writes DIR/sensor.yaml, DIR/scene/, DIR/trajectory.yaml, DIR/sim.h5,\n"
    "  DIR/metrics.json, DIR/floor_metrics.json and DIR/report/\n"
    "  (default: reconstruct from every other frame)\n"
    "  --detector recording (default): the capability detector with the weakest return\n"
    "  of the reconstruction frames as its bound; capability: the data sheet's range.\n"
    "  --intensity: how intensities become reflectance; auto: reflectivity for an Ouster\n"
    "  reporting calibrated reflectivity, raw (a range gain fitted on the reconstruction\n"
    "  frames, the simulated intensity put in the sensor's units) otherwise.\n"
    "  Without --poses the poses are estimated by ICP over the frames used (--static: the\n"
    "  sensor did not move).\n"
    "  The floor: the held-out frame against its real neighbouring frame, by beam.\n";

// A failed run: an error in an argument (its key leads the message) exits 2, naming the flag.
int FailRun(const Status& s) {
  if (IsAboutOption(s.error(), kReproduceFlags))
    return Fail("reproduce", FlagMessage(s.error(), kReproduceFlags), 2);
  return Fail("reproduce", "error: " + s.message(), 1);
}

}  // namespace

int ReproduceCommand(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {{"--recording", "--metadata", "--calibration", "--simulate-frame",
                                  "--reconstruct-frames", "--poses", "--pose-at",
                                  "--rotation-rate-hz", "--detector", "--intensity", "--method",
                                  "--depth", "--voxel-m", "--max-range-m", "--seed", "--out"},
                                 {"--help", "--static"},
                                 0});
  if (!args.ok()) return Fail("reproduce", args.message() + "\n" + kUsage, 2);
  if (args->Has("--static") && args->Has("--poses"))
    return Fail("reproduce", "give --poses or --static, not both", 2);
  if (args->Has("--help")) {
    fmt::print("{}", kUsage);
    return 0;
  }
  if (!args->Has("--recording") || !args->Has("--simulate-frame") || !args->Has("--out") ||
      args->Has("--metadata") == args->Has("--calibration"))
    return Fail("reproduce",
                std::string("--recording, one of --metadata/--calibration, --simulate-frame "
                            "and --out are required\n") +
                    kUsage,
                2);
  auto held_out = args->GetUInt("--simulate-frame", 0);
  auto rate = args->GetDouble("--rotation-rate-hz", 0);
  auto depth = args->GetUInt("--depth", 10);
  auto voxel = args->GetDouble("--voxel-m", 0.05);
  auto range = args->GetDouble("--max-range-m", 80);
  auto seed = args->GetUInt("--seed", 0);
  auto rebuild = args->GetDoubleList("--reconstruct-frames", {});
  for (const Status& s : {held_out.status(), rate.status(), depth.status(), voxel.status(),
                          range.status(), seed.status(), rebuild.status()})
    if (!s.ok()) return Fail("reproduce", s.message(), 2);
  if (*held_out > UINT32_MAX)
    return Fail("reproduce", fmt::format("--simulate-frame {}: not a frame index", *held_out), 2);
  jobs::ReproduceOptions o;
  o.recording = args->Get("--recording");
  o.sidecar = args->Get("--metadata", args->Get("--calibration"));
  o.simulate_frame = static_cast<uint32_t>(*held_out);
  o.reconstruct_frames = *rebuild;
  o.poses = args->Get("--poses");
  o.static_sensor = args->Has("--static");
  o.rotation_rate_hz = *rate;
  o.detector = args->Get("--detector", "recording");
  o.intensity = args->Get("--intensity", "auto");
  o.reconstruct.method = args->Get("--method", o.reconstruct.method);
  o.reconstruct.poisson_depth = static_cast<int>(std::min<uint64_t>(*depth, 1000));
  o.reconstruct.voxel_m = *voxel;
  o.reconstruct.max_range_m = *range;
  o.seed = *seed;
  o.out = args->Get("--out");
  auto pose_fraction = PoseFractionOf(args->Get("--pose-at", "start"));
  if (!pose_fraction.ok()) return FailRun(pose_fraction.status());
  o.pose_fraction = *pose_fraction;
  if (Status s = o.Validate(); !s.ok()) return FailRun(s);
  if (args->Has("--pose-at") && !args->Has("--poses"))
    return Fail("reproduce", "--pose-at says when the poses of --poses hold; give it with --poses",
                2);
  o.mesh_loader = BuiltInMeshLoader();
  o.simulate = RunSimulationJob;
  o.names.names = {{"rotation_rate_hz", "--rotation-rate-hz"}};
  o.log.info = [](const std::string& line) { fmt::print("{}", line); };
  o.log.note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  o.log.warning = [](const std::string& message) {
    fmt::print(stderr, "lidartwin reproduce: warning: {}\n", message);
  };
  if (Status s = jobs::Reproduce(o); !s.ok()) return FailRun(s);
  return 0;
}

}  // namespace lt::cli
