#include "rosbag/bag_packets.h"

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

PacketSource BagPackets(std::shared_ptr<RosBag> bag, const BagTopic& topic) {
  const std::string name = topic.name;
  return {bag->path(), [bag, name](const UdpSink& sink, CaptureStats& stats) -> Status {
            stats.bytes_total = bag->bytes_total();
            std::vector<MessagePacket> packets;
            UdpDatagram d;
            Status read = bag->ForEachMessage({name}, [&](const BagMessage& m) -> Status {
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
                d.dst_port = p.difop ? kRobosenseDifopPort : DataPort(vendor);
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
  std::string listing;
  for (const BagTopic& t : bag.topics())
    listing += (listing.empty() ? "" : ", ") + t.name + " (" + t.type + ")";
  if (!wanted.empty()) {
    for (const BagTopic& t : bag.topics()) {
      if (t.name != wanted) continue;
      if (PacketVendorOfType(t.type) == PacketVendor::kNone && !IsPointCloudType(t.type))
        return Error{bag.path().string() + ": topic " + t.name + " is a " + t.type +
                     ", neither lidar packets nor a point cloud"};
      return &t;
    }
    return Error{bag.path().string() + ": no topic " + wanted + " (the bag holds " +
                 (listing.empty() ? std::string("no topic") : listing) + ")"};
  }
  std::vector<const BagTopic*> lidar;
  for (const BagTopic& t : bag.topics())
    if (PacketVendorOfType(t.type) != PacketVendor::kNone || IsPointCloudType(t.type))
      lidar.push_back(&t);
  if (lidar.size() == 1) return lidar[0];
  if (lidar.empty())
    return Error{bag.path().string() + ": no lidar packet or point cloud topic (the bag holds " +
                 (listing.empty() ? std::string("no topic") : listing) + ")"};
  std::string names;
  for (const BagTopic* t : lidar)
    names += (names.empty() ? "" : ", ") + t->name;
  return OptionError(
      "topic", "topic: the bag has several lidar topics (" + names + "); name the one to read");
}

}  // namespace lt::ros
