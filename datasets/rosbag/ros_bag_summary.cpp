#include "lidartwin/datasets/ros_bag_summary.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "lidartwin/base/terminal_text.h"
#include "rosbag/packet_messages.h"
#include "rosbag/point_cloud_messages.h"
#include "velodyne/velodyne_models.h"

namespace lt {
namespace {

// Velodyne's return mode byte (VLP-16 manual, "Factory bytes": 0x37 strongest, 0x38 last,
// 0x39 dual).
const char* VelodyneReturnMode(uint8_t b) {
  switch (b) {
    case 0x37:
      return "strongest return";
    case 0x38:
      return "last return";
    case 0x39:
      return "dual return";
  }
  return "unknown return mode";
}

// What the first packet of a lidar topic's first message says.
std::string SensorOfPackets(ros::PacketVendor vendor, const std::vector<ros::MessagePacket>& p) {
  std::string text = ros::PacketVendorName(vendor);
  if (p.empty()) return text + ", no packet in the first message";
  const auto& first = p.front().payload;
  if (vendor == ros::PacketVendor::kVelodyne && first.size() == 1206) {
    if (IsHdl64ePacket(first.data())) {  // no factory bytes: dual if blocks 0 and 2 match
      const bool dual = first[2] == first[202] && first[3] == first[203] &&
                        (first[2] != first[402] || first[3] != first[403]);
      return text + " HDL-64E, 1206-byte packets, " + (dual ? "dual return" : "single return");
    }
    const VelodyneModel* m = VelodyneModelOf(first[1205]);
    text += std::string(" ") + (m ? m->name : "of an unknown product id");
    return text + ", 1206-byte packets, " + VelodyneReturnMode(first[1204]);
  }
  return text + ", " + std::to_string(first.size()) + "-byte packets";
}

}  // namespace

Expected<RosBagSummary> SummarizeRosBag(const std::filesystem::path& path) {
  auto opened = OpenRosBag(path);
  if (!opened.ok()) return opened.error();
  RosBag& bag = **opened;
  RosBagSummary s;
  s.storage = bag.storage();
  s.bytes = bag.bytes_total();
  for (const BagTopic& t : bag.topics()) {
    s.topics.push_back({t, ""});
    s.messages += t.messages;
  }
  // Each lidar topic's first message, all in one pass that ends once every one is seen.
  std::vector<std::string> lidar;
  for (BagTopicSummary& t : s.topics) {
    if (ros::IsPointCloudType(t.topic.type))
      t.sensor = "point clouds";
    else if (ros::PacketVendorOfType(t.topic.type) != ros::PacketVendor::kNone)
      lidar.push_back(t.topic.name);
  }
  std::vector<ros::MessagePacket> packets;
  size_t left = lidar.size();
  const std::string kEnough = "(every lidar topic's first message seen)";
  Status st =
      lidar.empty() ? Status{} : bag.ForEachMessage(lidar, [&](const BagMessage& m) -> Status {
        for (BagTopicSummary& t : s.topics) {
          if (t.topic.name != m.topic->name || !t.sensor.empty()) continue;
          const ros::PacketVendor vendor = ros::PacketVendorOfType(t.topic.type);
          if (Status r = ros::ReadMessagePackets(m, packets); !r.ok())
            t.sensor = std::string(ros::PacketVendorName(vendor)) + ", first message unreadable (" +
                       r.message() + ")";
          else
            t.sensor = SensorOfPackets(vendor, packets);
          --left;
        }
        return left == 0 ? Status{Error{kEnough}} : Status{};
      });
  if (!st.ok() && st.message() != kEnough) return st.error();
  s.warnings = bag.warnings();
  return s;
}

std::string RosBagSummaryText(const std::string& file, const RosBagSummary& s) {
  std::string out = fmt::format("{}: ROS bag ({}), {} bytes, {} messages on {} topic(s)\n", file,
                                s.storage, s.bytes, s.messages, s.topics.size());
  size_t name_width = 5, type_width = 4;
  for (const auto& t : s.topics) {
    name_width = std::max(name_width, t.topic.name.size());
    type_width = std::max(type_width, t.topic.type.size());
  }
  out += fmt::format("  {:<{}}  {:<{}}  {:>8}  {}\n", "topic", name_width, "type", type_width,
                     "messages", "lidar");
  // Names come from the file: their control bytes are shown escaped, never sent to a terminal.
  for (const auto& t : s.topics)
    out += fmt::format("  {:<{}}  {:<{}}  {:>8}  {}\n", EscapeControlBytes(t.topic.name),
                       name_width, EscapeControlBytes(t.topic.type), type_width, t.topic.messages,
                       t.sensor.empty() ? "-" : EscapeControlBytes(t.sensor));
  for (const auto& w : s.warnings)
    out += "warning: " + EscapeControlBytes(w) + "\n";
  return out;
}

std::string RosBagSummaryJson(const std::string& file, const RosBagSummary& s) {
  nlohmann::json j;
  j["file"] = file;
  j["kind"] = "ros-bag";
  j["storage"] = s.storage;
  j["bytes"] = s.bytes;
  j["messages"] = s.messages;
  j["warnings"] = s.warnings;
  j["topics"] = nlohmann::json::array();
  for (const auto& t : s.topics) {
    nlohmann::json topic = {{"name", t.topic.name},
                            {"type", t.topic.type},
                            {"serialization", t.topic.serialization},
                            {"messages", t.topic.messages}};
    if (!t.sensor.empty()) topic["lidar"] = t.sensor;
    j["topics"].push_back(topic);
  }
  // Names from the file may not be UTF-8: invalid bytes become U+FFFD rather than an exception.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace lt
