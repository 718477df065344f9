// Hesai protocols 1.4 (Pandar128E3X, OT128) and 3.2 (QT128C2X) (datasets/hesai.h): packets made
// from the layouts in Hesai's manuals (docs/formats/hesai-answer-keys.md, "Protocols 1.4 and 3.2")
// decode to the points and times the manuals' formulas give, worked by hand below; sizes the
// header's flags do not give are refused; the angle files' newer form (an EEFF line, a SHA-256
// line) is read.
#include <gtest/gtest.h>

#include <cmath>

#include "capture_files.h"
#include "lidartwin/datasets/hesai.h"
#include "test_support.h"

namespace lt {
namespace {

void PutLe(std::vector<uint8_t>& p, size_t at, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k)
    p[at + k] = static_cast<uint8_t>(v >> (8 * k));
}

// A protocol 1.4 packet (flags 0x07: sequence, IMU, functional safety; 3-byte units; 861 bytes)
// or 3.2 (flags 0x05: sequence, functional safety; 4-byte units; 1095 bytes): block azimuths
// `az1`, `az2` (0.01 deg), return mode `mode`, at 2024-01-15 12:30:45 UTC + 500,000 us.
std::vector<uint8_t> Packet(bool v14, uint16_t az1, uint16_t az2, uint8_t mode) {
  const size_t unit = v14 ? 3 : 4, block = 2 + 128 * unit;
  std::vector<uint8_t> p(v14 ? 861 : 1095, 0);
  p[0] = 0xEE, p[1] = 0xFF, p[2] = v14 ? 1 : 3, p[3] = v14 ? 4 : 2;
  p[6] = 128, p[7] = 2, p[9] = 4, p[10] = mode >= 0x39 ? 2 : 1, p[11] = v14 ? 0x07 : 0x05;
  PutLe(p, 12, az1, 2);
  PutLe(p, 12 + block, az2, 2);
  const size_t tail = 12 + 2 * block + 4 + 17;
  p[tail + 12] = mode;
  PutLe(p, tail + 13, 600, 2);
  const uint8_t date[6] = {124, 1, 15, 12, 30, 45};
  std::copy(date, date + 6, p.begin() + static_cast<std::ptrdiff_t>(tail + 15));
  PutLe(p, tail + 21, 500000, 4);
  return p;
}

void SetReturn(std::vector<uint8_t>& p, bool v14, int block, int channel, uint16_t raw,
               uint8_t refl) {
  const size_t unit = v14 ? 3 : 4, at = 12 + block * (2 + 128 * unit) + 2 + channel * unit;
  PutLe(p, at, raw, 2);
  p[at + 2] = refl;
}

// 128 channels at elevation 15 - 0.25 k deg and azimuth offset 0; channel 5 (row 5) at the
// Pandar128 manual's design angles, elevation 12.165 deg and azimuth offset 1.093 deg.
HesaiCalibration Channels128() {
  HesaiCalibration c;
  c.file = "Pandar128.csv";
  for (int k = 0; k < 128; ++k) {
    c.elevation_deg.push_back(15 - 0.25 * k);
    c.azimuth_offset_deg.push_back(0);
  }
  c.elevation_deg[4] = 12.165, c.azimuth_offset_deg[4] = 1.093;
  return c;
}

Expected<std::vector<Frame>> Decode(const std::vector<std::vector<uint8_t>>& packets,
                                    CaptureStats* stats = nullptr) {
  return CollectFrames([&](const FrameSink& sink) {
    return ForEachHesaiFrame(test::Datagrams(2368, packets), Channels128(), sink, stats);
  });
}

constexpr double kPacketTime = 1705321845.5;  // 2024-01-15 12:30:45.5 UTC

TEST(Hesai128, APandar128E3XPointIsWhereItsDesignAnglesPutIt) {
  // 10 m (2500 x 4 mm) on channel 5 at block azimuth 90 deg: Hesai's x = d cos(el) sin(az),
  // y = d cos(el) cos(az) with az = 91.093 deg: (9.7737, -0.1865, 2.1073); ROS x = Hesai y,
  // ROS y = -Hesai x.
  auto p = Packet(true, 9000, 9010, 0x37);
  SetReturn(p, true, 0, 4, 2500, 100);
  auto frames = Decode({p});
  ASSERT_TRUE(frames.ok()) << frames.message();
  ASSERT_EQ(frames->size(), 1u);
  const Frame& f = (*frames)[0];
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NEAR(f.x_m[0], -0.18648, 1e-4);
  EXPECT_NEAR(f.y_m[0], -9.77370, 1e-4);
  EXPECT_NEAR(f.z_m[0], 2.10730, 1e-4);
  EXPECT_EQ(f.intensity[0], 100);
  EXPECT_EQ(f.channel[0], 4);
  EXPECT_DOUBLE_EQ(f.timestamp_s[0], kPacketTime);
}

TEST(Hesai128, AQt128DualPacketIsOneFiringsTwoReturnsAndUnfiredChannelsAreZero) {
  auto p = Packet(false, 18000, 18000, 0x39);  // dual: last, strongest
  SetReturn(p, false, 0, 70, 3000, 20);
  SetReturn(p, false, 1, 70, 2000, 40);
  SetReturn(p, false, 0, 71, 2500, 30);  // the same return twice: one point
  SetReturn(p, false, 1, 71, 2500, 30);
  auto frames = Decode({p});
  ASSERT_TRUE(frames.ok()) << frames.message();
  const Frame& f = (*frames)[0];
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f.channel, (std::vector<uint16_t>{70, 70, 71}));
  EXPECT_EQ(f.return_index, (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_NEAR(f.range_m[0], 12.0, 1e-6);
  EXPECT_NEAR(f.range_m[1], 8.0, 1e-6);
  // Channel 70 at 15 - 17.5 deg, azimuth 180 deg: straight back.
  EXPECT_NEAR(f.x_m[0], -12 * std::cos(-2.5 * 3.14159265358979 / 180), 1e-4);
  EXPECT_NEAR(f.y_m[0], 0, 1e-4);
}

TEST(Hesai128, TheFlagsFixTheSizeAndAStreamKeepsItsFamily) {
  // An OT128 (pre-header byte 4 above 127) with the confidence byte (flag bit 4): 4-byte units,
  // 2 x 512 + ... = 1117 bytes.
  std::vector<uint8_t> ot(1117, 0);
  ot[0] = 0xEE, ot[1] = 0xFF, ot[2] = 1, ot[3] = 4, ot[4] = 0x80;
  ot[6] = 128, ot[7] = 2, ot[9] = 4, ot[10] = 1, ot[11] = 0x17;
  const size_t tail = 12 + 2 * 514 + 4 + 17;
  ot[tail + 12] = 0x37;
  const uint8_t date[6] = {124, 1, 15, 12, 30, 45};
  std::copy(date, date + 6, ot.begin() + static_cast<std::ptrdiff_t>(tail + 15));
  PutLe(ot, 12 + 2 + 4 * 9, 1000, 2);
  auto frames = Decode({ot});
  ASSERT_TRUE(frames.ok()) << frames.message();
  ASSERT_EQ((*frames)[0].size(), 1u);
  EXPECT_EQ((*frames)[0].channel[0], 9);
  // A size the flags do not give is a bad packet, named with the expected size.
  std::vector<std::vector<uint8_t>> packets;
  for (int k = 0; k < 12; ++k)
    packets.push_back(
        Packet(true, static_cast<uint16_t>(100 * k), static_cast<uint16_t>(100 * k + 10), 0x37));
  auto odd = Packet(true, 2000, 2010, 0x37);
  odd.resize(865);  // a sequence number the flags do not announce
  packets.insert(packets.begin() + 3, odd);
  CaptureStats stats;
  auto decoded = Decode(packets, &stats);
  ASSERT_TRUE(decoded.ok()) << decoded.message();
  EXPECT_EQ(stats.bad_packets, 1u);
  ASSERT_FALSE(stats.warnings.empty());
  EXPECT_NE(stats.warnings[0].find("Pandar128E3X packet of 865 bytes (expected 861"),
            std::string::npos)
      << stats.warnings[0];
}

TEST(Hesai128, NewerAngleFilesWithTheirEeffAndHashLinesRead) {
  test::TempDir dir;
  std::string text = "EEFF,1,4\r\nLaser id,Elevation,Azimuth\r\n";
  for (int k = 1; k <= 128; ++k)
    text += std::to_string(k) + "," + std::to_string(15 - 0.3 * k) + ",0.5\r\n";
  text += std::string(64, 'a') + "\r\n";
  auto cal = LoadHesaiCalibration(dir.Write("Pandar128E3X.csv", text));
  ASSERT_TRUE(cal.ok()) << cal.message();
  EXPECT_EQ(cal->elevation_deg.size(), 128u);
  auto after = LoadHesaiCalibration(dir.Write("after.csv", text + "129,1,1\r\n"));
  ASSERT_FALSE(after.ok());
  EXPECT_NE(after.message().find("rows after the file's SHA-256 line"), std::string::npos)
      << after.message();
}

// An AT128's angle-correction .dat (version 1.5) at resolution 2: faces over encoder angles
// [30, 90], [150, 210] and [270, 330] deg; every channel at azimuth 1 deg and elevation 5 deg
// (the file holds half of each: the resolution doubles them); channel 10's azimuth adjustment
// 0.2 deg at encoder 40 deg and 0.6 deg at 42 deg, its elevation's -0.1 and 0.1 deg.
std::string At128Dat() {
  std::vector<uint8_t> b = {0xEE, 0xFF, 1, 5, 128, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  const auto u32 = [&](uint32_t v) {
    for (int k = 0; k < 4; ++k)
      b.push_back(static_cast<uint8_t>(v >> (8 * k)));
  };
  for (uint32_t deg : {30, 150, 270})
    u32(deg * 25600 / 2);
  for (uint32_t deg : {90, 210, 330})
    u32(deg * 25600 / 2);
  for (int c = 0; c < 128; ++c)
    u32(25600 / 2);
  for (int c = 0; c < 128; ++c)
    u32(5 * 25600 / 2);
  std::vector<uint8_t> az_adj(128 * 180, 0), el_adj(128 * 180, 0);
  az_adj[10 * 180 + 20] = 10, az_adj[10 * 180 + 21] = 30;  // 0.01 deg / 2
  el_adj[10 * 180 + 20] = static_cast<uint8_t>(-5), el_adj[10 * 180 + 21] = 5;
  b.insert(b.end(), az_adj.begin(), az_adj.end());
  b.insert(b.end(), el_adj.begin(), el_adj.end());
  b.resize(b.size() + 32, 0);  // the SHA-256
  return std::string(b.begin(), b.end());
}

// An AT128 packet (flags 0x01: the sequence number; 1086 bytes), single return, both blocks at
// encoder angle `deg100` (0.01 deg) + `fine` / 256, the date in the epoch form.
std::vector<uint8_t> At128Packet(uint16_t deg100, uint8_t fine) {
  std::vector<uint8_t> p(1086, 0);
  p[0] = 0xEE, p[1] = 0xFF, p[2] = 4, p[3] = 3;
  p[6] = 128, p[7] = 2, p[9] = 4, p[10] = 1, p[11] = 0x01;
  for (int b = 0; b < 2; ++b) {
    PutLe(p, 12 + 515 * b, deg100, 2);
    p[14 + 515 * b] = fine;
  }
  PutLe(p, 1066, 250000, 4);
  p[1070] = 0x37;
  const uint64_t s = 1705321845;
  for (int k = 0; k < 5; ++k)
    p[1073 + k] = static_cast<uint8_t>(s >> (8 * (4 - k)));
  return p;
}

TEST(Hesai128, AnAt128PointIsWhereItsMirrorCorrectionPutsIt) {
  test::TempDir dir;
  auto cal = LoadHesaiCalibration(dir.Write("AT128E2X_Angle Correction File.dat", At128Dat()));
  ASSERT_TRUE(cal.ok()) << cal.message();
  ASSERT_EQ(cal->elevation_deg.size(), 128u);
  EXPECT_DOUBLE_EQ(cal->elevation_deg[0], 5.0);
  EXPECT_DOUBLE_EQ(cal->azimuth_offset_deg[0], 1.0);
  // Encoder 41.005 deg (4100 + 128/256): face 0, 11.005 deg in; adjustments interpolated at
  // t = (41.005 - 40) / 2 = 0.5025: round(20 x 0.4975 + 60 x 0.5025) = 40 -> 0.40 deg, and
  // round(-10 x 0.4975 + 10 x 0.5025) = 0. Azimuth 2 x 11.005 - 1 + 0.40 = 21.41 deg, elevation
  // 5 deg.
  auto p = At128Packet(4100, 128);
  const size_t unit = 12 + 3 + 4 * 10;
  PutLe(p, unit, 2500, 2);  // 10 m
  p[unit + 2] = 60;
  std::vector<Frame> frames;
  ASSERT_TRUE(ForEachHesaiFrame(test::Datagrams(2368, {p}), *cal, [&](Frame&& f) -> Status {
                frames.push_back(std::move(f));
                return {};
              }).ok());
  ASSERT_EQ(frames.size(), 1u);
  ASSERT_EQ(frames[0].size(), 1u);
  const double deg = 3.14159265358979323846 / 180, az = 21.41 * deg, el = 5 * deg;
  EXPECT_NEAR(frames[0].x_m[0], 10 * std::cos(el) * std::cos(az), 1e-4);
  EXPECT_NEAR(frames[0].y_m[0], -10 * std::cos(el) * std::sin(az), 1e-4);
  EXPECT_NEAR(frames[0].z_m[0], 10 * std::sin(el), 1e-4);
  EXPECT_EQ(frames[0].channel[0], 10);
  EXPECT_DOUBLE_EQ(frames[0].timestamp_s[0], 1705321845.25);
}

TEST(Hesai128, AnAt128FrameIsAMirrorFace) {
  test::TempDir dir;
  auto cal = LoadHesaiCalibration(dir.Write("at128.dat", At128Dat()));
  ASSERT_TRUE(cal.ok()) << cal.message();
  std::vector<std::vector<uint8_t>> packets;
  uint32_t us = 0;
  // Encoder 40..88 deg (face 0), 120 deg (between faces: nothing), 160..208 deg (face 1).
  for (uint16_t deg : {40, 56, 72, 88, 120, 160, 176, 192, 208}) {
    auto p = At128Packet(static_cast<uint16_t>(deg * 100), 0);
    PutLe(p, 1066, us += 1000, 4);
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 128; ++c)
        PutLe(p, 12 + 515 * b + 3 + 4 * c, 2500, 2);
    packets.push_back(p);
  }
  std::vector<Frame> frames;
  ASSERT_TRUE(ForEachHesaiFrame(test::Datagrams(2368, packets), *cal, [&](Frame&& f) -> Status {
                frames.push_back(std::move(f));
                return {};
              }).ok());
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].size(), 4u * 2 * 128);
  EXPECT_EQ(frames[1].size(), 4u * 2 * 128);
  // The AT128's packets with a CSV, or a .dat with another unit's packets: refused by name.
  auto csv = Decode({At128Packet(4100, 0)});
  ASSERT_FALSE(csv.ok());
  EXPECT_NE(csv.message().find("whose angles come from its angle-correction .dat"),
            std::string::npos)
      << csv.message();
  auto damaged = At128Dat();
  damaged.resize(damaged.size() - 1);
  auto short_dat = LoadHesaiCalibration(dir.Write("short.dat", damaged));
  ASSERT_FALSE(short_dat.ok());
  EXPECT_NE(short_dat.message().find("47175 bytes where 128 channels and 3 faces make 47176"),
            std::string::npos)
      << short_dat.message();
}

}  // namespace
}  // namespace lt
