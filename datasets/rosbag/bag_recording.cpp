#include "rosbag/bag_recording.h"

#include "recording/packet_recording.h"
#include "rosbag/bag_packets.h"
#include "rosbag/point_cloud_messages.h"

namespace lt::ros {

Expected<RecordingSource> OpenBagRecording(const std::filesystem::path& bag_path,
                                           const std::filesystem::path& sidecar,
                                           const RecordingOptions& options) {
  auto opened = OpenRosBag(bag_path);
  if (!opened.ok()) return opened.error();
  std::shared_ptr<RosBag> bag = std::move(opened.value());
  auto topic = ChooseLidarTopic(*bag, options.topic);
  if (!topic.ok()) return topic.error();
  if (IsPointCloudType((*topic)->type)) {
    if (!sidecar.empty())
      return Error{sidecar.string() + ": a bag of point clouds takes no metadata or calibration"};
    Recording r;
    r.reader = "pointcloud2-bag";
    r.sensor = (*topic)->name;
    r.frames_known = static_cast<uint32_t>((*topic)->messages);
    const std::string name = (*topic)->name;
    return RecordingSource(
        std::move(r),
        [bag, name](const FrameSink& sink, CaptureStats& stats,
                    std::vector<std::string>& notes) -> Status {
          stats.bytes_total = bag->bytes_total();
          std::vector<std::string> absent;
          uint32_t index = 0;
          Status s = bag->ForEachMessage({name}, [&](const BagMessage& m) -> Status {
            stats.bytes_read = bag->bytes_read();
            auto frame = DecodePointCloud2(m, &absent);
            if (!frame.ok()) {  // skipped and counted, as a bag's unreadable packet message is
              ++stats.malformed_messages;
              stats.Warn(frame.message() + "; message skipped");
              return {};
            }
            ++stats.lidar_packets;
            frame->index = index++;
            return sink(std::move(frame.value()));
          });
          for (const std::string& w : bag->warnings())
            stats.Warn(w);
          if (s.ok() && stats.lidar_packets == 0)
            return Error{bag->path().string() + ": topic " + name +
                         ": no point cloud could be read" +
                         (stats.warnings.empty() ? std::string()
                                                 : " (first problem: " + stats.warnings[0] + ")")};
          if (!absent.empty()) {
            std::string list;
            for (const auto& a : absent)
              list += (list.empty() ? "" : ", ") + a;
            notes.push_back("note: the point clouds have no " + list + " field (read as 0)");
          }
          return s;
        });
  }
  const PacketVendor vendor = PacketVendorOfType((*topic)->type);
  const PacketSource packets = BagPackets(bag, **topic);
  Recording r;
  r.notes.push_back("note: reading topic " + (*topic)->name + " (" + (*topic)->type + ", " +
                    std::to_string((*topic)->messages) + " messages)");
  // The sidecar must be the calibration of the vendor the topic's type names.
  const std::pair<PacketVendor, PacketFamily> kFamilies[] = {
      {PacketVendor::kVelodyne, PacketFamily::kVelodyne},
      {PacketVendor::kHesai, PacketFamily::kHesai},
      {PacketVendor::kRobosense, PacketFamily::kRobosense}};
  for (const auto& [v, family] : kFamilies) {
    if (v != vendor) continue;
    auto given = sidecar.empty() ? Expected<PacketFamily>(Error{"no calibration given"})
                                 : PacketFamilyOfSidecar(sidecar);
    if (!given.ok() || *given != family)
      return Error{bag_path.string() + ": topic " + (*topic)->name + " holds " +
                   PacketVendorName(vendor) + " packets, which need the unit's " +
                   (family == PacketFamily::kVelodyne ? "calibration (.yaml)"
                                                      : "angle-correction file (.csv)") +
                   (given.ok() ? "; " + sidecar.string() + " is another vendor's"
                               : " (" + given.message() + ")")};
    return OpenPacketRecording(family, packets, sidecar, "bag", std::move(r));
  }
  return Error{bag_path.string() + ": topic " + (*topic)->name + " holds " +
               PacketVendorName(vendor) + " packets (" + (*topic)->type +
               "), which this build does not decode yet"};
}

}  // namespace lt::ros
