// The real-vs-sim loop on one recording (issue 12); see reproduce.h.
#include "lidartwin/jobs/reproduce.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <numbers>

#include "column_phase.h"
#include "compared_returns.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/beside_this_thread.h"
#include "lidartwin/base/interrupt_cleanup.h"
#include "lidartwin/base/order_statistics.h"
#include "lidartwin/base/output_set.h"
#include "lidartwin/compare/comparison_loader.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/compare/nearest_neighbour.h"
#include "lidartwin/compare/tail_attribution.h"
#include "lidartwin/datasets/frame_output.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/datasets/ros_bag.h"
#include "lidartwin/datasets/sensor_import.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/reconstruct/beam_intensity_fit.h"
#include "lidartwin/reconstruct/frame_registration.h"
#include "lidartwin/reconstruct/intensity_neighbourhood.h"
#include "lidartwin/reconstruct/mesh_caster.h"
#include "lidartwin/reconstruct/posed_recording.h"
#include "lidartwin/reconstruct/range_image_mesh.h"
#include "lidartwin/reconstruct/ray_drop_fit.h"
#include "lidartwin/reconstruct/recording_sensor_fit.h"
#include "lidartwin/reconstruct/surface_registration.h"
#include "lidartwin/reports/report.h"
#include "lidartwin/sim/material_library.h"
#include "lidartwin/sim/ray_caster.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/trajectory.h"
#include "recording_checks.h"
#include "sensor_subset.h"
#if LT_WITH_VIEWER
#include "lidartwin/viewer/report_viewers.h"
#endif

namespace lt::jobs {
namespace {

// A recording that may carry its sensor's intrinsics: an OSF file, a bag (an Ouster bag's
// metadata topic, a RoboSense unit's DIFOP packets), a pcap (a RoboSense Helios's DIFOP), a
// folder of scans (measured from its points). The import says what one of them lacks.
bool DescribesItsSensor(const std::string& recording) {
  const std::filesystem::path p(recording);
  std::error_code ec;
  const std::string ext = p.extension().string();
  return ext == ".osf" || ext == ".pcap" || ext == ".pcapng" || LooksLikeRosBag(p) ||
         std::filesystem::is_directory(p, ec);
}

// Where the sensor's intrinsics come from: the sidecar, or the recording's own (an OSF file's
// or an Ouster bag's metadata, a RoboSense Helios's DIFOP packets, a folder of scans' points);
// the import says what a recording without them needs.
std::string ProfileSource(const ReproduceOptions& o) {
  return o.sidecar.empty() ? o.recording : o.sidecar;
}

// A given profile simulates the recording's sensor: a spinning scan with at least as many
// channels as the recording numbers (its columns may differ: a Velodyne's firings a revolution
// follow its rotation rate).
Status FitsTheRecording(const SensorProfile& p, const PosedRecording& rec,
                        const std::string& file) {
  if (p.scan != ScanKind::kSpinning)
    return OptionError("sensor", "sensor " + file + ": not a spinning scan; the recording is");
  uint32_t channels = 0;
  for (const Frame& f : rec.frames) {
    for (uint16_t c : f.channel)
      channels = std::max<uint32_t>(channels, c + 1u);
  }
  const uint32_t has = static_cast<uint32_t>(p.elevation_rad.size());
  if (channels > has)
    return OptionError("sensor", "sensor " + file + ": " + std::to_string(has) +
                                     " channels, the recording numbers " +
                                     std::to_string(channels));
  return {};
}

const std::string kStagePrefix = ".reproduce.tmp-";

// The staging folder, created registered for removal on an interrupt
// (CreateRegisteredDirectory); removed when the run ends (after its contents moved into place,
// or not). An `out` folder this run made goes with it when nothing was moved into it (issue 36:
// a failed run left an empty folder); remove() leaves a folder that holds anything.
struct StagingFolder {
  // Declared first, so removed last: after the staging folder, which may be inside it.
  struct RemovedIfEmpty {
    std::filesystem::path dir;  // empty: `out` was there before
    ~RemovedIfEmpty() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove(dir, ec);
    }
  } made_out;
  RegisteredFolderRemover stage;
};

// Compare, with the drop accuracy where the beams can be counted: a frame whose columns do not
// number the same azimuths as the sensor's (a partial revolution starting mid-turn) returns
// more beams than it has, and then the comparison goes on without it, saying so.
Expected<compare::ComparisonMetrics> CompareWithDropAccuracy(
    const std::vector<Frame>& real, const std::vector<Frame>& sim, compare::CompareOptions co,
    const std::string& what, const JobLog& log, const compare::PairingSink& pairs = {}) {
  auto m = compare::Compare(real, sim, co, {}, pairs);
  if (m.ok() || co.beams_per_frame == 0 ||
      m.message().find("beams per frame given for the drop accuracy") == std::string::npos)
    return m;
  log.Warn((what.empty() ? "" : what + ": ") + "no drop accuracy: " + m.message());
  co.beams_per_frame = 0;
  return compare::Compare(real, sim, co, {}, pairs);
}

// Whether a held-out return lies farther than kUnseenM from every return of the reconstruction
// frames, in the world (a moving object, or what they did not see): the tail attribution's
// "unseen" (compare/tail_attribution.h).
constexpr double kUnseenM = 0.5;
class SeenByTheReconstruction {
 public:
  explicit SeenByTheReconstruction(const PosedFrames& input) : index_(WorldPoints(input)) {}
  // held: the held-out frame's usable returns with its poses.
  std::function<bool(uint32_t)> Unseen(const PosedFrames& held) const {
    return [this, &held](uint32_t i) {
      const Frame& f = held.frames[0];
      const auto w = physics::TransformPoint(PoseOfPoint(held, 0, i),
                                             physics::Vec3<double>{f.x_m[i], f.y_m[i], f.z_m[i]});
      double d2 = INFINITY;
      return index_.Nearest({w.x, w.y, w.z}, &d2) < 0 || d2 > kUnseenM * kUnseenM;
    };
  }

 private:
  static std::vector<std::array<double, 3>> WorldPoints(const PosedFrames& input) {
    std::vector<std::array<double, 3>> out;
    for (size_t k = 0; k < input.frames.size(); ++k) {
      const Frame& f = input.frames[k];
      for (size_t i = 0; i < f.size(); ++i) {
        const auto w = physics::TransformPoint(PoseOfPoint(input, k, i),
                                               physics::Vec3<double>{f.x_m[i], f.y_m[i], f.z_m[i]});
        if (std::isfinite(w.x) && std::isfinite(w.y) && std::isfinite(w.z))
          out.push_back({w.x, w.y, w.z});
      }
    }
    return out;
  }
  compare::NearestNeighbourIndex index_;
};

// The tail's causes as a line of the log.
std::string TailLine(const compare::TailAttribution& t) {
  std::string causes;
  for (const auto& c : t.causes)
    causes += fmt::format("{}{} {:.0f} % ({:.0f} % of all pairs)", causes.empty() ? "" : ", ",
                          c.name, 100 * c.tail_share, 100 * c.all_share);
  return fmt::format("tail: the {} pairs beyond {:.1f} cm (the p90 of {}): {}\n", t.tail,
                     100 * t.threshold_m, t.pairs, causes);
}

// Replaces an .h5 file's frames, keeping its description (frame_output.h: atomically) but for
// the intensity's unit, now `intensity_unit` (empty: kept).
Status RewriteFrames(const std::filesystem::path& file, const std::vector<Frame>& frames,
                     const std::string& intensity_unit) {
  auto summary = ReadHdf5Summary(file);
  if (!summary.ok()) return summary.error();
  if (!intensity_unit.empty()) summary->info.intensity_unit = intensity_unit;
  auto output = FrameOutput::Open(file, summary->info);
  if (!output.ok()) return output.error();
  for (const Frame& f : frames)
    if (Status s = output->Write(f); !s.ok()) return s;
  return output->Close();
}

// The recording reports raw intensity (Ouster's signal photons, Velodyne, every other source)
// rather than Ouster's calibrated reflectivity in percent: its reader says which
// (intensity_unit.h), no longer guessed from values above 255 (the signal photons of a dim
// scene stay below, docs/calibration.md).
bool ReportsRawIntensity(const PosedRecording& rec) {
  return rec.intensity_unit != kIntensityOusterReflectivity;
}

// The headline numbers of the simulation and of the real-vs-real floor side by side.
std::string SideBySide(const compare::ComparisonMetrics& sim,
                       const compare::ComparisonMetrics& floor, const std::string& floor_label) {
  const auto a = compare::Summarize({sim});
  const auto b = compare::Summarize({floor});
  std::string text = fmt::format("  {:<20} {:>12} {:>14}\n", "metric", "simulated", floor_label);
  for (const char* k : {"return_agreement", "drop_accuracy", "depth_abs_median_m",
                        "depth_abs_p90_m", "depth_abs_mean_m", "depth_bias_m", "chamfer_m",
                        "fscore_5cm", "fscore_10cm", "intensity_abs_mean"}) {
    const auto x = a.find(k), y = b.find(k);
    if (x == a.end()) continue;
    text += fmt::format("  {:<20} {:>12.4g} {:>14}\n", k, x->second,
                        y == b.end() ? "" : fmt::format("{:.4g}", y->second));
  }
  return text;
}

// The reconstruction frames: the listed ones, else every frame but the simulated one.
Expected<std::vector<double>> ReconstructionFrames(const ReproduceOptions& o, size_t frame_count) {
  std::vector<double> list = o.reconstruct_frames;
  if (list.empty())
    for (size_t k = 0; k < frame_count; ++k)
      if (k != o.simulate_frame || o.resimulate) list.push_back(static_cast<double>(k));
  for (double v : list)
    if (v == static_cast<double>(o.simulate_frame) && !o.resimulate)
      return OptionError(
          "reconstruct_frames",
          "reconstruct_frames: the simulated frame must not be among the reconstruction frames");
  return list;
}

// The reconstruction frame nearest the held-out one (the later on a tie): the floor's
// neighbour, so a partial revolution at the capture's end is not it unless it was chosen.
size_t FloorNeighbour(const std::vector<double>& list, size_t held_out) {
  size_t neighbour = static_cast<size_t>(list.front());
  const auto gap = [&](size_t j) { return j > held_out ? j - held_out : held_out - j; };
  for (double v : list) {
    const auto k = static_cast<size_t>(v);
    if (gap(k) < gap(neighbour) || (gap(k) == gap(neighbour) && k > neighbour)) neighbour = k;
  }
  return neighbour;
}

// `out` made ready for the staged set: created, its targets checked, an earlier run's dead
// staging folders removed; the staging folder made and registered.
Expected<std::filesystem::path> PrepareStage(const std::filesystem::path& out) {
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return Error{fmt::format("cannot create {}: {}", out.string(), ec.message())};
  for (const char* file : kReproduceFiles)
    if (Status s = CheckOutputTarget(out / file); !s.ok()) return s.error();
  for (const char* folder : kReproduceFolders)
    if (std::filesystem::exists(out / folder) && !std::filesystem::is_directory(out / folder))
      return Error{fmt::format("{}: exists and is not a folder", (out / folder).string())};
  RemoveLeftoversOfDeadProcesses(out, kStagePrefix);
  const std::filesystem::path stage = out / (kStagePrefix + std::to_string(::getpid()));
  std::filesystem::remove_all(stage, ec);
  if (Status s = CreateRegisteredDirectory(stage); !s.ok()) return s.error();
  return stage;
}

// The run's state between its steps.
struct Run {
  const ReproduceOptions& o;
  std::filesystem::path stage;
  PosedRecording rec;
  std::vector<double> list;  // the reconstruction frames
  ReconstructOptions ro;
  SensorProfile profile;  // what is simulated: the recording's sensor, or `as_sensor`
  bool raw = false;       // intensities in the sensor's raw units (a fitted range gain)
  // as_sensor: its channel k is the recording's as_channels[k]; empty: another sensor.
  std::vector<uint16_t> as_channels;
  double recorded_period_s = 0;  // a frame of the recording's sensor
  bool threshold_taken = false;  // TakeThresholdDetector chose the threshold detector
};

// A raw sensor's per-laser gains (beam_intensity_fit.h): the given profile's, else fitted on the
// reconstruction frames. Divided out of those frames, so that the surfaces read one reflectance
// whichever laser saw them; the profile's simulator puts them back on the simulated frame.
// Without shared surfaces the run goes on without them, saying so.
void TakeBeamGains(Run& run, std::vector<Frame>& frames) {
  const ReproduceOptions& o = run.o;
  ChannelIntensityGains& gains = run.profile.intensity_gains;
  if (gains.empty()) {
    auto fitted = FitBeamIntensityGains(frames, run.ro.reading, {});
    if (!fitted.ok()) {
      o.log.Warn("no per-laser intensity gains: " + fitted.message());
      return;
    }
    gains = ProfileGains(*fitted, run.profile.elevation_rad.size(),
                         fmt::format("fitted by `lidartwin reproduce` on {} reconstruction "
                                     "frame(s): {} surfaces seen by two lasers or more",
                                     frames.size(), fitted->cells));
    o.log.Info(
        fmt::format("intensity: per-laser gains fitted on {} shared surfaces\n", fitted->cells));
  } else {
    o.log.Info("intensity: the profile's per-laser gains\n");
  }
  for (Frame& f : frames)
    if (f.channel.size() == f.size() && f.intensity.size() == f.size())
      for (size_t i = 0; i < f.size(); ++i)
        f.intensity[i] = static_cast<float>(f.intensity[i] / gains.At(f.channel[i], f.range_m[i]));
}

// The simulated sensor's scan as the ray-drop fits see it (ray_drop_fit.h): its beams and
// columns, from the recording's beam origins.
RayDropScan ScanOf(const Run& run) {
  RayDropScan scan;
  scan.elevation_rad = run.profile.elevation_rad;
  scan.azimuth_offset_rad = run.profile.azimuth_offset_rad;
  scan.columns = run.profile.columns;
  scan.origins = run.ro.beam_origins;
  return scan;
}

// The recording's ray drop (ray_drop_fit.h), fitted on the reconstruction frames (before their
// per-laser gains are divided out: the table reads intensities as the simulator reports them),
// kept as the most likely decision: a held-out frame is scored return by return. Skipped, saying
// why, where it cannot be fitted (one reconstruction frame, a scan without columns).
void TakeRayDrop(Run& run, const PosedFrames& input) {
  const SensorProfile& p = run.profile;
  if (p.scan != ScanKind::kSpinning || p.columns == 0 || p.detector.kind == DetectorKind::kWaveform)
    return;
  const RayDropScan scan = ScanOf(run);
  RayDropFitOptions fit;
  fit.min_range_m = run.ro.min_range_m;
  fit.max_range_m = run.ro.max_range_m;
  auto drop = FitRayDrop(input, run.ro.reading, scan, fit);
  if (!drop.ok()) {
    run.o.log.Info("ray drop: none (" + drop.message() + ")\n");
    return;
  }
  run.profile.ray_drop = drop->table;
  run.profile.ray_drop.decision = RayDropTable::Decision::kMostLikely;
  run.profile.ray_drop.source = fmt::format(
      "fitted by `lidartwin reproduce` on {} reconstruction frame(s): {} returns of one frame "
      "in another's scan, {} of them dropped there",
      input.frames.size(), drop->total, drop->dropped);
  size_t likely = 0;
  for (double q : drop->table.probability)
    likely += q > 0.5;
  run.o.log.Info(fmt::format(
      "ray drop: {:.1f} % of {} returns of one reconstruction frame dropped in another's scan; "
      "{} of {} (range, reflectance) cells more likely dropped than not\n",
      100.0 * drop->dropped / drop->total, drop->total, likely, drop->table.probability.size()));
}

// The directions the reconstruction frames mostly returned nothing from (ray_drop_fit.h): their
// returns are dropped from the simulated frame. After a `reconstruct_channel_step`, from the
// kept channels only (the others' holes are what the sparser sensor did not see).
void TakeBlockedDirections(Run& run, const std::vector<Frame>& frames) {
  const SensorProfile& p = run.profile;
  if (p.scan != ScanKind::kSpinning || p.columns == 0) return;
  const RayDropScan scan = ScanOf(run);
  auto blocked = FindBlockedDirections(frames, scan, run.ro.min_range_m);
  if (!blocked.ok()) {
    run.o.log.Info("blocked directions: none (" + blocked.message() + ")\n");
    return;
  }
  run.profile.blocked_directions = std::move(blocked->blocked);
  run.profile.blocked_directions.source = fmt::format(
      "found by `lidartwin reproduce` in {} reconstruction frame(s): {} pixels most of them "
      "returned nothing in (the sky among them)",
      frames.size(), blocked->pixels);
  run.o.log.Info(fmt::format(
      "blocked directions: {} pixels ({} azimuth intervals) that most of the {} reconstruction "
      "frames returned nothing in (the sky among them){}\n",
      blocked->pixels, run.profile.blocked_directions.Intervals(), frames.size(),
      blocked->chance_drop_neighbours < 0
          ? ""
          : fmt::format("; a pixel left empty among at most {} empty neighbours of 8 taken as a "
                        "chance drop (learned between the frames)",
                        blocked->chance_drop_neighbours)));
}

// The returns of every `step`-th laser (channels 0, step, 2 step, ..) of a frame: what a sparser
// sensor of those lasers would have recorded. An error where the returns carry no channel.
Expected<Frame> EveryNthChannel(Frame f, uint32_t step) {
  if (step <= 1) return f;
  if (f.channel.size() != f.size())
    return OptionError("reconstruct_channel_step",
                       "reconstruct_channel_step: the recording's returns carry no channel "
                       "(laser) to keep every N-th of");
  std::vector<bool> keep(f.size());
  for (size_t i = 0; i < f.size(); ++i)
    keep[i] = f.channel[i] % step == 0;
  KeepPoints(f, keep);
  return f;
}

// The held-out frame placed in the map of the reconstruction frames (frame_registration.h,
// RegisterToMap), its start and end poses corrected alike: pairwise registration (or a SLAM
// trajectory) leaves it a few centimetres off the scene in places, which the range error then
// measures (OS-1-128 fold 1: the median signed error by sector of 128 columns from -19 to +10 mm
// with ICP poses; docs/validation.md). A correction beyond kMaxPlacementM or kMaxPlacementDeg
// is no refinement and is not taken.
constexpr double kMaxPlacementM = 0.2, kMaxPlacementDeg = 1.0;
// The held-out frame as one posed frame at its poses: after a reconstruct_channel_step, the
// sparser sensor's own returns of it; the recording's columns (run.profile is another
// sensor's after --as).
Expected<PosedFrames> HeldOutScan(const Run& run, const PosedFrames& input) {
  const size_t k = run.o.simulate_frame;
  auto seen = EveryNthChannel(run.rec.frames[k], run.o.reconstruct_channel_step);
  if (!seen.ok()) return seen.error();
  PosedFrames scan;
  scan.frames = {std::move(*seen)};
  scan.start_poses = {run.rec.start_poses[k]};
  scan.end_poses = {run.rec.end_poses[k]};
  scan.columns_per_frame = input.columns_per_frame;
  return scan;
}

void PlaceHeldOutFrame(Run& run, const PosedFrames& input) {
  const size_t k = run.o.simulate_frame;
  auto scan = HeldOutScan(run, input);
  if (!scan.ok()) return;
  RegistrationOptions ro;
  ro.min_range_m = run.ro.min_range_m;
  auto placed = RegisterToMap(*scan, input, ro);
  if (!placed.ok()) {
    run.o.log.Info("held-out pose: as estimated (" + placed.message() + ")\n");
    return;
  }
  const physics::Pose<double>& c = placed->correction;
  // The sensor's own place moved (a turn about the world's origin is no move of it).
  const physics::Vec3<double>& at = run.rec.start_poses[k].translation;
  const physics::Vec3<double> shift = physics::TransformPoint(c, at) - at;
  const double moved_m = std::sqrt(Dot(shift, shift));
  const double turned_deg = TurnedDeg({1, 0, 0, 0}, c.rotation);
  if (!(moved_m <= kMaxPlacementM && turned_deg <= kMaxPlacementDeg)) {
    run.o.log.Info(
        fmt::format("held-out pose: as estimated (placing it in the map would move it "
                    "{:.3f} m and {:.2f} deg)\n",
                    moved_m, turned_deg));
    return;
  }
  run.rec.start_poses[k] = physics::ComposePoses(c, run.rec.start_poses[k]);
  run.rec.end_poses[k] = physics::ComposePoses(c, run.rec.end_poses[k]);
  run.o.log.Info(fmt::format(
      "held-out pose: placed in the reconstruction frames' map (ICP fitness {:.3f}, {:.1f} mm "
      "rms): moved {:.1f} mm and {:.3f} deg\n",
      placed->fitness, placed->inlier_rmse_m * 1e3, moved_m * 1e3, turned_deg));
}

// The held-out frame placed on the reconstructed surface along its own beams
// (surface_registration.h): the comparison measures each beam's range to that surface, and the
// points' planes that ICP fits from rings 1.4 deg apart (a 32-beam subset) left the frame 1-2 cm
// off (docs/validation.md). Only the frame's own (kept) lasers are used. A correction beyond
// kMaxPlacementM or kMaxPlacementDeg is not taken. False: not placed.
bool PlaceHeldOutOnSurface(Run& run, const PosedFrames& input,
                           const ReconstructedSurface& surface) {
  const size_t k = run.o.simulate_frame;
  auto scan = HeldOutScan(run, input);
  if (!scan.ok()) return false;
  const MeshCaster mesh = CasterOfMesh(surface.vertices, surface.triangles);
  if (!mesh.caster) return false;
  SurfaceRegistrationOptions so;
  so.min_range_m = run.ro.min_range_m;
  so.max_range_m = run.ro.max_range_m;
  so.fit_motion = true;
  so.max_move_m = kMaxPlacementM;
  so.max_turn_deg = kMaxPlacementDeg;
  auto placed = RegisterToSurface(*scan, run.ro.beam_origins, *mesh.caster, so);
  if (!placed.ok()) {
    run.o.log.Info("held-out pose: not placed on the surface (" + placed.message() + ")\n");
    return false;
  }
  run.rec.start_poses[k] = physics::ComposePoses(placed->start_correction, run.rec.start_poses[k]);
  run.rec.end_poses[k] = physics::ComposePoses(placed->end_correction, run.rec.end_poses[k]);
  run.o.log.Info(fmt::format(
      "held-out pose: placed on the reconstructed surface along its beams ({} of {} returns "
      "used paired, {:.1f} mm rms, {} iterations): moved {:.1f} mm and {:.3f} deg\n",
      placed->paired, placed->used, placed->rms_m * 1e3, placed->iterations, placed->moved_m * 1e3,
      placed->turned_deg));
  return true;
}

// The reconstruction frames' alignment on each other's surface is bounded more loosely than the
// held-out frame's placement: pairwise ICP leaves the HDL-32E's frames (1.3 m a revolution
// through foliage) up to 0.17 m and 1.06 deg askew of the surface of those before, each placed
// there with the 2 cm RMS of its noise (docs/validation.md); the bound only stops a frame that
// the surface pulls off to another.
constexpr double kMaxAlignmentM = 0.5, kMaxAlignmentDeg = 3.0;
void AlignReconstructionFrames(Run& run, PosedFrames& input) {
  RangeImageMeshOptions mo;
  mo.min_range_m = run.ro.min_range_m;
  mo.max_range_m = run.ro.max_range_m;
  mo.beam_origins = run.ro.beam_origins;
  mo.reflectance_at_vertices = false;  // the same surface in a quarter of the triangles
  SurfaceRegistrationOptions so;
  so.min_range_m = run.ro.min_range_m;
  so.max_range_m = run.ro.max_range_m;
  so.fit_motion = true;
  so.max_move_m = kMaxAlignmentM;
  so.max_turn_deg = kMaxAlignmentDeg;
  const auto aligned = AlignFramesOnSurfaces(input, mo, so);
  for (size_t k = 1; k < aligned.size(); ++k) {
    const auto& a = aligned[k];
    if (!a.registration_error.empty()) {
      run.o.log.Info(fmt::format("frame alignment: {} kept ({})\n", k, a.registration_error));
      continue;
    }
    run.o.log.Info(fmt::format("frame alignment: {} moved {:.1f} mm, {:.3f} deg ({:.1f} mm rms)\n",
                               k, 1e3 * a.registration.moved_m, a.registration.turned_deg,
                               1e3 * a.registration.rms_m));
  }
}

// Each reconstruction frame's intensities read as their ring's medians where those predict
// the next frame's readings of the same places better than the returns' own
// (intensity_neighbourhood.h): the HDL-32E's drive through foliage, not the OS-1-128's
// calibrated reflectivity (docs/validation.md). The held-out frame, the truth, is as read.
void ReadIntensitiesWithTheirNeighbourhood(Run& run, PosedFrames& input) {
  // Where every reconstruction frame was seen from near the simulated one, each return is read
  // back through its own face as the apparent R0 it read (ReadOwnFacesWhereTheSensorBarelyMoved):
  // a median would blur what the held-out beams meet again. The VLS-128 bag's medians of 2
  // places predicted the next frame 6 % better there and simulated it 9 % worse.
  if (run.ro.reading.max_reflectance > 1) return;
  IntensityNeighbourhoodOptions no;
  no.min_range_m = run.ro.min_range_m;
  no.max_range_m = run.ro.max_range_m;
  auto chosen = ChooseIntensityNeighbourhood(input, run.ro.reading, no);
  if (!chosen.ok()) return;  // one frame, or none with intensities: nothing to learn from
  std::string errors;
  for (size_t c = 0; c < chosen->candidates.size(); ++c)
    errors +=
        fmt::format("{}{}: {:.2f}", c ? ", " : "", chosen->candidates[c], chosen->mean_error[c]);
  if (chosen->pairs < no.min_pairs) {
    run.o.log.Info(fmt::format(
        "intensity: each return as read (undecided: {} returns of one frame meet another's "
        "within {:g} m, {} needed)\n",
        chosen->pairs, no.match_radius_m, no.min_pairs));
    return;
  }
  if (chosen->places == 0) {
    run.o.log.Info(fmt::format(
        "intensity: each return as read (the next frame's readings predicted with mean errors "
        "{} by places of ring median, {} pairs)\n",
        errors, chosen->pairs));
    return;
  }
  for (Frame& f : input.frames)
    f.intensity = RingMedianIntensity(f, chosen->places, no.range_share);
  run.o.log.Info(fmt::format(
      "intensity: each return read as its ring's median up to {} places either side (the next "
      "frame's readings predicted with mean errors {} by places, {} pairs)\n",
      chosen->places, errors, chosen->pairs));
}

// A Hesai or RoboSense angle file does not hold its model's horizontal resolution (the import
// assumes 0.2 deg at 10 Hz): the columns a revolution holds measured from the capture instead,
// where they differ by more than 1 % (a PandarQT64's 600, an XT16's 2000).
void TakeMeasuredColumns(Run& run) {
  const std::string& reader = run.rec.reader;
  if (reader.rfind("hesai", 0) != 0 && reader.rfind("robosense", 0) != 0) return;
  const uint32_t measured = MeasuredColumnsPerRevolution(run.rec.frames);
  const uint32_t imported = run.profile.columns;
  if (measured == 0 || std::abs(double(measured) - imported) <= 0.01 * imported) return;
  run.profile.columns = measured;
  run.o.log.Info(fmt::format(
      "columns: {} a revolution, measured from the capture's azimuth steps (the angle file's "
      "import assumed {})\n",
      measured, imported));
}

// The recording's columns are an Ouster's encoder counts: the same column looks the same way in
// every frame.
bool OusterColumns(const PosedRecording& rec) {
  return rec.reader.rfind("ouster", 0) == 0;
}

// Where the held-out revolution's columns point (ColumnPhaseOffset): the profile's start
// azimuth moved to match. Ouster columns are encoder counts: the same column looks the same
// way in every frame, skipped.
void AlignColumnPhase(Run& run, const Frame& held_out) {
  if (OusterColumns(run.rec)) return;
  const auto offset = ColumnPhaseOffset(run.profile, held_out);
  if (!offset) return;
  run.profile.start_azimuth_rad =
      std::remainder(run.profile.start_azimuth_rad + *offset, 2 * physics::kPi);
  run.o.log.Info(
      fmt::format("columns: the held-out frame's column 0 looks {:.3f} deg from the "
                  "profile's; its start azimuth moved to match\n",
                  *offset / physics::kDegToRad));
}

// An imported profile's minimum range is the data sheet's family default (sensor_import.cpp);
// a unit reporting returns nearer than that (a Hesai QT64 down to 0.1 m) gets its range
// lowered to the nearest return of the reconstruction frames, 1 in 10,000 of them so that a
// stray return does not decide it.
void TakeNearestReturn(Run& run, const std::vector<Frame>& frames) {
  std::vector<double> ranges;
  for (const Frame& f : frames)
    for (float r : f.range_m)
      if (r > 0 && std::isfinite(r)) ranges.push_back(r);
  const double nearest = std::floor(QuantileAt(ranges, 1e-4) * 100) / 100;  // cm below
  if (!(nearest > 0 && nearest < run.profile.min_range_m)) return;          // NaN: no returns
  run.o.log.Info(
      fmt::format("minimum range: {:g} m, the nearest returns of the reconstruction "
                  "frames (the import assumed {:g} m)\n",
                  nearest, run.profile.min_range_m));
  run.profile.min_range_m = nearest;
}

// The largest step between consecutive frames' start poses over frames first..last, in metres
// and degrees.
std::pair<double, double> LargestStep(const PosedRecording& rec, size_t first, size_t last) {
  double moved_m = 0, turned_deg = 0;
  for (size_t k = first; k < last; ++k) {
    const auto& a = rec.start_poses[k];
    const auto& b = rec.start_poses[k + 1];
    const physics::Vec3<double> d = b.translation - a.translation;
    moved_m = std::max(moved_m, std::sqrt(Dot(d, d)));
    turned_deg = std::max(turned_deg, TurnedDeg(a.rotation, b.rotation));
  }
  return {moved_m, turned_deg};
}

// A sensor that stood still: no step between its frames beyond ICP's own noise on the nebula
// bags (desk captures: 1-6 mm and 0.02-0.2 deg).
constexpr double kStillM = 0.01, kStillDeg = 0.25;
bool StoodStill(const std::pair<double, double>& step) {
  return step.first < kStillM && step.second < kStillDeg;
}

// ICP's poses of a sensor that stood still are its noise: on the nebula bags static poses
// lowered the intensity error by 10-25 % and held or raised the agreement
// (docs/validation.md). Where every step is that small, the log says so; whether the sensor
// moved is the user's to know.
void SuggestStaticWhereIcpBarelyMoved(const ReproduceOptions& o, const PosedRecording& rec,
                                      size_t first, size_t last) {
  const auto step = LargestStep(rec, first, last);
  if (StoodStill(step))
    o.log.Info(fmt::format(
        "poses: ICP moved the sensor at most {:.1f} mm and {:.2f} deg between frames; if it "
        "stood still, {} gives steadier poses\n",
        step.first * 1000, step.second, o.names("static_sensor")));
}

// Where the simulated viewpoints are near those the reconstruction frames were seen from, the
// readings may hold what holds only from there: a return read through its own face at any
// incidence short of grazing (range_image_mesh.h, own_face_max_incidence_deg), and an apparent
// R0 above 1 (IntensityReading::max_reflectance: glints, paint, grazing faces read brighter than
// a white target). Only the sensor's position changes the incidence on a face, so every
// reconstruction frame must have been seen from near the simulated one. Measured: still
// sensors (the nebula bags) and the OS-1-128 (its frames 0.25-0.5 m from the simulated one)
// read better so (its intensity error 4.29 -> 3.98 with the first, -> 3.77 with both; the XT16
// bag's 2.00 -> 1.55 with the second), the HDL-32E (1.3-4 m) worse (9.33 -> 9.77 over its
// folds with both).
constexpr double kOwnFaceMaxDistanceM = 1.0;
constexpr double kApparentMaxReflectance = 4;  // 2 to 30 read alike on the XT16 bag
// How far from the held-out frame's start pose the farthest reconstruction frame started [m];
// NaN where a pose is not finite.
double FarthestReconstructionFrameM(const Run& run) {
  const physics::Vec3<double> at = run.rec.start_poses[run.o.simulate_frame].translation;
  double farthest_m = 0;
  for (double k : run.list) {
    const physics::Vec3<double> d = run.rec.start_poses[static_cast<size_t>(k)].translation - at;
    farthest_m = std::max(farthest_m, std::sqrt(Dot(d, d)));
    if (!std::isfinite(farthest_m)) return NAN;
  }
  return farthest_m;
}

// Every reconstruction frame started within kStillM and kStillDeg of the held-out frame's
// start pose.
bool StoodStillForTheHeldOut(const Run& run) {
  if (!(FarthestReconstructionFrameM(run) < kStillM)) return false;
  const physics::Pose<double>& at = run.rec.start_poses[run.o.simulate_frame];
  for (double k : run.list)
    if (!(TurnedDeg(at.rotation, run.rec.start_poses[static_cast<size_t>(k)].rotation) < kStillDeg))
      return false;
  return true;
}

void ReadOwnFacesWhereTheSensorBarelyMoved(Run& run) {
  const double farthest_m = FarthestReconstructionFrameM(run);
  if (!(farthest_m <= kOwnFaceMaxDistanceM)) return;
  run.ro.own_face_max_incidence_deg = kStillOwnFaceMaxIncidenceDeg;
  run.ro.reading.max_reflectance = kApparentMaxReflectance;
  run.o.log.Info(fmt::format(
      "intensity: every reconstruction frame was seen within {:.2f} m of the simulated one, so "
      "each return is read through its own face up to {:g} deg, to an apparent R0 of up to "
      "{:g}\n",
      farthest_m, kStillOwnFaceMaxIncidenceDeg, kApparentMaxReflectance));
}

// The threshold detector with the beam's footprint (docs/adr/0035): a beam whose centre passes
// beside an edge still returns where enough of its footprint falls on a surface, and one whose
// footprint straddles an edge returns the stronger side's range, as the sensor's did (OS-1-128:
// return agreement 0.944 -> 0.948). The link budget's figures are stand-ins of the right order
// for an 865-905 nm head (20 W, 20 mm, 0.9, a 5 ns pulse): the threshold is fitted through the
// same budget from the frames' own returns, so their scale cancels. Where the profile knows no
// divergence, `auto` keeps the ideal detector and `threshold` is refused.
Status TakeThresholdDetector(Run& run, const std::vector<Frame>& frames,
                             const RecordingFitOptions& fit) {
  SensorProfile& p = run.profile;
  const bool known = p.footprint.kind == physics::FootprintKind::kGaussian &&
                     p.footprint.spot_count >= 1 && p.footprint.spots[0].sigma_h_rad > 0;
  if (!known) {
    if (run.o.detector == "auto") return {};
    return OptionError("detector",
                       fmt::format("detector: threshold needs the beam's divergence, and {}'s "
                                   "profile has none (its import carries no data-sheet "
                                   "divergence; a Gaussian footprint is needed)",
                                   p.name));
  }
  // A sensor that stood still: each simulated beam is a reconstruction frame's own, and the
  // reconstruction holds what that beam returned; the footprint and threshold, which describe
  // what a beam from elsewhere meets, took the OS-0-128 OSF's agreement from 0.949 to 0.941.
  if (run.o.detector == "auto" && (run.o.static_sensor || StoodStillForTheHeldOut(run))) {
    run.o.log.Info(
        "detector: ideal (the sensor stood still: each beam is one the frames' own "
        "beams returned from)\n");
    return {};
  }
  DetectorConfig d;
  d.kind = DetectorKind::kThreshold;
  d.link = {20, 0.02, 0.9, 0};
  d.pulse_width_ns = 5;
  d.echo_range = physics::EchoRange::kPeak;
  d.return_mode = physics::ReturnMode::kStrongest;
  d.max_echoes = 1;
  d.max_surfaces_per_sub_ray = 4;
  d.overlap = p.detector.overlap;
  auto threshold = FitDetectionThreshold(frames, run.ro.reading, d.link, d.overlap, fit);
  if (!threshold.ok()) {
    if (run.o.detector == "threshold") return threshold.error();
    run.o.log.Info("detector: ideal (" + threshold.message() + ")\n");
    return {};
  }
  d.threshold_w = *threshold;
  d.walk_reference_power_w = 10 * d.threshold_w;  // the loader's default; peak ranging has no walk
  p.detector = d;
  p.footprint.sub_rays = kFootprintSubRays;
  run.threshold_taken = true;
  run.o.log.Info(fmt::format(
      "detector: threshold at {:.3g} nW, the power {:g} % of the reconstruction frames' returns "
      "brought back; the beam's footprint ({:.2f} mrad FWHM) as {} sub-rays\n",
      d.threshold_w * 1e9, 100 * (1 - fit.threshold_quantile),
      p.footprint.spots[0].sigma_h_rad * physics::kFwhmPerSigma * 1e3, kFootprintSubRays));
  return {};
}

// 2-3. The sensor from the unit's own intrinsics, with what the reconstruction frames say about
// it: its intensity reading and, for the recording detector, the weakest return it kept; for the
// threshold detector, its threshold.
Expected<PosedFrames> ImportSensor(Run& run) {
  const ReproduceOptions& o = run.o;
  SensorImportOptions import;
  import.rotation_rate_hz = o.rotation_rate_hz;
  import.topic = o.topic;
  if (o.rotation_rate_hz == 0 && run.rec.reader == "velodyne-pcap") {
    const double measured = MeasuredRotationRateHz(run.rec.frames);
    if (measured >= kMinRotationRateHz && measured <= kMaxRotationRateHz) {
      import.rotation_rate_hz = measured;
      o.log.Info(fmt::format("rotation rate: {:.3f} Hz, measured from the capture ({} sets it)\n",
                             measured, o.names("rotation_rate_hz")));
    }
  }
  import.detector =
      o.detector == "recording" || o.detector == "capability" ? "capability" : "ideal";
  if (o.sensor.empty()) {
    auto yaml = ImportSensorProfile(ProfileSource(o), import);
    if (!yaml.ok()) return yaml.error();
    auto profile = ParseSensorProfile(*yaml, run.stage / "sensor.yaml");
    if (!profile.ok()) return profile.error();
    run.profile = std::move(*profile);
    TakeMeasuredColumns(run);
    AlignColumnPhase(run, run.rec.frames[o.simulate_frame]);
  } else {
    auto profile = LoadSensorProfile(o.sensor);
    if (!profile.ok()) return profile.error();
    if (Status s = FitsTheRecording(*profile, run.rec, o.sensor); !s.ok()) return s.error();
    run.profile = std::move(*profile);
  }
  // The recording's beams' origins, for the reconstruction's rays (before an `as_sensor`
  // takes the profile's place).
  const auto& offset = run.profile.beam_origin_m;
  run.ro.beam_origins = {{offset[0], offset[1], offset[2]}, run.profile.beam_origin_radius_m};
  // The scene out to what the sensor reaches: a VLS-128's desk capture holds returns to 200 m,
  // which a reconstruction to 80 m leaves for the simulation to miss (frame 2: return agreement
  // 0.871 to 80 m, 0.892 to 250 m; docs/validation.md).
  if (o.reconstruct_to_sensor_range && run.profile.max_range_m > run.ro.max_range_m) {
    run.ro.max_range_m = std::min(run.profile.max_range_m, kMaxRangeM);
    o.log.Info(
        fmt::format("reconstruction: out to {:g} m, the sensor's range\n", run.ro.max_range_m));
  }
  auto input = PickFrames(run.rec, run.list, run.profile.SpinningView().columns);
  if (!input.ok())
    return OptionError("reconstruct_frames", "reconstruct_frames: " + input.message());
  if (o.sensor.empty()) TakeNearestReturn(run, input->frames);

  RecordingFitOptions fit;
  fit.min_range_m = run.ro.min_range_m;
  fit.max_range_m = run.ro.max_range_m;
  run.raw = o.intensity == "raw" || (o.intensity == "auto" && ReportsRawIntensity(run.rec));
  if (run.raw) {
    RangeGainCorrection across;
    SurfaceRoughness rough;
    auto reading = FitRawIntensityReading(*input, fit, &across, &rough);
    if (!reading.ok()) return reading.error();
    run.ro.reading = *reading;
    const auto& r = run.ro.reading;
    o.log.Info(fmt::format(
        "intensity: raw, range gain fitted on the reconstruction frames ({} bins, {:.4g} "
        "at {:.3g} m to {:.4g} at {:.3g} m)\n",
        r.gain.size(), r.gain.front(), r.gain_range_m.front(), r.gain.back(),
        r.gain_range_m.back()));
    if (across.bins_determined >= 2)
      o.log.Info(fmt::format(
          "intensity: its shape from {} surfaces seen from two ranges or more ({} returns, {} "
          "range bins)\n",
          across.cells, across.returns, across.bins_determined));
    if (rough.cells > 0)
      o.log.Info(fmt::format(
          "intensity: surfaces' roughness {:.1f} +- {:.1f} deg (Oren-Nayar sigma) from {} "
          "surfaces seen at two incidences ({} returns; spread about each surface {:.3f} as "
          "Lambertian, {:.3f} rough){}\n",
          rough.roughness_rad * 180 / std::numbers::pi,
          rough.standard_error_rad * 180 / std::numbers::pi, rough.cells, rough.returns,
          rough.lambertian_spread, rough.fitted_spread,
          rough.roughness_rad >= fit.roughness_max_rad - 1e-3
              ? "; at the search's bound: they would read rougher still"
              : ""));
  } else {
    o.log.Info("intensity: calibrated reflectivity in percent (R0 cos theta)\n");
  }
  if (run.profile.ray_drop.empty()) TakeRayDrop(run, *input);
  if (run.raw || !run.profile.intensity_gains.empty()) TakeBeamGains(run, input->frames);
  if (o.sensor.empty() && o.as_sensor.empty() &&
      (o.detector == "threshold" || o.detector == "auto")) {
    if (Status s = TakeThresholdDetector(run, input->frames, fit); !s.ok()) return s.error();
  }
  std::string note = o.sensor.empty()
                         ? "Imported by `lidartwin reproduce` from " + ProfileSource(o) + "."
                         : "The profile given to `lidartwin reproduce`: " + o.sensor + ".";
  if (!o.sensor.empty()) {
    o.log.Info(fmt::format("sensor: {} as given (its detector, {} beams)\n", o.sensor,
                           run.profile.BeamCount()));
  } else if (o.detector == "recording") {
    auto envelope = FitDetectionEnvelope(input->frames, run.ro.reading, fit);
    if (!envelope.ok()) return envelope.error();
    const double d_max = run.profile.detector.max_range_m;
    run.profile.detector.reflectance_at_max_range = std::min(1.0, *envelope * d_max);
    note += fmt::format(
        "\nDetector bound from the reconstruction frames: R / d >= {:.4g} /m (the {:g} "
        "quantile of the returns' apparent reflectance over range).",
        *envelope, fit.envelope_quantile);
    o.log.Info(
        fmt::format("detector: capability, R_L,max {:.4g} at {:g} m from the weakest "
                    "returns\n",
                    run.profile.detector.reflectance_at_max_range, d_max));
  }
  // The held-out frame is compared return by return, against recorded ranges with their own
  // noise: a simulated range drawn with noise errs by sqrt(2) times more than the noise-free
  // one, which is the most likely range (as the ray drop's most-likely decision). On the
  // OS-1-128's folds the median error was 2.27 cm with the import's 1 cm noise and 2.02 cm
  // without (docs/validation.md). A dataset wants the noise back: the profile says how.
  if (o.sensor.empty() && run.profile.detector.kind == DetectorKind::kCapability &&
      run.profile.detector.range_noise_sigma_m > 0) {
    const double sigma = run.profile.detector.range_noise_sigma_m;
    run.profile.detector.range_noise_sigma_m = 0;
    note += fmt::format(
        "\nRange noise off (imported: {:g} m), as the most likely range of a return compared "
        "return by return; for datasets set detector.range_noise_sigma_m.",
        sigma);
    o.log.Info(fmt::format(
        "detector: range noise off (imported {:g} m): each return is simulated at its most "
        "likely range, as it is compared return by return\n",
        sigma));
  }
  // The scene from every N-th laser only; the sensor (its range gain, gains and detector bound)
  // stays the one fitted on all of them, as a sparser sensor's scene re-simulated as the full
  // sensor asks; its blocked directions (below) are the kept lasers'.
  if (o.reconstruct_channel_step > 1) {
    size_t kept = 0, all = 0;
    for (Frame& f : input->frames) {
      all += f.size();
      auto sparse = EveryNthChannel(std::move(f), o.reconstruct_channel_step);
      if (!sparse.ok()) return sparse.error();
      f = std::move(*sparse);
      kept += f.size();
    }
    o.log.Info(fmt::format(
        "reconstruction frames: channels 0, {}, {}, .. only ({} of {} returns), as ICP and the "
        "held-out frame's placement see them too; the held-out frame is simulated and compared "
        "on every channel\n",
        o.reconstruct_channel_step, 2 * o.reconstruct_channel_step, kept, all));
  }
  if (run.profile.blocked_directions.empty()) TakeBlockedDirections(run, input->frames);
  if (Status s = run.profile.Validate(); !s.ok()) return s.error();
  if (Status s =
          WriteTextFileAtomically(run.stage / "sensor.yaml", SaveSensorProfile(run.profile, note));
      !s.ok())
    return s.error();
  return input;
}

// 3b. `as_sensor`: the profile the held-out frame is simulated through, in place of the
// recording's own (which read the reconstruction frames); sensor.yaml is what is simulated.
Status TakeSensorToSimulateAs(Run& run) {
  const ReproduceOptions& o = run.o;
  auto as = LoadSensorProfile(o.as_sensor);
  if (!as.ok()) return as.error();
  run.as_channels = RecordedChannelsOf(*as, run.profile);
  if (run.as_channels.empty() || o.resimulate) {
    // Nothing would replace an earlier run's metrics in `out`: they would read as this run's.
    for (const char* file : {"metrics.json", "floor_metrics.json", "report"}) {
      std::error_code ec;
      if (std::filesystem::exists(o.out / file, ec))
        return OptionError(
            "out", fmt::format("out: {} holds an earlier run's {}, and a simulation as another "
                               "sensor has no truth to measure: give another folder",
                               o.out.string(), file));
    }
  }
  if (o.resimulate) {
    o.log.Info(fmt::format("as: {} ({} beams): frames {}..{} simulated through it\n", o.as_sensor,
                           as->BeamCount(), o.simulate_frame,
                           o.simulate_frame + o.simulate_frames - 1));
  } else if (run.as_channels.empty()) {
    o.log.Info(fmt::format(
        "as: {} ({} beams) is not a subset of the recorded lasers: the held-out frame's pose "
        "simulated through it, with nothing recorded to compare it with\n",
        o.as_sensor, as->BeamCount()));
  } else {
    o.log.Info(fmt::format(
        "as: {} is {} of the recording's {} lasers: their returns in the held-out frame are "
        "its truth\n",
        o.as_sensor, run.as_channels.size(), run.profile.elevation_rad.size()));
  }
  if (!run.as_channels.empty()) {
    // The recorded lasers keep what the reconstruction frames taught about them: the column
    // phase (AlignColumnPhase), the nearest return's range (TakeNearestReturn) and each
    // laser's gains (TakeBeamGains, already divided out of those frames).
    as->start_azimuth_rad = run.profile.start_azimuth_rad;
    as->min_range_m = run.profile.min_range_m;
    if (!run.profile.ray_drop.empty())  // over range and reflectance: any laser's
      as->ray_drop = run.profile.ray_drop;
    as->intensity_gains = {};
    as->blocked_directions = {};  // the recorded lasers' own
    const BlockedDirections& blocked = run.profile.blocked_directions;
    if (!blocked.empty()) {
      as->blocked_directions.source = blocked.source;
      for (uint16_t c : run.as_channels)
        as->blocked_directions.channel.push_back(
            c < blocked.channel.size() ? blocked.channel[c] : std::vector<AzimuthInterval>{});
    }
    if (!run.profile.intensity_gains.empty()) {
      as->intensity_gains.range_m = run.profile.intensity_gains.range_m;
      as->intensity_gains.source = run.profile.intensity_gains.source;
      for (uint16_t c : run.as_channels)
        as->intensity_gains.gain.push_back(
            c < run.profile.intensity_gains.gain.size()
                ? run.profile.intensity_gains.gain[c]
                : std::vector<double>(run.profile.intensity_gains.range_m.size(), 1.0));
    }
  }
  run.profile = std::move(*as);
  return WriteTextFileAtomically(
      run.stage / "sensor.yaml",
      SaveSensorProfile(run.profile,
                        "The profile given to `lidartwin reproduce` as the sensor to "
                        "simulate: " +
                            o.as_sensor + "."));
}

// `as_sensor` without truth: the simulation is the result.
Status CommitSimulationOnly(const Run& run) {
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> moves;
  for (const char* file : {"sensor.yaml", "trajectory.yaml", "sim.h5"})
    moves.emplace_back(run.stage / file, run.o.out / file);
  moves.emplace_back(run.stage / "scene", run.o.out / "scene");
  if (Status s = CommitOutputSet(moves); !s.ok()) return s;
  const uint32_t first = run.o.simulate_frame, last = first + run.o.simulate_frames - 1;
  run.o.log.Info(fmt::format(
      "wrote {} (frame{} {} as {})\n", (run.o.out / "sim.h5").string(), first == last ? "" : "s",
      first == last ? fmt::format("{}", first) : fmt::format("{}..{}", first, last),
      run.o.as_sensor));
  return {};
}

// 5. The held-out frame simulated from its start and end poses, in the sensor's units; or the
// re-simulated stretch, from each frame's start pose and the last one's end.
Expected<SimulationResult> SimulateHeldOut(const Run& run) {
  const ReproduceOptions& o = run.o;
  Trajectory trajectory;
  const uint32_t first = o.simulate_frame, n = o.simulate_frames;
  // A re-simulated stretch keeps the recording's time: its frames' poses a recorded frame apart,
  // as many of the simulated sensor's frames as fit in it (a sensor spinning twice as fast sees
  // twice as many). The held-out frame spans the simulated sensor's frame, as it always has.
  const double period = o.resimulate ? run.recorded_period_s : run.profile.FramePeriodS();
  for (uint32_t k = 0; k <= n; ++k) {
    trajectory.time_s.push_back(k * period);
    trajectory.poses.push_back(k < n ? run.rec.start_poses[first + k]
                                     : run.rec.end_poses[first + n - 1]);
  }
  const std::string header =
      n == 1 ? fmt::format("Frame {} of the recording: its start and end poses.", first)
             : fmt::format(
                   "Frames {}..{} of the recording: each one's start pose, and the "
                   "last one's end pose.",
                   first, first + n - 1);
  if (Status s = WriteTextFileAtomically(run.stage / "trajectory.yaml",
                                         SaveTrajectory(trajectory, header));
      !s.ok())
    return s.error();
  SimulationJob job;
  job.sensor = run.stage / "sensor.yaml";
  job.scene = run.stage / "scene/scene.yaml";
  job.trajectory = run.stage / "trajectory.yaml";
  job.seed = o.seed;
  job.frames = n;
  if (o.resimulate) {
    const double fit = n * period / run.profile.FramePeriodS();
    job.frames = static_cast<uint32_t>(std::max(1.0, std::floor(fit + 1e-9)));
    job.keep_frames = false;  // written to sim.h5 as they come; nothing reads them again
  }
  job.out = run.stage / "sim.h5";
  job.mesh_loader = o.mesh_loader;
  auto sim = RunSimulationWith(o.simulate, job);
  // Another sensor simulates in its own units; the recorded lasers (as_channels) in the
  // recording's, under its numbers.
  const bool other_sensor = o.resimulate || (!o.as_sensor.empty() && run.as_channels.empty());
  // The one echo a beam of the threshold detector `reproduce` chose (TakeThresholdDetector) is
  // that beam's return 0, as a single-return recording numbers it; the simulator numbers it
  // among the echoes it detected, a weaker one in front making it return 1. A profile given or
  // simulated as keeps its own numbering.
  const bool one_echo = run.threshold_taken;
  if (!sim.ok() || other_sensor) return sim;
  if (!run.raw && run.as_channels.empty() && !one_echo) return sim;
  for (Frame& f : sim->frames) {
    if (one_echo) std::fill(f.return_index.begin(), f.return_index.end(), uint8_t{0});
    // A raw-intensity sensor: the simulated intensity (100 R0 cos theta) in its units,
    // I = G(R) R0 cos theta, through the gain fitted above.
    if (run.raw)
      for (size_t i = 0; i < f.size(); ++i)
        f.intensity[i] =
            static_cast<float>(run.ro.reading.GainAt(f.range_m[i]) * f.intensity[i] / 100.0);
    if (!run.as_channels.empty())
      for (uint16_t& c : f.channel)
        c = run.as_channels[c];
  }
  // sim.h5 holds what is compared (the viewer and report read it again): rewritten in the
  // sensor's units.
  if (Status s = RewriteFrames(job.out, sim->frames, run.raw ? run.rec.intensity_unit : "");
      !s.ok())
    return s.error();
  return sim;
}

// 6. The simulated frame against the recorded one, and the recorded one against its real
// neighbour (the floor); the metrics, the report, and the set moved into `out`.
Status CompareAndReport(Run& run, const PosedFrames& input, const std::vector<Frame>& simulated,
                        std::chrono::steady_clock::time_point start) {
  const ReproduceOptions& o = run.o;
  const size_t held_out = o.simulate_frame;
  const size_t neighbour = FloorNeighbour(run.list, held_out);
  // The truth of a subset of the recorded lasers is their returns (the floor's alike).
  Frame real = run.rec.frames[held_out], real_neighbour = run.rec.frames[neighbour];
  if (!run.as_channels.empty()) {
    KeepChannels(real, run.as_channels);
    KeepChannels(real_neighbour, run.as_channels);
  }
  if (run.profile.scan == ScanKind::kSpinning) {
    const size_t past = KeepFirstRevolution(real, run.profile.columns);
    KeepFirstRevolution(real_neighbour, run.profile.columns);
    if (past)
      o.log.Info(fmt::format(
          "frame {}: {} returns past its first revolution ({} columns) left out of both "
          "comparisons: they scan its first columns' directions again\n",
          held_out, past, run.profile.columns));
  }
  if (run.profile.EchoesPerBeam() == 1) {
    const size_t others = KeepFirstReturns(real);
    KeepFirstReturns(real_neighbour);
    if (others)
      o.log.Info(fmt::format(
          "frame {}: each beam's first return compared, as the simulation reports one ({} "
          "other returns left out of both comparisons)\n",
          held_out, others));
  }
  compare::CompareOptions co;
  co.min_range_m = run.ro.min_range_m;  // the reconstruction ignores what is nearer
  co.beams_per_frame = run.profile.BeamCount();
  // A packet capture's frames begin wherever the capture or its messages cut the rotation, and a
  // dual-return frame's columns do not step evenly: the same channel and column name different
  // directions in two frames, so beams pair by the nearest direction (the floor alike). Ouster
  // columns are encoder counts and pair by beam.
  if (!OusterColumns(run.rec)) co.association.method = compare::AssociationMethod::kAngular;
  const compare::CompareOptions floor_options = co;  // the floor names no materials
  // The materials' names only: the meshes (100 MB of PLY on an OS-1-128 fold) are not read
  // again for them.
  auto materials = LoadMaterialLibrary(run.stage / "scene/materials.yaml");
  if (!materials.ok()) return materials.error();
  for (const auto& m : materials->materials)
    co.material_names.push_back(m.name);
  const std::string name = std::filesystem::path(o.recording).filename().string();
  const std::string label = fmt::format("{} frame {}", name, held_out);
  // In the sensor's units where its raw intensity was fitted (SimulateFrame), else percent.
  const std::string sim_intensity_unit = run.raw ? run.rec.intensity_unit : kIntensityPercent;
  // What report needs to read the frames again for its viewer (issue 13): stamped on the
  // staged files, which move into `out` unchanged.
  compare::CompareInputs inputs;
  inputs.real_file = o.recording;
  inputs.real_sidecar = o.sidecar;
  inputs.real_topic = o.topic;
  inputs.real_firetimes = o.firetimes;
  inputs.real_frames = {static_cast<uint32_t>(held_out)};
  inputs.sim_file = (run.stage / "sim.h5").string();
  inputs.scene_file = (run.stage / "scene/scene.yaml").string();
  inputs.min_range_m = co.min_range_m;
  inputs.scene_targets = false;  // the scene names the materials; reproduce compares no targets
  compare::StampInputs(inputs);
#if LT_WITH_VIEWER
  // The report's viewer from the frames as compared, not read back from the files.
  compare::LoadedComparison shown;
  shown.real.reader = run.rec.reader;
  shown.real.sensor = run.rec.sensor;
  shown.real.intensity_unit = run.rec.intensity_unit;
  shown.real.notes = run.rec.notes;
  shown.real.frames = {real};
  shown.sim.reader = "hdf5";
  shown.sim.sensor = run.profile.name;
  shown.sim.intensity_unit = sim_intensity_unit;
  shown.sim.frames = simulated;
  shown.options = co;
  shown.sim_profile_beams_per_frame = run.profile.BeamCount();
#endif
  // The floor and the report's viewer need nothing the simulated frame's comparison finds: they
  // are made on another core while this one compares (0.35 s and 0.4 s of the 1.3 s an
  // OS-1-128 fold took after its simulation). The floor's warning is logged here, after the
  // simulated frame's, as before.
  std::vector<std::string> floor_warnings;
  JobLog floor_log;
  floor_log.warning = [&](const std::string& w) { floor_warnings.push_back(w); };
  struct MadeBeside {
    Expected<compare::ComparisonMetrics> floor;
    Expected<std::string> viewer;
  };
  auto beside = std::async(BesideThisThread(), [&] {
    MadeBeside made{
        CompareWithDropAccuracy({real}, {real_neighbour}, floor_options, "the floor", floor_log),
        Error{"this build has no viewer"}};
#if LT_WITH_VIEWER
    made.viewer = viewer::ViewerOfFrames(shown, inputs, {0}, label, 0);  // the one frame pair
#endif
    return made;
  });
  // Where the range error's tail lies (compare/tail_attribution.h), from the pairing itself.
  const SeenByTheReconstruction seen(input);
  Expected<compare::TailAttribution> tail = Error{""};
  const auto attribute = [&](size_t, const compare::FramePairing& pairing) -> Status {
    PosedFrames held;
    held.frames = {pairing.real};
    held.start_poses = {run.rec.start_poses[held_out]};
    held.end_poses = {run.rec.end_poses[held_out]};
    held.columns_per_frame = input.columns_per_frame;
    tail = compare::AttributeRangeTail(pairing, seen.Unseen(held));
    return {};
  };
  auto metrics = CompareWithDropAccuracy({real}, simulated, co, "", o.log, attribute);
  if (!metrics.ok()) return metrics.error();
  metrics->label = label;
  metrics->real_file = name;
  metrics->sim_file = "sim.h5";
  metrics->real_intensity_unit = run.rec.intensity_unit;
  metrics->sim_intensity_unit = sim_intensity_unit;
  metrics->inputs = inputs;
  for (const char* file : {"sim.h5", "scene/scene.yaml"})
    metrics->inputs->Relocate(compare::AbsolutePath((run.stage / file).string()),
                              compare::AbsolutePath((o.out / file).string()));
  MadeBeside made = beside.get();
  for (const std::string& w : floor_warnings)
    o.log.Warn(w);
  auto& floor = made.floor;
  if (!floor.ok()) return Error{"the real-vs-real floor: " + floor.message()};
  floor->label = fmt::format("{} frame {} against real frame {}", name, held_out, neighbour);
  floor->real_file = floor->sim_file = name;
  floor->real_intensity_unit = floor->sim_intensity_unit = run.rec.intensity_unit;
  Status s = WriteTextFileAtomically(run.stage / "metrics.json", compare::MetricsToJson(*metrics));
  if (s.ok())
    s = WriteTextFileAtomically(run.stage / "floor_metrics.json", compare::MetricsToJson(*floor));
  if (s.ok()) {
    reports::Report report = reports::BuildReport({*metrics});
#if LT_WITH_VIEWER
    // The viewer shows the frames as compared (`shown`, above); metrics.json names the staged
    // files' final places for a report made again from it.
    viewer::AttachViewer(report, 0, std::move(made.viewer));
    if (!report.run_viewer_notes[0].empty())
      o.log.Warn("no viewer in the report: " + report.run_viewer_notes[0]);
#endif
    s = reports::WriteReport(report, run.stage / "report");
  }
  if (s.ok()) {
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> moves;
    for (const char* file : kReproduceFiles)
      moves.emplace_back(run.stage / file, o.out / file);
    for (const char* folder : kReproduceFolders)
      moves.emplace_back(run.stage / folder, o.out / folder);
    s = CommitOutputSet(moves);
  }
  if (!s.ok()) return s;
  o.log.Info(fmt::format("frame {}: {} real and {} simulated points, {} pairs by {}\n", held_out,
                         metrics->real_points, metrics->sim_points, metrics->returns.both,
                         metrics->association));
  o.log.Info(SideBySide(*metrics, *floor, fmt::format("real frame {}", neighbour)));
  if (tail.ok()) o.log.Info(TailLine(*tail));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.log.Info(fmt::format("wrote {}, {} and {} in {:.1f} s\n", (o.out / "metrics.json").string(),
                         (o.out / "floor_metrics.json").string(), (o.out / "report").string(),
                         seconds));
  return {};
}

}  // namespace

Status ReproduceOptions::Validate() const {
  if (detector != "auto" && detector != "threshold" && detector != "recording" &&
      detector != "capability" && detector != "ideal")
    return OptionError("detector", "detector: '" + detector +
                                       "' (expected auto, threshold, ideal, recording or "
                                       "capability)");
  if (intensity != "auto" && intensity != "reflectivity" && intensity != "raw")
    return OptionError("intensity",
                       "intensity: '" + intensity + "' (expected auto, reflectivity or raw)");
  if (Status s = CheckReconstructionAndPoses(reconstruct, pose_fraction, static_sensor, poses);
      !s.ok())
    return s;
  if (rotation_rate_hz != 0 &&
      !(rotation_rate_hz >= kMinRotationRateHz && rotation_rate_hz <= kMaxRotationRateHz))
    return OptionError(
        "rotation_rate_hz",
        fmt::format(
            "rotation_rate_hz: must be 0 (the metadata's, or measured from a Velodyne capture) or "
            "in {:g}..{:g} Hz, got {}",
            kMinRotationRateHz, kMaxRotationRateHz, NumberText(rotation_rate_hz)));
  if (reconstruct_channel_step < 1 || reconstruct_channel_step > kMaxChannelStep)
    return OptionError("reconstruct_channel_step",
                       fmt::format("reconstruct_channel_step: must be in 1..{}, got {}",
                                   kMaxChannelStep, reconstruct_channel_step));
  if (!sensor.empty() && !as_sensor.empty())
    return OptionError("as_sensor",
                       "as_sensor: not with sensor: a sensor to simulate as replaces the "
                       "recording's in the simulation only, a calibrated profile of the "
                       "recording's sensor in every step; give one of them");
  if (detector == "threshold" && (!sensor.empty() || !as_sensor.empty()))
    return OptionError("detector",
                       "detector: threshold is fitted to the recording's own imported profile; a "
                       "given profile, or one simulated as, keeps its own detector");
  if (recording.empty()) return OptionError("recording", "recording: no recording given");
  if (sidecar.empty() && sensor.empty() && !DescribesItsSensor(recording))
    return OptionError("sidecar", "sidecar: no metadata or calibration given (" + recording +
                                      " does not describe its sensor)");
  if (out.empty()) return OptionError("out", "out: no output folder given");
  if (resimulate && as_sensor.empty())
    return OptionError("as_sensor", "as_sensor: a re-simulation needs the sensor to simulate");
  if (resimulate ? simulate_frames > kMaxResimulatedFrames : simulate_frames != 1)
    return OptionError("simulate_frames",
                       fmt::format("simulate_frames: must be {}, got {}",
                                   resimulate ? fmt::format("in 0..{} (0: to the recording's end)",
                                                            kMaxResimulatedFrames)
                                              : std::string("1 (one held-out frame)"),
                                   simulate_frames));
  return {};
}

// The seconds each step took, logged as it ends ("steps: ..."), so that a user sees where a
// fold's time goes (issue 41's fold budget).
class StepClock {
 public:
  explicit StepClock(const ReproduceOptions& o) : o_(o), last_(std::chrono::steady_clock::now()) {}
  void Done(const char* step) {
    const auto now = std::chrono::steady_clock::now();
    o_.log.Info(fmt::format("step: {} in {:.2f} s\n", step,
                            std::chrono::duration<double>(now - last_).count()));
    last_ = now;
  }

 private:
  const ReproduceOptions& o_;
  std::chrono::steady_clock::time_point last_;
};

Status Reproduce(const ReproduceOptions& options) {
  if (Status s = options.Validate(); !s.ok()) return s;
  ReproduceOptions o = options;  // a re-simulation to the recording's end learns its length
  const auto start = std::chrono::steady_clock::now();
  StepClock clock(o);

  // 1. The recording with its poses, the held-out frame and the reconstruction frames.
  auto rec = LoadPosedRecording(o.recording, o.sidecar, o.poses, {"", o.topic, o.firetimes},
                                o.pose_fraction);
  if (!rec.ok()) return rec.error();
  for (const std::string& note : rec->notes)  // skipped or dropped packets
    o.log.Note(o.recording + ": " + note);
  if (o.resimulate && rec->frames.empty())
    return Error{fmt::format("{} has no frame to re-simulate", o.recording)};
  if (!o.resimulate && rec->frames.size() < 2)
    return Error{
        fmt::format("{} has {} frame(s); reproducing one needs at least one other to "
                    "reconstruct the scene from",
                    o.recording, rec->frames.size())};
  if (o.simulate_frame >= rec->frames.size())
    return OptionError("simulate_frame",
                       fmt::format("simulate_frame {}: the recording has {} frames (0..{})",
                                   o.simulate_frame, rec->frames.size(), rec->frames.size() - 1));
  if (o.resimulate && o.simulate_frames == 0)
    o.simulate_frames = static_cast<uint32_t>(rec->frames.size() - o.simulate_frame);
  const size_t last_simulated = o.simulate_frame + o.simulate_frames - 1;
  if (last_simulated >= rec->frames.size())
    return OptionError("simulate_frames",
                       fmt::format("simulate_frames {} from frame {}: the recording has {} frames "
                                   "(0..{})",
                                   o.simulate_frames, o.simulate_frame, rec->frames.size(),
                                   rec->frames.size() - 1));
  auto list = ReconstructionFrames(o, rec->frames.size());
  if (!list.ok()) return list.error();
  if (o.poses.empty() && !o.static_sensor && !rec->poses_from_recording) {
    const auto [lo, hi] = std::minmax_element(list->begin(), list->end());
    if (*hi >= static_cast<double>(rec->frames.size()) || *lo < 0)
      return OptionError("reconstruct_frames",
                         fmt::format("reconstruct_frames: the recording has frames 0..{}",
                                     rec->frames.size() - 1));
    const size_t first = static_cast<size_t>(std::min<double>(*lo, o.simulate_frame));
    const size_t last = static_cast<size_t>(std::max<double>(*hi, double(last_simulated)));
    if (first == last) {  // one frame (a re-simulation of it from itself): nothing to register
      o.log.Info(fmt::format("poses: frame {} alone, at the origin\n", first));
    } else {
      // After a reconstruct_channel_step, the poses a sparser sensor of those lasers finds.
      // (The frames registered only: the others stay empty.)
      PosedRecording seen;
      if (o.reconstruct_channel_step > 1) {
        seen.frames.resize(rec->frames.size());
        seen.start_poses = rec->start_poses;
        seen.end_poses = rec->end_poses;
        for (size_t k = first; k <= last; ++k) {
          auto sparse = EveryNthChannel(rec->frames[k], o.reconstruct_channel_step);
          if (!sparse.ok()) return sparse.error();
          seen.frames[k] = std::move(*sparse);
        }
      }
      PosedRecording& registered = o.reconstruct_channel_step > 1 ? seen : *rec;
      auto report = EstimateRecordingPoses(registered, first, last);
      if (!report.ok()) return report.error();
      o.log.Info(*report);
      rec->start_poses = registered.start_poses;
      rec->end_poses = registered.end_poses;
      SuggestStaticWhereIcpBarelyMoved(o, *rec, first, last);
    }
  }
  clock.Done("recording and poses");
  std::error_code ec;
  const bool out_existed = std::filesystem::exists(o.out, ec);
  auto stage = PrepareStage(o.out);
  if (!stage.ok()) return stage.error();
  const StagingFolder staging{{out_existed ? std::filesystem::path() : o.out}, {*stage}};
  Run run{o, *stage, std::move(*rec), std::move(*list), o.reconstruct, {}, false};

  auto input = ImportSensor(run);
  if (!input.ok()) return input.error();
  run.recorded_period_s = run.profile.FramePeriodS();
  if (!o.as_sensor.empty())
    if (Status s = TakeSensorToSimulateAs(run); !s.ok()) return s;
  clock.Done("sensor");
  // 4. The scene from the other frames.
  ReadOwnFacesWhereTheSensorBarelyMoved(run);
  if (!o.resimulate && !o.static_sensor) {
    AlignReconstructionFrames(run, *input);
    clock.Done("frame alignment");
  }
  ReadIntensitiesWithTheirNeighbourhood(run, *input);
  clock.Done("intensity neighbourhood");
  run.ro.keep_surface = !o.resimulate && !o.static_sensor;
  std::string reconstruction_step;  // the reconstruction's own steps timed as they end
  auto built = Reconstruct(*input, run.ro, run.stage / "scene", [&](int, int, const char* what) {
    if (!reconstruction_step.empty()) clock.Done(reconstruction_step.c_str());
    reconstruction_step = fmt::format("reconstruction: {}", what);
  });
  if (!built.ok()) return built.error();
  clock.Done(reconstruction_step.c_str());
  if (built->surface) {
    // Placed on the surface from its poses; where that fails (a correction beyond the bound,
    // too few returns near the surface), first among the reconstruction frames' points by ICP
    // and then on the surface again. ICP first every time moved no moving capture's metric
    // beyond its fourth digit (the HDL-32E's p90 by 0.7 cm of 62) and cost 0.4 s a fold
    // (docs/validation.md).
    if (!PlaceHeldOutOnSurface(run, *input, *built->surface)) {
      PlaceHeldOutFrame(run, *input);
      PlaceHeldOutOnSurface(run, *input, *built->surface);
    }
    built->surface.reset();  // 70 MiB the simulation does not need
    clock.Done("held-out frame on the surface");
  }
  o.log.Info(
      fmt::format("reconstructed from {} frame(s) by {}: {} triangles ({} carved), {} reflectance "
                  "classes\n",
                  run.list.size(), run.ro.method, built->triangles, built->carved_triangles,
                  built->reflectance_classes.size()));
  auto sim = SimulateHeldOut(run);
  if (!sim.ok()) return sim.error();
  clock.Done("simulation");
  if (o.resimulate || (!o.as_sensor.empty() && run.as_channels.empty()))
    return CommitSimulationOnly(run);
  return CompareAndReport(run, *input, sim->frames, start);
}

}  // namespace lt::jobs
