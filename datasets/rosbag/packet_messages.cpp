#include "rosbag/packet_messages.h"

#include "rosbag/cdr_reader.h"

namespace lt::ros {
namespace {

// The type without its package's "/msg/" (ROS 2) so both spellings compare alike.
std::string BareType(const std::string& type) {
  const size_t at = type.find("/msg/");
  return at == std::string::npos ? type : type.substr(0, at) + "/" + type.substr(at + 5);
}

int64_t StampNs(CdrReader& r) {  // builtin_interfaces/Time: int32 sec, uint32 nanosec
  const int32_t sec = r.I32();
  const uint32_t nsec = r.U32();
  return int64_t{sec} * 1000000000 + nsec;
}

// std_msgs/Header: ROS 1's begins with a uint32 seq; then Time stamp, string frame_id.
void SkipHeader(CdrReader& r, bool ros1) {
  if (ros1) r.U32();
  StampNs(r);
  r.String();
}

// A fixed array of `capacity` bytes of which the trailing uint32 `size` are the payload.
void ReadSizedPayload(CdrReader& r, size_t capacity, MessagePacket& p) {
  p.offset = r.offset();
  const auto data = r.Bytes(capacity);
  const size_t size_at = (r.Align(4), r.offset());
  const uint32_t size = r.U32();
  if (r.ok() && size > capacity)
    r.Fail(size_at, "packet size " + std::to_string(size) + " is larger than its " +
                        std::to_string(capacity) + "-byte array");
  if (r.ok()) p.payload = data.first(size);
}

constexpr size_t kRobosensePacketBytes = 1248;

// A RoboSense DIFOP packet by its first bytes (A5 FF 00 5A; MSOP packets begin 55 AA).
bool IsRobosenseDifop(std::span<const uint8_t> p) {
  return p.size() >= 4 && p[0] == 0xA5 && p[1] == 0xFF && p[2] == 0x00 && p[3] == 0x5A;
}

}  // namespace

PacketVendor PacketVendorOfType(const std::string& type) {
  const std::string t = BareType(type);
  if (t == "velodyne_msgs/VelodyneScan") return PacketVendor::kVelodyne;
  if (t == "pandar_msgs/PandarScan" || t == "hesai_lidar/PandarScan") return PacketVendor::kHesai;
  if (t == "robosense_msgs/RobosenseScan" || t == "rslidar_msgs/rslidarScan" ||
      t == "rslidar_msgs/rslidarPacket" || t == "rslidar_msg/RslidarPacket")
    return PacketVendor::kRobosense;
  if (t == "ouster_ros/PacketMsg" || t == "ouster_sensor_msgs/PacketMsg")
    return PacketVendor::kOuster;
  if (t == "nebula_msgs/NebulaPackets") return PacketVendor::kUnknownVendor;
  return PacketVendor::kNone;
}

const char* PacketVendorName(PacketVendor vendor) {
  switch (vendor) {
    case PacketVendor::kVelodyne:
      return "Velodyne";
    case PacketVendor::kHesai:
      return "Hesai";
    case PacketVendor::kRobosense:
      return "RoboSense";
    case PacketVendor::kOuster:
      return "Ouster";
    case PacketVendor::kUnknownVendor:
      return "packets of any vendor";
    case PacketVendor::kNone:
      break;
  }
  return "no packets";
}

Status ReadMessagePackets(const BagMessage& message, std::vector<MessagePacket>& out) {
  out.clear();
  const PacketVendor vendor = PacketVendorOfType(message.topic->type);
  const bool ros1 = message.topic->serialization == "ros1";
  if (!ros1 && message.topic->serialization != "cdr")
    return Error{message.where + ": serialization '" + message.topic->serialization +
                 "' (expected ROS 2's cdr or ROS 1's)"};
  CdrReader r = ros1 ? CdrReader::Ros1(message.data) : CdrReader(message.data);
  const std::string type = BareType(message.topic->type);
  if (vendor == PacketVendor::kOuster) {  // one packet: uint8[] buf
    const uint32_t n = r.Count(1);
    MessagePacket p;
    p.offset = r.offset();
    p.payload = r.Bytes(n);
    if (r.ok()) out.push_back(p);
  } else if (type == "rslidar_msgs/rslidarPacket") {  // one packet: Time stamp, uint8[1248]
    MessagePacket p;
    p.stamp_ns = StampNs(r);
    p.offset = r.offset();
    p.payload = r.Bytes(kRobosensePacketBytes);
    p.difop = IsRobosenseDifop(p.payload);
    if (r.ok()) out.push_back(p);
  } else if (type == "rslidar_msg/RslidarPacket") {  // Header, is_difop, is_frame_begin, uint8[]
    SkipHeader(r, ros1);
    MessagePacket p;
    p.difop = r.U8() != 0;
    r.U8();
    const uint32_t n = r.Count(1);
    p.offset = r.offset();
    p.payload = r.Bytes(n);
    if (r.ok()) out.push_back(p);
  } else if (vendor != PacketVendor::kNone) {
    SkipHeader(r, ros1);
    // Each packet is at least its stamp (8 bytes) and a count or its array.
    const uint32_t packets = r.Count(12);
    out.reserve(packets);
    for (uint32_t i = 0; i < packets && r.ok(); ++i) {
      MessagePacket p;
      p.stamp_ns = StampNs(r);
      switch (vendor) {
        case PacketVendor::kVelodyne:
          p.offset = r.offset();
          p.payload = r.Bytes(1206);
          break;
        case PacketVendor::kHesai:
          ReadSizedPayload(r, 1500, p);
          break;
        case PacketVendor::kRobosense:
          if (type == "rslidar_msgs/rslidarScan") {  // Time stamp, uint8[1248] data
            p.offset = r.offset();
            p.payload = r.Bytes(kRobosensePacketBytes);
            p.difop = IsRobosenseDifop(p.payload);
          } else {
            p.difop = r.U8() != 0;
            ReadSizedPayload(r, 1500, p);
          }
          break;
        default: {  // nebula_msgs/NebulaPacket: uint8[] data
          const uint32_t n = r.Count(1);
          p.offset = r.offset();
          p.payload = r.Bytes(n);
        }
      }
      if (r.ok()) out.push_back(p);
    }
  } else {
    return Error{message.where + ": type " + message.topic->type + " carries no lidar packets"};
  }
  if (!r.ok()) return Error{message.where + " (" + message.topic->type + "): " + r.error()};
  return {};
}

Expected<std::string> ReadStringMessage(const BagMessage& message) {
  const bool ros1 = message.topic->serialization == "ros1";
  CdrReader r = ros1 ? CdrReader::Ros1(message.data) : CdrReader(message.data);
  std::string text = r.String();
  if (!r.ok()) return Error{message.where + " (" + message.topic->type + "): " + r.error()};
  return text;
}

}  // namespace lt::ros
