// Point clouds and transforms as ROS 2 messages (ADR 0023): sensor_msgs/PointCloud2 read with
// any field layout and written with the usual names, tf2_msgs/TFMessage written. The message
// definitions are ROS 2's (common_interfaces: sensor_msgs/msg/PointCloud2.msg, PointField.msg;
// std_msgs/msg/Header.msg; geometry_msgs TransformStamped, Transform, Vector3, Quaternion;
// tf2_msgs/msg/TFMessage.msg), restated here as the schema text an MCAP file carries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/datasets/ros_bag.h"

namespace lt::ros {

inline constexpr const char* kPointCloud2Type = "sensor_msgs/msg/PointCloud2";
inline constexpr const char* kTfMessageType = "tf2_msgs/msg/TFMessage";
// The ros2msg schema texts (the type's definition, then each dependency after a line of 80 '='
// and "MSG: package/Type"), as rosbag2 writes them into MCAP files.
const std::string& PointCloud2Schema();
// Whether a topic's type is sensor_msgs/PointCloud2 (ROS 2's or ROS 1's spelling).
bool IsPointCloudType(const std::string& type);
const std::string& TfMessageSchema();

// The most points a cloud may have to be read: a frames file's (hdf5_frames.h).
inline constexpr uint64_t kMaxCloudPoints = kMaxHdf5PointsPerFrame;

// A frame as one PointCloud2 (height 1, width = points, dense): x, y, z, intensity (float32),
// ring (uint16: the channel), time (float32, seconds after the stamp), return_type (uint8:
// nebula's codes, physics/return_type.h), and our own fields range, reflectance (float32),
// column, beam_id, instance_id (uint32), material_id, semantic_class (uint16), return_index
// (uint8); those the frame has (x, y, z always).
std::vector<uint8_t> EncodePointCloud2(const Frame& frame, int64_t stamp_ns,
                                       const std::string& frame_id);

struct StampedTransform {
  int64_t stamp_ns = 0;
  std::string parent, child;
  physics::Pose<double> pose;  // child -> parent
};
std::vector<uint8_t> EncodeTfMessage(const std::vector<StampedTransform>& transforms);

// A PointCloud2 message as a frame: x, y, z required (any numeric type); intensity (or
// "reflectivity", "signal"), ring (or "channel"), time ("time"/"t"/"timestamp"/"time_stamp": a
// float in seconds, an integer in nanoseconds; relative to the stamp when below a day, else
// absolute), return_type (nebula's codes) and our own fields (return_index ..) by name where
// present. Points with a non-finite coordinate are dropped (an organised cloud's holes). Fields the
// cloud does not carry are absent from the frame (empty), not zero; `absent` names the usual ones
// among them. ROS 1's serialization (the topic's) is read too. Errors begin with the message's
// `where`.
Expected<Frame> DecodePointCloud2(const BagMessage& message, std::vector<std::string>* absent);

}  // namespace lt::ros
