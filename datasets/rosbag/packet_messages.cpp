#include "rosbag/packet_messages.h"

#include <sstream>

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

// Whether a message definition (its text and its dependencies') declares a field `type name`
// (comments and spacing aside).
bool DeclaresField(const std::string& definition, const std::string& type,
                   const std::string& name) {
  std::istringstream lines(definition);
  for (std::string line; std::getline(lines, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string t, n;
    if (words >> t >> n && t == type && n == name) return true;
  }
  return false;
}

// A payload array of `n` bytes, its count read first (`uint8[] data`).
void ReadCountedPayload(CdrReader& r, MessagePacket& p) {
  const uint32_t n = r.Count(1);
  p.offset = r.offset();
  p.payload = r.Bytes(n);
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
    MessagePacket p;
    ReadCountedPayload(r, p);
    if (r.ok()) out.push_back(p);
  } else if (type == "rslidar_msgs/rslidarPacket") {  // one packet: Time stamp, uint8[1248]
    MessagePacket p;
    p.stamp_ns = StampNs(r);
    p.offset = r.offset();
    p.payload = r.Bytes(kRobosensePacketBytes);
    p.difop = IsRobosenseDifop(p.payload);
    if (r.ok()) out.push_back(p);
  } else if (type == "rslidar_msg/RslidarPacket") {
    MessagePacket p;
    // rslidar_sdk's: Header, is_difop, is_frame_begin, uint8[] data; its older ROS 2 builds':
    // Time stamp, uint8[1248] data (told by the definition where the bag keeps it, else by
    // the size: 4 + 8 + 1248 bytes in CDR).
    const bool fixed =
        DeclaresField(message.topic->definition, "uint8[1248]", "data") ||
        (message.topic->definition.empty() && !ros1 && message.data.size() == 4 + 8 + 1248);
    if (fixed) {
      p.stamp_ns = StampNs(r);
      p.offset = r.offset();
      p.payload = r.Bytes(kRobosensePacketBytes);
      p.difop = IsRobosenseDifop(p.payload);
    } else {
      if (ros1) r.U32();  // the Header's seq
      p.stamp_ns = StampNs(r);
      r.String();
      p.difop = r.U8() != 0;
      r.U8();
      ReadCountedPayload(r, p);
    }
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
          // HesaiLidar_General_ROS's PandarPacket has been `uint8[] data; uint32 size` since
          // 2020, nebula's and the older driver's `uint8[1500] data; uint32 size`.
          if (DeclaresField(message.topic->definition, "uint8[]", "data")) {
            ReadCountedPayload(r, p);
            r.U32();
          } else {
            ReadSizedPayload(r, 1500, p);
          }
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
        default:  // nebula_msgs/NebulaPacket: uint8[] data
          ReadCountedPayload(r, p);
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
