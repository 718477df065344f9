// lidartwin compare: associate a real and a simulated recording, compute the fidelity metrics
// (compare/metrics.h) and write metrics.json.
#include <fmt/core.h>

#include "args.h"
#include "built_in.h"
#include "commands.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/datasets/recording.h"

namespace lt::cli {
namespace {

constexpr const char* kUsage =
    "usage: lidartwin compare --real REC --sim REC --out metrics.json\n"
    "         [--real-metadata M.json | --real-calibration C.yaml]  sidecar of a real pcap\n"
    "         [--real-frames I,J,..] [--sim-frames I,J,..]  frames to pair, in order\n"
    "         [--rois targets.yaml] [--scene scene.yaml [--roi-margin-m 0.05]]\n"
    "         [--associate auto|beam|angular|nearest3d] [--max-angle-deg 0.7]\n"
    "         [--max-distance-m 0.5] [--distance-bins 0,2.5,5,..] [--min-range-m 0]\n"
    "         [--label NAME]\n"
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

}  // namespace

int CompareCommand(const std::vector<std::string>& argv) {
  const ArgSpec spec{
      {"--real", "--sim", "--out", "--real-metadata", "--real-calibration", "--real-frames",
       "--sim-frames", "--rois", "--scene", "--roi-margin-m", "--associate", "--max-angle-deg",
       "--max-distance-m", "--distance-bins", "--min-range-m", "--label"},
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
  auto angle = args->GetDouble("--max-angle-deg", options.association.max_angle_deg);
  auto distance = args->GetDouble("--max-distance-m", options.association.max_distance_m);
  auto bins = args->GetDoubleList("--distance-bins", options.distance_edges_m);
  auto min_range = args->GetDouble("--min-range-m", 0);
  auto margin = args->GetDouble("--roi-margin-m", 0.05);
  for (const Status& s : {method.status(), angle.status(), distance.status(), bins.status(),
                          min_range.status(), margin.status()})
    if (!s.ok()) return fail(s.message(), 2);
  options.association.method = *method;
  options.association.max_angle_deg = *angle;
  options.association.max_distance_m = *distance;
  options.distance_edges_m = *bins;
  options.min_range_m = *min_range;

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
  auto real =
      ReadRecording(real_file, args->Get("--real-metadata", args->Get("--real-calibration")));
  if (!real.ok()) return fail("error: " + real.message(), 1);
  auto sim = ReadRecording(sim_file, "");
  if (!sim.ok()) return fail("error: " + sim.message(), 1);
  auto real_frames = SelectFrames(std::move(real->frames), *args, "--real-frames", real_file);
  auto sim_frames = SelectFrames(std::move(sim->frames), *args, "--sim-frames", sim_file);
  if (!real_frames.ok()) return fail(real_frames.message(), 2);
  if (!sim_frames.ok()) return fail(sim_frames.message(), 2);

  auto metrics = compare::Compare(*real_frames, *sim_frames, options);
  if (!metrics.ok()) return fail("error: " + metrics.message(), 1);
  metrics->real_file = real_file;
  metrics->sim_file = sim_file;
  metrics->label = args->Get("--label", std::filesystem::path(sim_file).stem().string());
  if (Status s = WriteTextFileAtomically(args->Get("--out"), compare::MetricsToJson(*metrics));
      !s.ok())
    return fail("error: " + s.message(), 1);

  const auto summary = compare::Summarize({*metrics});
  fmt::print("compared {} frame(s): {} real and {} simulated points, {} pairs by {}\n",
             metrics->frames, metrics->real_points, metrics->sim_points, metrics->returns.both,
             metrics->association);
  for (const auto& info : compare::SummaryMetrics()) {
    auto it = summary.find(info.name);
    if (it != summary.end())
      fmt::print("  {:<24} {:>12.6g}  {}\n", info.name, it->second, info.description);
  }
  fmt::print("wrote {}\n", args->Get("--out"));
  return 0;
}

}  // namespace lt::cli
