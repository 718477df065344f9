// lidartwin reproduce: the real-vs-sim loop on one recording (issue 12): the arguments into
// jobs::ReproduceOptions, the run in jobs/ (reproduce.h), its lines printed.
#include <fmt/core.h>

#include <filesystem>

#include "built_in.h"
#include "command.h"
#include "commands.h"
#include "lidartwin/jobs/reproduce.h"
#include "reconstruct_args.h"

namespace lt::cli {
namespace {

const OptionFlags kReproduceFlags = {{"recording", "--recording"},
                                     {"sidecar", "--metadata"},
                                     {"topic", "--topic"},
                                     {"sensor", "--sensor"},
                                     {"as_sensor", "--as"},
                                     {"firetimes", "--firetimes"},
                                     {"simulate_frame", "--simulate-frame"},
                                     {"simulate_frames", "--frames"},
                                     {"reconstruct_frames", "--reconstruct-frames"},
                                     {"reconstruct_channel_step", "--reconstruct-channel-step"},
                                     {"poses", "--poses"},
                                     {"pose_at", "--pose-at"},
                                     {"static_sensor", "--static"},
                                     {"rotation_rate_hz", "--rotation-rate-hz"},
                                     {"detector", "--detector"},
                                     {"intensity", "--intensity"},
                                     {"method", "--method"},
                                     {"poisson_depth", "--depth"},
                                     {"voxel_m", "--voxel-m"},
                                     {"min_range_m", "--min-range-m"},
                                     {"max_range_m", "--max-range-m"},
                                     {"seed", "--seed"},
                                     {"out", "--out"}};

// What reproduce and resimulate share: the recording, its poses, the sensor's reading and the
// reconstruction; then the run itself.
Expected<int> RunReproduce(const Args& args, jobs::ReproduceOptions& o) {
  if (Status s = FirstError(
          {args.Into("--reconstruct-frames", o.reconstruct_frames),
           args.Into("--reconstruct-channel-step", o.reconstruct_channel_step),
           ReadPoseOptions(args, o.poses, o.pose_fraction, o.static_sensor),
           args.Into("--rotation-rate-hz", o.rotation_rate_hz), args.Into("--detector", o.detector),
           args.Into("--intensity", o.intensity), ReadReconstructOptions(args, o.reconstruct),
           args.Into("--seed", o.seed), args.Into("--out", o.out)});
      !s.ok())
    return s.error();
  o.sidecar = args.Get("--metadata", args.Get("--calibration"));
  o.reconstruct_to_sensor_range = !args.Has("--max-range-m");
  o.topic = args.Get("--topic");
  o.as_sensor = args.Get("--as");
  o.firetimes = args.Get("--firetimes");
  if (Status s = o.Validate(); !s.ok()) return s.error();
  o.mesh_loader = BuiltInMeshLoader();
  o.simulate = RunSimulationJob;
  o.names.names = {{"rotation_rate_hz", "--rotation-rate-hz"}, {"static_sensor", "--static"}};
  o.log = PrintingLog(o.resimulate ? "resimulate" : "reproduce");
  o.log.note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  if (Status s = jobs::Reproduce(o); !s.ok()) return s.error();
  return 0;
}

}  // namespace

int ReproduceCommand(const std::vector<std::string>& argv) {
  // clang-format off
  const Command reproduce{"reproduce", "",
      {{"--recording", "--metadata", "--calibration", "--topic", "--sensor", "--as", "--firetimes",
        "--simulate-frame", "--reconstruct-frames", "--reconstruct-channel-step", "--poses",
        "--pose-at", "--rotation-rate-hz", "--detector", "--intensity", "--method", "--depth",
        "--voxel-m", "--min-range-m", "--max-range-m", "--seed", "--out"},
       {"--static"}, 0},
      kReproduceFlags};
  // clang-format on
  return RunCommand(reproduce, argv, [](const Args& args) -> Expected<int> {
    // Whether the recording needs a sidecar is the job's to say (.osf, folders of scans).
    const int sidecars = args.Has("--metadata") + args.Has("--calibration");
    if (!args.Has("--recording") || !args.Has("--simulate-frame") || !args.Has("--out") ||
        sidecars > 1)
      return Usage(
          "--recording, at most one of --metadata/--calibration, --simulate-frame and --out are "
          "required");
    if (Status s = RefuseStandardOutput(args, {{"--out", "a folder"}}); !s.ok()) return s.error();
    jobs::ReproduceOptions o;
    if (Status s = FirstError({args.Into("--recording", o.recording),
                               args.Into("--simulate-frame", o.simulate_frame)});
        !s.ok())
      return s.error();
    o.sensor = args.Get("--sensor");
    return RunReproduce(args, o);
  });
}

int ResimulateCommand(const std::vector<std::string>& argv) {
  OptionFlags flags = kReproduceFlags;  // the first frame simulated is --first-frame here
  for (auto& [key, flag] : flags)
    if (key == "simulate_frame") flag = "--first-frame";
  // clang-format off
  const Command resimulate{"resimulate", "",
      {{"--metadata", "--calibration", "--topic", "--as", "--firetimes", "--first-frame",
        "--frames", "--reconstruct-frames", "--poses", "--pose-at", "--rotation-rate-hz",
        "--intensity", "--method", "--depth", "--voxel-m", "--min-range-m", "--max-range-m",
        "--seed", "--out"},
       {"--static"}, 1},
      flags};
  // clang-format on
  return RunCommand(resimulate, argv, [](const Args& args) -> Expected<int> {
    const int sidecars = args.Has("--metadata") + args.Has("--calibration");
    if (!args.Has("--as") || !args.Has("--out") || sidecars > 1)
      return Usage(
          "REC, --as and --out are required, with at most one of --metadata/--calibration");
    if (Status s = RefuseStandardOutput(args, {{"--out", "a folder"}}); !s.ok()) return s.error();
    jobs::ReproduceOptions o;
    o.resimulate = true;
    o.simulate_frames = 0;  // to the recording's end
    if (Status s = FirstError({args.Into("--first-frame", o.simulate_frame),
                               args.Into("--frames", o.simulate_frames)});
        !s.ok())
      return s.error();
    o.recording = args.positionals()[0];
    return RunReproduce(args, o);
  });
}

}  // namespace lt::cli
