// ROS 1 bags (datasets/rosbag/ros1_bag.h) and Ouster packets in them: the shared ouster-ros bag
// decodes, with the metadata from its own topic, to the frames our pcap reader gives for the
// same packets; damaged bags are named by the byte.
#include <gtest/gtest.h>

#include <fstream>

#include "capture_files.h"
#include "lidartwin/datasets/ouster.h"
#include "lidartwin/datasets/recording.h"
#include "lidartwin/datasets/ros_bag.h"
#include "rosbag/bag_packets.h"
#include "rosbag/packet_messages.h"
#include "test_support.h"

namespace lt {
namespace {

std::filesystem::path OusterBag() {
  return test::RealDataDir() / "ouster-sdk" / "bags" / "512x10_raw.bag";
}

TEST(Ros1Bag, ListsTheOusterBagsConnections) {
  LT_REQUIRE_REAL_DATA();
  auto bag = OpenRosBag(OusterBag());
  ASSERT_TRUE(bag.ok()) << bag.message();
  EXPECT_EQ((*bag)->storage(), "rosbag-v2.0");
  ASSERT_EQ((*bag)->topics().size(), 3u);
  std::map<std::string, std::pair<std::string, uint64_t>> seen;
  for (const BagTopic& t : (*bag)->topics())
    seen[t.name] = {t.type, t.messages};
  EXPECT_EQ(seen["/os_node0/lidar_packets"],
            std::make_pair(std::string("ouster_ros/PacketMsg"), uint64_t{32}));
  EXPECT_EQ(seen["/os_node0/imu_packets"].second, 10u);
  EXPECT_EQ(seen["/os_node0/metadata"].first, "std_msgs/String");
}

TEST(Ros1Bag, OusterPacketsGiveTheFramesOurPcapReaderGivesForThem) {
  LT_REQUIRE_REAL_DATA();
  auto rec = ReadRecording(OusterBag(), "");
  ASSERT_TRUE(rec.ok()) << rec.message();
  EXPECT_EQ(rec->reader, "ouster-bag");
  ASSERT_EQ(rec->frames.size(), 1u);
  EXPECT_GT(rec->frames[0].size(), 20000u);
  // The same packets as a pcap, and the metadata from the bag's topic as a file.
  auto opened = OpenRosBag(OusterBag());
  ASSERT_TRUE(opened.ok());
  std::shared_ptr<RosBag> bag = std::move(opened.value());
  std::string metadata;
  const BagTopic* lidar = nullptr;
  for (const BagTopic& t : bag->topics())
    if (t.name == "/os_node0/lidar_packets") lidar = &t;
  ASSERT_TRUE(bag->ForEachMessage({"/os_node0/metadata"},
                                  [&](const BagMessage& m) -> Status {
                                    auto text = ros::ReadStringMessage(m);
                                    if (!text.ok()) return text.error();
                                    metadata = *text;
                                    return {};
                                  })
                  .ok());
  test::TempDir dir;
  const auto json = dir.Write("metadata.json", metadata);
  auto m = LoadOusterMetadata(json);
  ASSERT_TRUE(m.ok()) << m.message();
  std::vector<UdpDatagram> datagrams;
  CaptureStats stats;
  ASSERT_TRUE(ros::BagPackets(bag, *lidar, m->lidar_port)
                  .read(
                      [&](const UdpDatagram& d) -> Status {
                        datagrams.push_back(d);
                        return {};
                      },
                      stats)
                  .ok());
  ASSERT_EQ(datagrams.size(), 32u);
  test::WritePcap(dir / "same.pcap", datagrams);
  auto pcap = ReadOusterPcap(dir / "same.pcap", *m);
  ASSERT_TRUE(pcap.ok()) << pcap.message();
  ASSERT_EQ(pcap->size(), 1u);
  const Frame& a = rec->frames[0];
  const Frame& b = (*pcap)[0];
  EXPECT_EQ(a.x_m, b.x_m);
  EXPECT_EQ(a.y_m, b.y_m);
  EXPECT_EQ(a.z_m, b.z_m);
  EXPECT_EQ(a.range_m, b.range_m);
  EXPECT_EQ(a.intensity, b.intensity);
  EXPECT_EQ(a.reflectance, b.reflectance);
  EXPECT_EQ(a.channel, b.channel);
  EXPECT_EQ(a.column, b.column);
  EXPECT_EQ(a.timestamp_s, b.timestamp_s);
}

TEST(Ros1Bag, DamagedBagsAreNamedByTheByte) {
  LT_REQUIRE_REAL_DATA();
  std::ifstream in(OusterBag(), std::ios::binary);
  const std::vector<uint8_t> good{std::istreambuf_iterator<char>(in), {}};
  test::TempDir dir;
  auto not_bag = good;
  not_bag[1] = 'X';
  auto e = OpenRosBag(test::WriteBytes(dir, "a.bag", not_bag));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("a.bag: not a ROS 1 bag"), std::string::npos);
  // The chunk's stated size (its header field "size") made larger than its bytes: refused.
  auto lying = good;
  const std::string size_field = "size=";
  const auto at = std::search(lying.begin(), lying.end(), size_field.begin(), size_field.end());
  ASSERT_NE(at, lying.end());
  *(at + 5 + 2) = 0x7f;  // about 2 GB
  e = OpenRosBag(test::WriteBytes(dir, "b.bag", lying));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("b.bag: record at byte 4109"), std::string::npos) << e.message();
  // Cut in its chunk: a warning, no messages; every cut is an error or a warning, never a crash.
  std::vector<uint8_t> cut(good.begin(), good.begin() + 100000);
  auto c = OpenRosBag(test::WriteBytes(dir, "c.bag", cut));
  ASSERT_TRUE(c.ok()) << c.message();
  ASSERT_EQ((*c)->warnings().size(), 1u);
  EXPECT_NE(
      (*c)->warnings()[0].find("c.bag: record at byte 4109: the file ends inside this record"),
      std::string::npos)
      << (*c)->warnings()[0];
  for (size_t n = 0; n < 5000; n += 13) {
    std::vector<uint8_t> head(good.begin(), good.begin() + static_cast<long>(n));
    (void)OpenRosBag(test::WriteBytes(dir, "d.bag", head)).ok();
  }
}

}  // namespace
}  // namespace lt
