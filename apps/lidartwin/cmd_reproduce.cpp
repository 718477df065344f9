// lidartwin reproduce: the real-vs-sim loop on one recording. Import the sensor from its
// metadata, reconstruct the scene from the other frames, simulate the held-out frame from its
// poses, compare it with the recorded frame, report.
#include <fmt/core.h>

#include <cmath>

#include "args.h"
#include "built_in.h"
#include "commands.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/datasets/sensor_import.h"
#include "lidartwin/reports/report.h"
#include "lidartwin/sim/trajectory.h"
#include "posed_recording.h"

namespace lt::cli {
namespace {

int Fail(const std::string& message, int code) {
  fmt::print(stderr, "lidartwin reproduce: {}\n", message);
  return code;
}

}  // namespace

int ReproduceCommand(const std::vector<std::string>& argv) {
  constexpr const char* kUsage =
      "usage: lidartwin reproduce --recording REC (--metadata M.json | --calibration C.yaml)\n"
      "         --simulate-frame K [--reconstruct-frames I,J,..] [--poses KITTI.txt]\n"
      "         [--rotation-rate-hz R] [--detector capability|ideal] [--depth 10]\n"
      "         [--voxel-m 0.05] [--max-range-m 80] [--seed S] --out DIR\n"
      "  writes DIR/sensor.yaml, DIR/scene/, DIR/trajectory.yaml, DIR/sim.h5,\n"
      "  DIR/metrics.json and DIR/report/ (default: reconstruct from every other frame)\n";
  auto args =
      Args::Parse(argv, {{"--recording", "--metadata", "--calibration", "--simulate-frame",
                          "--reconstruct-frames", "--poses", "--rotation-rate-hz", "--detector",
                          "--depth", "--voxel-m", "--max-range-m", "--seed", "--out"},
                         {"--help"},
                         0});
  if (!args.ok()) return Fail(args.message() + "\n" + kUsage, 2);
  if (args->Has("--help")) {
    fmt::print("{}", kUsage);
    return 0;
  }
  if (!args->Has("--recording") || !args->Has("--simulate-frame") || !args->Has("--out") ||
      args->Has("--metadata") == args->Has("--calibration"))
    return Fail(std::string("--recording, one of --metadata/--calibration, --simulate-frame "
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
    if (!s.ok()) return Fail(s.message(), 2);
  const std::filesystem::path out = args->Get("--out");
  const std::string metadata = args->Get("--metadata", args->Get("--calibration"));
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return Fail(fmt::format("cannot create {}: {}", out.string(), ec.message()), 1);

  // 1. The sensor, from the unit's own intrinsics.
  SensorImportOptions import;
  import.rotation_rate_hz = *rate;
  import.detector = args->Get("--detector", "capability");
  auto yaml = ImportSensorProfile(metadata, import);
  if (!yaml.ok()) return Fail("error: " + yaml.message(), 1);
  if (Status s = WriteTextFileAtomically(out / "sensor.yaml", *yaml); !s.ok())
    return Fail("error: " + s.message(), 1);
  auto profile = LoadSensorProfile(out / "sensor.yaml");
  if (!profile.ok()) return Fail("error: " + profile.message(), 1);
  const auto scan = profile->SpinningView();
  const double period = 1.0 / scan.rotation_rate_hz;

  // 2. The recording with its poses; 3. the scene from the other frames.
  auto rec = LoadPosedRecording(args->Get("--recording"), metadata, args->Get("--poses"));
  if (!rec.ok()) return Fail("error: " + rec.message(), 1);
  if (*held_out >= rec->frames.size())
    return Fail(fmt::format("--simulate-frame {}: the recording has {} frame(s)", *held_out,
                            rec->frames.size()),
                2);
  std::vector<double> list = *rebuild;
  if (list.empty())
    for (size_t k = 0; k < rec->frames.size(); ++k)
      if (k != *held_out) list.push_back(static_cast<double>(k));
  for (double v : list)
    if (v == static_cast<double>(*held_out))
      return Fail("the simulated frame must not be among the reconstruction frames", 2);
  auto input = PickFrames(*rec, list, scan.columns);
  if (!input.ok()) return Fail(input.message(), 2);
  ReconstructOptions ro;
  ro.poisson_depth = static_cast<int>(*depth);
  ro.voxel_m = *voxel;
  ro.max_range_m = *range;
  auto built = Reconstruct(*input, ro, out / "scene");
  if (!built.ok()) return Fail("error: " + built.message(), 1);
  fmt::print("reconstructed from {} frame(s): {} triangles, {} reflectance classes\n", list.size(),
             built->triangles, built->reflectance_classes.size());

  // 4. Simulate the held-out frame from its start and end poses.
  Trajectory trajectory;
  trajectory.time_s = {0, period};
  trajectory.poses = {rec->start_poses[*held_out], rec->end_poses[*held_out]};
  const std::string header =
      fmt::format("Frame {} of the recording: its start and end poses.", *held_out);
  if (Status s =
          WriteTextFileAtomically(out / "trajectory.yaml", SaveTrajectory(trajectory, header));
      !s.ok())
    return Fail("error: " + s.message(), 1);
  SimulationJob job;
  job.sensor = out / "sensor.yaml";
  job.scene = out / "scene/scene.yaml";
  job.trajectory = out / "trajectory.yaml";
  job.seed = *seed;
  job.out = out / "sim.h5";
  auto sim = RunSimulationJob(job);
  if (!sim.ok()) return Fail("error: " + sim.message(), 1);

  // 5. Compare with the recorded frame and report.
  compare::CompareOptions co;
  co.min_range_m = ro.min_range_m;  // the reconstruction ignores what is nearer
  auto metrics = compare::Compare({rec->frames[*held_out]}, sim->frames, co);
  if (!metrics.ok()) return Fail("error: " + metrics.message(), 1);
  metrics->label =
      fmt::format("{} frame {}",
                  std::filesystem::path(args->Get("--recording")).filename().string(), *held_out);
  metrics->real_file = std::filesystem::path(args->Get("--recording")).filename().string();
  metrics->sim_file = "sim.h5";
  Status s = WriteTextFileAtomically(out / "metrics.json", compare::MetricsToJson(*metrics));
  if (s.ok()) s = reports::WriteReport(reports::BuildReport({*metrics}), out / "report");
  if (!s.ok()) return Fail("error: " + s.message(), 1);
  const auto summary = compare::Summarize({*metrics});
  fmt::print("frame {}: {} real and {} simulated points, {} pairs by {}\n", *held_out,
             metrics->real_points, metrics->sim_points, metrics->returns.both,
             metrics->association);
  for (const char* k : {"associated_fraction", "return_agreement", "depth_abs_mean_m",
                        "depth_bias_m", "intensity_abs_mean", "chamfer_m"})
    if (auto it = summary.find(k); it != summary.end())
      fmt::print("  {:<20} {:.6g}\n", k, it->second);
  fmt::print("wrote {} and {}\n", (out / "metrics.json").string(), (out / "report").string());
  return 0;
}

}  // namespace lt::cli
