// The HDL-64E S2/S3 (datasets/velodyne.h): its calibration's two-point and intensity terms from
// the ros-drivers' YAML and from Velodyne's db.xml, and its packets (no product id; an upper and
// a lower bank in turn; dual return told by the azimuths) decoded to the points the manual's
// appendix F gives. The expected point was computed apart from this code (a Python evaluation of
// the ros-drivers' formulas on the shared sztaki calibration), not by it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "capture_files.h"
#include "lidartwin/datasets/velodyne.h"
#include "test_support.h"

namespace lt {
namespace {

std::filesystem::path Sztaki() {
  return test::RealDataDir() / "ros-velodyne" / "64e_s2.1-sztaki.yaml";
}

// An HDL-64E data packet: 12 blocks, upper and lower in turn (single return: six firings
// `step` apart from `azimuth`, in 0.01 deg; dual: three, each as upper and lower twice), every
// distance 0 (no return); `us` past the hour; status bytes 'H', 21 (the hour).
std::vector<uint8_t> Hdl64Packet(int azimuth, int step, bool dual, uint32_t us) {
  std::vector<uint8_t> p(1206, 0);
  for (int b = 0; b < 12; ++b) {
    const bool upper = b % 2 == 0;
    p[b * 100] = 0xFF, p[b * 100 + 1] = upper ? 0xEE : 0xDD;
    const int firing = dual ? b / 4 : b / 2;
    const int az = (azimuth + firing * step) % 36000;
    p[b * 100 + 2] = static_cast<uint8_t>(az), p[b * 100 + 3] = static_cast<uint8_t>(az >> 8);
  }
  std::memcpy(&p[1200], &us, 4);
  p[1204] = 'H', p[1205] = 21;
  return p;
}

void SetReturn(std::vector<uint8_t>& p, int block, int laser_in_block, uint16_t raw,
               uint8_t intensity) {
  uint8_t* m = &p[block * 100 + 4 + 3 * laser_in_block];
  m[0] = static_cast<uint8_t>(raw), m[1] = static_cast<uint8_t>(raw >> 8), m[2] = intensity;
}

Expected<std::vector<Frame>> Decode(const std::vector<std::vector<uint8_t>>& packets,
                                    const VelodyneCalibration& cal) {
  return CollectFrames([&](const FrameSink& sink) {
    return ForEachVelodyneFrame(test::Datagrams(2368, packets), cal, sink);
  });
}

TEST(VelodyneHdl64e, TheYamlsTwoPointAndIntensityTermsAreRead) {
  LT_REQUIRE_REAL_DATA();
  auto cal = LoadVelodyneCalibration(Sztaki());
  ASSERT_TRUE(cal.ok()) << cal.message();
  ASSERT_EQ(cal->lasers.size(), 64u);
  const VelodyneLaser& l = cal->lasers[0];
  EXPECT_DOUBLE_EQ(l.dist_correction_x_m, 1.5500304);
  EXPECT_DOUBLE_EQ(l.dist_correction_y_m, 1.5231381);
  EXPECT_TRUE(l.two_point);
  EXPECT_DOUBLE_EQ(l.focal_distance_m, 12.0);
  EXPECT_DOUBLE_EQ(l.focal_slope, 1.4);
  EXPECT_DOUBLE_EQ(l.min_intensity, 30);
  EXPECT_DOUBLE_EQ(l.max_intensity, 235);
}

TEST(VelodyneHdl64e, APointIsWhereAppendixFPutsIt) {
  LT_REQUIRE_REAL_DATA();
  auto cal = LoadVelodyneCalibration(Sztaki());
  ASSERT_TRUE(cal.ok()) << cal.message();
  auto p = Hdl64Packet(9000, 17, false, 1000000);
  SetReturn(p, 0, 0, 5000, 50);  // laser 0, the first firing, at 90.00 deg
  auto frames = Decode({p}, *cal);
  ASSERT_TRUE(frames.ok()) << frames.message();
  ASSERT_EQ(frames->size(), 1u);
  const Frame& f = (*frames)[0];
  ASSERT_EQ(f.size(), 1u);
  // The independent evaluation: two-point corrected, in the ROS frame.
  EXPECT_NEAR(f.x_m[0], -1.39658320, 2e-6);
  EXPECT_NEAR(f.y_m[0], -11.34712987, 2e-6);
  EXPECT_NEAR(f.z_m[0], -1.56345610, 2e-6);
  EXPECT_NEAR(f.range_m[0], 5000 * 0.002 + 1.5195264, 1e-6);
  // Intensity with the focal distance in cm (the manual's; 101.95 with the ros-drivers' metres).
  EXPECT_NEAR(f.intensity[0], 60.0515833, 1e-4);
  EXPECT_EQ(f.channel[0], 0);
  EXPECT_DOUBLE_EQ(f.timestamp_s[0], 1.0);
  // Without the two-point correction (the flag off): the far correction alone.
  VelodyneCalibration far = *cal;
  far.lasers[0].two_point = false;
  auto plain = Decode({p}, far);
  ASSERT_TRUE(plain.ok()) << plain.message();
  EXPECT_NEAR((*plain)[0].x_m[0], -1.39613, 2e-5);
  EXPECT_NEAR((*plain)[0].y_m[0], -11.32901, 2e-5);
  EXPECT_NEAR((*plain)[0].z_m[0], -1.56289, 2e-5);
}

TEST(VelodyneHdl64e, UpperAndLowerBanksFireTogetherAndDualReturnsAreToldByAzimuth) {
  LT_REQUIRE_REAL_DATA();
  auto cal = LoadVelodyneCalibration(Sztaki());
  ASSERT_TRUE(cal.ok()) << cal.message();
  // Single return: laser 4 (upper) and laser 36 (lower laser 4) of the second firing both fire
  // 48 + 6.0 us after the packet's time (group 1 of 4 lasers).
  auto single = Hdl64Packet(1000, 17, false, 2000000);
  SetReturn(single, 2, 4, 4000, 10);
  SetReturn(single, 3, 4, 4000, 10);
  auto s = Decode({single}, *cal);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ((*s)[0].size(), 2u);
  EXPECT_EQ((*s)[0].channel, (std::vector<uint16_t>{4, 36}));
  for (double t : (*s)[0].timestamp_s)
    EXPECT_NEAR(t, 2.0 + 48e-6 + 6.0e-6, 1e-9);
  EXPECT_EQ((*s)[0].return_index, (std::vector<uint8_t>{0, 0}));
  // Dual: blocks 4k..4k+3 are one firing's upper and lower first returns, then second returns,
  // 57.6 us a firing; lasers 7.2 us a group apart. Thirty packets 172.8 us apart, as an S3 in
  // dual return sends them, so that the packets' timing is judged too.
  std::vector<std::vector<uint8_t>> packets;
  for (int k = 0; k < 30; ++k) {
    auto dual = Hdl64Packet(1000 + 60 * k, 20, true, static_cast<uint32_t>(3000000 + 172.8 * k));
    if (k == 0) {
      SetReturn(dual, 4, 4, 4000, 10);  // second firing, upper, first return
      SetReturn(dual, 7, 4, 4100, 10);  // second firing, lower, second return
    }
    packets.push_back(dual);
  }
  CaptureStats stats;
  auto d = CollectFrames([&](const FrameSink& sink) {
    return ForEachVelodyneFrame(test::Datagrams(2368, packets), *cal, sink, &stats);
  });
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_TRUE(stats.warnings.empty()) << stats.warnings.front();
  ASSERT_EQ((*d)[0].size(), 2u);
  EXPECT_EQ((*d)[0].channel, (std::vector<uint16_t>{4, 36}));
  EXPECT_EQ((*d)[0].return_index, (std::vector<uint8_t>{0, 1}));
  for (double t : (*d)[0].timestamp_s)
    EXPECT_NEAR(t, 3.0 + 57.6e-6 + 7.2e-6, 1e-9);
}

TEST(VelodyneHdl64e, StatusBytesThatLookLikeFactoryBytesDoNotChangeTheModel) {
  LT_REQUIRE_REAL_DATA();
  auto cal = LoadVelodyneCalibration(Sztaki());
  ASSERT_TRUE(cal.ok()) << cal.message();
  auto first = Hdl64Packet(9000, 17, false, 1000000);
  auto second = Hdl64Packet(9102, 17, false, 1000288);
  second[1204] = '7', second[1205] = 0x22;  // a calibration byte 0x22: "strongest, VLP-16"
  SetReturn(second, 0, 0, 5000, 50);
  CaptureStats stats;
  auto frames = CollectFrames([&](const FrameSink& sink) {
    return ForEachVelodyneFrame(test::Datagrams(2368, {first, second}), *cal, sink, &stats);
  });
  ASSERT_TRUE(frames.ok()) << frames.message();
  EXPECT_EQ(stats.bad_packets, 0u);
  ASSERT_EQ(frames->size(), 1u);
  EXPECT_EQ((*frames)[0].size(), 1u);
}

TEST(VelodyneHdl64e, PacketsAndACalibrationOfAnotherModelDoNotPair) {
  LT_REQUIRE_REAL_DATA();
  auto cal = LoadVelodyneCalibration(test::RealDataDir() / "ros-velodyne" / "32db.yaml");
  ASSERT_TRUE(cal.ok()) << cal.message();
  auto p = Hdl64Packet(9000, 17, false, 1000000);
  SetReturn(p, 0, 0, 5000, 50);
  auto frames = Decode({p}, *cal);
  ASSERT_FALSE(frames.ok());
  EXPECT_NE(frames.message().find("made.pcap: byte 0: the capture is from a HDL-64E"),
            std::string::npos)
      << frames.message();
  EXPECT_NE(frames.message().find("block flags"), std::string::npos) << frames.message();
  EXPECT_NE(frames.message().find("32 lasers"), std::string::npos) << frames.message();
  // A lower block out of turn is a bad packet, named by its byte (the second packet's 500th).
  auto bad = Hdl64Packet(9000, 17, false, 1000000);
  bad[501] = 0xEE;  // block 5, a lower block, flagged upper
  CaptureStats stats;
  auto sztaki = LoadVelodyneCalibration(Sztaki());
  ASSERT_TRUE(sztaki.ok());
  (void)CollectFrames([&](const FrameSink& sink) {
    return ForEachVelodyneFrame(test::Datagrams(2368, {p, bad}), *sztaki, sink, &stats);
  });
  EXPECT_EQ(stats.bad_packets, 1u);
  ASSERT_FALSE(stats.warnings.empty());
  EXPECT_NE(stats.warnings[0].find("byte 2500"), std::string::npos) << stats.warnings[0];
  EXPECT_NE(stats.warnings[0].find("0xDDFF"), std::string::npos) << stats.warnings[0];
}

// A db.xml of the sztaki YAML's values, as gen_calibration.py's inverse gives them (radians to
// degrees, m to cm), with 64 slots of which `enabled` are on.
std::string SztakiAsXml(const VelodyneCalibration& cal, size_t enabled) {
  std::string x =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\" ?>\n"
      "<!DOCTYPE boost_serialization>\n<boost_serialization signature=\"serialization::archive\" "
      "version=\"4\">\n<DB class_id=\"0\" tracking_level=\"0\" version=\"0\">\n"
      "\t<distLSB_>0.2</distLSB_>\n\t<enabled_ class_id=\"5\">\n\t\t<count>64</count>\n";
  for (size_t k = 0; k < 64; ++k)
    x += "\t\t<item>" + std::string(k < enabled ? "1" : "0") + "</item>\n";
  x += "\t</enabled_>\n\t<minIntensity_>\n\t\t<count>64</count>\n";
  for (size_t k = 0; k < 64; ++k)
    x += "\t\t<item>" + std::to_string(static_cast<int>(cal.lasers[k].min_intensity)) + "</item>\n";
  x += "\t</minIntensity_>\n\t<maxIntensity_>\n\t\t<count>64</count>\n";
  for (size_t k = 0; k < 64; ++k)
    x += "\t\t<item>" + std::to_string(static_cast<int>(cal.lasers[k].max_intensity)) + "</item>\n";
  x += "\t</maxIntensity_>\n\t<points_ class_id=\"6\">\n\t\t<count>64</count>\n";
  char buf[512];
  for (size_t k = 0; k < 64; ++k) {
    const VelodyneLaser& l = cal.lasers[k];
    std::snprintf(buf, sizeof buf,
                  "\t\t<item class_id=\"7\"><px class_id=\"8\" tracking_level=\"0\" version=\"1\">"
                  "<id_>%zu</id_><rotCorrection_>%.17g</rotCorrection_>"
                  "<vertCorrection_>%.17g</vertCorrection_><distCorrection_>%.17g</distCorrection_>"
                  "<distCorrectionX_>%.17g</distCorrectionX_>"
                  "<distCorrectionY_>%.17g</distCorrectionY_>",
                  k, l.rot_correction_rad * 180 / std::numbers::pi,
                  l.vert_correction_rad * 180 / std::numbers::pi, l.dist_correction_m * 100,
                  l.dist_correction_x_m * 100, l.dist_correction_y_m * 100);
    x += buf;
    std::snprintf(buf, sizeof buf,
                  "<vertOffsetCorrection_>%.17g</vertOffsetCorrection_>"
                  "<horizOffsetCorrection_>%.17g</horizOffsetCorrection_>"
                  "<focalDistance_>%.17g</focalDistance_><focalSlope_>%.17g</focalSlope_>"
                  "</px></item>\n",
                  l.vert_offset_m * 100, l.horiz_offset_m * 100, l.focal_distance_m * 100,
                  l.focal_slope);
    x += buf;
  }
  return x + "\t</points_>\n</DB>\n</boost_serialization>\n";
}

TEST(VelodyneHdl64e, DbXmlReadsAsTheSameCalibration) {
  LT_REQUIRE_REAL_DATA();
  auto yaml = LoadVelodyneCalibration(Sztaki());
  ASSERT_TRUE(yaml.ok()) << yaml.message();
  test::TempDir dir;
  auto xml = LoadVelodyneCalibration(dir.Write("db.xml", SztakiAsXml(*yaml, 64)));
  ASSERT_TRUE(xml.ok()) << xml.message();
  ASSERT_EQ(xml->lasers.size(), 64u);
  EXPECT_DOUBLE_EQ(xml->distance_resolution_m, 0.002);
  for (size_t k = 0; k < 64; ++k) {
    const VelodyneLaser &a = yaml->lasers[k], &b = xml->lasers[k];
    EXPECT_NEAR(a.rot_correction_rad, b.rot_correction_rad, 1e-12) << k;
    EXPECT_NEAR(a.vert_correction_rad, b.vert_correction_rad, 1e-12) << k;
    EXPECT_NEAR(a.dist_correction_m, b.dist_correction_m, 1e-12) << k;
    EXPECT_NEAR(a.dist_correction_x_m, b.dist_correction_x_m, 1e-12) << k;
    EXPECT_NEAR(a.dist_correction_y_m, b.dist_correction_y_m, 1e-12) << k;
    EXPECT_NEAR(a.vert_offset_m, b.vert_offset_m, 1e-12) << k;
    EXPECT_NEAR(a.horiz_offset_m, b.horiz_offset_m, 1e-12) << k;
    EXPECT_NEAR(a.focal_distance_m, b.focal_distance_m, 1e-12) << k;
    EXPECT_EQ(a.focal_slope, b.focal_slope) << k;
    EXPECT_EQ(a.min_intensity, b.min_intensity) << k;
    EXPECT_EQ(a.max_intensity, b.max_intensity) << k;
    EXPECT_TRUE(b.two_point) << k;
  }
  // VeloView's tables have 64 slots, the unit's lasers enabled: a VLP-16-sized table.
  auto sixteen = LoadVelodyneCalibration(dir.Write("db16.xml", SztakiAsXml(*yaml, 16)));
  ASSERT_TRUE(sixteen.ok()) << sixteen.message();
  EXPECT_EQ(sixteen->lasers.size(), 16u);
}

TEST(VelodyneHdl64e, ABrokenDbXmlIsNamedByLineAndElement) {
  LT_REQUIRE_REAL_DATA();
  auto yaml = LoadVelodyneCalibration(Sztaki());
  ASSERT_TRUE(yaml.ok()) << yaml.message();
  test::TempDir dir;
  std::string text = SztakiAsXml(*yaml, 64);
  const size_t at = text.find("<vertCorrection_>", text.find("<id_>3</id_>"));
  text.replace(at + 17, 3, "abc");
  auto bad = LoadVelodyneCalibration(dir.Write("bad.xml", text));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("bad.xml: line"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("<vertCorrection_>"), std::string::npos) << bad.message();
  auto none = LoadVelodyneCalibration(dir.Write("none.xml", "<a>not a calibration</a>"));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("no <DB> element"), std::string::npos) << none.message();
}

}  // namespace
}  // namespace lt
