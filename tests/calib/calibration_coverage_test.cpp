// Issue 40's coverage targets: every fit kind, on every shipped profile that carries its
// parameters, calibrated from the data sheet against virtual labs of a unit whose truths are off
// the data sheet: per parameter within 1 sigma 68 % +- 7 %, within 2 sigma 95 % +- 4 %, mean z
// within +-0.5 (test::Coverage::ExpectPerParameter). 50 seeds in `make test`, the bands widened
// to what 50 draws can tell; scripts/calibration-coverage.sh runs 400 (LT_COVERAGE_SEEDS), where
// the bands are the issue's, for the tables in docs/calibration.md "Coverage". Every lab must
// calibrate, but for one poor-fit refusal a study (the p-value's own false alarms).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "calib/coverage.h"
#include "lidartwin/calib/calibration.h"
#include "lidartwin/calib/virtual_lab.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/sim/sensor_profile.h"
#include "test_support.h"

namespace lt::calib {
namespace {

// LT_COVERAGE_SEEDS, or 50.
uint64_t Seeds() {
  const char* v = std::getenv("LT_COVERAGE_SEEDS");
  const long n = v ? std::strtol(v, nullptr, 10) : 0;
  return n >= 10 && n <= 100000 ? static_cast<uint64_t>(n) : 50;
}

SensorProfile Load(const char* name) {
  auto p = LoadSensorProfile(lt::test::ConfigDir() / "sensors" / name);
  EXPECT_TRUE(p.ok()) << p.message();
  return *p;
}

// Calibrates Seeds() labs of `unit` from `sheet` and counts each key of `truth` found in the
// calibration record.
void Study(const SensorProfile& unit, const SensorProfile& sheet,
           const std::map<std::string, double>& truth, const std::string& label,
           uint32_t frames_per_setting = 25, bool beam = true) {
  test::Coverage coverage;
  const uint64_t seeds = Seeds();
  int chance_refusals = 0;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    auto lab = SimulateLab(unit, {seed, Backend::kCpu, frames_per_setting});
    ASSERT_TRUE(lab.ok()) << lab.message();
    if (!beam) {  // another study covers the beam fit
      lab->beam_kernels.clear();
      lab->collector_slices.clear();
    }
    auto c = Calibrate(*lab, sheet, "virtual", "2026-11-30T00:00:00Z");
    // A good lab's fit falls below the poor-fit p-value by chance, one in 1e4 (about six fits a
    // lab): one such refusal is allowed in a study, and printed; any other error fails.
    if (!c.ok() && c.message().find("does not describe the measurements") != std::string::npos &&
        chance_refusals == 0) {
      ++chance_refusals;
      std::printf("[coverage] %s seed %d refused by chance: %s\n", label.c_str(),
                  static_cast<int>(seed), c.message().c_str());
      continue;
    }
    ASSERT_TRUE(c.ok()) << label << " seed " << seed << ": " << c.message();
    size_t found = 0;
    for (const auto& e : c->profile.calibration.parameters) {
      const auto t = truth.find(e.key);
      if (t == truth.end()) continue;
      coverage.Add(e.key, e.value, e.stddev, t->second);
      ++found;
    }
    ASSERT_EQ(found, truth.size()) << label << " seed " << seed;
  }
  coverage.ExpectPerParameter(label, 0.5);
}

// The OS0-128 threshold unit as built (configs/sensors/ouster_os0_128_threshold_lab_example.yaml
// is its profile): beam, link, overlap, threshold, noise, jitter and two materials.
TEST(CalibrationCoverage, Os0ThresholdUnitFromItsDataSheet) {
  SensorProfile sheet = Load("ouster_os0_128_threshold.yaml");
  const SensorProfile unit = ExampleUnitAsBuilt(sheet);
  const double fw = physics::kFwhmPerSigma * 1e3;
  const auto& spot = unit.footprint.spots[0];
  Study(unit, sheet,
        {{"detector.peak_power_w", unit.detector.link.peak_power_w},
         {"detector.threshold_nw", unit.detector.threshold_w * 1e9},
         {"detector.signal_noise_nw", unit.detector.signal_noise_w * 1e9},
         {"detector.pulse_energy_jitter", unit.detector.pulse_energy_jitter},
         {"detector.overlap_range_m", unit.detector.overlap.range_m},
         {"detector.overlap_sharpness", unit.detector.overlap.sharpness},
         {"beam.spots[0].h_offset_mrad", spot.h_offset_rad * 1e3},
         {"beam.spots[0].v_offset_mrad", spot.v_offset_rad * 1e3},
         {"beam.spots[0].divergence_h_fwhm_mrad", spot.sigma_h_rad * fw},
         {"beam.spots[0].divergence_v_fwhm_mrad", spot.sigma_v_rad * fw},
         {"material.lambertian_50.r0", kLabMaterials[0].r0},
         {"material.glossy_paint.r0", kLabMaterials[1].r0},
         {"material.glossy_paint.specular_albedo", kLabMaterials[1].specular_albedo},
         {"material.glossy_paint.specular_exponent", kLabMaterials[1].specular_exponent}},
        "OS0-128 threshold unit");
}

// The Cube 1 as a threshold unit: its measured kernel (a table sampled by 64 sub-rays), an
// overlap of 3 m that the white target at 2 m sits inside (issue 40 item 1), a jitter the
// sampler's spread is larger than (item 2), and a power and threshold off the data sheet.
TEST(CalibrationCoverage, Cube1ThresholdUnitWithItsMeasuredKernel) {
  SensorProfile sheet = Load("blickfeld_cube1_threshold.yaml");
  sheet.detector.signal_noise_w = sheet.detector.threshold_w / 8;
  SensorProfile unit = sheet;
  unit.detector.link.peak_power_w *= 0.8;
  unit.detector.walk_reference_power_w *= 1.3;
  unit.detector.threshold_w *= 1.3;
  unit.detector.signal_noise_w *= 1.5;
  unit.detector.overlap = {3, 2};
  unit.detector.pulse_energy_jitter = 0.02;
  Study(unit, sheet,
        {{"detector.peak_power_w", unit.detector.link.peak_power_w},
         {"detector.threshold_nw", unit.detector.threshold_w * 1e9},
         {"detector.signal_noise_nw", unit.detector.signal_noise_w * 1e9},
         {"detector.pulse_energy_jitter", 0.02},
         {"detector.overlap_range_m", 3},
         {"detector.overlap_sharpness", 2},
         {"material.lambertian_50.r0", kLabMaterials[0].r0},
         {"material.glossy_paint.r0", kLabMaterials[1].r0},
         {"material.glossy_paint.specular_albedo", kLabMaterials[1].specular_albedo},
         {"material.glossy_paint.specular_exponent", kLabMaterials[1].specular_exponent}},
        "Cube 1 threshold unit (tabulated kernel)");
}

// The Cube 1's three blended spots (blickfeld_cube1_ideal.yaml: the beam alone), each spot's
// place, width and power off the data sheet (item 3: one wrong decomposition in 15 of 43 labs).
TEST(CalibrationCoverage, Cube1ThreeSpotBeam) {
  const SensorProfile sheet = Load("blickfeld_cube1_ideal.yaml");
  SensorProfile unit = sheet;
  auto& s = unit.footprint.spots;
  s[0].v_offset_rad += 0.2e-3;
  s[1].sigma_h_rad *= 1.15;
  s[2].power *= 1.3;
  double total = 0;
  for (uint32_t k = 0; k < 3; ++k)
    total += s[k].power;
  const double fw = physics::kFwhmPerSigma * 1e3;
  std::map<std::string, double> truth;
  // The fit returns spots in its own order; the data sheet's spots are far enough apart (3 mrad
  // in v) that the fitted ones come back sorted by v as the unit's are.
  for (uint32_t k = 0; k < 3; ++k) {
    const std::string key = "beam.spots[" + std::to_string(k) + "].";
    truth[key + "v_offset_mrad"] = s[k].v_offset_rad * 1e3;
    truth[key + "h_offset_mrad"] = s[k].h_offset_rad * 1e3;
    truth[key + "divergence_h_fwhm_mrad"] = s[k].sigma_h_rad * fw;
    truth[key + "divergence_v_fwhm_mrad"] = s[k].sigma_v_rad * fw;
    truth[key + "power"] = s[k].power / total;
  }
  // The two outer spots used to come back wider and nearer the centre by 0.5-0.7 sigma: faint
  // pixels were kept and weighed by their own noisy counts (StitchExposures, NoiseFromTheEmitter).
  Study(unit, sheet, truth, "Cube 1 three-spot beam");
}

// The OS0-128's capability detector (ouster_os0_128.yaml), d_max and R_L,max off the sheet.
TEST(CalibrationCoverage, Os0CapabilityUnit) {
  const SensorProfile sheet = Load("ouster_os0_128.yaml");
  SensorProfile unit = sheet;
  unit.detector.max_range_m = 42;
  unit.detector.reflectance_at_max_range = 0.6;
  Study(unit, sheet, {{"detector.max_range_m", 42}, {"detector.reflectance_at_max_range", 0.6}},
        "OS0-128 capability unit", 4);
}

// The Cube 1's waveform chain (blickfeld_cube1.yaml): recovery, gain, pole and thermal noise
// off the sheet (its three spots are Cube1ThreeSpotBeam's study; left out of these labs).
TEST(CalibrationCoverage, Cube1WaveformUnit) {
  const SensorProfile sheet = Load("blickfeld_cube1.yaml");
  SensorProfile unit = sheet;
  WaveformConfig& w = unit.detector.waveform;
  w.sipm_recovery_ns = 24;
  w.transimpedance_ohm = 45;
  w.circuit_poles_mhz = {170};
  w.thermal_noise_mv = 0.8;
  Study(unit, sheet,
        {{"detector.sipm_recovery_ns", 24},
         {"detector.transimpedance_ohm", 45},
         {"detector.circuit_poles_mhz[0]", 170},
         {"detector.thermal_noise_mv", 0.8}},
        "Cube 1 waveform unit", 16, false);
}

}  // namespace
}  // namespace lt::calib
