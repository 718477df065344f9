#include "lidartwin/sim/sensor_profile.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_support.h"

namespace lt {
namespace {

using physics::kDegToRad;
using physics::kPi;

SensorProfile Load(const std::string& name) {
  auto p = LoadSensorProfile(test::ConfigDir() / "sensors" / name);
  EXPECT_TRUE(p.ok()) << p.message();
  return p.ok() ? p.value() : SensorProfile{};
}

TEST(SensorProfile, EveryShippedProfileLoads) {
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::ConfigDir() / "sensors")) {
    if (e.path().extension() != ".yaml") continue;
    auto p = LoadSensorProfile(e.path());
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_GT(p->BeamCount(), 0u) << e.path();
    ++count;
  }
  EXPECT_GE(count, 6);
}

// Data sheet: 128 channels evenly over +45..-45 deg, 1024 columns, 10 Hz, all channels of a
// column fire together, head turning clockwise.
TEST(SensorProfile, OusterOs0_128MatchesTheDataSheet) {
  const SensorProfile p = Load("ouster_os0_128.yaml");
  EXPECT_EQ(p.BeamCount(), 128u * 1024u);
  EXPECT_DOUBLE_EQ(p.wavelength_nm, 850);
  EXPECT_DOUBLE_EQ(p.FramePeriodS(), 0.1);
  EXPECT_EQ(p.detector.kind, DetectorKind::kCapability);
  EXPECT_DOUBLE_EQ(p.detector.max_range_m, 50);
  EXPECT_DOUBLE_EQ(p.detector.reflectance_at_max_range, 0.8);
  for (uint32_t column : {0u, 1u, 511u, 1023u}) {
    for (uint32_t channel : {0u, 1u, 64u, 127u}) {
      const auto b = p.Beam(column * 128 + channel);
      EXPECT_EQ(b.channel, channel);
      EXPECT_EQ(b.column, column);
      EXPECT_NEAR(b.elevation_rad, (45.0 - 90.0 * channel / 127.0) * kDegToRad, 1e-12);
      EXPECT_NEAR(b.time_s, column * 0.1 / 1024, 1e-15);
      EXPECT_NEAR(b.azimuth_rad, -2 * kPi * column / 1024.0, 1e-12);
    }
  }
}

// VLP-16 User Manual: lasers 0..15 at -15, 1, -13, 3, ... deg, one firing every 2.304 us.
TEST(SensorProfile, VelodyneVlp16MatchesTheManual) {
  const SensorProfile p = Load("velodyne_vlp16.yaml");
  const double elevations[] = {-15, 1, -13, 3, -11, 5, -9, 7, -7, 9, -5, 11, -3, 13, -1, 15};
  EXPECT_EQ(p.BeamCount(), 16u * 1808u);
  for (uint32_t column : {0u, 7u, 1807u}) {
    for (uint32_t k = 0; k < 16; ++k) {
      const auto b = p.Beam(column * 16 + k);
      const double t = column / (1808.0 * 10.0) + k * 2.304e-6;
      EXPECT_NEAR(b.elevation_rad, elevations[k] * kDegToRad, 1e-12);
      EXPECT_NEAR(b.time_s, t, 1e-12);
      // The head keeps turning between firings: azimuth from the firing time.
      EXPECT_NEAR(b.azimuth_rad, -2 * kPi * 10 * t, 1e-9);
    }
  }
}

// Seed 002 Fig. 6: 30 x 10 deg, 80 lines, 0.4 deg, 6.7 Hz, 4.8..250 m, 905 nm.
TEST(SensorProfile, BlickfeldCube1MatchesSeed002Figure6) {
  const SensorProfile p = Load("blickfeld_cube1.yaml");
  EXPECT_EQ(p.detector.kind, DetectorKind::kWaveform);  // the Cube 1's detector, seed 002 sec. 5
  EXPECT_EQ(p.detector.waveform.intensity_max, 4096);
  EXPECT_EQ(p.scan, ScanKind::kLineScan);
  EXPECT_EQ(p.BeamCount(), 80u * 75u);
  EXPECT_DOUBLE_EQ(p.min_range_m, 4.8);
  EXPECT_DOUBLE_EQ(p.max_range_m, 250);
  EXPECT_NEAR(p.line_scan.horizontal_frequency_hz, 268.0, 1e-9);
  double min_az = 1, max_az = -1, min_el = 1, max_el = -1, last_t = 0;
  for (uint32_t i = 0; i < p.BeamCount(); ++i) {
    const auto b = p.Beam(i);
    min_az = std::min(min_az, b.azimuth_rad);
    max_az = std::max(max_az, b.azimuth_rad);
    min_el = std::min(min_el, b.elevation_rad);
    max_el = std::max(max_el, b.elevation_rad);
    last_t = std::max(last_t, b.time_s);
  }
  EXPECT_NEAR(max_az - min_az, (30 - 0.4) * kDegToRad, 1e-12);  // step centres
  EXPECT_LE(max_el - min_el, 10 * kDegToRad);
  EXPECT_GT(max_el - min_el, 9.9 * kDegToRad);
  EXPECT_LE(last_t, 1 / 6.7);
  // Neighbouring pulses on a line are 0.4 deg apart.
  EXPECT_NEAR(p.Beam(1).azimuth_rad - p.Beam(0).azimuth_rad, 0.4 * kDegToRad, 1e-12);
}

TEST(SensorProfile, BlickfeldCube1ProvingGroundMatchesFigure21) {
  const SensorProfile p = Load("blickfeld_cube1_proving_ground.yaml");
  EXPECT_EQ(p.BeamCount(), 40u * 105u);  // 42 deg / 0.4 deg = 105 pulses per line
  EXPECT_NEAR(p.FramePeriodS(), 1 / 13.3, 1e-12);
}

// custom_8beam.laserconfig: 8 beams, azimuthResolution 2, 1024 samples -> 512 sequences.
TEST(SensorProfile, LaserconfigTableDrivesTheBeams) {
  const SensorProfile p = Load("custom_laserconfig.yaml");
  const double el[] = {10, 5, 0, -5, 10, 5, 0, -5};
  const double az_unity[] = {0, 0, 0, 0, 0.3515625, 0.3515625, 0.3515625, 0.3515625};
  const double fire[] = {0, 4e-6, 8e-6, 12e-6, 40e-6, 44e-6, 48e-6, 52e-6};
  EXPECT_EQ(p.BeamCount(), 8u * 512u);
  for (uint32_t seq : {0u, 3u, 511u}) {
    for (uint32_t k = 0; k < 8; ++k) {
      const auto b = p.Beam(seq * 8 + k);
      const double t = seq / (512.0 * 10.0) + fire[k];
      EXPECT_NEAR(b.time_s, t, 1e-12);
      EXPECT_NEAR(b.elevation_rad, el[k] * kDegToRad, 1e-12);
      // Seed 003's azimuth turns right (Unity +X); ours turns left, hence the sign.
      EXPECT_NEAR(b.azimuth_rad, -2 * kPi * 10 * t - az_unity[k] * kDegToRad, 1e-9);
    }
  }
}

TEST(SensorProfile, LissajousPulsesPerFrame) {
  const SensorProfile p = Load("mems_lissajous_example.yaml");
  EXPECT_EQ(p.BeamCount(), 20000u);  // 200 kHz / 10 Hz
}

// Airborne patterns (seed 001 sec. 5.1). Scan angle of an across-track beam from its direction.
double ScanAngleDeg(const physics::BeamSample<double>& b) {
  const auto d = physics::BeamDirection(b.azimuth_rad, b.elevation_rad);
  EXPECT_NEAR(d.x, 0, 1e-12);
  return std::atan2(d.y, -d.z) / kDegToRad;
}

// 60 deg, 100 lines/s, 100 kHz, 60 % sweeping: 600 pulses per line, 10 lines per frame.
TEST(SensorProfile, AirborneParallelExample) {
  const SensorProfile p = Load("airborne_parallel.yaml");
  EXPECT_EQ(p.scan, ScanKind::kParallel);
  EXPECT_EQ(p.swath.pulses_per_line, 600u);
  EXPECT_EQ(p.swath.lines, 10u);
  EXPECT_EQ(p.BeamCount(), 6000u);
  EXPECT_DOUBLE_EQ(p.FramePeriodS(), 0.1);
  const double step_deg = 60.0 / 600;
  for (uint32_t line : {0u, 1u, 9u}) {
    const auto first = p.Beam(line * 600);
    const auto last = p.Beam(line * 600 + 599);
    EXPECT_EQ(first.channel, line);
    EXPECT_NEAR(ScanAngleDeg(first), -30 + step_deg / 2, 1e-9);  // every line starts right
    EXPECT_NEAR(ScanAngleDeg(last), 30 - step_deg / 2, 1e-9);
    EXPECT_NEAR(first.time_s, line * 0.01 + 0.5e-5, 1e-15);
    EXPECT_NEAR(last.time_s, line * 0.01 + 599.5e-5, 1e-15);
  }
}

// 40 deg, 70 lines/s, 100 kHz: floor(100000 / 70) = 1428 pulses per line, 14 lines per frame.
TEST(SensorProfile, AirborneZigzagExample) {
  const SensorProfile p = Load("airborne_zigzag.yaml");
  EXPECT_EQ(p.scan, ScanKind::kZigzag);
  EXPECT_EQ(p.swath.pulses_per_line, 1428u);
  EXPECT_EQ(p.BeamCount(), 14u * 1428u);
  EXPECT_DOUBLE_EQ(p.FramePeriodS(), 0.2);
  const double step_deg = 40.0 / 1428;
  EXPECT_NEAR(ScanAngleDeg(p.Beam(0)), -20 + step_deg / 2, 1e-9);
  EXPECT_NEAR(ScanAngleDeg(p.Beam(1427)), 20 - step_deg / 2, 1e-9);
  EXPECT_NEAR(ScanAngleDeg(p.Beam(1428)), 20 - step_deg / 2, 1e-9);  // line 1 comes back
  EXPECT_NEAR(ScanAngleDeg(p.Beam(2 * 1428 - 1)), -20 + step_deg / 2, 1e-9);
  // The last line sweeps back to the right edge, where the next frame's first line starts.
  EXPECT_NEAR(ScanAngleDeg(p.Beam(p.BeamCount() - 1)), ScanAngleDeg(p.Beam(0)), 1e-9);
  EXPECT_LT(p.Beam(p.BeamCount() - 1).time_s, p.FramePeriodS());
}

// 15 deg off nadir, 20 revolutions/s, 10 kHz: 500 pulses per revolution, 2 per frame.
TEST(SensorProfile, AirborneEllipticalExample) {
  const SensorProfile p = Load("airborne_elliptical.yaml");
  EXPECT_EQ(p.scan, ScanKind::kElliptical);
  EXPECT_EQ(p.BeamCount(), 1000u);
  EXPECT_DOUBLE_EQ(p.FramePeriodS(), 0.1);
  for (uint32_t i : {0u, 1u, 250u, 999u}) {
    const auto b = p.Beam(i);
    const auto d = physics::BeamDirection(b.azimuth_rad, b.elevation_rad);
    EXPECT_NEAR(std::acos(-d.z) / kDegToRad, 15, 1e-9);
    EXPECT_NEAR(b.time_s, i * 1e-4, 1e-15);
    EXPECT_EQ(b.channel, i / 500);
  }
}

// ---- bad input: each error names the file, the key and the problem ----

const char* kBase =
    "name: t\nwavelength_nm: 905\nmax_range_m: 100\n"
    "scan:\n  type: spinning\n  elevation_deg: [-1, 0, 1]\n  columns_per_revolution: 10\n"
    "  rotation_rate_hz: 10\n"
    "detector:\n  type: capability\n  max_range_m: 50\n  reflectance_at_max_range: 0.8\n";

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

void ExpectError(const std::string& yaml, const std::vector<std::string>& fragments) {
  test::TempDir dir;
  const auto file = dir.Write("bad_sensor.yaml", yaml);
  auto p = LoadSensorProfile(file);
  ASSERT_FALSE(p.ok()) << "accepted:\n" << yaml;
  EXPECT_NE(p.message().find("bad_sensor.yaml"), std::string::npos) << p.message();
  for (const auto& f : fragments)
    EXPECT_NE(p.message().find(f), std::string::npos) << p.message();
}

TEST(SensorProfileErrors, BaseIsValid) {
  test::TempDir dir;
  auto p = LoadSensorProfile(dir.Write("ok.yaml", kBase));
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->BeamCount(), 30u);
}

TEST(SensorProfileErrors, UnknownKey) {
  ExpectError(Replace(kBase, "rotation_rate_hz: 10", "rotation_rate_hz: 10\n  rotation_rpm: 600"),
              {"unknown key 'scan.rotation_rpm'"});
}

TEST(SensorProfileErrors, BeamOriginIsThreeCoordinatesWithinAMetre) {
  test::TempDir dir;
  auto p = LoadSensorProfile(
      dir.Write("ok.yaml", std::string(kBase) + "beam_origin_m: [0, 0, 0.036]\n"));
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->beam_origin_m[2], 0.036);
  ExpectError(std::string(kBase) + "beam_origin_m: [0, 0.036]\n",
              {"'beam_origin_m'", "[x, y, z] in metres, got 2 number(s)"});
  ExpectError(std::string(kBase) + "beam_origin_m: [0, 0, 36]\n",
              {"'beam_origin_m'", "within 1 m of the sensor frame's origin"});
}

TEST(SensorProfileErrors, MissingKey) {
  ExpectError(Replace(kBase, "wavelength_nm: 905\n", ""), {"missing required key 'wavelength_nm'"});
}

TEST(SensorProfileErrors, WrongUnits) {
  ExpectError(Replace(kBase, "wavelength_nm: 905", "wavelength_nm: 0.905"),
              {"'wavelength_nm'", "micrometres"});
  ExpectError(Replace(kBase, "reflectance_at_max_range: 0.8", "reflectance_at_max_range: 80"),
              {"'detector.reflectance_at_max_range'", "percentage"});
}

TEST(SensorProfileErrors, NonPositiveRotationRate) {
  ExpectError(Replace(kBase, "rotation_rate_hz: 10", "rotation_rate_hz: 0"),
              {"'scan.rotation_rate_hz'", "must be positive"});
  ExpectError(Replace(kBase, "rotation_rate_hz: 10", "rotation_rate_hz: -10"),
              {"'scan.rotation_rate_hz'", "must be positive"});
}

TEST(SensorProfileErrors, TablesOfDifferentLengths) {
  ExpectError(Replace(kBase, "  columns_per_revolution",
                      "  azimuth_offset_deg: [0, 0]\n  columns_per_revolution"),
              {"'scan.azimuth_offset_deg'", "has 2 entries but there are 3 channels"});
}

TEST(SensorProfileErrors, UnknownScanType) {
  ExpectError(Replace(kBase, "type: spinning", "type: flash"), {"'scan.type'", "flash"});
}

void ExpectLaserconfigError(const std::string& json, const std::string& fragment) {
  test::TempDir dir;
  dir.Write("beams.laserconfig", json);
  const auto file = dir.Write("bad_sensor.yaml",
                              "name: t\nwavelength_nm: 905\nmax_range_m: 100\n"
                              "scan:\n  type: laserconfig\n  file: beams.laserconfig\n"
                              "  horizontal_samples: 8\n  rotation_rate_hz: 10\n"
                              "detector:\n  type: ideal\n");
  auto p = LoadSensorProfile(file);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("beams.laserconfig"), std::string::npos) << p.message();
  EXPECT_NE(p.message().find("'scan.file'"), std::string::npos) << p.message();
  EXPECT_NE(p.message().find(fragment), std::string::npos) << p.message();
}

TEST(SensorProfileErrors, LaserconfigArraysOfDifferentLengths) {
  ExpectLaserconfigError(
      R"({"azimuthResolution": 1, "elevationOffsets": [1, 2, 3], "azimuthOffsets": [0, 0],
          "firingSequence": [0, 0, 0]})",
      "arrays differ in length: elevationOffsets has 3, azimuthOffsets 2");
}

TEST(SensorProfileErrors, LaserconfigMalformedJson) {
  ExpectLaserconfigError(R"({"azimuthResolution": 1, "elevationOffsets": [1, 2)",
                         "invalid JSON at byte");
}

TEST(SensorProfileErrors, LaserconfigUnknownKey) {
  ExpectLaserconfigError(
      R"({"azimuthResolution": 1, "elevationOffsets": [1], "azimuthOffsets": [0],
          "firingSequence": [0], "wavelength": 905})",
      "unknown key 'wavelength'");
}

// ---- airborne patterns ----

const char* kZigzag =
    "name: t\nwavelength_nm: 1064\nmax_range_m: 2000\n"
    "scan:\n  type: zigzag\n  field_of_view_deg: 40\n  line_rate_hz: 70\n"
    "  pulse_rate_hz: 100000\n  frame_rate_hz: 5\n"
    "detector:\n  type: ideal\n";

const char* kElliptical =
    "name: t\nwavelength_nm: 1064\nmax_range_m: 2000\n"
    "scan:\n  type: elliptical\n  off_nadir_deg: 15\n  rotation_rate_hz: 20\n"
    "  pulse_rate_hz: 10000\n  frame_rate_hz: 10\n"
    "detector:\n  type: ideal\n";

TEST(SensorProfileErrors, AirborneBasesAreValid) {
  test::TempDir dir;
  auto z = LoadSensorProfile(dir.Write("z.yaml", kZigzag));
  ASSERT_TRUE(z.ok()) << z.message();
  EXPECT_EQ(z->BeamCount(), 14u * 1428u);
  auto e = LoadSensorProfile(dir.Write("e.yaml", kElliptical));
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_EQ(e->BeamCount(), 1000u);
  // A parallel scan may have an odd number of lines per frame.
  auto p = LoadSensorProfile(
      dir.Write("p.yaml", Replace(Replace(kZigzag, "type: zigzag", "type: parallel"),
                                  "frame_rate_hz: 5", "frame_rate_hz: 10")));
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->swath.lines, 7u);
}

TEST(SensorProfileErrors, AirborneNonPositiveRates) {
  ExpectError(Replace(kZigzag, "line_rate_hz: 70", "line_rate_hz: 0"),
              {"'scan.line_rate_hz'", "must be positive, got 0"});
  ExpectError(Replace(kZigzag, "pulse_rate_hz: 100000", "pulse_rate_hz: -100"),
              {"'scan.pulse_rate_hz'", "must be positive, got -100"});
  ExpectError(Replace(kZigzag, "frame_rate_hz: 5", "frame_rate_hz: 0"),
              {"'scan.frame_rate_hz'", "must be positive, got 0"});
  ExpectError(Replace(kElliptical, "rotation_rate_hz: 20", "rotation_rate_hz: -20"),
              {"'scan.rotation_rate_hz'", "must be positive, got -20"});
  ExpectError(Replace(kElliptical, "pulse_rate_hz: 10000", "pulse_rate_hz: .inf"),
              {"'scan.pulse_rate_hz'", "must be finite"});
}

TEST(SensorProfileErrors, AirborneAnglesOutOfRange) {
  ExpectError(Replace(kZigzag, "field_of_view_deg: 40", "field_of_view_deg: 180"),
              {"'scan.field_of_view_deg'", "must be in (0, 180) deg", "got 180"});
  ExpectError(Replace(kZigzag, "field_of_view_deg: 40", "field_of_view_deg: 0"),
              {"'scan.field_of_view_deg'", "got 0"});
  ExpectError(Replace(kElliptical, "off_nadir_deg: 15", "off_nadir_deg: 90"),
              {"'scan.off_nadir_deg'", "must be in (0, 90) deg", "got 90"});
  ExpectError(Replace(kElliptical, "off_nadir_deg: 15", "off_nadir_deg: -15"),
              {"'scan.off_nadir_deg'", "got -15"});
}

TEST(SensorProfileErrors, AirborneScanEfficiency) {
  const std::string with =
      Replace(kZigzag, "frame_rate_hz", "scan_efficiency: 60\n  frame_rate_hz");
  ExpectError(with, {"'scan.scan_efficiency'", "got 60 (a percentage?)"});
  ExpectError(Replace(with, "scan_efficiency: 60", "scan_efficiency: 0"),
              {"'scan.scan_efficiency'", "must be in (0, 1], got 0"});
}

TEST(SensorProfileErrors, AirborneFewerThanOnePulsePerLine) {
  ExpectError(Replace(kZigzag, "pulse_rate_hz: 100000", "pulse_rate_hz: 50"),
              {"'scan.pulse_rate_hz'", "50 Hz gives fewer than one pulse per line"});
  ExpectError(Replace(kElliptical, "pulse_rate_hz: 10000", "pulse_rate_hz: 10"),
              {"'scan.pulse_rate_hz'", "10 Hz gives fewer than one pulse per revolution"});
}

TEST(SensorProfileErrors, AirborneFramesHoldWholeMirrorPeriods) {
  ExpectError(
      Replace(kZigzag, "frame_rate_hz: 5", "frame_rate_hz: 3"),
      {"'scan.frame_rate_hz'", "3 Hz gives line_rate_hz / frame_rate_hz = 23.33333333 lines",
       "must be a whole number"});
  ExpectError(Replace(kZigzag, "frame_rate_hz: 5", "frame_rate_hz: 100"),
              {"'scan.frame_rate_hz'", "0.7 lines per frame", "must be a whole number >= 1"});
  ExpectError(Replace(kZigzag, "frame_rate_hz: 5", "frame_rate_hz: 10"),
              {"'scan.frame_rate_hz'", "7 lines per frame", "multiple of 2"});
  ExpectError(Replace(kElliptical, "frame_rate_hz: 10", "frame_rate_hz: 15"),
              {"'scan.frame_rate_hz'", "1.333333333 revolutions per frame"});
}

TEST(SensorProfileErrors, AirborneMissingAndUnknownKeys) {
  ExpectError(Replace(kZigzag, "  field_of_view_deg: 40\n", ""),
              {"missing required key 'scan.field_of_view_deg'"});
  ExpectError(Replace(kElliptical, "off_nadir_deg: 15", "off_nadir_deg: 15\n  scan_rate_hz: 20"),
              {"unknown key 'scan.scan_rate_hz'"});
  // Keys of the other airborne pattern are not accepted either.
  ExpectError(
      Replace(kElliptical, "off_nadir_deg: 15", "off_nadir_deg: 15\n  field_of_view_deg: 30"),
      {"unknown key 'scan.field_of_view_deg'"});
}

}  // namespace
}  // namespace lt
