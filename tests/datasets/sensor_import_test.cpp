// import-sensor on the real vendor files: the imported profiles load, and an imported Ouster
// profile points every beam where Ouster's own beam model (the reader's) points it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lidartwin/datasets/osf.h"
#include "lidartwin/datasets/ouster.h"
#include "lidartwin/datasets/recording.h"
#include "lidartwin/datasets/robosense.h"
#include "lidartwin/datasets/sensor_import.h"
#include "lidartwin/datasets/velodyne.h"
#include "lidartwin/sim/sensor_profile.h"
#include "test_support.h"

namespace lt {
namespace {

Expected<SensorProfile> Import(const std::filesystem::path& file, SensorImportOptions o = {}) {
  auto yaml = ImportSensorProfile(file, o);
  if (!yaml.ok()) return yaml.error();
  return ParseSensorProfile(*yaml, file.filename().string() + ".yaml");
}

// The OS1 data sheet's divergence (FWHM, circular) as a Gaussian footprint traced as its
// central ray: 0.18 deg for the 128-channel OS1s; none for an OS1-32 (the sheet gives no
// figure), an OS0 (other optics) or a metadata file that names no product (the 64-channel
// one here). OusterDivergenceFwhmMrad, datasets/recording/sensor_import.cpp.
TEST(SensorImport, AnOusterCarriesItsDataSheetDivergence) {
  LT_REQUIRE_REAL_DATA();
  const double mrad_per_deg = 1e3 * std::numbers::pi / 180;
  for (const auto& [name, fwhm_deg] :
       {std::pair<const char*, double>{"OS-1-128_v2.3.0_1024x10.json", 0.18},
        {"OS-1-128_767798045_1024x10_20230712_120049.json", 0.18},
        {"OS-0-128-U1_v2.3.0_1024x10.json", 0},
        {"OS-1-64_sensor_config_reduced.json", 0},
        {"OS-1-32-G_v2.1.1_1024x10.json", 0}}) {
    auto profile = Import(test::RealDataDir() / "ouster-sdk" / name);
    ASSERT_TRUE(profile.ok()) << name << ": " << profile.message();
    EXPECT_EQ(profile->footprint.sub_rays, 1u) << name;
    if (fwhm_deg == 0) {
      EXPECT_EQ(profile->footprint.kind, physics::FootprintKind::kCone) << name;
      continue;
    }
    ASSERT_EQ(profile->footprint.kind, physics::FootprintKind::kGaussian) << name;
    ASSERT_EQ(profile->footprint.spot_count, 1u) << name;
    for (double sigma :
         {profile->footprint.spots[0].sigma_h_rad, profile->footprint.spots[0].sigma_v_rad})
      EXPECT_NEAR(sigma * physics::kFwhmPerSigma * 1e3, fwhm_deg * mrad_per_deg, 1e-6) << name;
  }
}

TEST(SensorImport, OusterBeamsPointWhereTheReadersBeamModelPoints) {
  LT_REQUIRE_REAL_DATA();
  for (const char* name : {"OS-1-128_v2.3.0_1024x10.json", "OS-0-128-U1_v2.3.0_1024x10.json",
                           "OS-1-32-G_v2.1.1_1024x10.json"}) {
    const auto file = test::RealDataDir() / "ouster-sdk" / name;
    auto meta = LoadOusterMetadata(file);
    ASSERT_TRUE(meta.ok()) << meta.message();
    auto profile = Import(file);
    ASSERT_TRUE(profile.ok()) << profile.message();
    const auto scan = profile->SpinningView();
    ASSERT_EQ(scan.channels, meta->pixels_per_column);
    ASSERT_EQ(scan.columns, meta->columns_per_frame);
    double worst_deg = 0;
    for (uint32_t col = 0; col < scan.columns; col += 7)
      for (uint32_t row = 0; row < scan.channels; ++row) {
        const auto b = physics::SpinningBeam(scan, col * scan.channels + row);
        // The reader's point at 200 m; its direction differs from the beam's only by the
        // unmodelled millimetre offsets (36 mm / 200 m = 0.01 deg).
        const auto p = OusterPointXyz(*meta, row, col, 200000.0);
        const double n = std::hypot(p[0], p[1], p[2]);
        const double ux = std::cos(b.elevation_rad) * std::cos(b.azimuth_rad),
                     uy = std::cos(b.elevation_rad) * std::sin(b.azimuth_rad),
                     uz = std::sin(b.elevation_rad);
        const double dot = (ux * p[0] + uy * p[1] + uz * p[2]) / n;
        worst_deg = std::max(worst_deg, std::acos(std::min(1.0, dot)) * 180 / M_PI);
      }
    EXPECT_LT(worst_deg, 0.03) << name;
  }
}

// The profile's beam origins (beam_origin_m plus beam_origin_radius_m along the head's
// direction, the range counting the radius: sim/internal/beam_pipeline.h BeamOrigin and
// PointRecord) put a return where the reader's beam model (the manual's, physics/
// ouster_beam.h) puts it, near and far: within 0.01 mm at 1 m and 200 m. Without the radius
// a beam at elevation phi is n sin(phi) off: the OS-0-128's at 45 deg by 19 mm, the OS-1-128's
// at 22.5 deg by 6 mm.
TEST(SensorImport, OusterBeamOriginsPutReturnsWhereTheReaderDoes) {
  LT_REQUIRE_REAL_DATA();
  for (const char* name : {"OS-1-128_v2.3.0_1024x10.json", "OS-0-128-U1_v2.3.0_1024x10.json",
                           "OS-0-128_v3.0.1_1024x10.json"}) {
    const auto file = test::RealDataDir() / "ouster-sdk" / name;
    auto meta = LoadOusterMetadata(file);
    ASSERT_TRUE(meta.ok()) << meta.message();
    auto profile = Import(file);
    ASSERT_TRUE(profile.ok()) << profile.message();
    EXPECT_NEAR(profile->beam_origin_radius_m * 1e3, meta->beam_origin_x_mm, 1e-9) << name;
    EXPECT_NEAR(profile->range_offset_m * 1e3, meta->lidar_origin_to_beam_origin_mm, 1e-9);
    const auto scan = profile->SpinningView();
    const double n = profile->beam_origin_radius_m;
    double worst_mm = 0, worst_without_mm = 0;
    for (double range_m : {1.0, 200.0})
      for (uint32_t col = 0; col < scan.columns; col += 13)
        for (uint32_t row = 0; row < scan.channels; ++row) {
          const auto b = physics::SpinningBeam(scan, col * scan.channels + row);
          const double head = b.azimuth_rad - scan.azimuth_offset_rad[row];
          const double d[3] = {std::cos(b.elevation_rad) * std::cos(b.azimuth_rad),
                               std::cos(b.elevation_rad) * std::sin(b.azimuth_rad),
                               std::sin(b.elevation_rad)};
          const double o[3] = {profile->beam_origin_m[0] + n * std::cos(head),
                               profile->beam_origin_m[1] + n * std::sin(head),
                               profile->beam_origin_m[2]};
          const auto p = OusterPointXyz(*meta, row, col, range_m * 1000);
          double e2 = 0, w2 = 0;
          for (int k = 0; k < 3; ++k) {
            e2 += std::pow(o[k] + (range_m - profile->range_offset_m) * d[k] - p[k], 2);
            w2 += std::pow(profile->beam_origin_m[k] + range_m * d[k] - p[k], 2);
          }
          worst_mm = std::max(worst_mm, 1e3 * std::sqrt(e2));
          worst_without_mm = std::max(worst_without_mm, 1e3 * std::sqrt(w2));
        }
    EXPECT_LT(worst_mm, 0.01) << name;
    EXPECT_GT(worst_without_mm, 0.3 * n * 1e3) << name;  // n sin(elevation): what it is for
  }
}

TEST(SensorImport, VelodyneTablesAndFiringSequences) {
  LT_REQUIRE_REAL_DATA();
  const auto dir = test::RealDataDir() / "ros-velodyne";
  auto vlp = Import(dir / "VLP16db.yaml");
  ASSERT_TRUE(vlp.ok()) << vlp.message();
  auto cal = LoadVelodyneCalibration(dir / "VLP16db.yaml");
  ASSERT_TRUE(cal.ok());
  auto scan = vlp->SpinningView();
  EXPECT_EQ(scan.columns, 1808u);  // 1 / (10 Hz x 55.296 us)
  for (uint32_t k = 0; k < 16; ++k) {
    EXPECT_NEAR(scan.elevation_rad[k], cal->lasers[k].vert_correction_rad, 1e-8);
    EXPECT_NEAR(scan.firing_offset_s[k], 2.304e-6 * k, 1e-12);
  }
  auto hdl = Import(dir / "32db.yaml", {{}, 11.7, "capability", 0});
  ASSERT_TRUE(hdl.ok()) << hdl.message();
  scan = hdl->SpinningView();
  EXPECT_EQ(scan.columns, 1855u);  // 1 / (11.7 Hz x 46.08 us)
  EXPECT_NEAR(scan.firing_offset_s[31], 31 * 1.152e-6, 1e-12);
  // HDL-64E: upper laser j and lower laser j + 32 fire together, groups of 4 every 6.0 us, a
  // 48 us firing (its S3 manual, docs/formats/velodyne-hdl64e.md).
  auto e64 = Import(dir / "64e_utexas.yaml", {});
  ASSERT_TRUE(e64.ok()) << e64.message();
  EXPECT_EQ(e64->name, "velodyne_hdl64e_64e_utexas");
  scan = e64->SpinningView();
  EXPECT_EQ(scan.columns, 2083u);  // 1 / (10 Hz x 48 us)
  EXPECT_NEAR(scan.firing_offset_s[5], 6.0e-6, 1e-12);
  EXPECT_NEAR(scan.firing_offset_s[37], 6.0e-6, 1e-12);
  EXPECT_NEAR(scan.firing_offset_s[63], 7 * 6.0e-6, 1e-12);
  // Issue 11 review: a VLP-32C table was imported with the HDL-32E's firing sequence. Its own
  // (VLP-32C manual): pairs every 2.304 us, 55.296 us a sequence.
  auto vlp32c = Import(dir / "VeloView-VLP-32C.yaml", {});
  ASSERT_TRUE(vlp32c.ok()) << vlp32c.message();
  EXPECT_EQ(vlp32c->name, "velodyne_vlp32c_VeloView_VLP_32C");
  scan = vlp32c->SpinningView();
  EXPECT_EQ(scan.columns, 1808u);
  EXPECT_NEAR(scan.firing_offset_s[30], 15 * 2.304e-6, 1e-12);
  EXPECT_NEAR(scan.firing_offset_s[31], 15 * 2.304e-6, 1e-12);
  // VLS-128 (its manual): groups of 8 every 2.665 us, a group's time idle after the eighth.
  auto vls = Import(dir / "VLS128.yaml", {});
  ASSERT_TRUE(vls.ok()) << vls.message();
  scan = vls->SpinningView();
  ASSERT_EQ(scan.channels, 128u);
  EXPECT_NEAR(scan.firing_offset_s[7], 0, 1e-12);
  EXPECT_NEAR(scan.firing_offset_s[63], 7 * 2.665e-6, 1e-12);
  EXPECT_NEAR(scan.firing_offset_s[64], 9 * 2.665e-6, 1e-12);
  EXPECT_NEAR(scan.firing_offset_s[127], 16 * 2.665e-6, 1e-12);
}

// An OSF recording carries its sensor's metadata: the profile is that sensor's.
TEST(SensorImport, AnOsfRecordingGivesItsEmbeddedSensor) {
  LT_REQUIRE_REAL_DATA();
  const auto file =
      test::RealDataDir() / "ouster-sdk" / "osf" / "OS-0-128_v3.0.1_1024x10_20241017_141645.osf";
  auto osf = OpenOsf(file);
  ASSERT_TRUE(osf.ok()) << osf.message();
  const OusterMetadata& m = osf->streams[0].sensor;
  auto p = Import(file);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->name, "ouster_OS_0_128_122247000785");
  const auto scan = p->SpinningView();
  ASSERT_EQ(scan.channels, 128u);
  EXPECT_EQ(scan.columns, 1024u);
  for (uint32_t k = 0; k < 128; ++k) {
    EXPECT_NEAR(scan.elevation_rad[k], m.altitude_deg[k] * M_PI / 180, 1e-12);
    EXPECT_NEAR(scan.azimuth_offset_rad[k], -m.azimuth_deg[k] * M_PI / 180, 1e-12);
  }
}

// ouster-ros records the sensor's metadata on a topic: a bag of its packets is enough.
TEST(SensorImport, AnOusterBagGivesTheSensorOnItsMetadataTopic) {
  LT_REQUIRE_REAL_DATA();
  auto p = Import(test::RealDataDir() / "ouster-sdk" / "bags" / "512x10_raw.bag");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->name, "ouster_OS_0_128_992108000265");
  const auto scan = p->SpinningView();
  EXPECT_EQ(scan.channels, 128u);
  EXPECT_EQ(scan.columns, 512u);
}

TEST(SensorImport, HesaiAnglesAndFireTimes) {
  LT_REQUIRE_REAL_DATA();
  const auto dir = test::RealDataDir() / "hesai-sdk";
  SensorImportOptions o;
  o.firetimes = dir / "Pandar64_Firetime_Correction_File.csv";
  auto p = Import(dir / "Pandar64E3X_Angle_Correction_File.csv", o);
  ASSERT_TRUE(p.ok()) << p.message();
  const auto scan = p->SpinningView();
  ASSERT_EQ(scan.channels, 64u);
  EXPECT_EQ(scan.columns, 1800u);
  EXPECT_NEAR(scan.elevation_rad[0] * 180 / M_PI, 14.837607, 1e-6);  // channel 1 of the CSV
  EXPECT_NEAR(scan.azimuth_offset_rad[0] * 180 / M_PI, -1.091203, 1e-6);
  double lo = 1, hi = -1;
  for (uint32_t k = 0; k < 64; ++k) {
    lo = std::min(lo, scan.firing_offset_s[k]);
    hi = std::max(hi, scan.firing_offset_s[k]);
  }
  EXPECT_EQ(lo, 0.0);
  EXPECT_GT(hi, 0.0);
  EXPECT_LT(hi, 1.0 / (1800 * 10.0));  // within a column
}

TEST(SensorImport, BadFilesAreClearErrors) {
  test::TempDir dir;
  auto bad_ext = ImportSensorProfile(dir.Write("x.txt", "1"), {});
  ASSERT_FALSE(bad_ext.ok());
  EXPECT_NE(bad_ext.message().find("unknown metadata type"), std::string::npos);
  auto csv = ImportSensorProfile(dir.Write("a.csv", "Channel,Elevation,Azimuth\n1,2,x\n"), {});
  ASSERT_FALSE(csv.ok());
  EXPECT_NE(csv.message().find("a.csv: line 2: 'x' is not a number"), std::string::npos)
      << csv.message();
  auto order = ImportSensorProfile(dir.Write("b.csv", "Channel,Elevation,Azimuth\n2,1,1\n"), {});
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.message().find("channel 2 (expected 1"), std::string::npos) << order.message();
  SensorImportOptions o;
  o.firetimes = dir.Write("f.csv", "Channel,fire time(us)\n1,-3.6\n");
  auto missing =
      ImportSensorProfile(dir.Write("c.csv", "Channel,Elevation,Azimuth\n1,1,1\n2,0,1\n"), o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("f.csv: fire times for 1 channels, the angles have 2"),
            std::string::npos)
      << missing.message();
}

TEST(SensorImport, CsvCellsAreNumbersWholeAndQuotedShort) {
  // Issue 36: cells were read by their prefix ("14.8 37607" as 14.8, "1abc" as 1), and a long
  // cell was echoed whole into the message.
  test::TempDir dir;
  for (const auto& [cell, quoted] :
       {std::pair<std::string, std::string>{"14.8 37607", "'14.8 37607'"},
        {"1abc", "'1abc'"},
        {std::string(200000, '7') + "x", "... (200001 characters)'"}}) {
    auto r = ImportSensorProfile(
        dir.Write("h.csv", "Channel,Elevation,Azimuth\n1," + cell + ",0.5\n"), {});
    ASSERT_FALSE(r.ok()) << cell.substr(0, 20);
    EXPECT_NE(r.message().find("h.csv: line 2: "), std::string::npos) << r.message();
    EXPECT_NE(r.message().find(quoted), std::string::npos) << r.message().substr(0, 200);
    EXPECT_LT(r.message().size(), 300u);
  }
  // Blanks around a number are still a number.
  auto spaced =
      ImportSensorProfile(dir.Write("s.csv", "Channel,Elevation,Azimuth\n1, 2.5 ,0\n"), {});
  EXPECT_TRUE(spaced.ok()) << spaced.message();
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

// The imported Helios-16P profile points each laser where the decoder puts its returns: a
// packet at block azimuth 0 with every return at 200 m (where the receiver's 35 mm off the axis
// turns a point by 0.01 deg) has each laser's point at the profile's elevation and azimuth.
TEST(SensorImport, RobosenseBeamsPointWhereTheDecoderPutsTheirReturns) {
  LT_REQUIRE_REAL_DATA();
  const auto csv =
      test::RealDataDir() / "nebula" / "robosense-helios16p" / "RobosenseHelios16P.csv";
  auto p = Import(csv);
  ASSERT_TRUE(p.ok()) << p.message();
  const auto scan = p->SpinningView();
  ASSERT_EQ(scan.channels, 16u);
  EXPECT_EQ(scan.columns, 1800u);
  auto cal = LoadRobosenseCalibration(csv);
  ASSERT_TRUE(cal.ok());
  std::vector<uint8_t> msop(1248, 0);
  msop[0] = 0x55, msop[1] = 0xAA, msop[2] = 0x05, msop[3] = 0x5A;
  for (int b = 0; b < 12; ++b) {
    const size_t at = 42 + 100 * b;
    msop[at] = 0xFF, msop[at + 1] = 0xEE;
    const int az = 20 * b;
    msop[at + 2] = static_cast<uint8_t>(az >> 8), msop[at + 3] = static_cast<uint8_t>(az);
    for (int c = 0; c < 32; ++c)
      msop[at + 4 + 3 * c] = 0x9C, msop[at + 5 + 3 * c] = 0x40;  // 200 m in 5 mm units
  }
  PacketSource one{"made.pcap", [&](const UdpSink& sink, CaptureStats&) {
                     UdpDatagram d;
                     d.dst_port = 6699;
                     d.payload = msop;
                     return sink(d);
                   }};
  Frame f;
  ASSERT_TRUE(ForEachRobosenseFrame(one, *cal, [&](Frame&& fr) -> Status {
                f = std::move(fr);
                return {};
              }).ok());
  ASSERT_GE(f.size(), 16u);
  for (size_t i = 0; i < 16; ++i) {  // block 0, channels 0-15: lasers 0-15 at block azimuth 0
    const uint16_t k = f.channel[i];
    const double azimuth = std::atan2(f.y_m[i], f.x_m[i]);
    const double elevation = std::atan2(f.z_m[i], std::hypot(f.x_m[i], f.y_m[i]));
    // The firing's own azimuth step within the block: at most 0.2 deg x 43.91 / 111.12.
    EXPECT_NEAR(azimuth, scan.azimuth_offset_rad[k], (0.02 + 0.08) * M_PI / 180) << k;
    // The 35 mm off the axis lengthens the horizontal leg by 0.035 %: 0.005 deg at 15 deg.
    EXPECT_NEAR(elevation, scan.elevation_rad[k], 0.01 * M_PI / 180) << k;
  }
  // At 1 m the lens's 34.98 mm off the axis matter (1.4 % of the horizontal leg): the profile
  // puts the beams there (beam_origin_radius_m along the head's direction, here about x; range
  // from the lens, range_offset_m 0), and from there each return lies at its laser's elevation.
  EXPECT_DOUBLE_EQ(p->beam_origin_radius_m, kHeliosLensOffsetM);
  EXPECT_EQ(p->range_offset_m, 0.0);
  for (int b = 0; b < 12; ++b)
    for (int c = 0; c < 32; ++c)
      msop[42 + 100 * b + 4 + 3 * c] = 0x00, msop[42 + 100 * b + 5 + 3 * c] = 0xC8;  // 1 m
  ASSERT_TRUE(ForEachRobosenseFrame(one, *cal, [&](Frame&& fr) -> Status {
                f = std::move(fr);
                return {};
              }).ok());
  ASSERT_GE(f.size(), 16u);
  for (size_t i = 0; i < 16; ++i) {
    const uint16_t k = f.channel[i];
    ASSERT_NEAR(f.range_m[i], 1.0, 1e-6);
    const double from_lens =
        std::atan2(f.z_m[i], std::hypot(f.x_m[i] - p->beam_origin_radius_m, f.y_m[i]));
    const double from_axis = std::atan2(f.z_m[i], std::hypot(f.x_m[i], f.y_m[i]));
    EXPECT_NEAR(from_lens, scan.elevation_rad[k], 0.01 * M_PI / 180) << k;
    if (std::abs(scan.elevation_rad[k]) > 5 * M_PI / 180)
      EXPECT_GT(std::abs(from_axis - scan.elevation_rad[k]), 0.05 * M_PI / 180) << k;
  }
}

// A RoboSense bag imports with its DIFOP's angles (the shared unit's 32 lasers), and every laser
// of the profile points where the decoder, reading the bag the same way, puts its returns; a pcap
// of another vendor without its calibration says what it needs.
TEST(SensorImport, ARobosenseBagImportsItsDifopsLasers) {
  LT_REQUIRE_REAL_DATA();
  const auto bag =
      test::RealDataDir() / "nebula" / "robosense-helios16p" / "rosbag2_2023_08_03-11_02_46_0.db3";
  auto p = Import(bag);
  ASSERT_TRUE(p.ok()) << p.message();
  const auto scan = p->SpinningView();
  ASSERT_EQ(scan.channels, 32u);
  EXPECT_EQ(scan.columns, 1800u);
  EXPECT_NEAR(scan.elevation_rad[16] * 180 / M_PI, -9.94, 1e-9);
  EXPECT_NEAR(scan.elevation_rad[31] * 180 / M_PI, -53.70, 1e-9);
  auto rec = ReadRecording(bag, "");
  ASSERT_TRUE(rec.ok()) << rec.message();
  ASSERT_GE(rec->frames.size(), 3u);
  const Frame& f = rec->frames[2];
  std::vector<size_t> seen(32, 0);
  for (size_t i = 0; i < f.size(); ++i) {
    if (f.range_m[i] < 1) continue;  // the lens's turn within 0.01 deg
    const uint16_t k = f.channel[i];
    const double from_lens =
        std::atan2(f.z_m[i], std::hypot(f.x_m[i], f.y_m[i]) - p->beam_origin_radius_m);
    ASSERT_NEAR(from_lens, scan.elevation_rad[k], 0.02 * M_PI / 180) << k;
    ++seen[k];
  }
  EXPECT_GT(std::count_if(seen.begin(), seen.end(), [](size_t n) { return n > 20; }),
            18);  // 20 on frame 2: the upper lasers see no wall
  auto velodyne = Import(test::RealDataDir() / "rust-lidar-utils" / "velodyne_example_vlp16.pcap");
  ASSERT_FALSE(velodyne.ok());
  EXPECT_NE(velodyne.message().find("a pcap needs its sensor's metadata"), std::string::npos)
      << velodyne.message();
}

}  // namespace
}  // namespace lt
