// SensorProfile::Validate() for profiles built or changed in code (calibrate, labgen, tests):
// every shipped profile is valid; each rule, broken on a valid profile of the scan, footprint
// or detector it concerns, fails with its key path and the problem in the key's unit; the
// loader reports the rules that span several keys at the line of the key.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>

#include "lidartwin/sim/sensor_profile.h"
#include "test_support.h"

namespace lt {
namespace {

SensorProfile Shipped(const std::string& name) {
  auto p = LoadSensorProfile(test::ConfigDir() / "sensors" / name);
  EXPECT_TRUE(p.ok()) << p.message();
  return p.ok() ? std::move(p.value()) : SensorProfile{};
}

TEST(SensorProfileValidate, EveryShippedProfileIsValid) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::ConfigDir() / "sensors")) {
    if (entry.path().extension() != ".yaml") continue;
    auto p = LoadSensorProfile(entry.path());
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_TRUE(p->Validate().ok()) << p->Validate().message();
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// One rule per row: the shipped profile `base`, changed by `breaks`, fails on `key` with
// `problem`.
struct ProfileRule {
  const char* base;
  const char* key;
  std::function<void(SensorProfile&)> breaks;
  const char* problem;
};

TEST(SensorProfileValidate, EachRuleNamesItsKeyAndUnit) {
  constexpr double kDeg = 3.14159265358979323846 / 180;
  const char* spin = "ouster_os0_128.yaml";
  const char* thr = "ouster_os0_128_threshold.yaml";
  const char* cube = "blickfeld_cube1_ideal.yaml";
  const char* cube_thr = "blickfeld_cube1_threshold.yaml";
  const char* mems = "mems_lissajous_example.yaml";
  const char* zigzag = "airborne_zigzag.yaml";
  const char* ellipse = "airborne_elliptical.yaml";
  const char* wave = "blickfeld_cube1.yaml";
  const ProfileRule rules[] = {
      // Profile.
      {spin, "wavelength_nm", [](auto& p) { p.wavelength_nm = 0.85; },
       "must be in nanometres (200..20000), got 0.85 (micrometres?)"},
      {spin, "wavelength_nm", [](auto& p) { p.wavelength_nm = 50000; },
       "must be in 200..20000 nm, got 50000"},
      {spin, "min_range_m", [](auto& p) { p.min_range_m = -1; }, "must be in [0, 1e6) m, got -1"},
      // Issue 36: ranges, rates and mirror frequencies of 1e308 and 1e-308 were taken (some
      // aborted in the ray caster, others made frames of 1e308 s).
      {spin, "max_range_m", [](auto& p) { p.max_range_m = 1e308; },
       "must exceed min_range_m and be at most 1e6 m, got 1e+308"},
      {spin, "scan.start_azimuth_deg", [](auto& p) { p.start_azimuth_rad = 1e308; },
       "must be within +-360 deg"},
      {spin, "scan.azimuth_offset_deg", [](auto& p) { p.azimuth_offset_rad[2] = 7; },
       "must be within +-360 deg, got 401.07"},
      {mems, "scan.frame_rate_hz", [](auto& p) { p.frame_rate_hz = 1e-308; },
       "must be in 0.001..10000 Hz, got 1e-308"},
      {mems, "scan.pulse_rate_hz", [](auto& p) { p.lissajous.pulse_rate_hz = 1e-303; },
       "must be in 1..1e+10 Hz, got 1e-303"},
      {cube, "scan.mirror_frequency_hz",
       [](auto& p) { p.line_scan.horizontal_frequency_hz = 1e308; },
       "must be in (0, 1e6] Hz, got 1e+308"},
      {cube, "scan.frame_rate_hz", [](auto& p) { p.frame_rate_hz = 1e-308; },
       "must be in 0.001..10000 Hz, got 1e-308"},
      {zigzag, "scan.line_rate_hz", [](auto& p) { p.swath.line_period_s = 1e306; },
       "must be in 0.001..1000000 Hz, got 1e-306"},
      {ellipse, "scan.rotation_rate_hz", [](auto& p) { p.elliptical.revolution_period_s = 1e307; },
       "must be in 0.001..1000000 Hz, got 1e-307"},
      {spin, "max_range_m", [](auto& p) { p.max_range_m = p.min_range_m; },
       "must exceed min_range_m"},
      // Spinning scan.
      {spin, "scan.elevation_deg", [](auto& p) { p.elevation_rad.clear(); },
       "must list 1..65535 channels, got 0"},
      {spin, "scan.elevation_deg", [&](auto& p) { p.elevation_rad[3] = 95 * kDeg; },
       "elevation 95 deg is outside -90..90"},
      {spin, "scan.azimuth_offset_deg", [](auto& p) { p.azimuth_offset_rad.pop_back(); },
       "has 127 entries but there are 128 channels"},
      {spin, "scan.firing_offset_us", [](auto& p) { p.firing_offset_s.push_back(0); },
       "has 129 entries but there are 128 channels"},
      {spin, "scan.columns_per_revolution", [](auto& p) { p.columns = 0; },
       "must be a whole number >= 1"},
      {spin, "scan.rotation_rate_hz", [](auto& p) { p.rotation_rate_hz = 0; },
       "must be in 0.1..1000 Hz, got 0"},
      {spin, "scan.rotation_rate_hz", [](auto& p) { p.rotation_rate_hz = 1e-308; },
       "must be in 0.1..1000 Hz, got 1e-308"},
      {spin, "scan.firing_offset_us", [](auto& p) { p.firing_offset_s[5] = 1e-3; },
       "offset 1000 us is outside [0, column period 97.65625 us)"},
      {spin, "scan",
       [](auto& p) {
         p.columns = 200000;
         p.rotation_rate_hz = 0.1;
       },
       "the scan gives 25600000 beams per frame, more than 16777216"},
      {thr, "detector.max_echoes",
       [](auto& p) {
         p.columns = 131072;
         p.rotation_rate_hz = 0.1;
         p.detector.max_echoes = 8;
       },
       "16777216 beams x 8 echoes is more than 67108864 echo records per frame"},
      // MEMS and airborne scans.
      {mems, "scan.frame_rate_hz", [](auto& p) { p.frame_rate_hz = 0; }, "must be in 0.001..10000 Hz, got 0"},
      {mems, "scan.pulse_rate_hz", [](auto& p) { p.lissajous.pulses = 0; },
       "gives less than one pulse per frame"},
      {cube, "scan.horizontal_fov_deg", [](auto& p) { p.line_scan.horizontal_amplitude_rad = 0; },
       "must be in (0, 180), got 0"},
      {cube, "scan.scan_lines", [](auto& p) { p.line_scan.lines = 0; }, "must be a whole number"},
      {cube, "scan.mirror_frequency_hz", [](auto& p) { p.line_scan.horizontal_frequency_hz = 1; },
       "too low"},
      {zigzag, "scan.field_of_view_deg", [&](auto& p) { p.swath.half_angle_rad = 95 * kDeg; },
       "must be in (0, 180) deg (the full across-track angle), got 190"},
      {zigzag, "scan.scan_efficiency",
       [](auto& p) { p.swath.active_period_s = 2 * p.swath.line_period_s; },
       "must be in (0, 1], got 2"},
      {zigzag, "scan.frame_rate_hz", [](auto& p) { p.frame_rate_hz *= 1.5; },
       "must be a whole number >= 1"},
      {zigzag, "scan.frame_rate_hz",
       [](auto& p) {
         p.swath.lines -= 1;
         p.frame_rate_hz = 1 / (p.swath.lines * p.swath.line_period_s);
       },
       "must be a multiple of 2 (a zigzag mirror sweeps there and back)"},
      {zigzag, "scan.pulse_rate_hz", [](auto& p) { p.swath.pulses_per_line = 0; },
       "fewer than one pulse per line"},
      {ellipse, "scan.off_nadir_deg", [](auto& p) { p.elliptical.off_nadir_rad = 0; },
       "must be in (0, 90) deg, got 0"},
      {ellipse, "scan.rotation_rate_hz", [](auto& p) { p.elliptical.revolution_period_s = -1; },
       "must be positive"},
      {ellipse, "scan.pulse_rate_hz", [](auto& p) { p.elliptical.pulses_per_revolution = 0; },
       "fewer than one pulse per revolution"},
      // Footprint.
      {spin, "beam.sub_rays", [](auto& p) { p.footprint.sub_rays = 200; },
       "must be a whole number in 1..128, got 200"},
      {spin, "beam.divergence_mrad", [](auto& p) { p.footprint.half_angle_rad = 0.6; },
       "must be in [0, 1000) mrad, got 1200"},
      {spin, "beam.sub_rays",
       [](auto& p) {
         p.footprint.half_angle_rad = 0;
         p.footprint.sub_rays = 4;
       },
       "more than one sub-ray needs divergence_mrad > 0"},
      {thr, "beam.divergence_v_fwhm_mrad", [](auto& p) { p.footprint.spots[0].sigma_v_rad = 0; },
       "must be in (0, 500) mrad, got 0"},
      {thr, "beam.divergence_h_fwhm_mrad", [](auto& p) { p.footprint.spots[0].power = 0.5; },
       "the spots' powers must sum to 1 (the loader normalises them), got 0.5"},
      {cube, "beam.spots", [](auto& p) { p.footprint.spot_count = 5; },
       "must list 1..4 spots, got 5"},
      {cube, "beam.spots[1].v_offset_mrad", [](auto& p) { p.footprint.spots[1].v_offset_rad = 1; },
       "must be within +-500 mrad, got 1000"},
      {cube, "beam.spots[2].power", [](auto& p) { p.footprint.spots[2].power = -1; },
       "must be positive, got -1"},
      {cube_thr, "beam.kernel_tail_exponent", [](auto& p) { p.kernel_tail_exponent = 2; },
       "must be in [0, 1], got 2"},
      {cube_thr, "beam.kernel_file", [](auto& p) { p.kernel.cdf.clear(); },
       "the kernel's sampling tables are empty"},
      {cube_thr, "beam.kernel_file",
       [](auto& p) {
         p.kernel_file.clear();
         p.kernel_h_file.clear();
       },
       "a table footprint names kernel_file, or kernel_h_file and kernel_v_file"},
      {spin, "beam.raster_resolution_mrad", [](auto& p) { p.raster_resolution_rad = 1; },
       "must be in [0.01, 100] mrad, got 1000"},
      {spin, "beam.gather", [](auto& p) { p.raster_gather = true; },
       "raster gathers a return signal, which only the threshold and waveform detectors read"},
      {thr, "beam.sub_rays",
       [](auto& p) {
         p.footprint.sub_rays = 64;
         p.detector.max_surfaces_per_sub_ray = 4;
       },
       "beam.sub_rays (64) x detector.max_surfaces_per_sub_ray (4) exceeds the 128 contributions"},
      // Capability detector.
      {spin, "detector.max_range_m", [](auto& p) { p.detector.max_range_m = 0; },
       "must be in (0, 1e6] m, got 0"},
      {spin, "detector.reflectance_at_max_range",
       [](auto& p) { p.detector.reflectance_at_max_range = 80; }, "(a percentage?)"},
      {spin, "detector.reflectance_at_max_range",
       [](auto& p) { p.detector.reflectance_at_max_range = 0; }, "must be in (0, 1], got 0"},
      {spin, "detector.range_noise_sigma_m", [](auto& p) { p.detector.range_noise_sigma_m = -1; },
       "must be in [0, 100), got -1"},
      // Issue 36: 1e30 made every point vanish without a word.
      {spin, "detector.range_noise_sigma_m",
       [](auto& p) { p.detector.range_noise_sigma_m = 1e30; }, "must be in [0, 100), got 1e+30"},
      // Threshold detector, in the keys' units.
      {thr, "detector.peak_power_w", [](auto& p) { p.detector.link.peak_power_w = 0; },
       "must be positive and below 1000000, got 0"},
      {thr, "detector.aperture_diameter_mm",
       [](auto& p) { p.detector.link.aperture_diameter_m = 20; },
       "must be positive and below 10000, got 20000"},
      {thr, "detector.optics_transmission",
       [](auto& p) { p.detector.link.optics_transmission = 1.5; },
       "must be a fraction in (0, 1], got 1.5"},
      {thr, "detector.atmospheric_extinction_per_km",
       [](auto& p) { p.detector.link.extinction_per_m = -1e-3; }, "must be in [0, 1000), got -1"},
      {thr, "detector.pulse_width_ns", [](auto& p) { p.detector.pulse_width_ns = 0.001; },
       "must be in [0.01, 10000) ns, got 0.001"},
      {thr, "detector.threshold_nw",
       [](auto& p) {
         p.detector.threshold_w = 0;
         p.detector.walk_reference_power_w = 0;
         p.detector.signal_noise_w = 0;
       },
       "must be in [1e-6, 1e15) nW, got 0"},
      {thr, "detector.walk_reference_power_nw",
       [](auto& p) { p.detector.walk_reference_power_w = p.detector.threshold_w / 2; },
       "must be between threshold_nw and 1e6 x threshold_nw"},
      {thr, "detector.max_echoes", [](auto& p) { p.detector.max_echoes = 9; },
       "must be a whole number in 1..8, got 9"},
      {thr, "detector.max_echoes",
       [](auto& p) {
         p.detector.return_mode = physics::ReturnMode::kDual;
         p.detector.max_echoes = 1;
       },
       "dual returns need max_echoes >= 2"},
      {thr, "detector.max_surfaces_per_sub_ray",
       [](auto& p) { p.detector.max_surfaces_per_sub_ray = 0; },
       "must be a whole number in 1..16, got 0"},
      {thr, "detector.range_noise_sigma_m", [](auto& p) { p.detector.range_noise_sigma_m = 100; },
       "must be in [0, 100), got 100"},
      {thr, "detector.range_resolution_mm", [](auto& p) { p.detector.range_resolution_m = 1e-9; },
       "must be 0 (none) or in [0.001, 10000) mm, got 1e-06"},
      {thr, "detector.outlier_probability", [](auto& p) { p.detector.outlier_probability = 2; },
       "must be in [0, 1], got 2"},
      {thr, "detector.signal_noise_nw",
       [](auto& p) { p.detector.signal_noise_w = p.detector.threshold_w / 2; },
       "must be in [0, threshold_nw / 3]"},
      {thr, "detector.pulse_energy_jitter", [](auto& p) { p.detector.pulse_energy_jitter = 0.3; },
       "must be in [0, 0.25], got 0.3"},
      // The calibration record, when there is one.
      {thr, "calibration.lab_sha256", [](auto& p) { p.calibration.lab_sha256 = "ABC"; },
       "must be 64 lower-case hex digits"},
      {thr, "calibration.parameters[0].stddev",
       [](auto& p) {
         p.calibration.lab_sha256 = std::string(64, 'a');
         p.calibration.parameters.push_back({"detector.threshold_nw", 5, -1, "threshold"});
       },
       "must be >= 0, got -1"},
      {thr, "calibration.parameters[0].key",
       [](auto& p) {
         p.calibration.lab_sha256 = std::string(64, 'a');
         p.calibration.parameters.push_back({"", 5, 1, "threshold"});
       },
       "must name the profile key"},
      {thr, "detector.overlap_range_m", [](auto& p) { p.detector.overlap.range_m = -1; },
       "must be 0 (full overlap) or in (0, 1000) m, got -1"},
      {thr, "detector.overlap_sharpness", [](auto& p) { p.detector.overlap.sharpness = 0; },
       "must be in [0.1, 20], got 0"},
      // Waveform detector: its link keys are the threshold detector's, then its own.
      {wave, "detector.peak_power_w", [](auto& p) { p.detector.link.peak_power_w = 0; },
       "must be positive and below 1000000, got 0"},
      {wave, "detector.samples", [](auto& p) { p.detector.waveform.samples = 1000; },
       "must be a power of two in 64..16384, got 1000"},
      {wave, "detector.samples", [](auto& p) { p.detector.waveform.samples = 1024; },
       "short of the round trip to max_range_m 250 m"},
      {wave, "detector.pretrigger_samples",
       [](auto& p) { p.detector.waveform.pretrigger_samples = 4; },
       "must be in 8..samples / 4 (512), got 4"},
      {wave, "detector.internal_reflection_nw",
       [](auto& p) { p.detector.waveform.internal_reflection_nw = 0; },
       "must be positive and below 1e12 nW"},
      {wave, "detector.optical_bandwidth_nm", [](auto& p) { p.wavelength_nm = 1650; },
       "around wavelength_nm must lie within the solar table's 800..1600 nm"},
      {wave, "detector.photon_detection_efficiency",
       [](auto& p) { p.detector.waveform.photon_detection_efficiency = 25; },
       "must be a fraction in (0, 1], got 25"},
      {wave, "detector.sipm_recovery_ns", [](auto& p) { p.detector.waveform.sipm_recovery_ns = 0; },
       "must be in [0.01, 1000000] ns, got 0"},
      {wave, "detector.circuit_poles_mhz",
       [](auto& p) { p.detector.waveform.circuit_poles_mhz.assign(9, 100.0); },
       "lists 9 corner frequencies, at most 8"},
      {wave, "detector.circuit_zeros_mhz",
       [](auto& p) { p.detector.waveform.circuit_zeros_mhz = {-5}; },
       "corner frequencies must be in [0.001, 1e6] MHz, got -5"},
      // A measured circuit response instead of the poles and zeros.
      {wave, "detector.circuit_response",
       [](auto& p) { p.detector.waveform.circuit_response = {{0, 600}, {50}, {0, -90}}; },
       "must have one length, got 2, 1 and 2"},
      {wave, "detector.circuit_response.frequency_mhz",
       [](auto& p) { p.detector.waveform.circuit_response = {{1, 600}, {50, 5}, {0, -90}}; },
       "must start at 0 (the DC gain), got 1"},
      {wave, "detector.circuit_response.frequency_mhz",
       [](auto& p) {
         p.detector.waveform.circuit_response = {{0, 600, 500}, {50, 5, 5}, {0, -90, -90}};
       },
       "must rise strictly"},
      {wave, "detector.circuit_response",
       [](auto& p) { p.detector.waveform.circuit_response = {{0, 600}, {50, 5}, {10, -90}}; },
       "the DC row must have a positive gain and phase 0"},
      {wave, "detector.circuit_response.frequency_mhz",
       [](auto& p) { p.detector.waveform.circuit_response = {{0, 100}, {50, 5}, {0, -90}}; },
       "ends at 100 MHz, short of the Nyquist frequency 500 MHz"},
      // Zero phase: symmetric about t = 0, so half of it rings ahead of every pulse.
      {wave, "detector.circuit_response",
       [](auto& p) {
         p.detector.waveform.circuit_response = {{0, 100, 101, 600}, {50, 50, 0, 0}, {0, 0, 0, 0}};
       },
       "in the record's last quarter"},
      {wave, "detector.threshold_mv", [](auto& p) { p.detector.waveform.threshold_mv = 0; },
       "must be in (0, 1e5] mV, got 0"},
      {wave, "detector.intensity_max", [](auto& p) { p.detector.waveform.intensity_max = 40.5; },
       "must be a whole number in 1..1e9, got 40.5"},
  };
  std::map<std::string, SensorProfile> bases;
  for (const ProfileRule& rule : rules) {
    if (!bases.count(rule.base)) {
      bases[rule.base] = Shipped(rule.base);
      ASSERT_TRUE(bases[rule.base].Validate().ok()) << bases[rule.base].Validate().message();
    }
    SensorProfile p = bases[rule.base];
    rule.breaks(p);
    const Status s = p.Validate();
    ASSERT_FALSE(s.ok()) << rule.base << ": " << rule.key << ": " << rule.problem;
    EXPECT_NE(s.message().find("key '" + std::string(rule.key) + "': "), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find(rule.problem), std::string::npos) << s.message();
    EXPECT_EQ(s.message().rfind("sensor profile '" + p.name + "': ", 0), 0u) << s.message();
  }
}

TEST(SensorProfileValidate, TheDetectorAloneToo) {
  DetectorConfig d;
  EXPECT_TRUE(d.Validate().ok());  // ideal
  d.kind = DetectorKind::kCapability;
  EXPECT_EQ(d.Validate().message(), "detector: key 'max_range_m': must be in (0, 1e6] m, got 0");
}

// Rules that span several keys are the loader's too, at the line of the key they name.
TEST(SensorProfileValidate, TheLoaderReportsThemAtTheirLine) {
  std::ifstream in(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  std::string yaml((std::istreambuf_iterator<char>(in)), {});
  const std::string beam = "beam:\n  divergence_mrad: 1\n  gather: raster\n";
  yaml.replace(yaml.find("\ndetector:"), 10, "\n" + beam + "detector:");
  const size_t line = 1 + std::count(yaml.begin(), yaml.begin() + yaml.find("gather:"), '\n');
  auto p = ParseSensorProfile(yaml, "raster.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("raster.yaml: key 'beam.gather' (line " + std::to_string(line) +
                             "): raster gathers a return signal"),
            std::string::npos)
      << p.message();
}

}  // namespace
}  // namespace lt
