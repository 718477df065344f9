// The profile writer beside the loader (house rule 13): every shipped profile reads back from
// SaveSensorProfile to the same profile: the same beams (to 1e-12 rad and 1e-15 s), footprint,
// kernel tables and detector, values scaled between units to 1e-14 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "lidartwin/sim/sensor_profile.h"
#include "test_support.h"

namespace lt {
namespace {

// Same beams, same footprint, same detector, same everything the simulator reads.
void ExpectSameProfile(const SensorProfile& a, const SensorProfile& b, const std::string& what) {
  EXPECT_EQ(a.name, b.name) << what;
  EXPECT_EQ(a.wavelength_nm, b.wavelength_nm) << what;
  EXPECT_EQ(a.min_range_m, b.min_range_m) << what;
  EXPECT_EQ(a.max_range_m, b.max_range_m) << what;
  EXPECT_EQ(a.scan, b.scan) << what;
  ASSERT_EQ(a.BeamCount(), b.BeamCount()) << what;
  EXPECT_NEAR(a.FramePeriodS(), b.FramePeriodS(), 1e-15 * a.FramePeriodS()) << what;
  const uint32_t n = a.BeamCount();
  for (uint32_t i = 0; i < n; i += 1 + n / 997) {
    const auto x = a.Beam(i), y = b.Beam(i);
    EXPECT_NEAR(x.azimuth_rad, y.azimuth_rad, 1e-12) << what << " beam " << i;
    EXPECT_NEAR(x.elevation_rad, y.elevation_rad, 1e-12) << what << " beam " << i;
    EXPECT_NEAR(x.time_s, y.time_s, 1e-15) << what << " beam " << i;
    EXPECT_EQ(x.channel, y.channel) << what;
    EXPECT_EQ(x.column, y.column) << what;
  }
  const auto& f = a.footprint;
  const auto& g = b.footprint;
  EXPECT_EQ(f.kind, g.kind) << what;
  EXPECT_EQ(f.sub_rays, g.sub_rays) << what;
  EXPECT_EQ(f.mode, g.mode) << what;
  EXPECT_NEAR(f.half_angle_rad, g.half_angle_rad, 1e-15) << what;
  EXPECT_EQ(f.spot_count, g.spot_count) << what;
  for (uint32_t k = 0; k < f.spot_count; ++k) {
    EXPECT_NEAR(f.spots[k].sigma_h_rad, g.spots[k].sigma_h_rad, 1e-15) << what;
    EXPECT_NEAR(f.spots[k].v_offset_rad, g.spots[k].v_offset_rad, 1e-15) << what;
    EXPECT_NEAR(f.spots[k].power, g.spots[k].power, 1e-15) << what;
  }
  EXPECT_EQ(a.kernel.cdf, b.kernel.cdf) << what;
  EXPECT_EQ(a.kernel.weight, b.kernel.weight) << what;
  EXPECT_EQ(a.raster_gather, b.raster_gather) << what;
  const DetectorConfig& d = a.detector;
  const DetectorConfig& e = b.detector;
  EXPECT_EQ(d.kind, e.kind) << what;
  EXPECT_EQ(d.max_range_m, e.max_range_m) << what;
  EXPECT_EQ(d.reflectance_at_max_range, e.reflectance_at_max_range) << what;
  EXPECT_EQ(d.range_noise_sigma_m, e.range_noise_sigma_m) << what;
  EXPECT_NEAR(d.link.aperture_diameter_m, e.link.aperture_diameter_m, 1e-15) << what;
  EXPECT_EQ(d.link.peak_power_w, e.link.peak_power_w) << what;
  EXPECT_EQ(d.pulse_width_ns, e.pulse_width_ns) << what;
  EXPECT_NEAR(d.threshold_w, e.threshold_w, 1e-14 * d.threshold_w) << what;
  EXPECT_NEAR(d.walk_reference_power_w, e.walk_reference_power_w, 1e-14 * d.walk_reference_power_w)
      << what;
  EXPECT_EQ(d.echo_range, e.echo_range) << what;
  EXPECT_EQ(d.return_mode, e.return_mode) << what;
  EXPECT_EQ(d.max_echoes, e.max_echoes) << what;
  EXPECT_NEAR(d.range_resolution_m, e.range_resolution_m, 1e-18) << what;
  EXPECT_NEAR(d.signal_noise_w, e.signal_noise_w, 1e-14 * d.threshold_w) << what;
  EXPECT_EQ(d.overlap.range_m, e.overlap.range_m) << what;
  EXPECT_EQ(d.pulse_energy_jitter, e.pulse_energy_jitter) << what;
  EXPECT_EQ(d.overlap.sharpness, e.overlap.sharpness) << what;
}

TEST(SensorProfileWriter, EveryShippedProfileReadsBackTheSame) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::ConfigDir() / "sensors")) {
    if (entry.path().extension() != ".yaml") continue;
    auto a = LoadSensorProfile(entry.path());
    ASSERT_TRUE(a.ok()) << a.message();
    const std::string text = SaveSensorProfile(*a, "written by the round-trip test");
    auto b = ParseSensorProfile(text, "/tmp/round_trip.yaml");
    ASSERT_TRUE(b.ok()) << entry.path() << ": " << b.message() << "\n" << text;
    ExpectSameProfile(*a, *b, entry.path().filename().string());
    // And once more: writing the read-back profile changes nothing but the last digits of
    // values the units scale (nW -> W -> nW), so a second round reads back the same again.
    auto c = ParseSensorProfile(SaveSensorProfile(*b), "/tmp/round_trip_2.yaml");
    ASSERT_TRUE(c.ok()) << c.message();
    ExpectSameProfile(*a, *c, entry.path().filename().string() + " (second round)");
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(SensorProfileWriter, CalibrationRecordAndNoiseKeysReadBackTheSame) {
  auto a = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(a.ok()) << a.message();
  a->detector.signal_noise_w = 90e-9;
  a->detector.pulse_energy_jitter = 0.02;
  a->detector.overlap = {0.8, 2.5};
  a->beam_origin_m = {0.001, -0.002, 0.03618};
  a->calibration.lab = "labs/sn0042";
  a->calibration.lab_sha256 = std::string(63, 'a') + "0";
  a->calibration.sensor_serial = "SN0042";
  a->calibration.date_utc = "2026-11-22T20:00:00Z";
  a->calibration.parameters = {{"detector.threshold_nw", 700.5, 2.4, "detection threshold"},
                               {"material.glossy_paint.r0", 0.3, 1e-4, "reflectance"}};
  auto b = ParseSensorProfile(SaveSensorProfile(*a), "/tmp/calibrated.yaml");
  ASSERT_TRUE(b.ok()) << b.message();
  ExpectSameProfile(*a, *b, "calibrated");
  EXPECT_EQ(b->beam_origin_m, a->beam_origin_m);
  EXPECT_EQ(b->calibration.lab, a->calibration.lab);
  EXPECT_EQ(b->calibration.lab_sha256, a->calibration.lab_sha256);
  EXPECT_EQ(b->calibration.sensor_serial, "SN0042");
  EXPECT_EQ(b->calibration.date_utc, a->calibration.date_utc);
  ASSERT_EQ(b->calibration.parameters.size(), 2u);
  EXPECT_EQ(b->calibration.parameters[1].key, "material.glossy_paint.r0");
  EXPECT_EQ(b->calibration.parameters[0].value, 700.5);
  EXPECT_EQ(b->calibration.parameters[0].stddev, 2.4);
  EXPECT_EQ(b->calibration.parameters[0].fit, "detection threshold");
  // A malformed checksum is refused with the key named.
  std::string text = SaveSensorProfile(*a);
  text.replace(text.find(a->calibration.lab_sha256), 64, "not-a-checksum");
  auto c = ParseSensorProfile(text, "/tmp/bad.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.message().find("calibration.lab_sha256"), std::string::npos) << c.message();
}

// A measured circuit response (detector.circuit_response) replaces the pole-zero keys: it is
// written as its three lists, reads back the same, gives the same transfer bins, and a file
// that gives both is refused with the key named.
TEST(SensorProfileWriter, MeasuredCircuitResponseReadsBackTheSame) {
  auto a = LoadSensorProfile(test::ConfigDir() / "sensors/blickfeld_cube1.yaml");
  ASSERT_TRUE(a.ok()) << a.message();
  // A 100 MHz front end with a 2 ns delay, as a network analyser would give it, to 1 GHz.
  auto& r = a->detector.waveform.circuit_response;
  for (double f = 0; f <= 1000; f += 5) {
    r.frequency_mhz.push_back(f);
    r.gain_ohm.push_back(50 / std::sqrt(1 + f * f / 1e4));
    r.phase_deg.push_back(-std::atan(f / 100) * 180 / 3.14159265358979 - 360 * f * 1e6 * 2e-9);
  }
  ASSERT_TRUE(a->Validate().ok()) << a->Validate().message();
  const std::string text = SaveSensorProfile(*a);
  EXPECT_EQ(text.find("circuit_poles_mhz"), std::string::npos) << text;
  auto b = ParseSensorProfile(text, "/tmp/measured_circuit.yaml");
  ASSERT_TRUE(b.ok()) << b.message();
  ExpectSameProfile(*a, *b, "measured circuit");
  EXPECT_EQ(b->detector.waveform.circuit_response.frequency_mhz, r.frequency_mhz);
  EXPECT_EQ(b->detector.waveform.circuit_response.gain_ohm, r.gain_ohm);
  EXPECT_EQ(b->detector.waveform.circuit_response.phase_deg, r.phase_deg);
  std::string both = text;
  both.replace(both.find("  circuit_response:"), 0, "  circuit_poles_mhz: [150]\n");
  auto c = ParseSensorProfile(both, "/tmp/both.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.message().find("circuit_poles_mhz"), std::string::npos) << c.message();
  EXPECT_NE(c.message().find("is replaced by circuit_response"), std::string::npos) << c.message();
}

}  // namespace
}  // namespace lt
