// RoboSense Helios-16P packets (datasets/robosense.h) against nebula's decode of the shared bag,
// point for point and field for field (docs/formats/velodyne-robosense-answer-keys.md), and
// packets a real unit never sends.
#include "lidartwin/datasets/robosense.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "answer_key.h"
#include "capture_files.h"
#include "lidartwin/datasets/point_cloud_readers.h"
#include "lidartwin/datasets/recording.h"
#include "test_support.h"

namespace lt {
namespace {

constexpr int64_t kKeyStamp = 1691031766880833506;

TEST(RobosensePackets, TheHelios16PBagDecodesToItsAnswerKeyFieldForField) {
  LT_REQUIRE_REAL_DATA();
  const auto folder = test::RealDataDir() / "nebula" / "robosense-helios16p";
  auto cal = LoadRobosenseCalibration(folder / "RobosenseHelios16P.csv");
  ASSERT_TRUE(cal.ok()) << cal.message();
  // The driver's 0.01 deg integers: 8.90 deg is 889 (float 8.9 x 100 truncated).
  EXPECT_EQ(cal->vertical_cdeg[3], 889);
  auto ours = test::FrameCompletedIn(folder, kKeyStamp,
                                     [&](const PacketSource& packets, const FrameSink& sink) {
                                       return ForEachRobosenseFrame(packets, *cal, sink);
                                     });
  ASSERT_TRUE(ours.ok()) << ours.message();
  auto key = ReadPcd(folder / (std::to_string(kKeyStamp) + ".pcd"));
  ASSERT_TRUE(key.ok()) << key.message();
  ASSERT_EQ(key->size(), 15795u);
  ASSERT_EQ(ours->size(), key->size());
  // nebula's channel is the laser's rank by elevation; ours the CSV line.
  std::vector<int32_t> sorted = cal->vertical_cdeg;
  std::sort(sorted.begin(), sorted.end());
  double worst_m = 0;
  for (size_t i = 0; i < key->size(); ++i) {
    // The key is ASCII with 8 significant digits: 0.01 mm at 150 m.
    worst_m = std::max({worst_m, std::abs(double{ours->x_m[i]} - key->x_m[i]),
                        std::abs(double{ours->y_m[i]} - key->y_m[i]),
                        std::abs(double{ours->z_m[i]} - key->z_m[i])});
    ASSERT_EQ(ours->intensity[i], key->intensity[i]) << i;
    const auto rank =
        std::lower_bound(sorted.begin(), sorted.end(), cal->vertical_cdeg[ours->channel[i]]) -
        sorted.begin();
    ASSERT_EQ(rank, key->channel[i]) << i;
  }
  EXPECT_LE(worst_m, 1e-3) << "largest coordinate difference, m";
  // The key marks every point strongest (3): nebula's configured return mode, for the bag has no
  // DIFOP packet before the key's message to say it. Ours cannot tell, and says so: unknown (0) for
  // every point.
  ASSERT_EQ(key->return_type.size(), key->size());
  EXPECT_EQ(std::count(key->return_type.begin(), key->return_type.end(), 3), key->size());
  ASSERT_EQ(ours->return_type.size(), ours->size());
  EXPECT_EQ(std::count(ours->return_type.begin(), ours->return_type.end(), 0), ours->size());
}

// The shared bag's unit is a 32-laser Helios, as its DIFOP's angle table says (+14.94 to -53.70
// deg: RoboSense's Helios-5515 field of view), not the Helios-16P its test fixture names: read
// with the 16-line file, channels c and c + 16 would be one laser 0.1 deg apart, yet their ranges
// differ by a median of 0.46 m while each channel's next column (0.2 deg on) differs by 5 mm.
// Read without an angle file, it takes the DIFOP's 32 lasers.
TEST(RobosensePackets, TheSharedHeliosBagHoldsThirtyTwoLasersAsItsDifopSays) {
  LT_REQUIRE_REAL_DATA();
  const auto folder = test::RealDataDir() / "nebula" / "robosense-helios16p";
  const auto bag = folder / "rosbag2_2023_08_03-11_02_46_0.db3";
  auto sixteen = ReadRecording(bag, folder / "RobosenseHelios16P.csv");
  ASSERT_TRUE(sixteen.ok()) << sixteen.message();
  ASSERT_GE(sixteen->frames.size(), 3u);
  const Frame& f = sixteen->frames[2];
  std::map<uint32_t, float> range;  // by beam: column x 32 + channel
  for (size_t i = 0; i < f.size(); ++i)
    if (f.return_index.empty() || f.return_index[i] == 0) range[f.beam_id[i]] = f.range_m[i];
  auto median_difference = [&](uint32_t offset, bool low_half) {
    std::vector<double> d;
    for (auto [beam, r] : range) {
      if ((beam % 32 < 16) != low_half) continue;
      if (auto other = range.find(beam + offset); other != range.end())
        d.push_back(std::abs(double{r} - other->second));
    }
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    return d[d.size() / 2];
  };
  EXPECT_GT(median_difference(16, true), 0.2) << "channel c against c + 16, same block";
  EXPECT_LT(median_difference(32, true), 0.02) << "channel c against the next block's";
  bool warned = false;
  for (const std::string& note : sixteen->notes)
    warned |= note.find("lists 32 lasers") != std::string::npos;
  EXPECT_TRUE(warned) << "a warning that the angle file is not the DIFOP's";

  auto own = ReadRecording(bag, "");
  ASSERT_TRUE(own.ok()) << own.message();
  ASSERT_EQ(own->frames.size(), sixteen->frames.size());
  uint16_t top = 0;
  for (uint16_t c : own->frames[2].channel)
    top = std::max(top, c);
  EXPECT_EQ(top, 31);
  // Channel 16 is the laser at -9.94 deg (the 16-line file had it at +14.94).
  const Frame& g = own->frames[2];
  size_t seen = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    if (g.channel[i] != 16 || g.range_m[i] < 0.5) continue;  // 0.1 mm of the lens turn: 0.01 deg
    const double horizontal = std::hypot(double{g.x_m[i]}, double{g.y_m[i]});
    EXPECT_NEAR(std::atan2(double{g.z_m[i]}, horizontal - 0.03498) * 180 / M_PI, -9.94, 0.05) << i;
    ++seen;
  }
  EXPECT_GT(seen, 100u);
}

// A Helios-16P MSOP packet: 12 blocks 0.2 deg apart from `azimuth`, every return at `raw` x
// 2.5 mm (header byte 17 = 1, as the shared bag's unit sends).
std::vector<uint8_t> Msop(int azimuth, uint16_t raw) {
  std::vector<uint8_t> p(1248, 0);
  p[0] = 0x55, p[1] = 0xAA, p[2] = 0x05, p[3] = 0x5A;
  p[17] = 1;
  for (int b = 0; b < 12; ++b) {
    const size_t at = 42 + 100 * b;
    const int az = (azimuth + 20 * b) % 36000;
    p[at] = 0xFF, p[at + 1] = 0xEE, p[at + 2] = static_cast<uint8_t>(az >> 8),
    p[at + 3] = static_cast<uint8_t>(az);
    for (int c = 0; c < 32; ++c) {
      p[at + 4 + 3 * c] = static_cast<uint8_t>(raw >> 8);
      p[at + 5 + 3 * c] = static_cast<uint8_t>(raw);
      p[at + 6 + 3 * c] = 77;
    }
  }
  return p;
}

RobosenseCalibration Flat() {
  RobosenseCalibration c;
  c.file = "flat.csv";
  c.vertical_cdeg.assign(16, 0);
  c.horizontal_cdeg.assign(16, 0);
  return c;
}

TEST(RobosensePackets, APointIsWhereItsRangeAndAzimuthPutIt) {
  // 10 m (4000 x 2.5 mm) at block azimuth 90 deg, channel 0 (fires first): ROS -y, plus the
  // receiver's 34.98 mm from the axis.
  std::vector<Frame> frames;
  ASSERT_TRUE(ForEachRobosenseFrame(test::Datagrams({{6699, Msop(9000, 4000)}}), Flat(),
                                    [&](Frame&& f) -> Status {
                                      frames.push_back(std::move(f));
                                      return {};
                                    })
                  .ok());
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].size(), 12u * 32u);
  EXPECT_NEAR(frames[0].x_m[0], 0.0, 1e-5);
  EXPECT_NEAR(frames[0].y_m[0], -10.03498, 1e-5);
  EXPECT_NEAR(frames[0].z_m[0], 0.0, 1e-6);
  EXPECT_EQ(frames[0].intensity[0], 77);
  // Header byte 17 = 0: the 5 mm unit.
  auto coarse = Msop(9000, 4000);
  coarse[17] = 0;
  frames.clear();
  ASSERT_TRUE(
      ForEachRobosenseFrame(test::Datagrams({{6699, coarse}}), Flat(), [&](Frame&& f) -> Status {
        frames.push_back(std::move(f));
        return {};
      }).ok());
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_NEAR(frames[0].y_m[0], -20.03498, 1e-5);
}

TEST(RobosensePackets, AFrameEndsWhereTheAzimuthPassesZero) {
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> packets;
  for (int az = 35000; az < 36000 + 1000; az += 240)
    packets.push_back({6699, Msop(az % 36000, 4000)});
  std::vector<Frame> frames;
  ASSERT_TRUE(ForEachRobosenseFrame(test::Datagrams(packets), Flat(), [&](Frame&& f) -> Status {
                frames.push_back(std::move(f));
                return {};
              }).ok());
  ASSERT_EQ(frames.size(), 2u);
  // Blocks at 350.0 .. 359.8 deg in the first: 50 blocks.
  EXPECT_EQ(frames[0].size(), 50u * 32u);
}

TEST(RobosensePackets, OddPacketsAreSkippedCountedAndNamed) {
  auto wrong_id = Msop(0, 4000);
  wrong_id[0] = 0;
  auto short_one = Msop(100, 4000);
  short_one.resize(1000);
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> packets;
  for (int k = 0; k < 30; ++k)
    packets.push_back({6699, Msop(240 * k, 4000)});
  packets.push_back({6699, wrong_id});
  packets.push_back({6699, short_one});
  packets.push_back({7788, std::vector<uint8_t>(1248, 0)});  // a DIFOP without its id
  packets.push_back({2368, Msop(0, 1)});                     // another port
  CaptureStats stats;
  ASSERT_TRUE(ForEachRobosenseFrame(
                  test::Datagrams(packets), Flat(), [](Frame&&) -> Status { return {}; }, &stats)
                  .ok());
  EXPECT_EQ(stats.lidar_packets, 30u);
  EXPECT_EQ(stats.bad_packets, 3u);
  EXPECT_EQ(stats.other_udp, 1u);
  ASSERT_GE(stats.warnings.size(), 2u);
  EXPECT_NE(stats.warnings[0].find("made.pcap: byte 60000: MSOP packet without its id"),
            std::string::npos)
      << stats.warnings[0];
  EXPECT_NE(stats.warnings[1].find("MSOP packet of 1000 bytes (1248 expected)"), std::string::npos);
  // A calibration of another unit.
  test::TempDir dir;
  std::string lines33;
  for (int k = 0; k < 33; ++k)
    lines33 += "1.0,2.0\n";
  auto c = LoadRobosenseCalibration(dir.Write("odd.csv", lines33));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.message().find("33 lasers; RoboSense's angle files have 16 or 32 lines"),
            std::string::npos);
  auto bad = LoadRobosenseCalibration(dir.Write("bad.csv", "14.94,-4.05\nhello\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("bad.csv: line 2: expected 'vertical,horizontal'"),
            std::string::npos)
      << bad.message();
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

TEST(RobosensePackets, RepeatedAndReorderedPacketsNeitherDuplicateNorCut) {
  // 30 packets over 72 deg; two sent twice, one pair swapped: one frame of 30 packets' points.
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> packets;
  for (int k = 0; k < 30; ++k) {
    auto p = Msop(240 * k, 4000);
    p[29] = static_cast<uint8_t>(k);  // microseconds: each packet its own time
    packets.push_back({6699, p});
  }
  packets.insert(packets.begin() + 10, packets[9]);
  packets.insert(packets.begin() + 20, packets[19]);
  std::swap(packets[5], packets[6]);
  CaptureStats stats;
  std::vector<Frame> frames;
  ASSERT_TRUE(ForEachRobosenseFrame(
                  test::Datagrams(packets), Flat(),
                  [&](Frame&& f) -> Status {
                    frames.push_back(std::move(f));
                    return {};
                  },
                  &stats)
                  .ok());
  EXPECT_EQ(stats.duplicates, 2u);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].size(), 30u * 12u * 32u);
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

TEST(RobosensePackets, AFieldOfViewWindowGivesAFrameAWindow) {
  // Three revolutions of which the unit sends 90..270 deg (2.4 deg a packet).
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> packets;
  uint32_t us = 0;
  for (int rev = 0; rev < 3; ++rev) {
    for (int az = 9000; az < 27000; az += 240) {
      auto p = Msop(az, 4000);
      us += 700;
      for (int i = 0; i < 4; ++i)
        p[29 - i] = static_cast<uint8_t>(us >> (8 * i));
      packets.push_back({6699, p});
    }
  }
  std::vector<Frame> frames;
  ASSERT_TRUE(ForEachRobosenseFrame(test::Datagrams(packets), Flat(), [&](Frame&& f) -> Status {
                frames.push_back(std::move(f));
                return {};
              }).ok());
  ASSERT_EQ(frames.size(), 3u);
  for (const Frame& f : frames)
    EXPECT_EQ(f.size(), 75u * 12u * 32u);
}

}  // namespace
}  // namespace lt
