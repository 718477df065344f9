#include "rosbag/bag_recording.h"

#include "lidartwin/datasets/ouster.h"
#include "recording/packet_recording.h"
#include "rosbag/bag_packets.h"
#include "rosbag/point_cloud_messages.h"

namespace lt::ros {
namespace {

// The first message of the bag's one std_msgs/String topic named ".../metadata": its topic and
// text.
Expected<std::pair<std::string, std::string>> MetadataTopicText(RosBag& bag) {
  const BagTopic* found = nullptr;
  for (const BagTopic& t : bag.topics()) {
    const bool named = t.name.size() >= 8 && t.name.compare(t.name.size() - 8, 8, "metadata") == 0;
    if (named && (t.type == "std_msgs/String" || t.type == "std_msgs/msg/String")) found = &t;
  }
  if (!found)
    return Error{bag.path().string() +
                 ": Ouster packets need the sensor's metadata: give its .json, or record its "
                 "metadata topic (std_msgs/String on .../metadata) in the bag"};
  std::string text;
  const std::string kEnough = "(the metadata is read)";
  Status s = bag.ForEachMessage({found->name}, [&](const BagMessage& m) -> Status {
    auto t = ReadStringMessage(m);
    if (!t.ok()) return t.error();
    text = std::move(t.value());
    return Error{kEnough};
  });
  if (!s.ok() && s.message() != kEnough) return s.error();
  if (text.empty()) return Error{bag.path().string() + ": topic " + found->name + " is empty"};
  return std::make_pair(found->name, std::move(text));
}

}  // namespace

Expected<OusterMetadata> BagOusterMetadata(const std::filesystem::path& bag_path) {
  auto opened = OpenRosBag(bag_path);
  if (!opened.ok()) return opened.error();
  auto text = MetadataTopicText(**opened);
  if (!text.ok()) return text.error();
  return ParseOusterMetadata(text->second, bag_path.string() + " (topic " + text->first + ")");
}

Expected<std::optional<RobosenseCalibration>> BagRobosenseCalibration(
    const std::filesystem::path& bag_path, const std::string& wanted) {
  auto opened = OpenRosBag(bag_path);
  if (!opened.ok()) return opened.error();
  std::shared_ptr<RosBag> bag = std::move(opened.value());
  auto topic = ChooseLidarTopic(*bag, wanted);
  if (!topic.ok()) {
    // Several lidar topics and none named: an Ouster bag's metadata topic may still say it all.
    if (wanted.empty()) return std::optional<RobosenseCalibration>();
    return topic.error();
  }
  if (PacketVendorOfType((*topic)->type) != PacketVendor::kRobosense)
    return std::optional<RobosenseCalibration>();
  auto c = RobosenseCaptureCalibration(BagPackets(bag, **topic));
  if (!c.ok()) return c.error();
  return std::optional<RobosenseCalibration>(std::move(c.value()));
}

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
    // The cloud's own field ('intensity', else 'reflectivity' or 'signal'), whose unit the
    // message does not say.
    r.intensity_unit = kIntensityUnknown;
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
            notes.push_back("note: the point clouds have no " + list +
                            " field (absent from the frames)");
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
    // A RoboSense unit's DIFOP packets carry its angles.
    if (sidecar.empty() && family == PacketFamily::kRobosense)
      return OpenPacketRecording(family, packets, sidecar, options.firetimes, "bag", std::move(r));
    auto given = sidecar.empty() ? Expected<PacketFamily>(Error{"no calibration given"})
                                 : PacketFamilyOfSidecar(sidecar);
    if (!given.ok() || *given != family)
      return Error{bag_path.string() + ": topic " + (*topic)->name + " holds " +
                   PacketVendorName(vendor) + " packets, which need the unit's " +
                   (family == PacketFamily::kVelodyne ? "calibration (.yaml)"
                                                      : "angle-correction file (.csv)") +
                   (given.ok() ? "; " + sidecar.string() + " is another vendor's"
                               : " (" + given.message() + ")")};
    return OpenPacketRecording(family, packets, sidecar, options.firetimes, "bag", std::move(r));
  }
  if (vendor == PacketVendor::kOuster) {
    // The sensor's metadata: the sidecar, or the bag's own metadata topic (ouster-ros records
    // the metadata JSON as std_msgs/String on <namespace>/metadata).
    Expected<OusterMetadata> m = Error{""};
    if (!sidecar.empty()) {
      m = LoadOusterMetadata(sidecar);
    } else {
      auto text = MetadataTopicText(*bag);
      if (!text.ok()) return text.error();
      m = ParseOusterMetadata(text->second, bag_path.string() + " (topic " + text->first + ")");
    }
    if (!m.ok()) return m.error();
    r.reader = "ouster-bag";
    r.wavelength_nm = 865;
    r.intensity_unit = OusterIntensityUnit(m->profile);
    r.sensor = m->product.empty() ? "ouster" : m->product;
    return RecordingSource(
        std::move(r), [bag, name = (*topic)->name, m = std::move(m.value())](
                          const FrameSink& sink, CaptureStats& stats, std::vector<std::string>&) {
          // The packets reach the decoder on the lidar port its metadata names.
          const BagTopic* t = nullptr;
          for (const BagTopic& each : bag->topics())
            if (each.name == name) t = &each;
          return ForEachOusterFrame(BagPackets(bag, *t, m.lidar_port), m, sink, &stats);
        });
  }
  return Error{bag_path.string() + ": topic " + (*topic)->name + " holds " +
               PacketVendorName(vendor) + " packets (" + (*topic)->type +
               "), which this build does not decode yet"};
}

}  // namespace lt::ros
