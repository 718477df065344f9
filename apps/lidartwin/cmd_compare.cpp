// lidartwin compare: associate a real and a simulated recording, compute the fidelity metrics
// (compare/metrics.h) and write metrics.json.
#include <fmt/core.h>

#include <chrono>

#include "args.h"
#include "built_in.h"
#include "commands.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/datasets/recording.h"
#include "progress.h"

namespace lt::cli {
namespace {

constexpr const char* kUsage =
    "usage: lidartwin compare --real REC --sim REC --out metrics.json\n"
    "         [--real-metadata M.json | --real-calibration C.yaml]  sidecar of a real pcap\n"
    "         [--real-format kitti|nuscenes]  layout of a headerless .bin (where ambiguous)\n"
    "         [--real-frames I,J,..] [--sim-frames I,J,..]  frames to pair, in order\n"
    "         [--rois targets.yaml] [--scene scene.yaml [--roi-margin-m 0.05]]\n"
    "         [--associate auto|beam|angular|nearest3d] [--max-angle-deg 0.7]\n"
    "         [--max-distance-m 0.5] [--distance-bins 0,2.5,5,..] [--min-range-m 0]\n"
    "         [--beams-per-frame N] [--label NAME]\n"
    "  --beams-per-frame: beams each frame fired (channels x columns), for the drop\n"
    "  accuracy (beams where both or neither returned); by default the simulated file's\n"
    "  sensor profile's when it is a lidartwin .h5 that holds one, else none; 0: none.\n"
    "  ranges: --max-angle-deg (0, 180], --max-distance-m > 0, --distance-bins strictly\n"
    "  increasing and >= 0, --min-range-m >= 0, --roi-margin-m [0, 10]\n"
    "  --scene names the simulated materials and, without --rois, makes one target per\n"
    "  object with an instance id (its box grown by --roi-margin-m, its position as d_GT).\n";

// Picks frames by index from a comma list; all frames when the flag is absent.
Expected<std::vector<Frame>> SelectFrames(std::vector<Frame> frames, const Args& args,
                                          const std::string& flag, const std::string& file) {
  if (!args.Has(flag)) return frames;
  auto list = args.GetDoubleList(flag, {});
  if (!list.ok()) return list.error();
  auto indices = FrameIndices(*list, frames.size(), file);
  if (!indices.ok()) return Error{"option " + flag + ": " + indices.message()};
  std::vector<Frame> out;
  for (size_t k : *indices)
    out.push_back(frames[k]);
  return out;
}

// The command-line flag of a CompareOptions key, for messages that name what the user typed.
std::string FlagOfKey(const std::string& key) {
  if (key == "association.max_angle_deg") return "--max-angle-deg";
  if (key == "association.max_distance_m") return "--max-distance-m";
  if (key == "distance_edges_m") return "--distance-bins";
  if (key == "min_range_m") return "--min-range-m";
  return key;  // not settable from the command line
}

}  // namespace

int CompareCommand(const std::vector<std::string>& argv) {
  const ArgSpec spec{{"--real", "--sim", "--out", "--real-metadata", "--real-calibration",
                      "--real-format", "--real-frames", "--sim-frames", "--rois", "--scene",
                      "--roi-margin-m", "--associate", "--max-angle-deg", "--max-distance-m",
                      "--distance-bins", "--min-range-m", "--label", "--beams-per-frame"},
                     {"--help"},
                     0};
  auto args = Args::Parse(argv, spec);
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin compare: {}\n{}", args.message(), kUsage);
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("{}", kUsage);
    return 0;
  }
  auto fail = [](const std::string& message, int code) {
    fmt::print(stderr, "lidartwin compare: {}\n", message);
    return code;
  };
  if (!args->Has("--real") || !args->Has("--sim") || !args->Has("--out"))
    return fail(std::string("--real, --sim and --out are required\n") + kUsage, 2);
  if (args->Has("--real-metadata") && args->Has("--real-calibration"))
    return fail("give --real-metadata or --real-calibration, not both", 2);

  compare::CompareOptions options;
  auto method = compare::ParseAssociationMethod(args->Get("--associate", "auto"));
  if (!method.ok()) return fail("option --associate: " + method.message(), 2);
  auto angle = args->GetDouble("--max-angle-deg", options.association.max_angle_deg);
  auto distance = args->GetDouble("--max-distance-m", options.association.max_distance_m);
  auto bins = args->GetDoubleList("--distance-bins", options.distance_edges_m);
  auto min_range = args->GetDouble("--min-range-m", 0);
  auto margin = args->GetDouble("--roi-margin-m", 0.05);
  auto beams = args->GetUIntIn("--beams-per-frame", 0, 0, kMaxBeamsPerFrame);
  for (const Status& s : {angle.status(), distance.status(), bins.status(), min_range.status(),
                          margin.status(), beams.status()})
    if (!s.ok()) return fail(s.message(), 2);
  options.beams_per_frame = *beams;
  options.association.method = *method;
  options.association.max_angle_deg = *angle;
  options.association.max_distance_m = *distance;
  options.distance_edges_m = *bins;
  options.min_range_m = *min_range;
  // Every numeric option against its documented range before any file is read, named by its
  // flag (the rules are the options' own Check()).
  if (Status s = compare::CheckRoiMargin(*margin); !s.ok())
    return fail("option --roi-margin-m: " + s.message(), 2);
  ConfigCheck check;
  options.Check(check);
  if (!check.ok())
    return fail(fmt::format("option {}: {}", FlagOfKey(check.problem()->key_path),
                            check.problem()->problem),
                2);

  const auto start = std::chrono::steady_clock::now();
  if (args->Has("--scene")) {
    auto scene = LoadScene(args->Get("--scene"), BuiltInMeshLoader());
    if (!scene.ok()) return fail("error: " + scene.message(), 1);
    for (const auto& m : scene->materials.materials)
      options.material_names.push_back(m.name);
    if (!args->Has("--rois")) options.targets = compare::TargetsFromScene(*scene, *margin);
  }
  if (args->Has("--rois")) {
    auto targets = compare::LoadTargets(args->Get("--rois"));
    if (!targets.ok()) return fail("error: " + targets.message(), 1);
    options.targets = std::move(*targets);
  }

  const std::string real_file = args->Get("--real"), sim_file = args->Get("--sim");
  RecordingOptions real_options;
  real_options.format = args->Get("--real-format");
  auto real = ReadRecording(
      real_file, args->Get("--real-metadata", args->Get("--real-calibration")), real_options);
  if (!real.ok()) return fail("error: " + real.message(), 1);
  auto sim = ReadRecording(sim_file, "");
  if (!sim.ok()) return fail("error: " + sim.message(), 1);
  for (const Recording* r : {&real.value(), &sim.value()}) {
    for (const std::string& note : r->notes)  // skipped or dropped packets, warnings
      fmt::print(stderr, "lidartwin compare: {}\n", note);
  }
  auto real_frames = SelectFrames(std::move(real->frames), *args, "--real-frames", real_file);
  auto sim_frames = SelectFrames(std::move(sim->frames), *args, "--sim-frames", sim_file);
  if (!real_frames.ok()) return fail(real_frames.message(), 2);
  if (!sim_frames.ok()) return fail(sim_frames.message(), 2);
  if (sim->has_source && !sim->source.sensor_profile_yaml.empty()) {
    auto profile = ParseSensorProfile(sim->source.sensor_profile_yaml, sim_file + " (its profile)");
    if (profile.ok() && !args->Has("--beams-per-frame")) {
      options.beams_per_frame = profile->BeamCount();
    } else if (profile.ok() && options.beams_per_frame != profile->BeamCount()) {
      fmt::print(stderr,
                 "lidartwin compare: warning: --beams-per-frame {} differs from the {} beams "
                 "per frame of {}'s sensor profile; the drop accuracy counts the former\n",
                 options.beams_per_frame, profile->BeamCount(), sim_file);
    }
  }

  Progress progress("compare", real_frames->size());
  auto metrics = compare::Compare(*real_frames, *sim_frames, options,
                                  [&](size_t done, size_t) { progress.Step(done, "frame pairs"); });
  progress.Finish();
  if (!metrics.ok()) return fail("error: " + metrics.message(), 1);
  if (metrics->real_points == 0 && metrics->sim_points == 0) {  // agreement of nothing
    return fail(fmt::format("error: nothing to compare: no real or simulated point is left "
                            "(beyond --min-range-m {} m, in the frames chosen); nothing written",
                            options.min_range_m),
                1);
  }
  metrics->real_file = real_file;
  metrics->sim_file = sim_file;
  metrics->label = args->Get("--label", std::filesystem::path(sim_file).stem().string());
  const std::string out = args->Get("--out");
  if (Status s = WriteTextFileAtomically(out, compare::MetricsToJson(*metrics)); !s.ok())
    return fail("error: " + s.message(), 1);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // A warning, not an error: the rest of the cloud is still worth comparing, but the user
  // must learn that points were left out.
  for (const auto& [count, file] : {std::pair{metrics->real_non_finite, real_file},
                                    std::pair{metrics->sim_non_finite, sim_file}})
    if (count > 0)
      fmt::print(stderr,
                 "lidartwin compare: warning: {}: {} point(s) with a non-finite x, y, z, range or "
                 "intensity left out (counted in {} as non_finite_points)\n",
                 file, count, out);
  const auto summary = compare::Summarize({*metrics});
  fmt::print("compared {} frame(s): {} real and {} simulated points, {} pairs by {}\n",
             metrics->frames, metrics->real_points, metrics->sim_points, metrics->returns.both,
             metrics->association);
  for (const auto& info : compare::SummaryMetrics()) {
    auto it = summary.find(info.name);
    if (it != summary.end())
      fmt::print("  {:<24} {:>12.6g}  {}\n", info.name, it->second, info.description);
  }
  for (const std::string& note : compare::TargetNotes(*metrics))
    fmt::print("  {}\n", note);
  fmt::print("wrote {} in {:.2f} s (reading, comparing and writing)\n", out, seconds);
  return 0;
}

}  // namespace lt::cli
