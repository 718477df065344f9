#include "rosbag/bag_packets.h"

#include "lidartwin/base/message_text.h"
#include "rosbag/point_cloud_messages.h"

namespace lt::ros {

uint16_t DataPort(PacketVendor vendor) {
  switch (vendor) {
    case PacketVendor::kRobosense:
      return 6699;
    case PacketVendor::kOuster:
      return 7502;
    default:
      return 2368;
  }
}

namespace {

// A topic a driver publishes beside its lidar data with a lidar packet type: ouster-ros's IMU
// packets (.../imu_packets) and ros_rslidar's DIFOP packets (.../rslidar_packets_difop).
bool IsCompanionTopic(const BagTopic& t) {
  return t.name.find("imu_packets") != std::string::npos ||
         t.name.find("difop") != std::string::npos;
}

// A topic's namespace: "/front/rslidar_packets" -> "/front/".
std::string NamespaceOf(const std::string& topic) {
  return topic.substr(0, topic.rfind('/') + 1);
}

// The topics to read for `topic`'s packets: it, and for RoboSense packets its DIFOP topic
// (ros_rslidar publishes the device packets apart; the decoder needs their return mode): the
// DIFOP topic in the same namespace, else, in a bag of one unit's packets, the bag's only one (a
// bag of two units must not mix one's DIFOP into the other's packets).
std::vector<std::string> TopicsToRead(const RosBag& bag, const BagTopic& topic) {
  std::vector<std::string> names{topic.name};
  if (PacketVendorOfType(topic.type) != PacketVendor::kRobosense) return names;
  std::vector<const BagTopic*> difop, beside;
  size_t units = 0;
  for (const BagTopic& t : bag.topics()) {
    if (PacketVendorOfType(t.type) != PacketVendor::kRobosense) continue;
    if (t.name.find("difop") == std::string::npos) {
      ++units;
    } else if (&t != &topic) {
      difop.push_back(&t);
      if (NamespaceOf(t.name) == NamespaceOf(topic.name)) beside.push_back(&t);
    }
  }
  if (beside.size() == 1)
    names.push_back(beside[0]->name);
  else if (beside.empty() && difop.size() == 1 && units == 1)
    names.push_back(difop[0]->name);
  return names;
}

}  // namespace

PacketSource BagPackets(std::shared_ptr<RosBag> bag, const BagTopic& topic, uint16_t port) {
  const std::vector<std::string> names = TopicsToRead(*bag, topic);
  return {bag->path(), [bag, names, port](const UdpSink& sink, CaptureStats& stats) -> Status {
            stats.bytes_total = bag->bytes_total();
            std::vector<MessagePacket> packets;
            UdpDatagram d;
            Status read = bag->ForEachMessage(names, [&](const BagMessage& m) -> Status {
              ++stats.records;
              stats.bytes_read = bag->bytes_read();
              if (Status s = ReadMessagePackets(m, packets); !s.ok()) {
                ++stats.malformed_messages;
                stats.Warn(s.message() + "; message skipped");
                return {};
              }
              const PacketVendor vendor = PacketVendorOfType(m.topic->type);
              for (size_t i = 0; i < packets.size(); ++i) {
                const MessagePacket& p = packets[i];
                d.capture_time_s = static_cast<double>(p.stamp_ns) * 1e-9;
                d.dst_port = p.difop ? kRobosenseDifopPort : port ? port : DataPort(vendor);
                d.src_port = d.dst_port;
                d.file_offset = 0;
                d.payload.assign(p.payload.begin(), p.payload.end());
                d.place = m.where + ", packet " + std::to_string(i);
                ++stats.udp_datagrams;
                if (Status s = sink(d); !s.ok()) return s;
              }
              return {};
            });
            for (const std::string& w : bag->warnings())
              stats.Warn(w);
            return read;
          }};
}

Expected<const BagTopic*> ChooseLidarTopic(const RosBag& bag, const std::string& wanted) {
  constexpr size_t kListed = 8;
  // The bag's topics for a message: the first few, the rest counted.
  std::string listing;
  for (size_t k = 0; k < bag.topics().size() && k < kListed; ++k)
    listing += (listing.empty() ? "" : ", ") + ShortenedForMessage(bag.topics()[k].name) + " (" +
               ShortenedForMessage(bag.topics()[k].type) + ")";
  if (bag.topics().size() > kListed)
    listing += " and " + std::to_string(bag.topics().size() - kListed) + " more";
  if (!wanted.empty()) {
    for (const BagTopic& t : bag.topics()) {
      if (t.name != wanted) continue;
      if (PacketVendorOfType(t.type) == PacketVendor::kNone && !IsPointCloudType(t.type))
        return OptionError("topic", "topic " + ShortenedForMessage(t.name) + ": " +
                                        bag.path().string() + " holds " +
                                        ShortenedForMessage(t.type) +
                                        " there, neither lidar packets nor a point cloud");
      return &t;
    }
    return OptionError("topic", "topic " + ShortenedForMessage(wanted) + ": " +
                                    bag.path().string() + " has no such topic (it holds " +
                                    (listing.empty() ? std::string("no topic") : listing) + ")");
  }
  std::vector<const BagTopic*> lidar;
  for (const BagTopic& t : bag.topics())
    if (PacketVendorOfType(t.type) != PacketVendor::kNone || IsPointCloudType(t.type))
      lidar.push_back(&t);
  if (lidar.size() > 1) {
    std::vector<const BagTopic*> data;
    for (const BagTopic* t : lidar)
      if (!IsCompanionTopic(*t)) data.push_back(t);
    if (!data.empty()) lidar = data;
  }
  if (lidar.size() == 1) return lidar[0];
  if (lidar.empty())
    return Error{bag.path().string() + ": no lidar packet or point cloud topic (the bag holds " +
                 (listing.empty() ? std::string("no topic") : listing) + ")" +
                 // A bag cut short before its first connection: say so, not only "no topic".
                 (bag.warnings().empty() ? std::string() : "; " + bag.warnings().front())};
  std::string names;
  for (size_t k = 0; k < lidar.size() && k < kListed; ++k)
    names += (names.empty() ? "" : ", ") + ShortenedForMessage(lidar[k]->name);
  if (lidar.size() > kListed) names += " and " + std::to_string(lidar.size() - kListed) + " more";
  return OptionError(
      "topic", "topic: the bag has several lidar topics (" + names + "); name the one to read");
}

}  // namespace lt::ros
