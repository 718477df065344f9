// A recording with a sensor pose at every frame's start and end (KITTI poses file, or a
// static sensor), shared by `reconstruct` and `reproduce`.
#pragma once

#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/recording.h"
#include "lidartwin/datasets/scan_measures.h"
#include "lidartwin/reconstruct/reconstruction.h"

namespace lt {

struct PosedRecording {
  std::string reader;  // Recording::reader: ouster-pcap, velodyne-pcap, ...
  std::string sensor;
  std::string intensity_unit;  // Recording::intensity_unit
  std::vector<Frame> frames;
  std::vector<physics::Pose<double>> start_poses, end_poses;
  bool poses_from_recording = false;  // a lidartwin .h5's own frame poses
  std::vector<std::string> notes;     // the reader's: skipped or dropped packets, warnings
};

// Without a poses file, a lidartwin .h5 whose frames carry poses (simulated data) gives its
// own; other recordings get the identity (a static sensor) until EstimateRecordingPoses.
// pose_fraction: when within its frame each pose of the file holds (0 the frame's start, 0.5
// its middle: SLAM that deskews to mid-scan, as KISS-ICP does, 1 its end).
// `read`: how to read the recording (a .bin's layout, a bag's or OSF file's topic).
Expected<PosedRecording> LoadPosedRecording(const std::string& recording,
                                            const std::string& sidecar,
                                            const std::string& poses_file,
                                            const RecordingOptions& read = {},
                                            double pose_fraction = 0);
// start, middle or end as the pose_fraction LoadPosedRecording takes; an error names the key
// pose_at.
Expected<double> PoseFractionOf(const std::string& word);

// The pose at frame time t (pose k at t = k), linear in position and slerp in rotation
// between the neighbouring poses, extrapolated beyond the first and the last.
physics::Pose<double> PoseAtFrameTime(const std::vector<physics::Pose<double>>& poses, double t);

// Replaces the poses of frames first..last by ICP estimates (datasets/frame_registration.h),
// each pose at its frame's middle and frame `first` at the origin; returns the lines that
// report each pair's motion, fitness and residual. An error when ICP fails or a pair does not
// overlap.
Expected<std::string> EstimateRecordingPoses(PosedRecording& rec, size_t first, size_t last);

// Frame indices from a list of numbers (as GetDoubleList gives them): each a whole number below
// frame_count; the error reads "frame V does not exist (SOURCE has N frame(s))".
Expected<std::vector<size_t>> FrameIndices(const std::vector<double>& list, size_t frame_count,
                                           const std::string& source);

// The listed frames (indices) with their poses.
Expected<PosedFrames> PickFrames(const PosedRecording& rec, const std::vector<double>& list,
                                 uint32_t columns);

}  // namespace lt
