#include "rosbag/point_cloud_bag_writer.h"

#include <algorithm>
#include <cmath>

#include "rosbag/mcap_writer.h"
#include "rosbag/point_cloud_messages.h"

namespace lt::ros {
namespace {

// Trajectory seconds as a ROS stamp: nanoseconds, within 0 .. 2^31 s (builtin_interfaces/Time's
// int32 seconds; a NaN is 0).
int64_t StampNs(double seconds) {
  if (!(seconds > 0)) return 0;
  return static_cast<int64_t>(std::llround(std::min(seconds, 2147483647.0) * 1e9));
}

}  // namespace

Expected<std::unique_ptr<PointCloudBagWriter>> PointCloudBagWriter::Create(
    const std::filesystem::path& out) {
  auto bag = CreateBagWriter(out);
  if (!bag.ok()) return bag.error();
  auto w = std::make_unique<PointCloudBagWriter>();
  w->bag_ = std::move(bag.value());
  w->points_ =
      w->bag_->AddTopic(kPointsTopic, kPointCloud2Type, PointCloud2Schema(), QosProfiles(false));
  w->tf_ = w->bag_->AddTopic("/tf", kTfMessageType, TfMessageSchema(), QosProfiles(false));
  w->tf_static_ =
      w->bag_->AddTopic("/tf_static", kTfMessageType, TfMessageSchema(), QosProfiles(true));
  return w;
}

Status PointCloudBagWriter::Append(const Frame& frame) {
  const int64_t stamp = StampNs(frame.start_time_s);
  if (!mount_written_) {
    const auto mount = EncodeTfMessage({{stamp, "base_link", kLidarFrameId, {}}});
    if (Status s = bag_->Write(tf_static_, stamp, mount); !s.ok()) return s;
    mount_written_ = true;
  }
  const auto pose = EncodeTfMessage({{stamp, "map", "base_link", frame.pose_start}});
  if (Status s = bag_->Write(tf_, stamp, pose); !s.ok()) return s;
  return bag_->Write(points_, stamp, EncodePointCloud2(frame, stamp, kLidarFrameId));
}

Status PointCloudBagWriter::Close() {
  return bag_->Close();
}

}  // namespace lt::ros
