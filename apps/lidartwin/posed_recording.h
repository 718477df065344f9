// A recording with a sensor pose at every frame's start and end (KITTI poses file, or a
// static sensor), shared by `reconstruct` and `reproduce`.
#pragma once

#include <string>
#include <vector>

#include "lidartwin/datasets/reconstruction.h"
#include "lidartwin/sim/status.h"

namespace lt::cli {

struct PosedRecording {
  std::string reader;  // Recording::reader: ouster-pcap, velodyne-pcap, ...
  std::string sensor;
  std::vector<Frame> frames;
  std::vector<physics::Pose<double>> start_poses, end_poses;
};

Expected<PosedRecording> LoadPosedRecording(const std::string& recording,
                                            const std::string& sidecar,
                                            const std::string& poses_file,
                                            const std::string& format = "");
// The listed frames (indices) with their poses.
Expected<PosedFrames> PickFrames(const PosedRecording& rec, const std::vector<double>& list,
                                 uint32_t columns);

}  // namespace lt::cli
