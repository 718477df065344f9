#include "rosbag/point_cloud_bag_writer.h"

#include <algorithm>
#include <cmath>

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
  auto mcap = McapWriter::Create(out);
  if (!mcap.ok()) return mcap.error();
  auto w = std::make_unique<PointCloudBagWriter>();
  w->mcap_ = std::move(mcap.value());
  const uint16_t cloud = w->mcap_->AddSchema(kPointCloud2Type, PointCloud2Schema());
  const uint16_t tf = w->mcap_->AddSchema(kTfMessageType, TfMessageSchema());
  w->points_ = w->mcap_->AddChannel(cloud, kPointsTopic, QosProfiles(false));
  w->tf_ = w->mcap_->AddChannel(tf, "/tf", QosProfiles(false));
  w->tf_static_ = w->mcap_->AddChannel(tf, "/tf_static", QosProfiles(true));
  return w;
}

Status PointCloudBagWriter::Append(const Frame& frame) {
  const int64_t stamp = StampNs(frame.start_time_s);
  if (!mount_written_) {
    const auto mount = EncodeTfMessage({{stamp, "base_link", kLidarFrameId, {}}});
    if (Status s = mcap_->Write(tf_static_, stamp, mount); !s.ok()) return s;
    mount_written_ = true;
  }
  const auto pose = EncodeTfMessage({{stamp, "map", "base_link", frame.pose_start}});
  if (Status s = mcap_->Write(tf_, stamp, pose); !s.ok()) return s;
  return mcap_->Write(points_, stamp, EncodePointCloud2(frame, stamp, kLidarFrameId));
}

Status PointCloudBagWriter::Close() {
  return mcap_->Close();
}

}  // namespace lt::ros
