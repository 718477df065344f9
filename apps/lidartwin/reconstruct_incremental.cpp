// reconstruct --incremental: the recording streamed frame by frame into an
// IncrementalReconstruction (memory bounded by the scene, not the capture), then written as
// the batch reconstruction writes its scene.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "lidartwin/datasets/recording.h"
#include "lidartwin/reconstruct/incremental_reconstruction.h"
#include "posed_recording.h"
#include "progress.h"

namespace lt::cli {

int ReconstructIncrementally(const Args& args, const ReconstructOptions& o, uint32_t columns,
                             double pose_fraction, const std::vector<double>& frames) {
  auto fail = [](const std::string& message) {
    fmt::print(stderr, "lidartwin reconstruct: error: {}\n", message);
    return 1;
  };
  const auto start = std::chrono::steady_clock::now();
  const std::string file = args.positionals()[0];
  std::vector<physics::Pose<double>> poses;  // from the file: pose k at fraction of frame k
  if (args.Has("--poses")) {
    auto p = LoadKittiPoses(args.Get("--poses"));
    if (!p.ok()) return fail(p.message());
    poses = std::move(*p);
  }
  // Only a lidartwin .h5 carries its own frame poses; ICP needs every frame in memory, which
  // --incremental exists to avoid. Without either, every frame would sit at the origin.
  if (!args.Has("--poses") && !args.Has("--static")) {
    RecordingOptions peek;
    peek.format = args.Get("--format");
    auto source = OpenRecording(file, args.Get("--metadata", args.Get("--calibration")), peek);
    if (!source.ok()) return fail(source.message());
    if (source->header().reader != "hdf5") {
      fmt::print(stderr,
                 "lidartwin reconstruct: {}: --incremental needs --poses KITTI.txt or --static "
                 "(a {} recording holds no poses; for ICP poses run without --incremental)\n",
                 file, source->header().reader);
      return 2;
    }
  }
  // The frames are read in the recording's order, whatever the list's.
  std::set<size_t> wanted;
  for (double v : frames) {
    if (!(v >= 0 && v == std::floor(v) && v < 1e9)) {
      fmt::print(stderr, "lidartwin reconstruct: option --frames: {} is not a frame index\n", v);
      return 2;
    }
    if (!wanted.insert(static_cast<size_t>(v)).second) {
      fmt::print(stderr, "lidartwin reconstruct: option --frames: frame {} is listed twice\n",
                 static_cast<size_t>(v));
      return 2;
    }
  }
  IncrementalReconstructionOptions io;
  io.mesh.min_range_m = io.carving.min_range_m = o.min_range_m;
  io.mesh.max_range_m = io.carving.max_range_m = o.max_range_m;
  io.mesh.reading = o.reading;
  io.mesh.reflectance_max_incidence_deg = o.max_incidence_deg;
  io.mesh.surfels = o.method == "surfels" ? RangeImageMeshOptions::Surfels::kOnly
                                          : RangeImageMeshOptions::Surfels::kForUnmeshed;
  io.carve = o.carve;
  IncrementalReconstruction rebuild(io);
  Progress progress("reconstruct", 0);
  size_t index = 0, used = 0;
  RecordingOptions options;
  options.format = args.Get("--format");
  auto header = ForEachRecordingFrame(
      file, args.Get("--metadata", args.Get("--calibration")), options, [&](Frame&& f) -> Status {
        const size_t k = index++;
        if (!wanted.empty() && !wanted.count(k)) return {};
        physics::Pose<double> a = f.pose_start, b = f.pose_end;  // the .h5's own, or identity
        if (args.Has("--static")) {
          a = b = physics::Pose<double>{{1, 0, 0, 0}, {0, 0, 0}};
        } else if (!poses.empty()) {
          if (k >= poses.size())
            return Error{fmt::format("{}: {} poses, but the recording has a frame {}",
                                     args.Get("--poses"), poses.size(), k)};
          a = PoseAtFrameTime(poses, static_cast<double>(k) - pose_fraction);
          b = PoseAtFrameTime(poses, static_cast<double>(k) + 1 - pose_fraction);
        }
        ++used;
        progress.Status(
            0, fmt::format("frame {}: {} triangles", k, rebuild.surface().triangles.size()));
        return rebuild.AddFrame(f, a, b, columns);
      });
  progress.Finish();
  if (!header.ok()) return fail(header.message());
  for (const std::string& note : header->notes)
    fmt::print(stderr, "{}: {}\n", file, note);
  if (!poses.empty() && poses.size() != index)
    return fail(fmt::format("{}: {} poses for {} frames in {}", args.Get("--poses"), poses.size(),
                            index, file));
  if (!wanted.empty() && *wanted.rbegin() >= index)
    return fail(fmt::format("option --frames: frame {} is beyond the recording's {} frames",
                            *wanted.rbegin(), index));
  auto summary = WriteReconstruction(rebuild.surface(), o, args.Get("--out"));
  if (!summary.ok()) return fail(summary.message());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(
      "reconstructed {} frame(s) incrementally ({} without a surface): {} vertices, {} triangles "
      "in {} reflectance classes ({} carved, {} left out by the {} m voxel bound)\n",
      used, rebuild.frames_without_surface(), summary->vertices, summary->triangles,
      summary->reflectance_classes.size(), rebuild.triangles_carved(), rebuild.triangles_left_out(),
      io.voxel_m);
  for (const auto& w : summary->written)
    fmt::print("wrote {}\n", w.string());
  fmt::print("{} file(s) in {:.2f} s (reading, meshing and writing)\n", summary->written.size(),
             seconds);
  return 0;
}

int ChooseBatchOrStream(const Args& args, const ReconstructOptions& o, uint32_t columns,
                        double pose_fraction, const std::vector<double>& frames) {
  const std::string file = args.positionals()[0];
  RecordingOptions options;
  options.format = args.Get("--format");
  auto size = MeasureRecording(file, args.Get("--metadata", args.Get("--calibration")), options);
  if (!size.ok()) return -1;  // the batch path reads it again and says what is wrong
  uint64_t points = 0;
  size_t chosen = 0;
  const auto& per_frame = size->points_per_frame;
  for (size_t k = 0; k < per_frame.size(); ++k) {
    const bool wanted = frames.empty() || std::find(frames.begin(), frames.end(),
                                                    static_cast<double>(k)) != frames.end();
    if (!wanted) continue;
    points += per_frame[k];
    ++chosen;
  }
  const uint64_t estimate = BatchReconstructionBytes(points);
  if (estimate <= kBatchReconstructionBudgetBytes) return -1;
  const auto gib = [](uint64_t bytes) { return static_cast<double>(bytes) / (1 << 30); };
  const bool meshes_range_images = o.method == "range-image" || o.method == "surfels";
  const bool poses_known = args.Has("--static") || args.Has("--poses") || size->reader == "hdf5";
  if (meshes_range_images && poses_known) {
    fmt::print(stderr,
               "lidartwin reconstruct: {}: {} frame(s) of {} points in all would take about {:.1f} "
               "GiB as one batch (more than {:.2f}); streaming them one at a time instead, as "
               "--incremental does (no consensus between frames)\n",
               file, chosen, points, gib(estimate), gib(kBatchReconstructionBudgetBytes));
    return ReconstructIncrementally(args, o, columns, pose_fraction, frames);
  }
  fmt::print(stderr,
             "lidartwin reconstruct: error: {}: {} frame(s) of {} points in all would take about "
             "{:.1f} GiB as one batch, more than the {:.2f} GiB it may plan; {}\n",
             file, chosen, points, gib(estimate), gib(kBatchReconstructionBudgetBytes),
             meshes_range_images
                 ? "give the poses (--poses KITTI.txt, or --static) so that the frames can be "
                   "streamed, or choose fewer --frames (ICP poses need every frame in memory)"
                 : "mesh range images (--method range-image or surfels) with poses to stream "
                   "the frames, or choose fewer --frames");
  return 1;
}

}  // namespace lt::cli
