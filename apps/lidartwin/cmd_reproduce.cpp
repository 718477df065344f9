// lidartwin reproduce: the real-vs-sim loop on one recording (issue 12). Import the sensor from
// its metadata; learn its intensity reading and detection bound from the reconstruction
// frames; reconstruct the scene from those frames; simulate the held-out frame from its poses;
// compare it with the recorded frame, and the recorded frame with its real neighbour (the
// floor a simulation can reach); report.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "args.h"
#include "built_in.h"
#include "commands.h"
#include "lidartwin/compare/comparison_loader.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/datasets/frame_output.h"
#include "lidartwin/datasets/hdf5_frames.h"
#if LT_WITH_VIEWER
#include "lidartwin/viewer/report_viewers.h"
#endif
#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/datasets/interrupt_cleanup.h"
#include "lidartwin/datasets/output_set.h"
#include "lidartwin/datasets/sensor_import.h"
#include "lidartwin/reconstruct/recording_sensor_fit.h"
#include "lidartwin/reports/report.h"
#include "lidartwin/sim/trajectory.h"
#include "posed_recording.h"

namespace lt::cli {
namespace {

// What a run writes into --out, replaced as one set (output_set.h).
constexpr const char* kOutputFiles[] = {"sensor.yaml", "trajectory.yaml", "sim.h5", "metrics.json",
                                        "floor_metrics.json"};
constexpr const char* kOutputFolders[] = {"scene", "report"};
const std::string kStagePrefix = ".reproduce.tmp-";

// The staging folder, created registered for removal on an interrupt
// (CreateRegisteredDirectory); removed when the run ends (after its contents moved into place,
// or not).
// An --out folder this run made goes with it when nothing was moved into it (issue 36: a failed
// run left an empty folder); remove() leaves a folder that holds anything.
struct StagingFolder {
  std::filesystem::path dir;
  std::filesystem::path made_out;  // empty: --out was there before
  StagingFolder(std::filesystem::path d, std::filesystem::path m)
      : dir(std::move(d)), made_out(std::move(m)) {}
  ~StagingFolder() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    UnregisterTemporaryPath(dir);
    if (!made_out.empty()) std::filesystem::remove(made_out, ec);
  }
};

// Compare, with the drop accuracy where the beams can be counted: a frame whose columns do not
// number the same azimuths as the sensor's (a partial revolution starting mid-turn) returns
// more beams than it has, and then the comparison goes on without it, saying so.
Expected<compare::ComparisonMetrics> CompareWithDropAccuracy(const std::vector<Frame>& real,
                                                             const std::vector<Frame>& sim,
                                                             compare::CompareOptions co,
                                                             const std::string& what) {
  auto m = compare::Compare(real, sim, co);
  if (m.ok() || co.beams_per_frame == 0 ||
      m.message().find("beams per frame given for the drop accuracy") == std::string::npos)
    return m;
  fmt::print(stderr, "lidartwin reproduce: warning: {}no drop accuracy: {}\n",
             what.empty() ? "" : what + ": ", m.message());
  co.beams_per_frame = 0;
  return compare::Compare(real, sim, co);
}

// Replaces an .h5 file's frames, keeping its description (frame_output.h: atomically).
Status RewriteFrames(const std::filesystem::path& file, const std::vector<Frame>& frames) {
  auto summary = ReadHdf5Summary(file);
  if (!summary.ok()) return summary.error();
  auto output = FrameOutput::Open(file, summary->info);
  if (!output.ok()) return output.error();
  for (const Frame& f : frames)
    if (Status s = output->Write(f); !s.ok()) return s;
  return output->Close();
}

int Fail(const std::string& message, int code) {
  fmt::print(stderr, "lidartwin reproduce: {}\n", message);
  return code;
}

// The recording reports raw intensity (Velodyne, a legacy Ouster without calibrated
// reflectivity: values above 255, docs/calibration.md) rather than reflectivity in percent.
bool ReportsRawIntensity(const PosedRecording& rec, const std::vector<Frame>& frames) {
  if (rec.reader != "ouster-pcap") return true;
  for (const Frame& f : frames)
    for (float i : f.intensity)
      if (i > 255) return true;
  return false;
}

// The headline numbers of the simulation and of the real-vs-real floor side by side.
void PrintSideBySide(const compare::ComparisonMetrics& sim, const compare::ComparisonMetrics* floor,
                     const std::string& floor_label) {
  const auto a = compare::Summarize({sim});
  const auto b = floor ? compare::Summarize({*floor}) : std::map<std::string, double>{};
  fmt::print("  {:<20} {:>12} {:>14}\n", "metric", "simulated", floor ? floor_label : "");
  for (const char* k : {"return_agreement", "drop_accuracy", "depth_abs_median_m",
                        "depth_abs_p90_m", "depth_abs_mean_m", "depth_bias_m", "chamfer_m",
                        "fscore_5cm", "fscore_10cm", "intensity_abs_mean"}) {
    const auto x = a.find(k), y = b.find(k);
    if (x == a.end()) continue;
    fmt::print("  {:<20} {:>12.4g} {:>14}\n", k, x->second,
               y == b.end() ? "" : fmt::format("{:.4g}", y->second));
  }
}

}  // namespace

int ReproduceCommand(const std::vector<std::string>& argv) {
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
  auto args = Args::Parse(argv, {{"--recording", "--metadata", "--calibration", "--simulate-frame",
                                  "--reconstruct-frames", "--poses", "--pose-at",
                                  "--rotation-rate-hz", "--detector", "--intensity", "--method",
                                  "--depth", "--voxel-m", "--max-range-m", "--seed", "--out"},
                                 {"--help", "--static"},
                                 0});
  if (!args.ok()) return Fail(args.message() + "\n" + kUsage, 2);
  if (args->Has("--static") && args->Has("--poses"))
    return Fail("give --poses or --static, not both", 2);
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
  const std::string detector = args->Get("--detector", "recording");
  const std::string intensity = args->Get("--intensity", "auto");
  if (detector != "recording" && detector != "capability" && detector != "ideal")
    return Fail("option --detector: '" + detector + "' (expected recording, capability or ideal)",
                2);
  if (intensity != "auto" && intensity != "reflectivity" && intensity != "raw")
    return Fail("option --intensity: '" + intensity + "' (expected auto, reflectivity or raw)", 2);
  ReconstructOptions ro;
  ro.method = args->Get("--method", ro.method);
  ro.poisson_depth = static_cast<int>(std::min<uint64_t>(*depth, 1000));
  ro.voxel_m = *voxel;
  ro.max_range_m = *range;
  if (Status s = ro.Validate(); !s.ok()) return Fail(s.message(), 2);
  auto pose_fraction = PoseFractionOf(args->Get("--pose-at", "start"));
  if (!pose_fraction.ok()) return Fail(pose_fraction.message(), 2);
  if (args->Has("--pose-at") && !args->Has("--poses"))
    return Fail("--pose-at says when the poses of --poses hold; give it with --poses", 2);
  if (*rate != 0 && !(*rate >= kMinRotationRateHz && *rate <= kMaxRotationRateHz))
    return Fail(fmt::format("option --rotation-rate-hz: must be 0 (the metadata's, or measured "
                            "from a Velodyne capture) or in {:g}..{:g} Hz, got {}",
                            kMinRotationRateHz, kMaxRotationRateHz, NumberText(*rate)),
                2);
  const std::filesystem::path out = args->Get("--out");
  const std::string metadata = args->Get("--metadata", args->Get("--calibration"));
  const auto start = std::chrono::steady_clock::now();

  // 1. The recording with its poses, the held-out frame and the reconstruction frames.
  auto rec = LoadPosedRecording(args->Get("--recording"), metadata, args->Get("--poses"), "",
                                *pose_fraction);
  if (!rec.ok()) return Fail("error: " + rec.message(), 1);
  if (rec->frames.size() < 2)
    return Fail(fmt::format("error: {} has {} frame(s); reproducing one needs at least one "
                            "other to reconstruct the scene from",
                            args->Get("--recording"), rec->frames.size()),
                1);
  if (*held_out >= rec->frames.size())
    return Fail(fmt::format("--simulate-frame {}: the recording has {} frames (0..{})", *held_out,
                            rec->frames.size(), rec->frames.size() - 1),
                2);
  std::vector<double> list = *rebuild;
  if (list.empty())
    for (size_t k = 0; k < rec->frames.size(); ++k)
      if (k != *held_out) list.push_back(static_cast<double>(k));
  for (double v : list)
    if (v == static_cast<double>(*held_out))
      return Fail("the simulated frame must not be among the reconstruction frames", 2);
  if (!args->Has("--poses") && !args->Has("--static") && !rec->poses_from_recording) {
    const auto [lo, hi] = std::minmax_element(list.begin(), list.end());
    if (*hi >= static_cast<double>(rec->frames.size()) || *lo < 0)
      return Fail(fmt::format("--reconstruct-frames: the recording has frames 0..{}",
                              rec->frames.size() - 1),
                  2);
    const size_t first = static_cast<size_t>(std::min<double>(*lo, *held_out));
    const size_t last = static_cast<size_t>(std::max<double>(*hi, *held_out));
    auto report = EstimateRecordingPoses(*rec, first, last);
    if (!report.ok()) return Fail("error: " + report.message(), 1);
    fmt::print("{}", *report);
  }
  // Everything is written into a staging folder inside --out and moved into place as one set
  // at the end: a failure or an interruption leaves the earlier run's outputs, whole.
  std::error_code ec;
  const bool out_existed = std::filesystem::exists(out, ec);
  std::filesystem::create_directories(out, ec);
  if (ec) return Fail(fmt::format("error: cannot create {}: {}", out.string(), ec.message()), 1);
  for (const char* file : kOutputFiles)
    if (Status s = CheckOutputTarget(out / file); !s.ok()) return Fail("error: " + s.message(), 1);
  for (const char* folder : kOutputFolders)
    if (std::filesystem::exists(out / folder) && !std::filesystem::is_directory(out / folder))
      return Fail(fmt::format("error: {}: exists and is not a folder", (out / folder).string()), 1);
  RemoveLeftoversOfDeadProcesses(out, kStagePrefix);
  const std::filesystem::path stage = out / (kStagePrefix + std::to_string(::getpid()));
  std::filesystem::remove_all(stage, ec);
  if (Status s = CreateRegisteredDirectory(stage); !s.ok()) return Fail("error: " + s.message(), 1);
  const StagingFolder staging(stage, out_existed ? std::filesystem::path() : out);

  // 2. The sensor, from the unit's own intrinsics.
  SensorImportOptions import;
  import.rotation_rate_hz = *rate;
  if (*rate == 0 && rec->reader == "velodyne-pcap") {
    const double measured = MeasuredRotationRateHz(rec->frames);
    if (measured >= kMinRotationRateHz && measured <= kMaxRotationRateHz) {
      import.rotation_rate_hz = measured;
      fmt::print(
          "rotation rate: {:.3f} Hz, from the capture's frame durations "
          "(--rotation-rate-hz sets it)\n",
          measured);
    }
  }
  import.detector = detector == "ideal" ? "ideal" : "capability";
  auto yaml = ImportSensorProfile(metadata, import);
  if (!yaml.ok()) return Fail("error: " + yaml.message(), 1);
  auto profile = ParseSensorProfile(*yaml, stage / "sensor.yaml");
  if (!profile.ok()) return Fail("error: " + profile.message(), 1);
  auto input = PickFrames(*rec, list, profile->SpinningView().columns);
  if (!input.ok()) return Fail(input.message(), 2);

  // 3. What the reconstruction frames say about the sensor: its intensity reading and, for
  // the recording detector, the weakest return it kept.
  RecordingFitOptions fit;
  fit.min_range_m = ro.min_range_m;
  fit.max_range_m = ro.max_range_m;
  const bool raw =
      intensity == "raw" || (intensity == "auto" && ReportsRawIntensity(*rec, input->frames));
  if (raw) {
    auto reading = FitRawIntensityReading(input->frames, fit);
    if (!reading.ok()) return Fail("error: " + reading.message(), 1);
    ro.reading = *reading;
    fmt::print(
        "intensity: raw, range gain fitted on the reconstruction frames ({} bins, {:.4g} "
        "at {:.3g} m to {:.4g} at {:.3g} m)\n",
        ro.reading.gain.size(), ro.reading.gain.front(), ro.reading.gain_range_m.front(),
        ro.reading.gain.back(), ro.reading.gain_range_m.back());
  } else {
    fmt::print("intensity: calibrated reflectivity in percent (R0 cos theta)\n");
  }
  std::string profile_note = "Imported by `lidartwin reproduce` from " + metadata + ".";
  if (detector == "recording") {
    auto envelope = FitDetectionEnvelope(input->frames, ro.reading, fit);
    if (!envelope.ok()) return Fail("error: " + envelope.message(), 1);
    const double d_max = profile->detector.max_range_m;
    profile->detector.reflectance_at_max_range = std::min(1.0, *envelope * d_max);
    profile_note += fmt::format(
        "\nDetector bound from the reconstruction frames: R / d >= {:.4g} /m (the {:g} "
        "quantile of the returns' apparent reflectance over range).",
        *envelope, fit.envelope_quantile);
    fmt::print("detector: capability, R_L,max {:.4g} at {:g} m from the weakest returns\n",
               profile->detector.reflectance_at_max_range, d_max);
  }
  if (Status s = profile->Validate(); !s.ok()) return Fail("error: " + s.message(), 1);
  if (Status s =
          WriteTextFileAtomically(stage / "sensor.yaml", SaveSensorProfile(*profile, profile_note));
      !s.ok())
    return Fail("error: " + s.message(), 1);

  // 4. The scene from the other frames.
  auto built = Reconstruct(*input, ro, stage / "scene");
  if (!built.ok()) return Fail("error: " + built.message(), 1);
  fmt::print(
      "reconstructed from {} frame(s) by {}: {} triangles ({} carved), {} reflectance "
      "classes\n",
      list.size(), ro.method, built->triangles, built->carved_triangles,
      built->reflectance_classes.size());

  // 5. Simulate the held-out frame from its start and end poses.
  Trajectory trajectory;
  trajectory.time_s = {0, profile->FramePeriodS()};
  trajectory.poses = {rec->start_poses[*held_out], rec->end_poses[*held_out]};
  const std::string header =
      fmt::format("Frame {} of the recording: its start and end poses.", *held_out);
  if (Status s =
          WriteTextFileAtomically(stage / "trajectory.yaml", SaveTrajectory(trajectory, header));
      !s.ok())
    return Fail("error: " + s.message(), 1);
  SimulationJob job;
  job.sensor = stage / "sensor.yaml";
  job.scene = stage / "scene/scene.yaml";
  job.trajectory = stage / "trajectory.yaml";
  job.seed = *seed;
  job.out = stage / "sim.h5";
  auto sim = RunSimulationJob(job);
  if (!sim.ok()) return Fail("error: " + sim.message(), 1);
  // A raw-intensity sensor: the simulated intensity (100 R0 cos theta) in its units,
  // I = G(R) R0 cos theta, through the gain fitted above.
  if (raw) {
    for (Frame& f : sim->frames)
      for (size_t i = 0; i < f.size(); ++i)
        f.intensity[i] =
            static_cast<float>(ro.reading.GainAt(f.range_m[i]) * f.intensity[i] / 100.0);
    // sim.h5 holds what is compared (the viewer and report read it again): rewritten in the
    // sensor's units.
    if (Status s = RewriteFrames(job.out, sim->frames); !s.ok())
      return Fail("error: " + s.message(), 1);
  }

  // 6. Compare with the recorded frame, and the recorded frame with its real neighbour.
  compare::CompareOptions co;
  co.min_range_m = ro.min_range_m;  // the reconstruction ignores what is nearer
  co.beams_per_frame = profile->BeamCount();
  auto scene = LoadScene(stage / "scene/scene.yaml", BuiltInMeshLoader());
  if (!scene.ok()) return Fail("error: " + scene.message(), 1);
  for (const auto& m : scene->materials.materials)
    co.material_names.push_back(m.name);
  auto metrics = CompareWithDropAccuracy({rec->frames[*held_out]}, sim->frames, co, "");
  if (!metrics.ok()) return Fail("error: " + metrics.message(), 1);
  const std::string name = std::filesystem::path(args->Get("--recording")).filename().string();
  metrics->label = fmt::format("{} frame {}", name, *held_out);
  metrics->real_file = name;
  metrics->sim_file = "sim.h5";
  // What report needs to read the frames again for its viewer (issue 13): stamped on the
  // staged files, which move into DIR unchanged.
  compare::CompareInputs inputs;
  inputs.real_file = args->Get("--recording");
  inputs.real_sidecar = metadata;
  inputs.real_frames = {static_cast<uint32_t>(*held_out)};
  inputs.sim_file = (stage / "sim.h5").string();
  inputs.scene_file = (stage / "scene/scene.yaml").string();
  inputs.min_range_m = co.min_range_m;
  inputs.scene_targets = false;  // the scene names the materials; reproduce compares no targets
  compare::StampInputs(inputs);
  metrics->inputs = inputs;
  for (const char* file : {"sim.h5", "scene/scene.yaml"})
    metrics->inputs->Relocate(compare::AbsolutePath((stage / file).string()),
                              compare::AbsolutePath((out / file).string()));
  // The floor's neighbour: the reconstruction frame nearest the held-out one (the later on a
  // tie), so a partial revolution at the capture's end is not it unless it was chosen.
  size_t neighbour = static_cast<size_t>(list.front());
  for (double v : list) {
    const auto k = static_cast<size_t>(v);
    const auto gap = [&](size_t j) { return j > *held_out ? j - *held_out : *held_out - j; };
    if (gap(k) < gap(neighbour) || (gap(k) == gap(neighbour) && k > neighbour)) neighbour = k;
  }
  co.material_names.clear();
  auto floor =
      CompareWithDropAccuracy({rec->frames[*held_out]}, {rec->frames[neighbour]}, co, "the floor");
  if (!floor.ok()) return Fail("error: the real-vs-real floor: " + floor.message(), 1);
  floor->label = fmt::format("{} frame {} against real frame {}", name, *held_out, neighbour);
  floor->real_file = floor->sim_file = name;
  Status s = WriteTextFileAtomically(stage / "metrics.json", compare::MetricsToJson(*metrics));
  if (s.ok())
    s = WriteTextFileAtomically(stage / "floor_metrics.json", compare::MetricsToJson(*floor));
  if (s.ok()) {
    reports::Report report = reports::BuildReport({*metrics});
#if LT_WITH_VIEWER
    // The viewer reads the staged files; metrics.json names where they will be.
    report.runs[0].inputs = inputs;
    viewer::AttachViewers(report, 1, BuiltInMeshLoader());
    if (!report.run_viewer_notes[0].empty())
      fmt::print(stderr, "lidartwin reproduce: warning: no viewer in the report: {}\n",
                 report.run_viewer_notes[0]);
#endif
    s = reports::WriteReport(report, stage / "report");
  }
  if (s.ok()) {
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> moves;
    for (const char* file : kOutputFiles)
      moves.emplace_back(stage / file, out / file);
    for (const char* folder : kOutputFolders)
      moves.emplace_back(stage / folder, out / folder);
    s = CommitOutputSet(moves);
  }
  if (!s.ok()) return Fail("error: " + s.message(), 1);
  fmt::print("frame {}: {} real and {} simulated points, {} pairs by {}\n", *held_out,
             metrics->real_points, metrics->sim_points, metrics->returns.both,
             metrics->association);
  PrintSideBySide(*metrics, &*floor, fmt::format("real frame {}", neighbour));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("wrote {}, {} and {} in {:.1f} s\n", (out / "metrics.json").string(),
             (out / "floor_metrics.json").string(), (out / "report").string(), seconds);
  return 0;
}

}  // namespace lt::cli
