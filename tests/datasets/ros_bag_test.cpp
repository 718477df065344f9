// rosbag2 sqlite3 bags (datasets/ros_bag.h) and the packet messages in them
// (rosbag/packet_messages.h): the shared nebula bags listed and read, and bags crafted with
// SQLite itself for what a real one never has.
#include "lidartwin/datasets/ros_bag.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>

#include "lidartwin/datasets/ros_bag_summary.h"
#include "rosbag/bag_packets.h"
#include "rosbag/packet_messages.h"
#include "test_support.h"

namespace lt {
namespace {

std::filesystem::path Nebula(const std::string& sensor) {
  return test::RealDataDir() / "nebula" / sensor;
}

// A rosbag2 sqlite3 file with one topic and the given messages.
std::filesystem::path MakeBag(const test::TempDir& dir, const std::string& type,
                              const std::vector<std::vector<uint8_t>>& messages,
                              const std::string& name = "crafted.db3") {
  const auto path = dir / name;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::string schema =
      "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, "
      "serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL);"
      "CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL, "
      "timestamp INTEGER NOT NULL, data BLOB NOT NULL);"
      "INSERT INTO topics VALUES (1, '/points', '" +
      type + "', 'cdr', '');";
  EXPECT_EQ(sqlite3_exec(db, schema.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO messages(topic_id, timestamp, data) VALUES (1, ?, ?)", -1, &s,
                     nullptr);
  for (size_t i = 0; i < messages.size(); ++i) {
    sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(1000 + i));
    sqlite3_bind_blob(s, 2, messages[i].data(), static_cast<int>(messages[i].size()),
                      SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(s), SQLITE_DONE);
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return path;
}

TEST(RosBag, ListsTheNebulaBagsTopicsTypesAndCounts) {
  LT_REQUIRE_REAL_DATA();
  const std::map<std::string, std::pair<std::string, uint64_t>> expected = {
      {"hesai-pandar64", {"pandar_msgs/msg/PandarScan", 4}},
      {"hesai-pandar40p", {"pandar_msgs/msg/PandarScan", 4}},
      {"hesai-qt64", {"pandar_msgs/msg/PandarScan", 4}},
      {"hesai-xt16", {"pandar_msgs/msg/PandarScan", 4}},
      {"velodyne-vlp16", {"velodyne_msgs/msg/VelodyneScan", 4}},
      {"velodyne-vls128", {"velodyne_msgs/msg/VelodyneScan", 4}},
      {"robosense-helios16p", {"robosense_msgs/msg/RobosenseScan", 5}}};
  for (const auto& [sensor, type_count] : expected) {
    // The folder (metadata.yaml) and its .db3 file alone read alike.
    for (const bool folder : {true, false}) {
      std::filesystem::path path = Nebula(sensor);
      if (!folder)
        for (const auto& e : std::filesystem::directory_iterator(Nebula(sensor)))
          if (e.path().extension() == ".db3") path = e.path();
      auto bag = OpenRosBag(path);
      ASSERT_TRUE(bag.ok()) << bag.message();
      ASSERT_EQ((*bag)->topics().size(), 1u) << sensor;
      EXPECT_EQ((*bag)->topics()[0].type, type_count.first);
      EXPECT_EQ((*bag)->topics()[0].messages, type_count.second);
      EXPECT_EQ((*bag)->storage(), "rosbag2-sqlite3");
    }
  }
}

TEST(RosBag, PacketScansHoldWholePacketsInTimeOrder) {
  LT_REQUIRE_REAL_DATA();
  // The packet sizes of each unit's protocol (data sheets): Pandar64 1194 bytes (+4 with its UDP
  // sequence), VLP-16 1206; the RoboSense MSOP 1248 and DIFOP 1248.
  for (const auto& [sensor, sizes] :
       std::map<std::string, std::vector<size_t>>{{"hesai-pandar64", {1194, 1198}},
                                                  {"velodyne-vlp16", {1206}},
                                                  {"robosense-helios16p", {1248}}}) {
    auto bag = OpenRosBag(Nebula(sensor));
    ASSERT_TRUE(bag.ok()) << bag.message();
    std::vector<ros::MessagePacket> packets;
    int64_t last_ns = 0;
    uint64_t messages = 0, total = 0;
    Status s = (*bag)->ForEachMessage({}, [&](const BagMessage& m) -> Status {
      EXPECT_GE(m.time_ns, last_ns);
      last_ns = m.time_ns;
      ++messages;
      if (Status r = ros::ReadMessagePackets(m, packets); !r.ok()) return r;
      EXPECT_GT(packets.size(), 50u) << m.where;
      for (const auto& p : packets) {
        EXPECT_NE(std::find(sizes.begin(), sizes.end(), p.payload.size()), sizes.end())
            << sensor << " " << p.payload.size();
        EXPECT_GT(p.stamp_ns, 0);
      }
      total += packets.size();
      return {};
    });
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(messages, (*bag)->topics()[0].messages);
    // Progress: the messages' bytes, a part of the files' (SQLite's pages and index beside).
    EXPECT_GT((*bag)->bytes_read(), (*bag)->bytes_total() / 2);
    EXPECT_LE((*bag)->bytes_read(), (*bag)->bytes_total());
    EXPECT_GT(total, 0u);
  }
}

TEST(RosBag, WhatIsNotABagIsNamed) {
  test::TempDir dir;
  auto text = OpenRosBag(dir.Write("notes.db3", "these are my notes"));
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("notes.db3: not a rosbag2 sqlite3 file (no SQLite header)"),
            std::string::npos)
      << text.message();
  // An SQLite database of something else.
  const auto other = dir / "other.db3";
  sqlite3* db = nullptr;
  sqlite3_open(other.c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE people(name TEXT);", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto wrong = OpenRosBag(other);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("other.db3: not a rosbag2 sqlite3 file (no 'topics' and "
                                 "'messages' tables)"),
            std::string::npos)
      << wrong.message();
  // A folder without metadata.yaml, one whose metadata names another storage, no file.
  EXPECT_NE(OpenRosBag(dir.path()).message().find("without metadata.yaml"), std::string::npos);
  std::filesystem::create_directories(dir / "other");
  dir.Write("other/metadata.yaml",
            "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: leveldb\n");
  EXPECT_NE(OpenRosBag(dir / "other")
                .message()
                .find("storage_identifier 'leveldb' (expected "
                      "sqlite3 or mcap)"),
            std::string::npos);
  std::filesystem::create_directories(dir / "empty");
  dir.Write("empty/metadata.yaml",
            "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: mcap\n");
  EXPECT_NE(OpenRosBag(dir / "empty").message().find("the bag names no .mcap file"),
            std::string::npos);
  EXPECT_NE(OpenRosBag(dir / "absent.db3").message().find("absent.db3: no such file"),
            std::string::npos);
}

TEST(RosBag, AScanWhosePacketCountLiesIsAnErrorNamingTheMessageAndByte) {
  test::TempDir dir;
  // Header (stamp, frame_id "l"), then 1,000,000 packets claimed in a few bytes.
  std::vector<uint8_t> scan = {0, 1, 0,   0, 1, 0, 0,    0,    2,    0,    0, 0, 2, 0,
                               0, 0, 'l', 0, 0, 0, 0x40, 0x42, 0x0f, 0x00, 9, 9, 9, 9};
  auto bag = OpenRosBag(MakeBag(dir, "pandar_msgs/msg/PandarScan", {scan}));
  ASSERT_TRUE(bag.ok()) << bag.message();
  std::vector<ros::MessagePacket> packets;
  Status s = (*bag)->ForEachMessage(
      {}, [&](const BagMessage& m) { return ros::ReadMessagePackets(m, packets); });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("crafted.db3: message 0 of /points (row 1) "
                             "(pandar_msgs/msg/PandarScan): byte 20: a sequence of 1000000"),
            std::string::npos)
      << s.message();
  // A packet whose size field exceeds its 1500-byte array.
  std::vector<uint8_t> lying(20, 0);
  lying[0] = 0, lying[1] = 1;
  lying[16] = 1;  // one packet
  lying.resize(lying.size() + 8 + 1500, 0);
  lying.insert(lying.end(), {0xdc, 0x05, 0, 0});  // size 1500: fine
  auto fine = OpenRosBag(MakeBag(dir, "pandar_msgs/msg/PandarScan", {lying}, "fine.db3"));
  ASSERT_TRUE(fine.ok());
  EXPECT_TRUE((*fine)
                  ->ForEachMessage(
                      {}, [&](const BagMessage& m) { return ros::ReadMessagePackets(m, packets); })
                  .ok());
  lying[lying.size() - 3] = 0x06;  // size 1756
  auto bad = OpenRosBag(MakeBag(dir, "pandar_msgs/msg/PandarScan", {lying}, "bad.db3"));
  Status s2 = (*bad)->ForEachMessage(
      {}, [&](const BagMessage& m) { return ros::ReadMessagePackets(m, packets); });
  ASSERT_FALSE(s2.ok());
  EXPECT_NE(s2.message().find("packet size 1756 is larger than its 1500-byte array"),
            std::string::npos)
      << s2.message();
}

TEST(RosBag, CraftedDatabasesAreRefusedNotRun) {
  test::TempDir dir;
  // 'messages' as a view over an endless recursive query: refused before any query runs it.
  const auto view = dir / "view.db3";
  sqlite3* db = nullptr;
  sqlite3_open(view.c_str(), &db);
  sqlite3_exec(db,
               "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT, type TEXT, "
               "serialization_format TEXT, offered_qos_profiles TEXT);"
               "CREATE VIEW messages AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
               "FROM n) SELECT i AS id, 1 AS topic_id, i AS timestamp, x'00' AS data FROM n;",
               nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto v = OpenRosBag(view);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.message().find("'messages' is a view, not a table"), std::string::npos)
      << v.message();
  // A message whose topic the topics table does not list: named, not dropped.
  const auto orphan = MakeBag(dir, "std_msgs/msg/String", {{0, 1, 0, 0}}, "orphan.db3");
  sqlite3_open(orphan.c_str(), &db);
  sqlite3_exec(db, "INSERT INTO messages(topic_id, timestamp, data) VALUES (7, 5, x'00010000')",
               nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto o = OpenRosBag(orphan);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.message().find("message row 2 names topic id 7"), std::string::npos) << o.message();
  // A metadata.yaml naming a file outside the bag's folder.
  std::filesystem::create_directories(dir / "escape");
  dir.Write("escape/metadata.yaml",
            "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: sqlite3\n"
            "  files:\n    - path: ../orphan.db3\n");
  auto e = OpenRosBag(dir / "escape");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("'../orphan.db3' is not a file in the bag's folder"),
            std::string::npos)
      << e.message();
}

TEST(RosBag, OnlyTheChosenTopicsAreRead) {
  test::TempDir dir;
  auto bag = OpenRosBag(MakeBag(dir, "std_msgs/msg/String", {{0, 1, 0, 0}, {0, 1, 0, 0}}));
  ASSERT_TRUE(bag.ok());
  int seen = 0;
  ASSERT_TRUE((*bag)
                  ->ForEachMessage({"/elsewhere"},
                                   [&](const BagMessage&) -> Status {
                                     ++seen;
                                     return {};
                                   })
                  .ok());
  EXPECT_EQ(seen, 0);
  ASSERT_TRUE((*bag)
                  ->ForEachMessage({"/points"},
                                   [&](const BagMessage& m) -> Status {
                                     EXPECT_EQ(m.index, static_cast<uint64_t>(seen));
                                     ++seen;
                                     return {};
                                   })
                  .ok());
  EXPECT_EQ(seen, 2);
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

TEST(RosBagSummary, NamesEachLidarTopicsSensorFromItsFirstPacket) {
  LT_REQUIRE_REAL_DATA();
  auto vlp16 = SummarizeRosBag(Nebula("velodyne-vlp16"));
  ASSERT_TRUE(vlp16.ok()) << vlp16.message();
  ASSERT_EQ(vlp16->topics.size(), 1u);
  EXPECT_EQ(vlp16->topics[0].sensor, "Velodyne VLP-16, 1206-byte packets, dual return");
  EXPECT_EQ(vlp16->messages, 4u);
  // The VLS-128 bag's topic has an empty serialization format: read as rosbag2's CDR.
  auto vls128 = SummarizeRosBag(Nebula("velodyne-vls128"));
  ASSERT_TRUE(vls128.ok()) << vls128.message();
  EXPECT_EQ(vls128->topics[0].sensor, "Velodyne VLS-128, 1206-byte packets, strongest return");
  const std::string text = RosBagSummaryText("b", *vlp16);
  EXPECT_NE(text.find("/velodyne_packets  velodyne_msgs/msg/VelodyneScan         4  Velodyne"),
            std::string::npos)
      << text;
  EXPECT_NE(RosBagSummaryJson("b", *vlp16).find("\"lidar\": \"Velodyne VLP-16"), std::string::npos);
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

std::vector<uint8_t> EmptyScan() {  // a PandarScan of no packets: header, frame "l", count 0
  return {0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 'l', 0, 0, 0, 0, 0, 0, 0};
}

TEST(LidarTopic, ChosenByTypeOrByNameAndTheChoiceExplained) {
  test::TempDir dir;
  const auto path = dir / "two.db3";
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(
      db,
      "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT "
      "NULL, serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL);"
      "CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL, "
      "timestamp INTEGER NOT NULL, data BLOB NOT NULL);"
      "INSERT INTO topics VALUES (1, '/front', 'pandar_msgs/msg/PandarScan', 'cdr', '');"
      "INSERT INTO topics VALUES (2, '/rear', 'velodyne_msgs/msg/VelodyneScan', 'cdr', '');"
      "INSERT INTO topics VALUES (3, '/imu', 'sensor_msgs/msg/Imu', 'cdr', '');",
      nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto bag = OpenRosBag(path);
  ASSERT_TRUE(bag.ok()) << bag.message();
  auto several = ros::ChooseLidarTopic(**bag, "");
  ASSERT_FALSE(several.ok());
  EXPECT_EQ(several.error().option, "topic");
  EXPECT_NE(several.message().find("several lidar topics (/front, /rear)"), std::string::npos);
  auto rear = ros::ChooseLidarTopic(**bag, "/rear");
  ASSERT_TRUE(rear.ok());
  EXPECT_EQ((*rear)->type, "velodyne_msgs/msg/VelodyneScan");
  auto imu = ros::ChooseLidarTopic(**bag, "/imu");
  ASSERT_FALSE(imu.ok());
  EXPECT_NE(imu.message().find("topic /imu: "), std::string::npos) << imu.message();
  EXPECT_NE(imu.message().find("neither lidar packets nor a point cloud"), std::string::npos);
  auto none = ros::ChooseLidarTopic(**bag, "/side");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("has no such topic (it holds /front"), std::string::npos);
}

TEST(LidarTopic, AnUnreadableMessageIsSkippedCountedAndNamed) {
  test::TempDir dir;
  std::vector<uint8_t> cut = EmptyScan();
  cut.resize(10);  // the header's frame_id cut short
  const auto path = MakeBag(dir, "pandar_msgs/msg/PandarScan", {EmptyScan(), cut, EmptyScan()});
  auto opened = OpenRosBag(path);
  ASSERT_TRUE(opened.ok());
  std::shared_ptr<RosBag> bag = std::move(opened.value());
  const PacketSource packets = ros::BagPackets(bag, bag->topics()[0]);
  CaptureStats stats;
  ASSERT_TRUE(packets.read([](const UdpDatagram&) -> Status { return {}; }, stats).ok());
  EXPECT_EQ(stats.records, 3u);
  EXPECT_EQ(stats.malformed_messages, 1u);
  ASSERT_EQ(stats.warnings.size(), 1u);
  EXPECT_NE(stats.warnings[0].find("crafted.db3: message 1 of /points (row 2)"), std::string::npos)
      << stats.warnings[0];
  EXPECT_NE(stats.warnings[0].find("; message skipped"), std::string::npos);
}

}  // namespace
}  // namespace lt
