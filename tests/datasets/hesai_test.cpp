// Hesai packets (datasets/hesai.h) against nebula's own decodes of the shared bags, point for
// point, and packets a real unit never sends. What the answer keys are, and why the key of
// stamp T is the frame completed while message T is read: docs/formats/hesai-answer-keys.md.
#include "lidartwin/datasets/hesai.h"

#include <gtest/gtest.h>

#include <cmath>

#include "answer_key.h"
#include "capture_files.h"
#include "lidartwin/datasets/point_cloud_readers.h"
#include "lidartwin/datasets/recording.h"
#include "test_support.h"

namespace lt {
namespace {

struct Case {
  const char* folder;
  const char* calibration;
  int64_t key_stamp_ns;  // the answer key's name: the stamp of the message it was decoded in
  size_t key_points;
};

const Case kCases[] = {
    {"hesai-pandar40p", "Pandar40P.csv", 1673400149711850138, 56762},
    {"hesai-pandar64", "Pandar64.csv", 1673403880898440686, 93591},
    {"hesai-qt64", "PandarQT64.csv", 1673401196087570870, 34158},
    {"hesai-xt16", "PandarXT16.csv", 1732848128093928016, 26287},
};

TEST(HesaiPackets, EveryNebulaCaseDecodesToItsAnswerKeyPointForPoint) {
  LT_REQUIRE_REAL_DATA();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.folder);
    const auto folder = test::RealDataDir() / "nebula" / c.folder;
    auto cal = LoadHesaiCalibration(folder / c.calibration);
    ASSERT_TRUE(cal.ok()) << cal.message();
    auto ours = test::FrameCompletedIn(folder, c.key_stamp_ns,
                                       [&](const PacketSource& packets, const FrameSink& sink) {
                                         return ForEachHesaiFrame(packets, *cal, sink);
                                       });
    ASSERT_TRUE(ours.ok()) << ours.message();
    auto key = ReadPcd(folder / (std::to_string(c.key_stamp_ns) + ".pcd"));
    ASSERT_TRUE(key.ok()) << key.message();
    ASSERT_EQ(key->size(), c.key_points);
    // The same points in the same order (packet, firing, channel, return). nebula writes
    // Hesai's own frame (+Y at 0 deg, +X to the right); ours is ROS's: x = Y, y = -X.
    ASSERT_EQ(ours->size(), key->size());
    double worst_m = 0;
    for (size_t i = 0; i < key->size(); ++i) {
      worst_m = std::max({worst_m, std::abs(double{ours->x_m[i]} - key->y_m[i]),
                          std::abs(double{ours->y_m[i]} + key->x_m[i]),
                          std::abs(double{ours->z_m[i]} - key->z_m[i])});
    }
    EXPECT_LE(worst_m, 1e-3) << "largest coordinate difference, m";
    // Fields the key lacks but a frame has: ranges from the packets, channels of the CSV.
    for (size_t i = 0; i < ours->size(); ++i) {
      ASSERT_LT(ours->channel[i], cal->elevation_deg.size());
      ASSERT_GT(ours->range_m[i], 0.04f);
    }
  }
}

TEST(HesaiPackets, TheCalibrationMustHaveThePacketsLaserCount) {
  LT_REQUIRE_REAL_DATA();
  const auto nebula = test::RealDataDir() / "nebula";
  auto r = ReadRecording(nebula / "hesai-pandar64", nebula / "hesai-pandar40p" / "Pandar40P.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("packet 0, byte 0: the packets are from a Pandar64 (64 lasers) but"),
            std::string::npos)
      << r.message();
  EXPECT_NE(r.message().find("Pandar40P.csv has 40 channels"), std::string::npos) << r.message();
}

// An XT16 (protocol 6.1) packet: 16 lasers, 8 blocks, 4 mm, single return (0x37).
std::vector<uint8_t> Xt16Packet(uint16_t azimuth, uint16_t raw_distance) {
  std::vector<uint8_t> p(568, 0);
  p[0] = 0xEE, p[1] = 0xFF, p[2] = 6, p[3] = 1, p[6] = 16, p[7] = 8, p[9] = 4, p[10] = 1;
  for (int b = 0; b < 8; ++b) {
    const size_t at = 12 + b * 66;
    const uint16_t az = static_cast<uint16_t>((azimuth + 18 * b) % 36000);
    p[at] = az & 0xff, p[at + 1] = az >> 8;
    for (int c = 0; c < 16; ++c) {
      p[at + 2 + 4 * c] = raw_distance & 0xff, p[at + 3 + 4 * c] = raw_distance >> 8;
      p[at + 4 + 4 * c] = 50;
    }
  }
  p[540 + 10] = 0x37;
  p[540 + 13] = 124, p[540 + 14] = 11, p[540 + 15] = 29;  // 2024-11-29
  return p;
}

HesaiCalibration Xt16Calibration() {
  HesaiCalibration c;
  c.file = "xt16.csv";
  for (int k = 0; k < 16; ++k) {
    c.elevation_deg.push_back(15 - 2 * k);
    c.azimuth_offset_deg.push_back(0);
  }
  return c;
}

// One XT16 packet's frames.
Expected<std::vector<Frame>> DecodeXt16(const std::vector<uint8_t>& packet,
                                        const HesaiCalibration& cal) {
  return CollectFrames([&](const FrameSink& sink) {
    return ForEachHesaiFrame(test::Datagrams(2368, {packet}), cal, sink);
  });
}

TEST(HesaiPackets, APointIsWhereItsRangeElevationAndAzimuthPutIt) {
  // 10 m at azimuth 90 deg (clockwise: to the right, ROS -y) for channel 7 (elevation +1 deg).
  std::vector<Frame> frames;
  ASSERT_TRUE(ForEachHesaiFrame(test::Datagrams(2368, {Xt16Packet(9000, 2500)}), Xt16Calibration(),
                                [&](Frame&& f) -> Status {
                                  frames.push_back(std::move(f));
                                  return {};
                                })
                  .ok());
  ASSERT_EQ(frames.size(), 1u);
  const Frame& f = frames[0];
  ASSERT_EQ(f.size(), 8u * 16u);
  const size_t i = 7;  // block 0, channel 7
  EXPECT_EQ(f.channel[i], 7);
  const double e = 1.0 * M_PI / 180;
  EXPECT_NEAR(f.x_m[i], 0.0, 1e-5);
  EXPECT_NEAR(f.y_m[i], -10.0 * std::cos(e), 1e-5);
  EXPECT_NEAR(f.z_m[i], 10.0 * std::sin(e), 1e-5);
  EXPECT_EQ(f.intensity[i], 50);
  EXPECT_NEAR(f.timestamp_s[i], 1732838400.0, 1.0);  // 2024-11-29 00:00:00 UTC
}

// Each return mode's kinds (nebula's codes; the mode's returns in the order its name gives):
// channel 0 of the first firing has two echoes (10 m, then 12 m at another reflectivity); every
// other channel one echo in both blocks, which is kept once, identical.
TEST(HesaiPackets, TheReturnModeNamesEachReturnsKind) {
  using T = physics::ReturnType;
  struct Case {
    uint8_t mode, refl0, refl1;
    std::vector<T> kinds;  // channel 0's two returns
  };
  const std::vector<Case> cases = {
      {0x39, 50, 80, {T::kLast, T::kStrongest}},
      {0x39, 90, 80, {T::kLastStrongest, T::kSecondStrongest}},
      {0x3a, 50, 80, {T::kFirst, T::kSecond}},
      {0x3b, 50, 80, {T::kFirst, T::kLast}},
      {0x3c, 50, 80, {T::kFirst, T::kStrongest}},
      {0x3c, 90, 80, {T::kFirstStrongest, T::kSecondStrongest}},
      {0x3e, 90, 80, {T::kStrongest, T::kSecondStrongest}},
  };
  for (const Case& c : cases) {
    auto p = Xt16Packet(9000, 2500);
    p[540 + 10] = c.mode;
    p[12 + 2] = 2500 & 0xff, p[12 + 3] = 2500 >> 8, p[12 + 4] = c.refl0;
    p[12 + 66 + 2] = 3000 & 0xff, p[12 + 66 + 3] = 3000 >> 8, p[12 + 66 + 4] = c.refl1;
    auto decoded = DecodeXt16(p, Xt16Calibration());
    ASSERT_TRUE(decoded.ok()) << decoded.message();
    const std::vector<Frame>& frames = *decoded;
    ASSERT_EQ(frames.size(), 1u);
    const Frame& f = frames[0];
    // 4 firings of 16 channels, one point each but channel 0 of the first: two.
    ASSERT_EQ(f.size(), 4u * 16u + 1u) << int{c.mode};
    ASSERT_EQ(f.return_type.size(), f.size());
    EXPECT_EQ(T{f.return_type[0]}, c.kinds[0]) << int{c.mode};
    EXPECT_EQ(T{f.return_type[1]}, c.kinds[1]) << int{c.mode};
    EXPECT_NEAR(f.range_m[1], 12.0, 1e-6);
    for (size_t i = 2; i < f.size(); ++i)
      ASSERT_EQ(T{f.return_type[i]}, T::kIdentical) << int{c.mode} << " point " << i;
  }
  // Single return: the mode's kind for every point.
  for (auto [mode, kind] : {std::pair{uint8_t{0x33}, T::kFirst},
                            {uint8_t{0x34}, T::kSecond},
                            {uint8_t{0x37}, T::kStrongest},
                            {uint8_t{0x38}, T::kLast}}) {
    auto p = Xt16Packet(9000, 2500);
    p[540 + 10] = mode;
    auto decoded = DecodeXt16(p, Xt16Calibration());
    ASSERT_TRUE(decoded.ok()) << decoded.message();
    const std::vector<Frame>& frames = *decoded;
    ASSERT_EQ(frames.size(), 1u);
    ASSERT_EQ(frames[0].return_type.size(), 8u * 16u);
    for (uint8_t code : frames[0].return_type)
      ASSERT_EQ(T{code}, kind) << int{mode};
  }
}

// Hesai's Pandar64 fire-time file (shared data, from the Hesai SDK): 64 channels in firing order,
// each before its block's time.
TEST(HesaiFiretimes, ThePandar64FileGivesEveryChannelItsFiringTime) {
  LT_REQUIRE_REAL_DATA();
  auto fire = LoadHesaiFiretimes(test::RealDataDir() / "hesai-sdk" /
                                 "Pandar64_Firetime_Correction_File.csv");
  ASSERT_TRUE(fire.ok()) << fire.message();
  ASSERT_EQ(fire->size(), 64u);
  EXPECT_DOUBLE_EQ((*fire)[50], -3.62);  // its first row: "51,-3.62"
  EXPECT_DOUBLE_EQ((*fire)[60], -3.62);
  EXPECT_DOUBLE_EQ((*fire)[44], -4.924);
  for (double us : *fire) {
    EXPECT_LE(us, -3.62);
    EXPECT_GE(us, -54.67);
  }
}

TEST(HesaiFiretimes, BadFilesAreRefusedByLine) {
  test::TempDir dir;
  auto refused = [&](const std::string& text) {
    const auto path = dir.Write("fire.csv", text);
    auto r = LoadHesaiFiretimes(path);
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? std::string() : r.message();
  };
  EXPECT_NE(refused("Channel,fire time(us)\n1,-3.6\n1,-4\n").find("channel 1 given twice"),
            std::string::npos);
  EXPECT_NE(refused("Channel,fire time(us)\n0,-3.6\n").find("channel 0 is not a channel"),
            std::string::npos);
  EXPECT_NE(refused("Channel,fire time(us)\n1,-3.6\n3,-4\n").find("channel 3 in a file of 2"),
            std::string::npos);
  EXPECT_NE(refused("Channel,fire time(us)\n1,5000\n").find("5000 us"), std::string::npos);
  EXPECT_NE(refused("Channel,fire time(us)\n1,abc\n").find("line 2: 'abc' is not a number"),
            std::string::npos);
  EXPECT_NE(refused("Channel,fire time(us)\n").find("no rows"), std::string::npos);
  // A file far larger than any unit's is refused before it is read (1 MiB at most).
  std::string huge = "Channel,fire time(us)\n";
  while (huge.size() <= (1u << 20))
    huge += "1,-3.62\n";
  EXPECT_NE(refused(huge).find("more than the 1048576 a file may have"), std::string::npos);
}

// An XT16's blocks 50 us apart, its timestamp the last block's (the Hesai SDK's and nebula's
// reading of the XT manual); a fire-time file adds each channel's firing time to its block's.
TEST(HesaiFiretimes, AnXt16sPointIsTimedByItsBlockAndChannel) {
  auto decode = [](const HesaiCalibration& cal) {
    auto frames = DecodeXt16(Xt16Packet(9000, 2500), cal);
    EXPECT_TRUE(frames.ok()) << frames.message();
    return frames.ok() ? frames->at(0) : Frame{};
  };
  const double packet_s = 1732838400.0;  // 2024-11-29 00:00:00 UTC, 0 us
  const Frame plain = decode(Xt16Calibration());
  ASSERT_EQ(plain.size(), 8u * 16u);
  for (size_t i = 0; i < plain.size(); ++i) {
    const int block = static_cast<int>(i / 16);
    EXPECT_NEAR(plain.timestamp_s[i], packet_s - 50e-6 * (7 - block), 1e-7) << i;
  }
  HesaiCalibration timed = Xt16Calibration();
  for (int c = 0; c < 16; ++c)
    timed.firetime_us.push_back(6 + 3.024 * c);  // the SDK's XT16 file: 6 + 3.024 (n - 1) us
  const Frame f = decode(timed);
  for (size_t i = 0; i < f.size(); ++i) {
    const int block = static_cast<int>(i / 16), c = static_cast<int>(i % 16);
    EXPECT_NEAR(f.timestamp_s[i], packet_s + (-50.0 * (7 - block) + 6 + 3.024 * c) * 1e-6, 1e-7)
        << i;
  }
  // A file of another channel count is refused by name.
  timed.firetime_us.resize(32, 0);
  auto wrong = DecodeXt16(Xt16Packet(9000, 2500), timed);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("the fire-time file has 32 channels"), std::string::npos)
      << wrong.message();
}

// The shared Pandar64 bag with the SDK's Pandar64 file: every point later by exactly its
// channel's firing time than without it, through the recording reader as convert reads it; a
// recording of another family refuses the file by its option.
TEST(HesaiFiretimes, AFiretimeFileTimesTheRecordingsPoints) {
  LT_REQUIRE_REAL_DATA();
  const auto folder = test::RealDataDir() / "nebula" / "hesai-pandar64";
  const auto fire_file =
      test::RealDataDir() / "hesai-sdk" / "Pandar64_Firetime_Correction_File.csv";
  RecordingOptions plain_options, timed_options;
  timed_options.firetimes = fire_file;
  auto plain = ReadRecording(folder, folder / "Pandar64.csv", plain_options);
  auto timed = ReadRecording(folder, folder / "Pandar64.csv", timed_options);
  ASSERT_TRUE(plain.ok()) << plain.message();
  ASSERT_TRUE(timed.ok()) << timed.message();
  auto fire = LoadHesaiFiretimes(fire_file);
  ASSERT_TRUE(fire.ok());
  ASSERT_EQ(plain->frames.size(), timed->frames.size());
  size_t points = 0;
  for (size_t k = 0; k < plain->frames.size(); ++k) {
    const Frame &a = plain->frames[k], &b = timed->frames[k];
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i, ++points)
      ASSERT_NEAR(b.timestamp_s[i] - a.timestamp_s[i], (*fire)[a.channel[i]] * 1e-6, 3e-7)
          << i;  // a double's step at 1.7e9 s is 0.24 us
  }
  EXPECT_GT(points, 100000u);
  auto velodyne = ReadRecording(test::RealDataDir() / "nebula" / "velodyne-vlp16",
                                test::RealDataDir() / "nebula" / "velodyne-vlp16" / "VLP16.yaml",
                                timed_options);
  ASSERT_FALSE(velodyne.ok());
  EXPECT_EQ(velodyne.error().option, "firetimes");
  EXPECT_NE(velodyne.message().find("only Hesai recordings take a fire-time file"),
            std::string::npos)
      << velodyne.message();
}

TEST(HesaiPackets, OddPacketsAreSkippedCountedAndNamed) {
  auto ft120 = Xt16Packet(0, 2500);
  ft120[2] = 7, ft120[3] = 1;  // protocol 7.1: an FT120, not decoded
  auto cut = Xt16Packet(100, 2500);
  cut.resize(500);
  auto wrong_azimuth = Xt16Packet(200, 2500);
  wrong_azimuth[12] = 0xff, wrong_azimuth[13] = 0xff;
  std::vector<std::vector<uint8_t>> packets;
  for (int k = 0; k < 40; ++k)
    packets.push_back(Xt16Packet(static_cast<uint16_t>(300 + 150 * k), 2500));
  packets.push_back(ft120);
  packets.push_back(cut);
  packets.push_back(wrong_azimuth);
  CaptureStats stats;
  ASSERT_TRUE(ForEachHesaiFrame(
                  test::Datagrams(2368, packets), Xt16Calibration(),
                  [](Frame&&) -> Status { return {}; }, &stats)
                  .ok());
  EXPECT_EQ(stats.lidar_packets, 40u);
  EXPECT_EQ(stats.bad_packets, 3u);
  ASSERT_EQ(stats.warnings.size(), 3u);
  EXPECT_NE(
      stats.warnings[0].find("made.pcap: byte 80000: Hesai protocol 7.1 (the FT family) is not "
                             "decoded by this build"),
      std::string::npos)
      << stats.warnings[0];
  EXPECT_NE(stats.warnings[1].find("PandarXT16 packet of 500 bytes (expected 564 or 568)"),
            std::string::npos)
      << stats.warnings[1];
  EXPECT_NE(stats.warnings[2].find("byte 84012: block 0 azimuth 65535"), std::string::npos)
      << stats.warnings[2];
  // Nothing decodable at all: an error saying what was seen.
  Status none = ForEachHesaiFrame(test::Datagrams(2368, {ft120, cut}), Xt16Calibration(),
                                  [](Frame&&) -> Status { return {}; });
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("no Hesai data packet (UDP port 2368) could be decoded"),
            std::string::npos)
      << none.message();
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

TEST(HesaiPackets, AFieldOfViewWindowGivesAFrameAWindow) {
  // Three revolutions of which the unit sends 90..270 deg: 125 packets a window, each its own
  // microsecond time.
  std::vector<std::vector<uint8_t>> packets;
  uint32_t us = 0;
  for (int rev = 0; rev < 3; ++rev) {
    for (int k = 0; k < 125; ++k) {
      auto p = Xt16Packet(static_cast<uint16_t>(9000 + 144 * k), 2500);
      us += 500;
      for (int i = 0; i < 4; ++i)
        p[540 + 19 + i] = static_cast<uint8_t>(us >> (8 * i));
      packets.push_back(p);
    }
  }
  std::vector<Frame> frames;
  ASSERT_TRUE(ForEachHesaiFrame(test::Datagrams(2368, packets), Xt16Calibration(),
                                [&](Frame&& f) -> Status {
                                  frames.push_back(std::move(f));
                                  return {};
                                })
                  .ok());
  ASSERT_EQ(frames.size(), 3u);
  for (const Frame& f : frames)
    EXPECT_EQ(f.size(), 125u * 8u * 16u);
}

}  // namespace
}  // namespace lt
