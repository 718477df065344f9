// The lidar packets inside a bag's messages: the vendor drivers' packet-scan messages (a
// revolution's packets in one message) and the one-packet messages (ADR 0023). Each type's
// fields are read from its message definition, named below; nothing of the payload is
// interpreted here (the vendor's packet decoder does that).
//   velodyne_msgs/VelodyneScan   Header; VelodynePacket[] {Time stamp; uint8[1206] data}
//   pandar_msgs/PandarScan       Header; PandarPacket[] {Time stamp; uint8[1500] data;
//                                uint32 size}
//   hesai_lidar/PandarScan       (ROS 1, HesaiLidar_General_ROS) the same, or since 2020 with
//                                uint8[] data: told by the bag's message definition
//   robosense_msgs/RobosenseScan Header; RobosensePacket[] {Time stamp; uint8 is_difop;
//                                uint8[1500] data; uint32 size}
//   rslidar_msgs/rslidarScan     Header; rslidarPacket[] {Time stamp; uint8[1248] data}
//   rslidar_msgs/rslidarPacket   Time stamp; uint8[1248] data (one packet: ros_rslidar's DIFOP
//                                topic; MSOP or DIFOP told by the packet's first bytes)
//   rslidar_msg/RslidarPacket    Header; uint8 is_difop; uint8 is_frame_begin; uint8[] data
//                                (one packet: rslidar_sdk), or in its older ROS 2 builds
//                                Time stamp; uint8[1248] data (the definition, else the size)
//   nebula_msgs/NebulaPackets    Header; NebulaPacket[] {Time stamp; uint8[] data}
//   ouster_ros/PacketMsg         uint8[] buf (one packet)
// ROS 1 bags name the types without "/msg/" and serialize them without CDR's alignment or the
// strings' NUL, and their Header begins with a uint32 seq; where a driver changed a type's
// layout, the bag's stored message definition says which it holds.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/ros_bag.h"

namespace lt::ros {

// Whose packets a message type carries; kUnknownVendor: a generic packet message
// (nebula_msgs/NebulaPackets) whose vendor the packets themselves say.
enum class PacketVendor { kNone, kVelodyne, kHesai, kRobosense, kOuster, kUnknownVendor };

// The vendor of a packet message type ("pandar_msgs/msg/PandarScan" or
// "pandar_msgs/PandarScan"); kNone for every other type.
PacketVendor PacketVendorOfType(const std::string& type);
const char* PacketVendorName(PacketVendor vendor);

struct MessagePacket {
  int64_t stamp_ns = 0;  // the packet's own stamp (the driver's receive time)
  bool difop = false;    // RoboSense: a DIFOP (device information) packet, not MSOP data
  size_t offset = 0;     // of the payload in the message, for errors
  std::span<const uint8_t> payload;
};

// The packets of one message of a packet type (PacketVendorOfType != kNone), into `out`
// (cleared first). Errors begin with the message's `where` and name the byte of the message.
Status ReadMessagePackets(const BagMessage& message, std::vector<MessagePacket>& out);

// The text of a std_msgs/String message (a driver's metadata topic).
Expected<std::string> ReadStringMessage(const BagMessage& message);

}  // namespace lt::ros
