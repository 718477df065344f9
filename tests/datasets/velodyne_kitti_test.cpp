// Velodyne (VLP-16, HDL-32E) and KITTI readers against the real data in ../shared/real-data.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "lidartwin/base/order_statistics.h"
#include "lidartwin/datasets/kitti_bin.h"
#include "lidartwin/datasets/scan_lines.h"
#include "lidartwin/datasets/velodyne.h"
#include "test_support.h"

namespace lt {
namespace {

std::filesystem::path Real(const std::string& rel) {
  return test::RealDataDir() / rel;
}

TEST(VelodyneCalibration, EveryRosDriverFileLoads) {
  LT_REQUIRE_REAL_DATA();
  const std::pair<const char*, size_t> files[] = {
      {"VLP16db.yaml", 16},          {"VLP16_hires_db.yaml", 16}, {"32db.yaml", 32},
      {"VeloView-VLP-32C.yaml", 32}, {"VLS128.yaml", 128},        {"64e_utexas.yaml", 64},
      {"64e_s2.1-sztaki.yaml", 64},  {"64e_s3-xiesc.yaml", 64}};
  for (const auto& [name, lasers] : files) {
    auto c = LoadVelodyneCalibration(Real("ros-velodyne") / name);
    ASSERT_TRUE(c.ok()) << c.message();
    EXPECT_EQ(c->lasers.size(), lasers) << name;
  }
  // VLP-16 manual table 9-2: laser 0 at -15 deg, laser 1 at +1 deg.
  auto vlp = LoadVelodyneCalibration(Real("ros-velodyne/VLP16db.yaml"));
  EXPECT_NEAR(vlp->lasers[0].vert_correction_rad * 180 / M_PI, -15, 1e-9);
  EXPECT_NEAR(vlp->lasers[1].vert_correction_rad * 180 / M_PI, 1, 1e-9);
}

TEST(VelodyneCalibration, BadFilesNameFileAndLaser) {
  test::TempDir dir;
  auto a = LoadVelodyneCalibration(dir.Write("a.yaml", "lasers: []\n"));
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.message().find("a.yaml: key 'lasers'"), std::string::npos) << a.message();
  auto b = LoadVelodyneCalibration(
      dir.Write("b.yaml", "lasers:\n- {laser_id: 0, rot_correction: 0.0}\n"));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.message().find("b.yaml: lasers[0]"), std::string::npos) << b.message();
  auto c = LoadVelodyneCalibration(
      dir.Write("c.yaml", "lasers:\n- {laser_id: 0, rot_correction: 0.0, vert_correction: 15}\n"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.message().find("radians"), std::string::npos) << c.message();
  // A binary or damaged file is refused before the YAML parser sees it (fuzz_recording_files:
  // a control character in a flow list cost yaml-cpp seconds and gigabytes).
  auto d =
      LoadVelodyneCalibration(dir.Write("d.yaml", std::string("\n {\x01 \"lasers\": [1,\xFE 2]}")));
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.message().find("d.yaml: byte 3: control character 1"), std::string::npos)
      << d.message();
}

// Issue 11 review: duplicate keys, absurd corrections and unreadable numbers in a calibration
// were accepted (points at infinity) or named no key.
TEST(VelodyneCalibration, DuplicateKeysAbsurdCorrectionsAndBadNumbersAreNamed) {
  test::TempDir dir;
  const std::string laser = "- {laser_id: 0, rot_correction: 0.0, vert_correction: 0.1";
  const std::pair<std::string, std::string> cases[] = {
      {laser + ", laser_id: 1}\n", "key 'laser_id' (line 2) appears twice"},
      {laser + ", dist_correction: 1e300}\n",
       "lasers[0]: key 'dist_correction': 1e+300 m is beyond the 10 m"},
      {laser + ", horiz_offset_correction: -20}\n", "key 'horiz_offset_correction': -20 m"},
      {laser + ", vert_offset_correction: abc}\n",
       "lasers[0]: key 'vert_offset_correction' (line 2): expected a finite number"},
      {laser + "}\ndistance_resolution: 1e9\n", "key 'distance_resolution' must be in (0, 1] m"},
      {laser + "}\n---\nnum_lasers: 32\n", "holds 2 YAML documents"},
      // Beyond int's range: casting it first was undefined (UBSan, fuzz_recording_files in CI).
      {"- {laser_id: 1e300, rot_correction: 0.0, vert_correction: 0.1}\n",
       "key 'laser_id': 1e+300 is out of range"},
      {"- {laser_id: 0.5, rot_correction: 0.0, vert_correction: 0.1}\n",
       "key 'laser_id': 0.5 is out of range"},
      // Issue 36: a table whose lasers share one elevation (all 0) was taken as a calibration.
      {"- {laser_id: 0, rot_correction: 0.0, vert_correction: 0}\n"
       "- {laser_id: 1, rot_correction: 0.1, vert_correction: 0}\n",
       "every one of the 2 lasers has vert_correction 0 rad"},
  };
  for (const auto& [tail, expected] : cases) {
    auto c = LoadVelodyneCalibration(dir.Write("cal.yaml", "lasers:\n" + tail));
    ASSERT_FALSE(c.ok()) << tail;
    EXPECT_NE(c.message().find(expected), std::string::npos) << c.message();
  }
  // A calibration cut mid-line so that it starts with a comma (found by fuzz_recording_files):
  // yaml-cpp 0.7 would never return; refused before it sees the text.
  auto cut = LoadVelodyneCalibration(dir.Write(
      "cut.yaml", ", rot_correction: 0.0,\n  vert_correction: -0.44}\n- {laser_id: 9}\n"));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.message().find("cut.yaml: byte 0: a comma where a document's value starts"),
            std::string::npos)
      << cut.message();
}

// Nested aliases, each list holding the one before twice: 2^40 nodes from 1 kB of text. The
// duplicate-key walk followed every alias and never returned (fuzz_recording_files in CI).
TEST(VelodyneCalibration, AliasesThatMultiplyNodesAreRefusedQuickly) {
  test::TempDir dir;
  std::string text = "a0: &a0 [x, x]\n";
  for (int i = 1; i < 40; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [*a" + std::to_string(i - 1) +
            ", *a" + std::to_string(i - 1) + "]\n";
  }
  text += "lasers: [*a39]\n";
  auto c = LoadVelodyneCalibration(dir.Write("laughs.yaml", text));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.message().find("laughs.yaml: YAML aliases (*name) repeat more nodes"),
            std::string::npos)
      << c.message();
  // An alias used once, as a hand-written file might, is still read.
  auto once = LoadVelodyneCalibration(
      dir.Write("once.yaml",
                "base: &v {laser_id: 0, rot_correction: 0.0, vert_correction: 0.1}\n"
                "lasers: [*v]\n"));
  EXPECT_TRUE(once.ok()) << once.message();
}

void CheckFrames(const std::vector<Frame>& frames, const VelodyneCalibration& cal, int lasers,
                 double firing_s) {
  for (const Frame& f : frames) {
    for (size_t k = 0; k < f.size(); ++k) {
      ASSERT_LT(f.channel[k], lasers);
      ASSERT_GT(f.range_m[k], 0.0f);
      ASSERT_LT(f.range_m[k], 131.0f);  // 16-bit distance in 2 mm
      // No offsets in these nominal tables: |xyz| is the range and the elevation is the laser's.
      const double norm =
          std::sqrt(f.x_m[k] * f.x_m[k] + f.y_m[k] * f.y_m[k] + f.z_m[k] * f.z_m[k]);
      ASSERT_NEAR(norm, f.range_m[k], 1e-3);
      ASSERT_NEAR(std::asin(f.z_m[k] / f.range_m[k]), cal.lasers[f.channel[k]].vert_correction_rad,
                  1e-4);
    }
    // Consecutive lasers of one sequence fire `firing_s` apart.
    for (size_t k = 1; k < f.size(); ++k) {
      if (f.column[k] == f.column[k - 1] && f.channel[k] == f.channel[k - 1] + 1 &&
          f.return_index[k] == f.return_index[k - 1]) {
        ASSERT_NEAR(f.timestamp_s[k] - f.timestamp_s[k - 1], firing_s, 1e-9);
      }
    }
  }
}

TEST(VelodynePcap, Vlp16CaptureIsOneRevolution) {
  LT_REQUIRE_REAL_DATA();
  auto cal = LoadVelodyneCalibration(Real("ros-velodyne/VLP16db.yaml"));
  ASSERT_TRUE(cal.ok());
  auto frames = ReadVelodynePcap(Real("rust-lidar-utils/velodyne_example_vlp16.pcap"), *cal);
  ASSERT_TRUE(frames.ok()) << frames.message();
  ASSERT_GE(frames->size(), 1u);
  ASSERT_LE(frames->size(), 2u);
  size_t points = 0;
  for (const auto& f : *frames)
    points += f.size();
  // 84 packets x 12 blocks x 32 firings; most return.
  EXPECT_LE(points, 84u * 12 * 32 * 2);
  EXPECT_GT(points, 84u * 12 * 32 / 3);
  CheckFrames(*frames, *cal, 16, 2.304e-6);
  std::printf("[velodyne] VLP-16: %zu frame(s), %zu points\n", frames->size(), points);
}

TEST(VelodynePcap, Hdl32eCaptureSplitsIntoRevolutions) {
  LT_REQUIRE_REAL_DATA();
  auto cal = LoadVelodyneCalibration(Real("ros-velodyne/32db.yaml"));
  ASSERT_TRUE(cal.ok());
  auto frames = ReadVelodynePcap(Real("rust-lidar-utils/hdl32_example.pcap"), *cal);
  ASSERT_TRUE(frames.ok()) << frames.message();
  // 0.48 s, about 5.7 revolutions (SOURCES.md): the inner frames are full revolutions of one
  // period (this unit spins at 11.7 Hz: 85.3 ms), the first and last partial.
  ASSERT_GE(frames->size(), 6u);
  ASSERT_LE(frames->size(), 7u);
  const double period = (*frames)[1].end_time_s - (*frames)[1].start_time_s;
  EXPECT_GT(period, 0.05);  // within the HDL-32E's 5-20 Hz
  EXPECT_LT(period, 0.2);
  for (size_t k = 1; k + 1 < frames->size(); ++k) {
    EXPECT_NEAR((*frames)[k].end_time_s - (*frames)[k].start_time_s, period, 1e-4);
    EXPECT_GT((*frames)[k].size(), 20000u);
  }
  CheckFrames(*frames, *cal, 32, 1.152e-6);
  // A VLP-16 calibration does not fit an HDL-32E capture.
  auto vlp = LoadVelodyneCalibration(Real("ros-velodyne/VLP16db.yaml"));
  auto wrong = ReadVelodynePcap(Real("rust-lidar-utils/hdl32_example.pcap"), *vlp);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("HDL-32E but the calibration has 16 lasers"), std::string::npos)
      << wrong.message();
  std::printf("[velodyne] HDL-32E: %zu frames, %zu points in frame 1\n", frames->size(),
              (*frames)[1].size());
}

TEST(KittiBin, RealFramesAndTruncation) {
  LT_REQUIRE_REAL_DATA();
  const auto path = Real("kitti-object-vis/velodyne/000000.bin");
  auto f = ReadKittiBin(path);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->size(), std::filesystem::file_size(path) / 16);
  EXPECT_GT(f->size(), 100000u);
  // HDL-64E on a car roof at 1.73 m: the ground is about 1.7 m below the sensor.
  size_t below = 0;
  for (size_t k = 0; k < f->size(); ++k) {
    ASSERT_GE(f->reflectance[k], 0.0f);
    ASSERT_LE(f->reflectance[k], 1.0f);
    below += f->z_m[k] < -1.5f && f->z_m[k] > -2.0f;
  }
  EXPECT_GT(below, f->size() / 4);
  test::TempDir dir;
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto cut = ReadKittiBin(dir.Write("cut.bin", bytes.substr(0, 1000)));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.message().find("cut.bin: byte 992: truncated point"), std::string::npos)
      << cut.message();
}

// KITTI stores a scan line after line: the lines are the HDL-64E's 64 lasers, top (about +2 deg)
// to bottom (about -24 deg, the data sheet's field of view), each laser's far returns within a
// small fraction of the 0.33-0.5 deg between lasers of its line's median elevation (near ones
// are spread by the lasers' offsets from the sensor's origin).
TEST(KittiBin, ScanLinesAreTheSensorsLasers) {
  LT_REQUIRE_REAL_DATA();
  for (const char* name :
       {"kitti-odometry-patchworkpp/000000.bin", "kitti-odometry-patchworkpp/000005.bin",
        "kitti-object-vis/velodyne/000000.bin", "kitti-object-vis/velodyne/000001.bin"}) {
    auto f = ReadKittiBin(Real(name));
    ASSERT_TRUE(f.ok()) << f.message();
    ASSERT_EQ(f->channel.size(), f->size()) << name;
    std::vector<std::vector<float>> elevation(64), far(64);
    for (size_t k = 0; k < f->size(); ++k) {
      ASSERT_LT(f->channel[k], 64) << name;
      const float el = std::atan2(f->z_m[k], std::hypot(f->x_m[k], f->y_m[k])) * 180 / 3.14159265f;
      elevation[f->channel[k]].push_back(el);
      if (f->range_m[k] > 20) far[f->channel[k]].push_back(el);
    }
    EXPECT_NEAR(Median(elevation[0]), 2.5, 1.0) << name;
    EXPECT_NEAR(Median(elevation[63]), -24, 1.0) << name;
    std::vector<float> deviation;
    for (size_t c = 0; c < 64; ++c) {
      if (c > 0) EXPECT_LT(Median(elevation[c]), Median(elevation[c - 1])) << name << " " << c;
      const float m = far[c].empty() ? 0 : Median(far[c]);
      for (float e : far[c])
        deviation.push_back(std::abs(e - m));
    }
    ASSERT_GT(deviation.size(), 5000u) << name;
    EXPECT_LT(Median(deviation), 0.11f) << name;  // a third of the finest spacing
  }
}

// Lines are told apart by the azimuth falling back more than half a turn after a line swept
// past half a turn; a point jittering back over the start of its line does not split it. Points
// not in line order, or another number of lines, leave the channel absent.
TEST(KittiBin, ScanLinesNeedTheSensorsLinesInOrder) {
  auto line_frame = [](const std::vector<double>& elevations_deg) {
    Frame f;
    for (size_t l = 0; l < elevations_deg.size(); ++l) {
      const double el = elevations_deg[l] * 3.14159265 / 180;
      for (int k = 0; k < 360; ++k) {
        // the second point jitters back to just below a whole turn
        const double az = k == 1 ? 2 * 3.14159265 - 0.001 : (k + 0.5) * 3.14159265 / 180;
        FramePoint p;
        p.x_m = static_cast<float>(10 * std::cos(el) * std::cos(az));
        p.y_m = static_cast<float>(10 * std::cos(el) * std::sin(az));
        p.z_m = static_cast<float>(10 * std::sin(el));
        p.range_m = 10;
        f.Append(p);
      }
    }
    return f;
  };
  Frame f = line_frame({2, 0, -3});
  ASSERT_TRUE(NumberScanLines(f, 3));
  for (size_t k = 0; k < f.size(); ++k)
    ASSERT_EQ(f.channel[k], k / 360) << k;
  Frame rising = line_frame({-3, 0, 2});
  EXPECT_TRUE(NumberScanLines(rising, 3));
  Frame four = line_frame({2, 0, -3});
  EXPECT_FALSE(NumberScanLines(four, 4));
  EXPECT_FALSE(NumberScanLines(four, 2));
  Frame unordered = line_frame({2, -3, 0});
  EXPECT_FALSE(NumberScanLines(unordered, 3));
  EXPECT_TRUE(unordered.channel.empty() || unordered.channel[400] == 0);  // left as it was
  Frame none;
  EXPECT_FALSE(NumberScanLines(none, 3));
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

// Found by fuzz_recording_files: a calibration whose top level is not a mapping threw
// YAML::BadSubscript out of the loader; NaN angles passed the range check.
TEST(VelodyneCalibration, NonMappingTopLevelAndNanAnglesAreErrors) {
  test::TempDir dir;
  auto scalar = LoadVelodyneCalibration(dir.Write("s.yaml", "# comment\njust text\n"));
  ASSERT_FALSE(scalar.ok());
  EXPECT_NE(scalar.message().find("s.yaml: expected a mapping"), std::string::npos)
      << scalar.message();
  auto nan = LoadVelodyneCalibration(dir.Write(
      "n.yaml", "lasers:\n  - {laser_id: 0, rot_correction: .nan, vert_correction: 0}\n"));
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.message().find("lasers[0]"), std::string::npos) << nan.message();
  auto res = LoadVelodyneCalibration(
      dir.Write("r.yaml",
                "distance_resolution: [1]\nlasers:\n  - {laser_id: 0, rot_correction: 0, "
                "vert_correction: 0}\n"));
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.message().find("r.yaml"), std::string::npos) << res.message();
}

}  // namespace
}  // namespace lt
