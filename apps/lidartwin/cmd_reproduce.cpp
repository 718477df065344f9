// lidartwin reproduce: the real-vs-sim loop on one recording (issue 12): the arguments into
// jobs::ReproduceOptions, the run in jobs/ (reproduce.h), its lines printed.
#include <fmt/core.h>

#include "built_in.h"
#include "command.h"
#include "commands.h"
#include "lidartwin/jobs/reproduce.h"
#include "lidartwin/reconstruct/posed_recording.h"

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

}  // namespace

int ReproduceCommand(const std::vector<std::string>& argv) {
  const Command reproduce{
      "reproduce",
      kUsage,
      {{"--recording", "--metadata", "--calibration", "--simulate-frame", "--reconstruct-frames",
        "--poses", "--pose-at", "--rotation-rate-hz", "--detector", "--intensity", "--method",
        "--depth", "--voxel-m", "--max-range-m", "--seed", "--out"},
       {"--static"},
       0},
      kReproduceFlags};
  return RunCommand(reproduce, argv, [](const Args& args) -> Expected<int> {
    if (args.Has("--static") && args.Has("--poses"))
      return ArgumentError("give --poses or --static, not both");
    if (!args.Has("--recording") || !args.Has("--simulate-frame") || !args.Has("--out") ||
        args.Has("--metadata") == args.Has("--calibration"))
      return Usage(
          "--recording, one of --metadata/--calibration, --simulate-frame and --out are "
          "required");
    jobs::ReproduceOptions o;
    auto depth = args.GetUInt("--depth", 10);
    if (Status s = FirstError(
            {depth.status(), args.Into("--simulate-frame", o.simulate_frame),
             args.Into("--rotation-rate-hz", o.rotation_rate_hz),
             args.Into("--voxel-m", o.reconstruct.voxel_m),
             args.Into("--max-range-m", o.reconstruct.max_range_m), args.Into("--seed", o.seed),
             args.Into("--reconstruct-frames", o.reconstruct_frames),
             args.Into("--recording", o.recording), args.Into("--poses", o.poses),
             args.Into("--detector", o.detector), args.Into("--intensity", o.intensity),
             args.Into("--method", o.reconstruct.method), args.Into("--out", o.out)});
        !s.ok())
      return s.error();
    o.sidecar = args.Get("--metadata", args.Get("--calibration"));
    o.static_sensor = args.Has("--static");
    o.reconstruct.poisson_depth = static_cast<int>(std::min<uint64_t>(*depth, 1000));
    auto pose_fraction = PoseFractionOf(args.Get("--pose-at", "start"));
    if (!pose_fraction.ok()) return pose_fraction.error();
    o.pose_fraction = *pose_fraction;
    if (Status s = o.Validate(); !s.ok()) return s.error();
    if (args.Has("--pose-at") && !args.Has("--poses"))
      return ArgumentError("--pose-at says when the poses of --poses hold; give it with --poses");
    o.mesh_loader = BuiltInMeshLoader();
    o.simulate = RunSimulationJob;
    o.names.names = {{"rotation_rate_hz", "--rotation-rate-hz"}};
    o.log = PrintingLog("reproduce");
    o.log.note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
    if (Status s = jobs::Reproduce(o); !s.ok()) return s.error();
    return 0;
  });
}

}  // namespace lt::cli
