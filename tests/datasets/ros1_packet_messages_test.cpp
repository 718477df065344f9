// ROS 1 bags of the vendor drivers' packet messages and of sensor_msgs/PointCloud2
// (datasets/rosbag/packet_messages.h): nebula's ROS 2 bags' packets, written again as ROS 1's
// velodyne_msgs/VelodyneScan, hesai_lidar/PandarScan and ros_rslidar's rslidarScan (its DIFOP
// packets on their own topic), decode to the frames the ROS 2 bags give; a ROS 1 cloud reads
// field for field.
#include <bzlib.h>
#include <gtest/gtest.h>

#include "lidartwin/datasets/recording.h"
#include "lidartwin/datasets/ros_bag.h"
#include "ros1_bag_files.h"
#include "rosbag/packet_messages.h"
#include "test_support.h"

namespace lt {
namespace {

void ExpectSameFrames(const std::vector<Frame>& a, const std::vector<Frame>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t f = 0; f < a.size(); ++f) {
    SCOPED_TRACE("frame " + std::to_string(f));
    ASSERT_GT(a[f].size(), 0u);
    EXPECT_EQ(a[f].x_m, b[f].x_m);
    EXPECT_EQ(a[f].y_m, b[f].y_m);
    EXPECT_EQ(a[f].z_m, b[f].z_m);
    EXPECT_EQ(a[f].intensity, b[f].intensity);
    EXPECT_EQ(a[f].channel, b[f].channel);
    EXPECT_EQ(a[f].return_index, b[f].return_index);
    EXPECT_EQ(a[f].timestamp_s, b[f].timestamp_s);
  }
}

// Which ROS 1 message a vendor's packets go into: HesaiLidar_General_ROS's PandarScan of
// uint8[1500] packets (before 2020) or of uint8[] packets (its message definition since).
enum class Ros1Layout { kVelodyneScan, kHesaiPandarScan, kHesaiCountedScan, kRslidarScan };

// hesai_lidar/PandarScan's definition since 2020, as a bag stores it (the type's text, then each
// dependency after a line of '=' and "MSG: ").
const char* kCountedPandarDefinition =
    "Header header\nPandarPacket[] packets\n\n"
    "================================================================================\n"
    "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n\n"
    "================================================================================\n"
    "MSG: hesai_lidar/PandarPacket\n# a packet\ntime stamp\nuint8[] data\nuint32 size\n";

// One ROS 2 message's packets as the ROS 1 message of `layout`.
std::vector<uint8_t> Ros1ScanMessage(Ros1Layout layout, uint32_t seq, int64_t stamp_ns,
                                     const std::vector<ros::MessagePacket>& packets) {
  test::Ros1Bytes m;
  m.Header(seq, stamp_ns, "lidar").U32(static_cast<uint32_t>(packets.size()));
  for (const ros::MessagePacket& p : packets) {
    m.Time(p.stamp_ns).Raw(p.payload.data(), p.payload.size());
    if (layout == Ros1Layout::kHesaiPandarScan) {  // uint8[1500] data, uint32 size
      const std::vector<uint8_t> pad(1500 - p.payload.size(), 0);
      m.Raw(pad.data(), pad.size()).U32(static_cast<uint32_t>(p.payload.size()));
    }
  }
  if (layout != Ros1Layout::kHesaiCountedScan) return m.bytes;
  // uint8[] data, uint32 size: the count before the bytes.
  test::Ros1Bytes counted;
  counted.Header(seq, stamp_ns, "lidar").U32(static_cast<uint32_t>(packets.size()));
  for (const ros::MessagePacket& p : packets)
    counted.Time(p.stamp_ns)
        .U32(static_cast<uint32_t>(p.payload.size()))
        .Raw(p.payload.data(), p.payload.size())
        .U32(static_cast<uint32_t>(p.payload.size()));
  return counted.bytes;
}

// The bag's packet messages again as a ROS 1 bag of `type` (RoboSense's DIFOP packets apart, as
// rslidar_msgs/rslidarPacket on /rslidar_packets_difop).
std::filesystem::path AsRos1Bag(const std::filesystem::path& ros2_bag, Ros1Layout layout,
                                const std::string& type, const test::TempDir& dir) {
  auto bag = OpenRosBag(ros2_bag);
  EXPECT_TRUE(bag.ok()) << bag.message();
  std::vector<test::Ros1Message> messages;
  std::vector<ros::MessagePacket> packets;
  uint32_t seq = 0;
  EXPECT_TRUE(
      (*bag)
          ->ForEachMessage(
              {},
              [&](const BagMessage& m) -> Status {
                if (Status s = ros::ReadMessagePackets(m, packets); !s.ok()) return s;
                std::vector<ros::MessagePacket> data;
                for (const ros::MessagePacket& p : packets) {
                  if (!p.difop) {
                    data.push_back(p);
                    continue;
                  }
                  test::Ros1Bytes difop;
                  difop.Time(p.stamp_ns).Raw(p.payload.data(), p.payload.size());
                  messages.push_back({1, m.time_ns, difop.bytes});
                }
                messages.push_back({0, m.time_ns, Ros1ScanMessage(layout, seq++, m.time_ns, data)});
                return {};
              })
          .ok());
  std::vector<test::Ros1Connection> connections{
      {"/lidar_packets", type,
       layout == Ros1Layout::kHesaiCountedScan ? kCountedPandarDefinition : ""}};
  if (layout == Ros1Layout::kRslidarScan)
    connections.push_back({"/rslidar_packets_difop", "rslidar_msgs/rslidarPacket"});
  return test::WriteBytes(dir, "same.bag", test::Ros1BagBytes(connections, messages));
}

struct Case {
  std::string folder, bag, calibration, type;
  Ros1Layout layout;
};

TEST(Ros1PacketMessages, VendorScansDecodeToTheFramesOfTheSamePacketsInARos2Bag) {
  LT_REQUIRE_REAL_DATA();
  const std::vector<Case> cases = {
      {"velodyne-vlp16", "1673400471837873222_0.db3", "VLP16.yaml", "velodyne_msgs/VelodyneScan",
       Ros1Layout::kVelodyneScan},
      {"hesai-pandar40p", "1673400149412331409_0.db3", "Pandar40P.csv", "hesai_lidar/PandarScan",
       Ros1Layout::kHesaiPandarScan},
      {"hesai-pandar64", "1673403880599376836_0.db3", "Pandar64.csv", "hesai_lidar/PandarScan",
       Ros1Layout::kHesaiCountedScan},
      {"robosense-helios16p", "rosbag2_2023_08_03-11_02_46_0.db3", "RobosenseHelios16P.csv",
       "rslidar_msgs/rslidarScan", Ros1Layout::kRslidarScan},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.folder);
    const auto folder = test::RealDataDir() / "nebula" / c.folder;
    test::TempDir dir;
    const auto ros1 = AsRos1Bag(folder / c.bag, c.layout, c.type, dir);
    auto want = ReadRecording(folder / c.bag, folder / c.calibration);
    ASSERT_TRUE(want.ok()) << want.message();
    auto got = ReadRecording(ros1, folder / c.calibration);
    ASSERT_TRUE(got.ok()) << got.message();
    EXPECT_EQ(got->reader, want->reader);
    ExpectSameFrames(got->frames, want->frames);
  }
}

TEST(Ros1PacketMessages, RobosenseDifopTopicIsReadWithTheDataNotChosenAsIt) {
  LT_REQUIRE_REAL_DATA();
  const auto folder = test::RealDataDir() / "nebula" / "robosense-helios16p";
  test::TempDir dir;
  const auto ros1 = AsRos1Bag(folder / "rosbag2_2023_08_03-11_02_46_0.db3",
                              Ros1Layout::kRslidarScan, "rslidar_msgs/rslidarScan", dir);
  auto summary = ReadRecording(ros1, folder / "RobosenseHelios16P.csv");
  ASSERT_TRUE(summary.ok()) << summary.message();
  // The DIFOP packets reached the decoder: it counts them as device packets.
  bool counted = false;
  for (const std::string& n : summary->notes)
    counted |= n.find("DIFOP packet(s), read for the return mode") != std::string::npos;
  EXPECT_TRUE(counted) << "no note of the DIFOP packets";
}

// The Helios bag's packets one a message as rslidar_sdk's rslidar_msg/RslidarPacket (Header,
// is_difop, is_frame_begin, uint8[] data; MSOP and DIFOP on one topic), and ros_rslidar's
// scans with a second unit's DIFOP topic beside them (in dual return: read with the first
// unit's packets it would change their decode).
TEST(Ros1PacketMessages, RslidarSdkPacketsAndTheirOwnDifopTopicDecodeAsTheRos2Bag) {
  LT_REQUIRE_REAL_DATA();
  const auto folder = test::RealDataDir() / "nebula" / "robosense-helios16p";
  const auto ros2 = folder / "rosbag2_2023_08_03-11_02_46_0.db3";
  const auto angles = folder / "RobosenseHelios16P.csv";
  auto want = ReadRecording(ros2, angles);
  ASSERT_TRUE(want.ok()) << want.message();
  auto bag = OpenRosBag(ros2);
  ASSERT_TRUE(bag.ok()) << bag.message();
  std::vector<test::Ros1Message> sdk, scans;
  std::vector<ros::MessagePacket> packets;
  uint32_t seq = 0;
  ASSERT_TRUE((*bag)
                  ->ForEachMessage(
                      {},
                      [&](const BagMessage& m) -> Status {
                        if (Status s = ros::ReadMessagePackets(m, packets); !s.ok()) return s;
                        std::vector<ros::MessagePacket> data;
                        for (const ros::MessagePacket& p : packets) {
                          test::Ros1Bytes one;
                          one.Header(seq++, p.stamp_ns, "rslidar").U8(p.difop ? 1 : 0).U8(0);
                          one.U32(static_cast<uint32_t>(p.payload.size()))
                              .Raw(p.payload.data(), p.payload.size());
                          sdk.push_back({0, p.stamp_ns, one.bytes});
                          if (!p.difop) data.push_back(p);
                        }
                        scans.push_back(
                            {0, m.time_ns,
                             Ros1ScanMessage(Ros1Layout::kRslidarScan, seq++, m.time_ns, data)});
                        return {};
                      })
                  .ok());
  test::TempDir dir;
  auto from_sdk = ReadRecording(
      test::WriteBytes(
          dir, "sdk.bag",
          test::Ros1BagBytes({{"/rslidar_packets", "rslidar_msg/RslidarPacket"}}, sdk)),
      angles);
  ASSERT_TRUE(from_sdk.ok()) << from_sdk.message();
  ExpectSameFrames(from_sdk->frames, want->frames);
  // Unit b's DIFOP says dual return at 1200 rpm; unit a's scans have no DIFOP of their own.
  std::vector<uint8_t> dual(1248, 0);
  const uint8_t id[8] = {0xA5, 0xFF, 0x00, 0x5A, 0x11, 0x11, 0x55, 0x55};
  std::copy(id, id + 8, dual.begin());
  dual[8] = 1200 >> 8, dual[9] = 1200 & 0xFF, dual[300] = 0x00;
  test::Ros1Bytes b_difop;
  b_difop.Time(scans.front().time_ns).Raw(dual.data(), dual.size());
  scans.insert(scans.begin(), {2, scans.front().time_ns, b_difop.bytes});
  auto two_units = ReadRecording(
      test::WriteBytes(
          dir, "two.bag",
          test::Ros1BagBytes({{"/a/rslidar_packets", "rslidar_msgs/rslidarScan"},
                              {"/b/rslidar_packets", "rslidar_msgs/rslidarScan"},
                              {"/b/rslidar_packets_difop", "rslidar_msgs/rslidarPacket"}},
                             scans)),
      angles, {"", "/a/rslidar_packets"});
  ASSERT_TRUE(two_units.ok()) << two_units.message();
  ExpectSameFrames(two_units->frames, want->frames);
}

// A ROS 1 sensor_msgs/PointCloud2 of three points: x, y, z, intensity (float32) and ring
// (uint16) in 20-byte points.
std::vector<uint8_t> Ros1Cloud() {
  test::Ros1Bytes m;
  m.Header(7, 1700000000123456789, "lidar").U32(1).U32(3);
  m.U32(5);
  const std::pair<const char*, std::pair<uint32_t, uint8_t>> fields[] = {
      {"x", {0, 7}}, {"y", {4, 7}}, {"z", {8, 7}}, {"intensity", {12, 7}}, {"ring", {16, 4}}};
  for (const auto& [name, at] : fields)
    m.String(name).U32(at.first).U8(at.second).U32(1);
  m.U8(0).U32(20).U32(60).U32(60);
  for (int i = 0; i < 3; ++i) {
    const float xyzi[4] = {1.5f * i, -2.f, 0.25f, 10.f + i};
    const uint16_t ring = static_cast<uint16_t>(i + 4);
    const uint16_t pad = 0;
    m.Raw(xyzi, 16).Raw(&ring, 2).Raw(&pad, 2);
  }
  m.U8(1);
  return m.bytes;
}

TEST(Ros1PacketMessages, APointCloud2ReadsFieldForField) {
  test::TempDir dir;
  const auto bag = test::WriteBytes(dir, "cloud.bag",
                                    test::Ros1BagBytes({{"/points", "sensor_msgs/PointCloud2"}},
                                                       {{0, 1700000000200000000, Ros1Cloud()},
                                                        {0, 1700000000300000000, Ros1Cloud()}}));
  auto rec = ReadRecording(bag, "");
  ASSERT_TRUE(rec.ok()) << rec.message();
  ASSERT_EQ(rec->frames.size(), 2u);
  const Frame& f = rec->frames[0];
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f.x_m, (std::vector<float>{0.f, 1.5f, 3.f}));
  EXPECT_EQ(f.y_m, (std::vector<float>{-2.f, -2.f, -2.f}));
  EXPECT_EQ(f.z_m, (std::vector<float>{0.25f, 0.25f, 0.25f}));
  EXPECT_EQ(f.intensity, (std::vector<float>{10.f, 11.f, 12.f}));
  EXPECT_EQ(f.channel, (std::vector<uint16_t>{4, 5, 6}));
  EXPECT_NEAR(f.start_time_s, 1700000000.123456789, 1e-6);  // the Header's stamp, after its seq
}

std::vector<uint8_t> Bzip2(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out(in.size() + in.size() / 100 + 600);
  unsigned int n = static_cast<unsigned int>(out.size());
  EXPECT_EQ(BZ2_bzBuffToBuffCompress(reinterpret_cast<char*>(out.data()), &n,
                                     const_cast<char*>(reinterpret_cast<const char*>(in.data())),
                                     static_cast<unsigned int>(in.size()), 9, 0, 0),
            BZ_OK);
  out.resize(n);
  return out;
}

// Not bz2 at all: what a chunk that lies about its size holds.
std::vector<uint8_t> Noise(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out(in.size());
  uint32_t x = 12345;
  for (uint8_t& b : out)
    b = static_cast<uint8_t>((x = x * 1103515245u + 12345u) >> 24);
  return out;
}

TEST(Ros1PacketMessages, Bz2ChunksReadAndOneThatLiesAboutItsSizeIsNamed) {
  const std::vector<test::Ros1Message> clouds = {{0, 1700000000200000000, Ros1Cloud()}};
  test::TempDir dir;
  test::Ros1Chunking bz2{"bz2", &Bzip2, 0};
  auto rec = ReadRecording(
      test::WriteBytes(dir, "bz2.bag",
                       test::Ros1BagBytes({{"/points", "sensor_msgs/PointCloud2"}}, clouds, bz2)),
      "");
  ASSERT_TRUE(rec.ok()) << rec.message();
  ASSERT_EQ(rec->frames.size(), 1u);
  EXPECT_EQ(rec->frames[0].size(), 3u);
  // 24 kB of noise that says it holds a gigabyte: refused, and named, without the gigabyte.
  std::vector<test::Ros1Message> many(120, clouds[0]);  // 28 kB: past the ratio check
  test::Ros1Chunking bomb{"bz2", &Noise, 1u << 30};
  auto e = ReadRecording(
      test::WriteBytes(dir, "bomb.bag",
                       test::Ros1BagBytes({{"/points", "sensor_msgs/PointCloud2"}}, many, bomb)),
      "");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("bomb.bag: record at byte 13: bz2 chunk does not decompress to its "
                             "1073741824 bytes (0 came"),
            std::string::npos)
      << e.message();
}

TEST(Ros1PacketMessages, AMessageOnAnUnknownConnectionIsSkippedAndATwiceDeclaredFieldRefused) {
  test::TempDir dir;
  auto rec =
      ReadRecording(test::WriteBytes(dir, "flip.bag",
                                     test::Ros1BagBytes({{"/points", "sensor_msgs/PointCloud2"}},
                                                        {{0, 1700000000200000000, Ros1Cloud()},
                                                         {4, 1700000000300000000, Ros1Cloud()},
                                                         {0, 1700000000400000000, Ros1Cloud()}})),
                    "");
  ASSERT_TRUE(rec.ok()) << rec.message();
  EXPECT_EQ(rec->frames.size(), 2u);
  bool named = false;
  for (const std::string& n : rec->notes)
    named |= n.find("a message on connection 4, which no earlier connection record defines") !=
             std::string::npos;
  EXPECT_TRUE(named);
  // x declared twice: which one is x?
  auto cloud = Ros1Cloud();
  const size_t y_name = 4 + 8 + 4 + 5 + 4 + 4 + 4 + 1 + 9 + 4 + 4;  // the "y" of field 1
  ASSERT_EQ(cloud[y_name], 'y');
  cloud[y_name] = 'x';
  auto twice =
      ReadRecording(test::WriteBytes(dir, "twice.bag",
                                     test::Ros1BagBytes({{"/points", "sensor_msgs/PointCloud2"}},
                                                        {{0, 1700000000200000000, cloud}})),
                    "");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.message().find("field x is declared twice"), std::string::npos)
      << twice.message();
}

TEST(Ros1PacketMessages, AScanCutShortIsNamedByTheByte) {
  test::Ros1Bytes m;
  m.Header(0, 1, "lidar").U32(3);  // three packets promised, none there
  test::TempDir dir;
  const auto path = test::WriteBytes(
      dir, "short.bag",
      test::Ros1BagBytes({{"/velodyne_packets", "velodyne_msgs/VelodyneScan"}}, {{0, 5, m.bytes}}));
  auto bag = OpenRosBag(path);
  ASSERT_TRUE(bag.ok()) << bag.message();
  std::vector<ros::MessagePacket> packets;
  std::string error;
  ASSERT_TRUE((*bag)
                  ->ForEachMessage({},
                                   [&](const BagMessage& message) -> Status {
                                     error = ros::ReadMessagePackets(message, packets).message();
                                     return {};
                                   })
                  .ok());
  EXPECT_NE(error.find("short.bag"), std::string::npos) << error;
  EXPECT_NE(error.find("byte 21"), std::string::npos) << error;
}

}  // namespace
}  // namespace lt
