// The recording with a sensor pose at every frame's start and end, shared by `reconstruct` and
// `reproduce`: poses from a KITTI file, estimated by ICP (issue 12), or a static sensor.
#include "lidartwin/reconstruct/posed_recording.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lidartwin/base/order_statistics.h"
#include "lidartwin/datasets/recording.h"
#include "lidartwin/reconstruct/frame_registration.h"

namespace lt {

Expected<double> PoseFractionOf(const std::string& word) {
  if (word == "start") return 0.0;
  if (word == "middle") return 0.5;
  if (word == "end") return 1.0;
  return OptionError("pose_at", "pose_at: '" + word + "' (expected start, middle or end)");
}

physics::Pose<double> PoseAtFrameTime(const std::vector<physics::Pose<double>>& poses, double t) {
  if (poses.size() < 2) return poses.front();
  const size_t i =
      static_cast<size_t>(std::clamp(std::floor(t), 0.0, static_cast<double>(poses.size() - 2)));
  return physics::InterpolatePose(poses[i], poses[i + 1], t - static_cast<double>(i));
}

Expected<PosedRecording> LoadPosedRecording(const std::string& recording,
                                            const std::string& sidecar,
                                            const std::string& poses_file,
                                            const RecordingOptions& read, double pose_fraction) {
  auto rec = ReadRecording(recording, sidecar, read);
  if (!rec.ok()) return rec.error();
  const size_t n = rec->frames.size();
  PosedRecording out;
  std::vector<physics::Pose<double>> poses(n, physics::Pose<double>{{1, 0, 0, 0}, {0, 0, 0}});
  if (!poses_file.empty()) {
    auto p = LoadKittiPoses(poses_file);
    if (!p.ok()) return p.error();
    if (p->size() != n)
      return Error{
          fmt::format("{}: {} poses for {} frames in {}", poses_file, p->size(), n, recording)};
    poses = std::move(*p);
  }
  // Pose k belongs to the instant pose_fraction of frame k; a frame starts and ends where the
  // poses interpolated (extrapolated past the ends) put those instants.
  for (size_t k = 0; k < n; ++k) {
    out.start_poses.push_back(PoseAtFrameTime(poses, static_cast<double>(k) - pose_fraction));
    out.end_poses.push_back(PoseAtFrameTime(poses, static_cast<double>(k) + 1 - pose_fraction));
  }
  const auto identity = [](const physics::Pose<double>& p) {
    return p.rotation.w == 1 && p.translation.x == 0 && p.translation.y == 0 &&
           p.translation.z == 0;
  };
  if (poses_file.empty() && rec->reader == "hdf5" &&
      std::any_of(rec->frames.begin(), rec->frames.end(), [&](const Frame& f) {
        return !identity(f.pose_start) || !identity(f.pose_end);
      })) {
    for (size_t k = 0; k < n; ++k) {
      out.start_poses[k] = rec->frames[k].pose_start;
      out.end_poses[k] = rec->frames[k].pose_end;
    }
    out.poses_from_recording = true;
  }
  out.frames = std::move(rec->frames);
  out.sensor = rec->sensor;
  out.reader = rec->reader;
  out.intensity_unit = rec->intensity_unit;
  out.notes = std::move(rec->notes);
  return out;
}

Expected<std::string> EstimateRecordingPoses(PosedRecording& rec, size_t first, size_t last) {
  if (last >= rec.frames.size() || first >= last)
    return Error{fmt::format("estimating poses: frames {}..{} of a recording of {}", first, last,
                             rec.frames.size())};
  const std::vector<Frame> span(rec.frames.begin() + static_cast<std::ptrdiff_t>(first),
                                rec.frames.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  auto estimate = EstimatePoses(span, RegistrationOptions{});
  if (!estimate.ok()) return Error{"estimating poses by ICP: " + estimate.message()};
  // The frames' start and end poses from the deskewed estimate (each frame's motion within
  // its revolution).
  for (size_t k = 0; k < span.size(); ++k) {
    rec.start_poses[first + k] = estimate->start_poses[k];
    rec.end_poses[first + k] = estimate->end_poses[k];
  }
  std::string report =
      fmt::format("poses of frames {}..{} estimated by ICP (point-to-plane, scales", first, last);
  for (double v : RegistrationOptions{}.voxel_m)
    report += fmt::format(" {:g}", v);
  report += fmt::format(" m; deskewed by {} over {} rounds):\n", FiringClockName(estimate->clock),
                        estimate->rounds);
  for (const PairRegistration& p : estimate->pairs) {
    const double turned = TurnedDeg({1, 0, 0, 0}, p.motion.rotation);
    const auto& t = p.motion.translation;
    report += fmt::format(
        "  frame {} -> {}: moved {:.3f} m, turned {:.3f} deg; fitness {:.3f}, inlier RMSE "
        "{:.3f} m{}\n",
        first + p.from, first + p.to, std::sqrt(Dot(t, t)), turned, p.fitness, p.inlier_rmse_m,
        p.fitness < 0.5 ? "  (warning: under half the points overlap)" : "");
  }
  return report;
}

Expected<std::vector<size_t>> FrameIndices(const std::vector<double>& list, size_t frame_count,
                                           const std::string& source) {
  std::vector<size_t> out;
  for (double v : list) {
    if (v < 0 || v != std::floor(v) || v >= static_cast<double>(frame_count)) {
      char value[32];
      std::snprintf(value, sizeof value, "%g", v);
      return Error{"frame " + std::string(value) + " does not exist (" + source + " has " +
                   std::to_string(frame_count) + " frame(s))"};
    }
    if (std::find(out.begin(), out.end(), static_cast<size_t>(v)) != out.end()) {
      return Error{"frame " + std::to_string(static_cast<size_t>(v)) + " is listed twice"};
    }
    out.push_back(static_cast<size_t>(v));
  }
  return out;
}

Expected<PosedFrames> PickFrames(const PosedRecording& rec, const std::vector<double>& list,
                                 uint32_t columns) {
  PosedFrames out;
  out.columns_per_frame = columns;
  auto indices = FrameIndices(list, rec.frames.size(), "the recording");
  if (!indices.ok()) return indices.error();
  for (size_t k : *indices) {
    out.frames.push_back(rec.frames[k]);
    out.start_poses.push_back(rec.start_poses[k]);
    out.end_poses.push_back(rec.end_poses[k]);
  }
  return out;
}

}  // namespace lt
