// RoboSense RS-LiDAR-16, RS-LiDAR-32 and Helios (32) packets (datasets/robosense.h): packets made
// from the layouts in RoboSense's manuals (docs/formats/robosense-models.md) decode to the points,
// times and returns the manuals' timing and rs_driver's geometry give, worked by hand below.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "capture_files.h"
#include "lidartwin/datasets/robosense.h"
#include "test_support.h"

namespace lt {
namespace {

// Every block of an MSOP packet flagged FF EE at azimuth `azimuth_of(b)` (0.01 deg, big-endian).
template <typename AzimuthOf>
void SetBlocks(std::vector<uint8_t>& p, AzimuthOf azimuth_of) {
  for (int b = 0; b < 12; ++b) {
    const size_t at = 42 + 100 * b;
    const int az = azimuth_of(b);
    p[at] = 0xFF, p[at + 1] = 0xEE;
    p[at + 2] = static_cast<uint8_t>(az >> 8), p[at + 3] = static_cast<uint8_t>(az);
  }
}

// An RS-LiDAR MSOP packet (model byte 1: RS-LiDAR-16, 2: RS-LiDAR-32) at 2023-08-03 11:02:46
// UTC + 123 ms 456 us, block b at `azimuth` + b `step` (0.01 deg), every distance 0.
std::vector<uint8_t> RsLidarMsop(uint8_t model, int azimuth, int step) {
  std::vector<uint8_t> p(1248, 0);
  const uint8_t id[8] = {0x55, 0xAA, 0x05, 0x0A, 0x5A, 0xA5, 0x50, 0xA0};
  std::copy(id, id + 8, p.begin());
  p[20] = 23, p[21] = 8, p[22] = 3, p[23] = 11, p[24] = 2, p[25] = 46;
  p[26] = 0, p[27] = 123, p[28] = 0x01, p[29] = 0xC8;  // 123 ms, 456 us
  p[30] = model;
  SetBlocks(p, [&](int b) { return (azimuth + step * b) % 36000; });
  return p;
}

// An RS-LiDAR-32 MSOP packet in dual return: block pairs 2k, 2k+1 at 0.2 k deg.
std::vector<uint8_t> Rs32DualMsop() {
  auto p = RsLidarMsop(2, 0, 0);
  SetBlocks(p, [](int b) { return 20 * (b / 2); });
  return p;
}

// A Helios MSOP packet: t = 1691060566.5 s, 2.5 mm unit, block b at `azimuth` + b `step`.
std::vector<uint8_t> HeliosMsop(int azimuth, int step) {
  std::vector<uint8_t> p(1248, 0);
  p[0] = 0x55, p[1] = 0xAA, p[2] = 0x05, p[3] = 0x5A;
  p[17] = 1;
  const uint64_t s = 1691060566;
  for (int k = 0; k < 6; ++k)
    p[20 + k] = static_cast<uint8_t>(s >> (8 * (5 - k)));
  const uint32_t us = 500000;
  for (int k = 0; k < 4; ++k)
    p[26 + k] = static_cast<uint8_t>(us >> (8 * (3 - k)));
  SetBlocks(p, [&](int b) { return (azimuth + step * b) % 36000; });
  return p;
}

void SetReturn(std::vector<uint8_t>& p, int block, int channel, uint16_t raw, uint8_t intensity) {
  uint8_t* u = &p[42 + 100 * block + 4 + 3 * channel];
  u[0] = static_cast<uint8_t>(raw >> 8), u[1] = static_cast<uint8_t>(raw), u[2] = intensity;
}

// A DIFOP packet at 600 rpm: dual return (byte 300 = 0x00) or strongest (`mode`).
std::vector<uint8_t> Difop(uint8_t mode) {
  std::vector<uint8_t> p(1248, 0);
  const uint8_t id[8] = {0xA5, 0xFF, 0x00, 0x5A, 0x11, 0x11, 0x55, 0x55};
  std::copy(id, id + 8, p.begin());
  p[8] = 600 >> 8, p[9] = 600 & 0xFF;
  p[300] = mode;
  return p;
}

// An angle file of `lasers` lasers: laser k at elevation `first` + k deg, no horizontal offset.
RobosenseCalibration Angles(size_t lasers, double first) {
  RobosenseCalibration c;
  c.file = "angles.csv";
  for (size_t k = 0; k < lasers; ++k) {
    c.vertical_cdeg.push_back(static_cast<int32_t>(std::lround((first + k) * 100)));
    c.horizontal_cdeg.push_back(0);
  }
  return c;
}

Expected<std::vector<Frame>> Decode(std::vector<std::pair<uint16_t, std::vector<uint8_t>>> packets,
                                    const RobosenseCalibration& cal,
                                    CaptureStats* stats = nullptr) {
  return CollectFrames([&](const FrameSink& sink) {
    return ForEachRobosenseFrame(test::Datagrams(std::move(packets)), cal, sink, stats);
  });
}

constexpr double kDeg = 3.14159265358979323846 / 180;

TEST(RobosenseModels, AnRsLidar16FiresTwiceABlockInUtcDateTime) {
  auto p = RsLidarMsop(1, 9000, 40);  // 0.4 deg a block: 600 rpm, 111 us a block
  SetReturn(p, 0, 0, 2000, 9);        // laser 0, first firing: 10 m at 5 mm
  SetReturn(p, 0, 17, 2000, 9);       // laser 1, second firing
  auto frames = Decode({{6699, p}}, Angles(16, -15));
  ASSERT_TRUE(frames.ok()) << frames.message();
  ASSERT_EQ(frames->size(), 1u);
  const Frame& f = (*frames)[0];
  ASSERT_EQ(f.size(), 2u);
  const double t0 = 1691060566 + 0.123 + 0.000456;
  EXPECT_NEAR(f.timestamp_s[0], t0, 1e-7);
  // Laser 1 of the second sequence: 55.5 + 2.8 us; its azimuth 90 deg + trunc(40 x 58.3/111)
  // = 90.21 deg.
  EXPECT_NEAR(f.timestamp_s[1], t0 + 58.3e-6, 1e-7);
  EXPECT_EQ(f.channel, (std::vector<uint16_t>{0, 1}));
  // Laser 0 at -15 deg, azimuth 90 deg: ROS -y; the receiver 38.25 mm off the axis.
  EXPECT_NEAR(f.x_m[0], 0, 1e-5);
  EXPECT_NEAR(f.y_m[0], -(10 * std::cos(15 * kDeg) + 0.03825), 1e-5);
  EXPECT_NEAR(f.z_m[0], -10 * std::sin(15 * kDeg), 1e-5);
  const double a = 90.21 * kDeg, e = -14 * kDeg;
  EXPECT_NEAR(f.x_m[1], 10 * std::cos(e) * std::cos(a) + 0.03825 * std::cos(a), 1e-5);
  EXPECT_NEAR(f.y_m[1], -(10 * std::cos(e) * std::sin(a) + 0.03825 * std::sin(a)), 1e-5);
}

TEST(RobosenseModels, AnRsLidar16InDualReturnHoldsOneFiringABlock) {
  auto p = RsLidarMsop(1, 9000, 20);
  SetReturn(p, 1, 3, 2000, 9);   // block 1, laser 3, first return
  SetReturn(p, 1, 19, 2100, 9);  // block 1, laser 3, second return
  auto frames = Decode({{7788, Difop(0x00)}, {6699, p}}, Angles(16, -15));
  ASSERT_TRUE(frames.ok()) << frames.message();
  const Frame& f = (*frames)[0];
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f.channel, (std::vector<uint16_t>{3, 3}));
  EXPECT_EQ(f.return_index, (std::vector<uint8_t>{0, 1}));
  // Block 1 starts one 55.5 us firing in; laser 3 fires 8.4 us into it.
  const double t0 = 1691060566 + 0.123 + 0.000456;
  for (double t : f.timestamp_s)
    EXPECT_NEAR(t, t0 + 55.5e-6 + 8.4e-6, 1e-7);
}

TEST(RobosenseModels, AnRsLidar32FiresItsLasersInPairsAndPairsBlocksInDual) {
  auto p = RsLidarMsop(2, 0, 20);
  SetReturn(p, 0, 15, 2000, 5);  // fires at 44.64 us (2.88 x 14 + 1.44)
  SetReturn(p, 0, 31, 2000, 5);  // 46.08 us
  auto single = Decode({{6699, p}}, Angles(32, -25));
  ASSERT_TRUE(single.ok()) << single.message();
  const double t0 = 1691060566 + 0.123 + 0.000456;
  ASSERT_EQ((*single)[0].size(), 2u);
  EXPECT_NEAR((*single)[0].timestamp_s[0], t0 + 44.64e-6, 1e-7);
  EXPECT_NEAR((*single)[0].timestamp_s[1], t0 + 46.08e-6, 1e-7);
  EXPECT_EQ((*single)[0].channel, (std::vector<uint16_t>{15, 31}));
  // Dual: blocks 2k and 2k+1 at one azimuth are one firing's two returns.
  auto dual = Rs32DualMsop();
  SetReturn(dual, 2, 4, 2000, 5);
  SetReturn(dual, 3, 4, 2200, 5);
  auto d = Decode({{7788, Difop(0x00)}, {6699, dual}}, Angles(32, -25));
  ASSERT_TRUE(d.ok()) << d.message();
  const Frame& f = (*d)[0];
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f.return_index, (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(f.channel, (std::vector<uint16_t>{4, 4}));
  // The second pair: one 55.52 us firing in, channel 4 at 11.52 us.
  for (double t : f.timestamp_s)
    EXPECT_NEAR(t, t0 + 55.52e-6 + 11.52e-6, 1e-7);
  EXPECT_NEAR(f.range_m[1], 2200 * 0.005, 1e-6);
}

TEST(RobosenseModels, AHeliosOf32LasersTakesEachChannelAsItsOwnLaser) {
  auto p = HeliosMsop(18000, 20);
  SetReturn(p, 0, 20, 4000, 11);  // laser 20: 10 m at 2.5 mm, fires at 34.6 us
  auto frames = Decode({{6699, p}}, Angles(32, -20));
  ASSERT_TRUE(frames.ok()) << frames.message();
  const Frame& f = (*frames)[0];
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f.channel[0], 20);
  EXPECT_NEAR(f.timestamp_s[0], 1691060566.5 + 34.6e-6, 1e-7);
  // Elevation -20 + 20 = 0 deg; azimuth 180 deg + trunc(20 x 34.6 / 55.56) = 180.12 deg.
  const double a = 180.12 * kDeg;
  EXPECT_NEAR(f.x_m[0], 10 * std::cos(a) + 0.03498 * std::cos(a), 1e-5);
  EXPECT_NEAR(f.y_m[0], -(10 * std::sin(a) + 0.03498 * std::sin(a)), 1e-5);
  EXPECT_NEAR(f.z_m[0], 0, 1e-6);
}

TEST(RobosenseModels, PacketsAndAnAngleFileOfAnotherModelDoNotPair) {
  auto p = RsLidarMsop(1, 0, 40);
  SetReturn(p, 0, 0, 2000, 9);
  auto frames = Decode({{6699, p}}, Angles(32, -25));
  ASSERT_FALSE(frames.ok());
  EXPECT_NE(frames.message().find("made.pcap: byte 30: the packets are an RS-LiDAR-16's "
                                  "(16 lasers) but the angle file has 32 lines (angles.csv)"),
            std::string::npos)
      << frames.message();
  auto unknown = RsLidarMsop(7, 0, 40);
  auto e = Decode({{6699, unknown}}, Angles(16, -15));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("model byte 0x07"), std::string::npos) << e.message();
  // A later packet of another model is skipped and counted.
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> packets;
  for (int k = 0; k < 12; ++k)
    packets.push_back({6699, RsLidarMsop(1, 480 * k, 40)});
  packets.insert(packets.begin() + 5, {6699, RsLidarMsop(2, 2000, 40)});
  CaptureStats stats;
  auto mixed = Decode(packets, Angles(16, -15), &stats);
  ASSERT_TRUE(mixed.ok()) << mixed.message();
  EXPECT_EQ(stats.lidar_packets, 12u);
  EXPECT_EQ(stats.bad_packets, 1u);
  ASSERT_FALSE(stats.warnings.empty());
  EXPECT_NE(stats.warnings[0].find("byte 10030: the packets are an RS-LiDAR-32's"),
            std::string::npos)
      << stats.warnings[0];
}

TEST(RobosenseModels, ADamagedFirstPacketIsSkippedAndAnOffsetPastNinetyDegreesKeepsItsAngle) {
  auto damaged = HeliosMsop(0, 20);
  damaged[42] = 0x00;  // its first block's flag
  auto p = HeliosMsop(9000, 20);
  SetReturn(p, 0, 0, 4000, 11);
  RobosenseCalibration cal = Angles(32, 0);
  cal.vertical_cdeg[0] = 0;
  cal.horizontal_cdeg[0] = -17000;  // -170 deg: the point at 90 - 170 = -80 deg
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> packets{{6699, damaged}};
  for (int k = 0; k < 10; ++k)
    packets.push_back({6699, k == 0 ? p : HeliosMsop(9240 + 240 * k, 20)});
  CaptureStats stats;
  auto frames = Decode(packets, cal, &stats);
  ASSERT_TRUE(frames.ok()) << frames.message();
  EXPECT_EQ(stats.bad_packets, 1u);
  ASSERT_EQ((*frames)[0].size(), 1u);
  const double a = -80 * kDeg;  // the receiver's offset along the uncorrected 90 deg
  EXPECT_NEAR((*frames)[0].x_m[0], 10 * std::cos(a) + 0.03498 * std::cos(90 * kDeg), 1e-4);
  EXPECT_NEAR((*frames)[0].y_m[0], -(10 * std::sin(a) + 0.03498 * std::sin(90 * kDeg)), 1e-4);
}

TEST(RobosenseModels, BothReturnsOfAFiringShareItsColumnAndBeam) {
  auto dual = Rs32DualMsop();
  SetReturn(dual, 4, 7, 2000, 5);
  SetReturn(dual, 5, 7, 2300, 5);
  SetReturn(dual, 6, 7, 2000, 5);
  auto d = Decode({{7788, Difop(0x00)}, {6699, dual}}, Angles(32, -25));
  ASSERT_TRUE(d.ok()) << d.message();
  const Frame& f = (*d)[0];
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f.column[0], f.column[1]);
  EXPECT_EQ(f.beam_id[0], f.beam_id[1]);
  EXPECT_EQ(f.column[2], f.column[0] + 1);
}

// The DIFOP's return mode names each point's kind (nebula's codes): a single mode's for every
// point; in dual return the pair's first the strongest, its second the last, one echo twice
// identical; none before a DIFOP says.
TEST(RobosenseModels, TheDifopsReturnModeNamesEachPointsKind) {
  using T = physics::ReturnType;
  auto kinds = [](const Frame& f) {
    std::vector<T> out;
    for (uint8_t code : f.return_type)
      out.push_back(T{code});
    return out;
  };
  auto single = RsLidarMsop(2, 0, 20);
  SetReturn(single, 0, 3, 2000, 5);
  for (auto [mode, kind] :
       {std::pair{uint8_t{1}, T::kStrongest}, {uint8_t{2}, T::kLast}, {uint8_t{3}, T::kUnknown}}) {
    auto d = Decode({{7788, Difop(mode)}, {6699, single}}, Angles(32, -25));
    ASSERT_TRUE(d.ok()) << d.message();
    EXPECT_EQ(kinds((*d)[0]), std::vector<T>{kind}) << int{mode};
  }
  auto no_difop = Decode({{6699, single}}, Angles(32, -25));
  ASSERT_TRUE(no_difop.ok()) << no_difop.message();
  EXPECT_EQ(kinds((*no_difop)[0]), std::vector<T>{T::kUnknown});
  // Helios modes: 4 strongest, 5 last, 6 first.
  auto helios = HeliosMsop(18000, 20);
  SetReturn(helios, 0, 0, 4000, 9);
  for (auto [mode, kind] :
       {std::pair{uint8_t{4}, T::kStrongest}, {uint8_t{5}, T::kLast}, {uint8_t{6}, T::kFirst}}) {
    auto d = Decode({{7788, Difop(mode)}, {6699, helios}}, Angles(32, -25));
    ASSERT_TRUE(d.ok()) << d.message();
    EXPECT_EQ(kinds((*d)[0]), std::vector<T>{kind}) << int{mode};
  }
  // Dual, block pairs: a pair of two echoes, then one echo reported twice.
  auto dual = Rs32DualMsop();
  SetReturn(dual, 0, 7, 2000, 5);
  SetReturn(dual, 1, 7, 2300, 9);
  SetReturn(dual, 2, 7, 2100, 5);
  SetReturn(dual, 3, 7, 2100, 5);
  auto d = Decode({{7788, Difop(0x00)}, {6699, dual}}, Angles(32, -25));
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_EQ(kinds((*d)[0]),
            (std::vector<T>{T::kStrongest, T::kLast, T::kIdentical, T::kIdentical}));
  // Dual, channel halves (an RS-LiDAR-16): channel c + 16 is laser c's second return.
  auto rs16 = RsLidarMsop(1, 9000, 20);
  SetReturn(rs16, 1, 3, 2000, 9);
  SetReturn(rs16, 1, 19, 2100, 9);
  auto h = Decode({{7788, Difop(0x00)}, {6699, rs16}}, Angles(16, -15));
  ASSERT_TRUE(h.ok()) << h.message();
  EXPECT_EQ(kinds((*h)[0]), (std::vector<T>{T::kStrongest, T::kLast}));
}

// A Helios's DIFOP with its angle table: entry k's vertical angle `vertical(k)` and horizontal
// `horizontal(k)` (0.01 deg, signed), each a sign byte (1 negative) and a big-endian u16.
template <typename Vertical, typename Horizontal>
std::vector<uint8_t> DifopWithAngles(Vertical vertical, Horizontal horizontal) {
  auto p = Difop(0x04);
  for (size_t k = 0; k < 32; ++k) {
    for (auto [at, a] : {std::pair{size_t{468}, vertical(k)}, {size_t{564}, horizontal(k)}}) {
      const int m = std::abs(a);
      p[at + 3 * k] = a < 0 ? 1 : 0;
      p[at + 3 * k + 1] = static_cast<uint8_t>(m >> 8), p[at + 3 * k + 2] = static_cast<uint8_t>(m);
    }
  }
  return p;
}

// The DIFOP's angle table: signed 0.01 deg entries, 32 lasers, or 16 where the last 16 entries
// are zero (a Helios-16P's); an entry that is not an angle is refused by its byte.
TEST(RobosenseModels, AHeliossDifopCarriesItsLasersAngles) {
  const auto v = [](size_t k) { return 1500 - 220 * static_cast<int>(k); };  // 15 .. -53.2 deg
  const auto h = [](size_t k) { return k % 2 ? 361 : -405; };
  auto c = RobosenseDifopCalibration(DifopWithAngles(v, h), "cap.pcap: byte 42");
  ASSERT_TRUE(c.ok()) << c.message();
  ASSERT_EQ(c->vertical_cdeg.size(), 32u);
  for (size_t k = 0; k < 32; ++k) {
    EXPECT_EQ(c->vertical_cdeg[k], v(k)) << k;
    EXPECT_EQ(c->horizontal_cdeg[k], h(k)) << k;
  }
  EXPECT_EQ(c->file, "cap.pcap: byte 42");
  auto sixteen =
      RobosenseDifopCalibration(DifopWithAngles([&](size_t k) { return k < 16 ? v(k) : 0; },
                                                [&](size_t k) { return k < 16 ? h(k) : 0; }),
                                "x");
  ASSERT_TRUE(sixteen.ok()) << sixteen.message();
  EXPECT_EQ(sixteen->vertical_cdeg.size(), 16u);
  EXPECT_EQ(sixteen->horizontal_cdeg.size(), 16u);
  // A unit that sent no table (0xFF bytes), an angle past 90 deg, a short packet.
  auto blank = DifopWithAngles(v, h);
  std::fill(blank.begin() + 468 + 3 * 5, blank.begin() + 468 + 3 * 6, 0xFF);
  auto bad = RobosenseDifopCalibration(blank, "cap.pcap: byte 42");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("cap.pcap: byte 42: the DIFOP's vertical angle 5 (its byte 483)"),
            std::string::npos)
      << bad.message();
  auto steep = RobosenseDifopCalibration(
      DifopWithAngles([](size_t k) { return k == 2 ? -9100 : 0; }, h), "x");
  ASSERT_FALSE(steep.ok());
  EXPECT_NE(steep.message().find("byte 474"), std::string::npos) << steep.message();
  EXPECT_FALSE(RobosenseDifopCalibration(std::vector<uint8_t>(100, 0), "x").ok());
}

// A recording without an angle file takes its first DIFOP's (after an MSOP says the generation);
// an RS-LiDAR's DIFOP layout is not read, and a capture without one says what is needed. An
// angle file of another laser count than the DIFOP's is decoded as given, with a warning.
TEST(RobosenseModels, ACaptureWithoutAnAngleFileTakesItsDifops) {
  const auto v = [](size_t k) { return 1500 - 220 * static_cast<int>(k); };
  const auto h = [](size_t) { return 0; };
  auto helios = HeliosMsop(18000, 20);
  SetReturn(helios, 0, 20, 4000, 9);
  auto found = RobosenseCaptureCalibration(
      test::Datagrams({{6699, helios}, {7788, DifopWithAngles(v, h)}, {6699, helios}}));
  ASSERT_TRUE(found.ok()) << found.message();
  ASSERT_EQ(found->vertical_cdeg.size(), 32u);
  EXPECT_EQ(found->vertical_cdeg[20], v(20));
  auto d = Decode({{6699, helios}}, *found);
  ASSERT_TRUE(d.ok()) << d.message();
  // Laser 20 at -29 deg: z = 10 m x sin(-29 deg).
  EXPECT_NEAR((*d)[0].z_m[0], 10 * std::sin(-29 * kDeg), 1e-4);
  auto none = RobosenseCaptureCalibration(test::Datagrams({{6699, helios}}));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("no RoboSense DIFOP packet"), std::string::npos) << none.message();
  auto rs = RobosenseCaptureCalibration(
      test::Datagrams({{7788, DifopWithAngles(v, h)}, {6699, RsLidarMsop(2, 0, 20)}}));
  ASSERT_FALSE(rs.ok());
  EXPECT_NE(rs.message().find("RS-LiDAR"), std::string::npos) << rs.message();
  // The angle file is followed, with a warning, whether the DIFOP comes after the first MSOP
  // or before it.
  for (bool difop_first : {false, true}) {
    CaptureStats stats;
    auto given = Decode(
        difop_first
            ? std::vector<std::pair<uint16_t, std::vector<uint8_t>>>{{7788, DifopWithAngles(v, h)},
                                                                     {6699, helios}}
            : std::vector<std::pair<uint16_t, std::vector<uint8_t>>>{{6699, helios},
                                                                     {7788, DifopWithAngles(v, h)}},
        Angles(16, -15), &stats);
    ASSERT_TRUE(given.ok()) << given.message();
    ASSERT_EQ(stats.warnings.size(), 1u) << difop_first;
    EXPECT_NE(stats.warnings[0].find("lists 32 lasers but angles.csv has 16"), std::string::npos)
        << stats.warnings[0];
  }
}

// What decides the DIFOP search: a damaged datagram on the MSOP port does not name the packets'
// generation (an RS-LiDAR's after it is still refused); a DIFOP whose table does not read is
// passed over for a later one; a capture without a Helios MSOP, or whose every DIFOP is
// damaged, says so. The DIFOP's spin rate comes with its table.
TEST(RobosenseModels, TheDifopSearchWaitsForAWellFormedMsopAndAReadableTable) {
  const auto v = [](size_t k) { return 1500 - 220 * static_cast<int>(k); };
  const auto h = [](size_t) { return 0; };
  const auto difop = DifopWithAngles(v, h);
  auto rs = RobosenseCaptureCalibration(test::Datagrams(
      {{7788, difop}, {6699, std::vector<uint8_t>(100, 0x55)}, {6699, RsLidarMsop(1, 0, 40)}}));
  ASSERT_FALSE(rs.ok());
  EXPECT_NE(rs.message().find("RS-LiDAR"), std::string::npos) << rs.message();
  auto damaged = difop;
  damaged[468] = 2;  // a sign byte that is no sign
  auto later = RobosenseCaptureCalibration(
      test::Datagrams({{7788, damaged}, {6699, HeliosMsop(0, 20)}, {7788, difop}}));
  ASSERT_TRUE(later.ok()) << later.message();
  EXPECT_EQ(later->vertical_cdeg[3], v(3));
  EXPECT_DOUBLE_EQ(later->rotation_rate_hz, 10.0);  // Difop(): 600 rpm
  auto only_damaged =
      RobosenseCaptureCalibration(test::Datagrams({{7788, damaged}, {6699, HeliosMsop(0, 20)}}));
  ASSERT_FALSE(only_damaged.ok());
  EXPECT_NE(only_damaged.message().find("sign byte 2"), std::string::npos)
      << only_damaged.message();
  auto no_msop = RobosenseCaptureCalibration(test::Datagrams({{7788, difop}}));
  ASSERT_FALSE(no_msop.ok());
  EXPECT_NE(no_msop.message().find("no Helios MSOP packet"), std::string::npos)
      << no_msop.message();
}

}  // namespace
}  // namespace lt
