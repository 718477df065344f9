// libFuzzer target: the file readers (classic pcap, Ouster metadata JSON, Velodyne calibration
// YAML, KITTI and nuScenes .bin, metrics.json, an export's shard record, a rosbag2 .db3 bag and
// its packet messages, an MCAP file and its point clouds, a ROS 1 bag) on arbitrary bytes written
// to a temporary file (metrics.json, the shard record and the packet messages read from memory).
// The first byte picks the reader; with LT_FUZZ_REAL_DATA set to ../shared/real-data the pcap bytes
// are also decoded as Ouster, Velodyne and Hesai packets with real metadata, and a bag's as
// Velodyne and Hesai packets.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../datasets/export/shard_record.h"
#include "../datasets/rosbag/packet_messages.h"
#include "../datasets/rosbag/point_cloud_messages.h"
#include "../tests/datasets/osf_reseal.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/datasets/hesai.h"
#include "lidartwin/datasets/kitti_bin.h"
#include "lidartwin/datasets/ouster.h"
#include "lidartwin/datasets/pcap.h"
#include "lidartwin/datasets/recording.h"
#include "lidartwin/datasets/robosense.h"
#include "lidartwin/datasets/ros_bag.h"
#include "lidartwin/datasets/velodyne.h"

namespace {

// A bag's messages and their packets read to the end (what convert does before decoding).
void ReadBag(const std::filesystem::path& p) {
  auto bag = lt::OpenRosBag(p);
  if (!bag.ok()) return;
  std::vector<lt::ros::MessagePacket> packets;
  (void)(*bag)
      ->ForEachMessage({},
                       [&](const lt::BagMessage& m) -> lt::Status {
                         (void)lt::ros::ReadMessagePackets(m, packets).ok();
                         return {};
                       })
      .ok();
}

std::filesystem::path Write(const uint8_t* data, size_t size, const char* ext) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("lidartwin-fuzz-" + std::to_string(::getpid()) + ext);
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t which = data[0] % 12;
  ++data, --size;
  static const char* real = std::getenv("LT_FUZZ_REAL_DATA");
  switch (which) {
    case 0: {
      const auto p = Write(data, size, ".pcap");
      (void)lt::ReadPcapUdp(p).ok();
      if (real) {
        static auto ouster =
            lt::LoadOusterMetadata(std::string(real) + "/ouster-sdk/OS-1-128_v2.3.0_1024x10.json");
        static auto velodyne =
            lt::LoadVelodyneCalibration(std::string(real) + "/ros-velodyne/32db.yaml");
        if (ouster.ok()) (void)lt::ReadOusterPcap(p, *ouster).ok();
        if (velodyne.ok()) (void)lt::ReadVelodynePcap(p, *velodyne).ok();
        static auto hdl64e =  // its two-point and intensity corrections on
            lt::LoadVelodyneCalibration(std::string(real) + "/ros-velodyne/64e_s2.1-sztaki.yaml");
        if (hdl64e.ok()) (void)lt::ReadVelodynePcap(p, *hdl64e).ok();
        static auto hesai =
            lt::LoadHesaiCalibration(std::string(real) + "/nebula/hesai-pandar64/Pandar64.csv");
        if (hesai.ok())
          (void)lt::ForEachHesaiFrame(lt::PcapPackets(p), *hesai, [](lt::Frame&&) -> lt::Status {
            return {};
          }).ok();
      }
      std::filesystem::remove(p);
      break;
    }
    case 1: {
      const auto p = Write(data, size, ".json");
      (void)lt::LoadOusterMetadata(p).ok();
      std::filesystem::remove(p);
      break;
    }
    case 2: {
      const auto p = Write(data, size, ".yaml");
      (void)lt::LoadVelodyneCalibration(p).ok();
      std::filesystem::remove(p);
      const auto xml = Write(data, size, ".xml");  // Velodyne's db.xml
      (void)lt::LoadVelodyneCalibration(xml).ok();
      std::filesystem::remove(xml);
      const auto dat = Write(data, size, ".dat");  // a Hesai AT128's angle correction
      (void)lt::LoadHesaiCalibration(dat).ok();
      std::filesystem::remove(dat);
      const auto csv = Write(data, size, ".csv");  // Hesai's and RoboSense's angle files
      (void)lt::LoadHesaiCalibration(csv).ok();
      (void)lt::LoadRobosenseCalibration(csv).ok();
      (void)lt::LoadHesaiFiretimes(csv).ok();  // and Hesai's fire-time files
      std::filesystem::remove(csv);
      break;
    }
    case 3: {
      const auto p = Write(data, size, ".bin");
      (void)lt::ReadKittiBin(p).ok();
      (void)lt::ReadNuscenesBin(p).ok();
      (void)lt::ChooseBinLayout(p, "").ok();
      std::filesystem::remove(p);
      break;
    }
    case 6: {  // a rosbag2 sqlite3 bag, and with real data its packets through the decoder
      const auto p = Write(data, size, ".db3");
      ReadBag(p);
      if (real) {
        static auto velodyne =
            lt::LoadVelodyneCalibration(std::string(real) + "/nebula/velodyne-vlp16/VLP16.yaml");
        if (velodyne.ok()) (void)lt::ReadRecording(p, velodyne->file).ok();
        (void)lt::ReadRecording(p, std::string(real) + "/nebula/hesai-pandar64/Pandar64.csv").ok();
      }
      std::filesystem::remove(p);
      break;
    }
    case 7: {  // one message of each packet type and a point cloud, from memory, in CDR and
               // in ROS 1's serialization
      static const char* kTypes[] = {
          "velodyne_msgs/msg/VelodyneScan", "pandar_msgs/msg/PandarScan",
          "hesai_lidar/msg/PandarScan",     "robosense_msgs/msg/RobosenseScan",
          "rslidar_msgs/msg/rslidarScan",   "rslidar_msgs/msg/rslidarPacket",
          "rslidar_msg/msg/RslidarPacket",  "nebula_msgs/msg/NebulaPackets",
          "ouster_ros/msg/PacketMsg"};
      // The layouts a stored message definition chooses (HesaiLidar_General_ROS's uint8[]
      // packets, rslidar_sdk's older RslidarPacket).
      static const std::pair<const char*, const char*> kDefined[] = {
          {"hesai_lidar/msg/PandarScan",
           "Header header\nPandarPacket[] packets\nMSG: hesai_lidar/PandarPacket\ntime stamp\n"
           "uint8[] data\nuint32 size\n"},
          {"rslidar_msg/msg/RslidarPacket", "time stamp\nuint8[1248] data\n"}};
      std::vector<lt::ros::MessagePacket> packets;
      for (const char* serialization : {"cdr", "ros1"}) {
        std::vector<lt::BagTopic> topics;
        for (const char* type : kTypes)
          topics.push_back({"/fuzz", type, serialization, 1, ""});
        for (const auto& [type, definition] : kDefined)
          topics.push_back({"/fuzz", type, serialization, 1, definition});
        for (const lt::BagTopic& topic : topics) {
          lt::BagMessage m;
          m.topic = &topic;
          m.data = {data, size};
          m.where = "fuzz";
          (void)lt::ros::ReadMessagePackets(m, packets).ok();
        }
        const lt::BagTopic cloud{"/fuzz", "sensor_msgs/msg/PointCloud2", serialization, 1, ""};
        lt::BagMessage m;
        m.topic = &cloud;
        m.data = {data, size};
        m.where = "fuzz";
        (void)lt::ros::DecodePointCloud2(m, nullptr).ok();
      }
      break;
    }
    case 8: {  // an MCAP file (a ROS 2 bag), its point clouds read as frames
      const auto p = Write(data, size, ".mcap");
      ReadBag(p);
      (void)lt::ReadRecording(p, "").ok();
      std::filesystem::remove(p);
      break;
    }
    case 9: {  // a ROS 1 bag, its Ouster packets with the metadata from its own topic (and with
               // real data, any Velodyne scans in it with a VLP-16's calibration)
      const auto p = Write(data, size, ".bag");
      ReadBag(p);
      (void)lt::ReadRecording(p, "").ok();
      if (real)
        (void)lt::ReadRecording(p, std::string(real) + "/nebula/velodyne-vlp16/VLP16.yaml").ok();
      std::filesystem::remove(p);
      break;
    }
    case 10: {  // an Ouster OSF file, each block's CRC made right first so that mutations
                // reach the flatbuffers and the field images, not only the CRC check
      std::vector<uint8_t> bytes(data, data + size);
      lt::test::ResealOsfBlocks(bytes);
      const auto p = Write(bytes.data(), bytes.size(), ".osf");
      (void)lt::ReadRecording(p, "").ok();
      std::filesystem::remove(p);
      break;
    }
    case 11: {  // datagrams, each a u16 length and its bytes, through the RoboSense decoder
                // (DIFOP by its id, else MSOP; a 16- and a 32-line angle file, and the DIFOP's
                // own angle table) and the Hesai
                // decoder (a 128-channel angle file, and an AT128's mirror correction)
      std::vector<std::pair<uint16_t, std::vector<uint8_t>>> robosense, hesai;
      for (size_t at = 0; at + 2 <= size;) {
        const size_t n = std::min<size_t>(data[at] | data[at + 1] << 8, size - at - 2);
        std::vector<uint8_t> p(data + at + 2, data + at + 2 + n);
        at += 2 + n;
        const bool difop = p.size() >= 2 && p[0] == 0xA5 && p[1] == 0xFF;
        robosense.emplace_back(difop ? 7788 : 6699, p);
        hesai.emplace_back(2368, std::move(p));
      }
      const auto source =
          [](const std::vector<std::pair<uint16_t, std::vector<uint8_t>>>& packets) {
            return lt::PacketSource{
                "fuzz.pcap", [&packets](const lt::UdpSink& sink, lt::CaptureStats&) -> lt::Status {
                  for (size_t i = 0; i < packets.size(); ++i) {
                    lt::UdpDatagram d;
                    d.dst_port = packets[i].first;
                    d.payload = packets[i].second;
                    d.file_offset = 2000 * i;
                    if (lt::Status s = sink(d); !s.ok()) return s;
                  }
                  return {};
                }};
          };
      const auto drop = [](lt::Frame&&) -> lt::Status { return {}; };
      for (size_t lasers : {16, 32}) {
        lt::RobosenseCalibration cal;
        cal.file = "fuzz.csv";
        for (size_t k = 0; k < lasers; ++k) {
          cal.vertical_cdeg.push_back(static_cast<int32_t>(100 * k) - 1500);
          cal.horizontal_cdeg.push_back(k % 2 ? 400 : -400);
        }
        (void)lt::ForEachRobosenseFrame(source(robosense), cal, drop).ok();
      }
      // A Helios's angles from its DIFOP, as a recording without an angle file reads them.
      if (auto difop = lt::RobosenseCaptureCalibration(source(robosense)); difop.ok())
        (void)lt::ForEachRobosenseFrame(source(robosense), *difop, drop).ok();
      static const lt::HesaiCalibration kHesai128 = [] {
        lt::HesaiCalibration c;
        c.file = "fuzz.csv";
        for (int k = 0; k < 128; ++k) {
          c.elevation_deg.push_back(15 - 0.3 * k);
          c.azimuth_offset_deg.push_back(k % 2 ? 1.5 : -1.5);
        }
        return c;
      }();
      static const lt::HesaiCalibration kAt128 = [] {
        lt::HesaiCalibration c = kHesai128;
        lt::HesaiMirrorCorrection m;
        for (int64_t deg : {30, 150, 270}) {
          m.face_start.push_back(deg * 25600);
          m.face_end.push_back((deg + 60) * 25600);
        }
        for (int k = 0; k < 128; ++k) {
          m.azimuth.push_back(k % 2 ? 25600 : -25600);
          m.elevation.push_back((13 - k / 5) * 25600);
        }
        m.azimuth_adjust.assign(128 * lt::HesaiMirrorCorrection::kAdjustSteps, 7);
        m.elevation_adjust.assign(128 * lt::HesaiMirrorCorrection::kAdjustSteps, -3);
        c.mirror.push_back(std::move(m));
        return c;
      }();
      (void)lt::ForEachHesaiFrame(source(hesai), kHesai128, drop).ok();
      (void)lt::ForEachHesaiFrame(source(hesai), kAt128, drop).ok();
      break;
    }
    case 5:  // an export's shard record (shard_record.h), as the join and a resumed run read it
      (void)lt::ParseShardRecord(std::string(reinterpret_cast<const char*>(data), size),
                                 "fuzz.json", 1, 3, 7, std::string(64, 'a'))
          .ok();
      break;
    default:
      (void)lt::compare::MetricsFromJson(std::string(reinterpret_cast<const char*>(data), size),
                                         "fuzz.json")
          .ok();
  }
  return 0;
}
