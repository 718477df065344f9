// A recording to a scene, in one batch or streamed; see reconstruct_recording.h.
#include "lidartwin/jobs/reconstruct_recording.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <set>

#include "lidartwin/datasets/recording.h"
#include "lidartwin/reconstruct/incremental_reconstruction.h"
#include "lidartwin/reconstruct/posed_recording.h"
#include "recording_checks.h"

namespace lt::jobs {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The lines that close a run: what was written, in how long.
std::string WrittenLines(const std::vector<std::filesystem::path>& written, double seconds) {
  std::string text;
  for (const auto& file : written)
    text += fmt::format("wrote {}\n", file.string());
  return text + fmt::format("{} file(s) in {:.2f} s (reading, meshing and writing)\n",
                            written.size(), seconds);
}

// The frames to stream, in the recording's order whatever the list's.
Expected<std::set<size_t>> WantedFrames(const std::vector<double>& frames) {
  std::set<size_t> wanted;
  for (double v : frames) {
    if (!(v >= 0 && v == std::floor(v) && v < 1e9))
      return OptionError("frames", fmt::format("frames: {} is not a frame index", v));
    if (!wanted.insert(static_cast<size_t>(v)).second)
      return OptionError("frames",
                         fmt::format("frames: frame {} is listed twice", static_cast<size_t>(v)));
  }
  return wanted;
}

// The recording streamed frame by frame into an IncrementalReconstruction (memory bounded by
// the scene, not the capture), then written as the batch reconstruction writes its scene.
Status ReconstructIncrementally(const ReconstructRecordingOptions& o) {
  const auto start = Clock::now();
  const ReconstructOptions& ro = o.reconstruct;
  std::vector<physics::Pose<double>> poses;  // from the file: pose k at fraction of frame k
  if (!o.poses.empty()) {
    auto p = LoadKittiPoses(o.poses);
    if (!p.ok()) return p.error();
    poses = std::move(*p);
  }
  RecordingOptions options;
  options.format = o.format;
  options.topic = o.topic;
  options.firetimes = o.firetimes;
  // Only a lidartwin .h5 carries its own frame poses; ICP needs every frame in memory, which
  // streaming exists to avoid. Without either, every frame would sit at the origin.
  if (o.poses.empty() && !o.static_sensor) {
    auto source = OpenRecording(o.recording, o.sidecar, options);
    if (!source.ok()) return source.error();
    if (source->header().reader != "hdf5")
      return OptionError("incremental",
                         fmt::format("incremental needs {} or {}: {} is a {} recording, which "
                                     "holds no poses (for ICP poses "
                                     "run without {})",
                                     o.names("poses"), o.names("static_sensor"), o.recording,
                                     source->header().reader, o.names("incremental")));
  }
  auto wanted = WantedFrames(o.frames);
  if (!wanted.ok()) return wanted.error();
  IncrementalReconstructionOptions io;
  io.mesh.min_range_m = io.carving.min_range_m = ro.min_range_m;
  io.mesh.max_range_m = io.carving.max_range_m = ro.max_range_m;
  io.mesh.reading = ro.reading;
  io.mesh.reflectance_max_incidence_deg = ro.max_incidence_deg;
  io.mesh.own_face_max_incidence_deg = ro.own_face_max_incidence_deg;
  io.mesh.surfels = ro.method == "surfels" ? RangeImageMeshOptions::Surfels::kOnly
                                           : RangeImageMeshOptions::Surfels::kForUnmeshed;
  io.carve = ro.carve;
  IncrementalReconstruction rebuild(io);
  size_t index = 0, used = 0;
  auto header = ForEachRecordingFrame(o.recording, o.sidecar, options, [&](Frame&& f) -> Status {
    const size_t k = index++;
    if (!wanted->empty() && !wanted->count(k)) return {};
    physics::Pose<double> a = f.pose_start, b = f.pose_end;  // the .h5's own, or identity
    if (o.static_sensor) {
      a = b = physics::Pose<double>{{1, 0, 0, 0}, {0, 0, 0}};
    } else if (!poses.empty()) {
      if (k >= poses.size())
        return Error{fmt::format("{}: {} poses, but the recording has a frame {}", o.poses,
                                 poses.size(), k)};
      a = PoseAtFrameTime(poses, static_cast<double>(k) - o.pose_fraction);
      b = PoseAtFrameTime(poses, static_cast<double>(k) + 1 - o.pose_fraction);
    }
    ++used;
    if (o.on_frame)
      o.on_frame(fmt::format("frame {}: {} triangles", k, rebuild.surface().triangles.size()));
    return rebuild.AddFrame(f, a, b, o.columns);
  });
  if (o.on_finish) o.on_finish();
  if (!header.ok()) return header.error();
  for (const std::string& note : header->notes)
    o.log.Warn(o.recording + ": " + note);
  if (!poses.empty() && poses.size() != index)
    return Error{
        fmt::format("{}: {} poses for {} frames in {}", o.poses, poses.size(), index, o.recording)};
  if (!wanted->empty() && *wanted->rbegin() >= index)
    return OptionError("frames", fmt::format("frames: frame {} is beyond the recording's {} frames",
                                             *wanted->rbegin(), index));
  auto summary = WriteReconstruction(rebuild.surface(), ro, o.out);
  if (!summary.ok()) return summary.error();
  o.log.Info(fmt::format(
      "reconstructed {} frame(s) incrementally ({} without a surface): {} vertices, {} triangles "
      "in {} reflectance classes ({} carved, {} left out by the {} m voxel bound)\n",
      used, rebuild.frames_without_surface(), summary->vertices, summary->triangles,
      summary->reflectance_classes.size(), rebuild.triangles_carved(), rebuild.triangles_left_out(),
      io.voxel_m));
  o.log.Info(WrittenLines(summary->written, SecondsSince(start)));
  return {};
}

// Before the batch path reads a recording: whether its chosen frames fit
// kBatchReconstructionBudgetBytes. If not, streams them where the poses are known without ICP,
// or refuses with the estimate and the options that fit. `done` tells the caller which.
Status StreamWhenTooLarge(const ReconstructRecordingOptions& o, bool& done) {
  done = false;
  RecordingOptions options;
  options.format = o.format;
  options.topic = o.topic;
  options.firetimes = o.firetimes;
  auto size = MeasureRecording(o.recording, o.sidecar, options);
  if (!size.ok()) return {};  // the batch path reads it again and says what is wrong
  uint64_t points = 0;
  size_t chosen = 0;
  const auto& per_frame = size->points_per_frame;
  for (size_t k = 0; k < per_frame.size(); ++k) {
    if (!o.frames.empty() &&
        std::find(o.frames.begin(), o.frames.end(), static_cast<double>(k)) == o.frames.end())
      continue;
    points += per_frame[k];
    ++chosen;
  }
  const uint64_t estimate = BatchReconstructionBytes(points);
  if (estimate <= kBatchReconstructionBudgetBytes) return {};
  done = true;
  const auto gib = [](uint64_t bytes) { return static_cast<double>(bytes) / (1 << 30); };
  const std::string method = o.reconstruct.method;
  const bool meshes_range_images = method == "range-image" || method == "surfels";
  const bool poses_known = o.static_sensor || !o.poses.empty() || size->reader == "hdf5";
  if (meshes_range_images && poses_known) {
    o.log.Note(fmt::format(
        "{}: {} frame(s) of {} points in all would take about {:.1f} GiB as one batch (more than "
        "{:.2f}); streaming them one at a time instead, as {} does (no consensus between "
        "frames)",
        o.recording, chosen, points, gib(estimate), gib(kBatchReconstructionBudgetBytes),
        o.names("incremental")));
    return ReconstructIncrementally(o);
  }
  return Error{fmt::format(
      "{}: {} frame(s) of {} points in all would take about {:.1f} GiB as one batch, more than "
      "the {:.2f} GiB it may plan; {}",
      o.recording, chosen, points, gib(estimate), gib(kBatchReconstructionBudgetBytes),
      meshes_range_images
          ? fmt::format("give the poses ({}, or {}) so that the frames can be streamed, or choose "
                        "fewer {} (ICP poses need every frame in memory)",
                        o.names("poses"), o.names("static_sensor"), o.names("frames"))
          : fmt::format("mesh range images ({} range-image or surfels) with poses to stream the "
                        "frames, or choose fewer {}",
                        o.names("method"), o.names("frames")))};
}

// The frames read whole, their poses estimated by ICP where none are given, meshed together.
Status ReconstructBatch(const ReconstructRecordingOptions& o) {
  const auto start = Clock::now();
  auto rec = LoadPosedRecording(o.recording, o.sidecar, o.poses, {o.format, o.topic, o.firetimes},
                                o.pose_fraction);
  if (!rec.ok()) return rec.error();
  for (const std::string& note : rec->notes)  // skipped or dropped packets, warnings
    o.log.Warn(o.recording + ": " + note);
  std::vector<double> list = o.frames;
  if (list.empty())
    for (size_t k = 0; k < rec->frames.size(); ++k)
      list.push_back(static_cast<double>(k));
  if (o.poses.empty() && !o.static_sensor && !rec->poses_from_recording && list.size() >= 2) {
    auto indices = FrameIndices(list, rec->frames.size(), "the recording");
    if (!indices.ok()) return indices.error();
    const auto [lo, hi] = std::minmax_element(indices->begin(), indices->end());
    auto report = EstimateRecordingPoses(*rec, *lo, *hi);
    if (!report.ok()) return report.error();
    o.log.Info(*report);
  }
  auto input = PickFrames(*rec, list, o.columns);
  if (!input.ok()) return input.error();
  auto summary = Reconstruct(*input, o.reconstruct, o.out, o.on_step);
  if (o.on_finish) o.on_finish();
  if (!summary.ok()) return summary.error();
  // Only poisson and ball-pivoting thin the points; the others mesh every point in range.
  const bool thinned = o.reconstruct.method == "poisson" || o.reconstruct.method == "ball-pivoting";
  o.log.Info(fmt::format(
      "reconstructed {} frame(s): {} points, {} in range{} -> {} vertices, {} triangles in {} "
      "reflectance classes ({} triangles carved: seen through by a frame)\n",
      input->frames.size(), summary->input_points, summary->in_range_points,
      thinned ? fmt::format(", {} after thinning to {} m voxels", summary->used_points,
                            o.reconstruct.voxel_m)
              : "",
      summary->vertices, summary->triangles, summary->reflectance_classes.size(),
      summary->carved_triangles));
  o.log.Info(WrittenLines(summary->written, SecondsSince(start)));
  return {};
}

// The output folder must be writable before the recording is read and meshed; nothing is
// created yet, so a failure later leaves no empty folder.
Status CheckWritableFolder(const std::filesystem::path& out) {
  std::filesystem::path at = std::filesystem::absolute(out);
  std::error_code ec;
  while (!std::filesystem::exists(at, ec) && at.has_parent_path() && at != at.parent_path())
    at = at.parent_path();
  if (!std::filesystem::is_directory(at, ec))
    return OptionError("out", "out: " + at.string() + ": not a folder");
  if (::access(at.c_str(), W_OK) != 0)
    return OptionError("out",
                       "out: " + at.string() + ": cannot write there: " + std::strerror(errno));
  return {};
}

}  // namespace

Status ReconstructRecordingOptions::Validate() const {
  if (Status s = CheckReconstructionAndPoses(reconstruct, pose_fraction, static_sensor, poses);
      !s.ok())
    return s;
  if (incremental && reconstruct.method != "range-image" && reconstruct.method != "surfels")
    return OptionError("incremental", "incremental meshes range images: " + names("method") +
                                          " range-image or surfels");
  if (columns > kMaxColumns)
    return Error{
        fmt::format("columns: must be in 0..{} (0: every point at its frame's start pose), got {}",
                    kMaxColumns, columns)};
  if (recording.empty()) return OptionError("recording", "recording: no recording given");
  if (out.empty()) return OptionError("out", "out: no output folder given");
  return {};
}

Status ReconstructRecording(const ReconstructRecordingOptions& o) {
  // The output folder first: as the CLI always checked it, before the options' combinations.
  if (Status s = CheckWritableFolder(o.out); !s.ok()) return s;
  if (Status s = o.Validate(); !s.ok()) return s;
  if (o.incremental) return ReconstructIncrementally(o);
  // The batch path holds every frame chosen and meshes them together: judge its memory before
  // reading them (a 241-frame capture took 24 GB and was killed, issue 36).
  bool streamed = false;
  if (Status s = StreamWhenTooLarge(o, streamed); !s.ok() || streamed) return s;
  return ReconstructBatch(o);
}

}  // namespace lt::jobs
