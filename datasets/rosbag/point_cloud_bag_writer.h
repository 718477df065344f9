// Frames as a ROS 2 bag a perception stack replays (`ros2 bag play out.mcap`; .db3 too): one
// sensor_msgs/PointCloud2 a frame on /lidar/points (frame_id "lidar", stamped at the frame's
// start), the frame's start pose as map -> base_link on /tf, and the sensor mount base_link ->
// lidar (identity: the trajectory is the sensor's own) once on /tf_static (transient local).
#pragma once

#include <filesystem>
#include <memory>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "rosbag/bag_writer.h"

namespace lt::ros {

inline constexpr const char* kPointsTopic = "/lidar/points";
inline constexpr const char* kLidarFrameId = "lidar";

class PointCloudBagWriter {
 public:
  static Expected<std::unique_ptr<PointCloudBagWriter>> Create(const std::filesystem::path& out);
  Status Append(const Frame& frame);
  Status Close();

 private:
  std::unique_ptr<BagWriter> bag_;
  uint16_t points_ = 0, tf_ = 0, tf_static_ = 0;
  bool mount_written_ = false;
};

}  // namespace lt::ros
