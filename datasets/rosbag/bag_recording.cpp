#include "rosbag/bag_recording.h"

#include "lidartwin/datasets/hesai.h"
#include "lidartwin/datasets/robosense.h"
#include "lidartwin/datasets/velodyne.h"
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
            if (!frame.ok()) return frame.error();
            frame->index = index++;
            return sink(std::move(frame.value()));
          });
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
  const std::string side_ext = sidecar.extension().string();
  Recording r;
  r.notes.push_back("note: reading topic " + (*topic)->name + " (" + (*topic)->type + ", " +
                    std::to_string((*topic)->messages) + " messages)");
  if (vendor == PacketVendor::kVelodyne) {
    if (sidecar.empty() || (side_ext != ".yaml" && side_ext != ".yml"))
      return Error{bag_path.string() + ": topic " + (*topic)->name +
                   " holds Velodyne packets, which need the unit's calibration (.yaml)"};
    auto c = LoadVelodyneCalibration(sidecar);
    if (!c.ok()) return c.error();
    r.reader = "velodyne-bag";
    r.wavelength_nm = 903;
    r.sensor = sidecar.stem().string();
    return RecordingSource(
        std::move(r), [packets, c = std::move(c.value())](
                          const FrameSink& sink, CaptureStats& stats, std::vector<std::string>&) {
          return ForEachVelodyneFrame(packets, c, sink, &stats);
        });
  }
  if (vendor == PacketVendor::kHesai) {
    if (sidecar.empty() || side_ext != ".csv")
      return Error{bag_path.string() + ": topic " + (*topic)->name +
                   " holds Hesai packets, which need the unit's angle-correction file (.csv)"};
    auto c = LoadHesaiCalibration(sidecar);
    if (!c.ok()) return c.error();
    r.reader = "hesai-bag";
    r.wavelength_nm = 905;
    r.sensor = sidecar.stem().string();
    return RecordingSource(
        std::move(r), [packets, c = std::move(c.value())](
                          const FrameSink& sink, CaptureStats& stats, std::vector<std::string>&) {
          return ForEachHesaiFrame(packets, c, sink, &stats);
        });
  }
  if (vendor == PacketVendor::kRobosense) {
    if (sidecar.empty() || side_ext != ".csv")
      return Error{bag_path.string() + ": topic " + (*topic)->name +
                   " holds RoboSense packets, which need the unit's angle file (.csv)"};
    auto c = LoadRobosenseCalibration(sidecar);
    if (!c.ok()) return c.error();
    r.reader = "robosense-bag";
    r.wavelength_nm = 905;
    r.sensor = sidecar.stem().string();
    return RecordingSource(
        std::move(r), [packets, c = std::move(c.value())](
                          const FrameSink& sink, CaptureStats& stats, std::vector<std::string>&) {
          return ForEachRobosenseFrame(packets, c, sink, &stats);
        });
  }
  return Error{bag_path.string() + ": topic " + (*topic)->name + " holds " +
               PacketVendorName(vendor) + " packets (" + (*topic)->type +
               "), which this build does not decode yet"};
}

}  // namespace lt::ros
