// The whole calibration against the virtual lab (issue 10): labgen simulates every measurement
// from a true profile with the simulator's own noise (the folder's write and read-back is
// checked once; the coverage runs calibrate the lab in memory), and `Calibrate` must give back
// the truth within its reported uncertainties: over 20 seeds from a perturbed base, within 1
// sigma for 68 % +- 10 % of the parameters and within 2 sigma for 95 % +- 5 % (from the data
// sheet, per parameter over 50 seeds: calibration_coverage_test.cpp).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "calib/coverage.h"
#include "lidartwin/calib/calibration.h"
#include "lidartwin/calib/lab_folder.h"
#include "lidartwin/calib/virtual_lab.h"
#include "lidartwin/physics/beam_footprint.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/sim/sensor_profile.h"
#include "test_support.h"

namespace lt::calib {
namespace {

namespace fs = std::filesystem;
using test::Coverage;

SensorProfile DataSheet() {
  auto p = LoadSensorProfile(lt::test::ConfigDir() / "sensors" / "ouster_os0_128_threshold.yaml");
  EXPECT_TRUE(p.ok()) << p.message();
  return *p;
}

// The unit as built: differs from its data sheet in every calibrated quantity, and has a
// beam offset as well.
SensorProfile TrueUnit() {
  SensorProfile p = ExampleUnitAsBuilt(DataSheet());
  p.footprint.spots[0].h_offset_rad = 0.2e-3;
  return p;
}

// The truth of each calibrated profile key, in the key's unit.
std::map<std::string, double> Truth(const SensorProfile& t) {
  const double fw = physics::kFwhmPerSigma * 1e3;
  return {{"detector.peak_power_w", t.detector.link.peak_power_w},
          {"detector.threshold_nw", t.detector.threshold_w * 1e9},
          {"detector.signal_noise_nw", t.detector.signal_noise_w * 1e9},
          {"detector.pulse_energy_jitter", t.detector.pulse_energy_jitter},
          {"detector.overlap_range_m", t.detector.overlap.range_m},
          {"detector.overlap_sharpness", t.detector.overlap.sharpness},
          {"beam.spots[0].h_offset_mrad", t.footprint.spots[0].h_offset_rad * 1e3},
          {"beam.spots[0].v_offset_mrad", t.footprint.spots[0].v_offset_rad * 1e3},
          {"beam.spots[0].divergence_h_fwhm_mrad", t.footprint.spots[0].sigma_h_rad * fw},
          {"beam.spots[0].divergence_v_fwhm_mrad", t.footprint.spots[0].sigma_v_rad * fw},
          {"material.lambertian_50.r0", kLabMaterials[0].r0},
          {"material.glossy_paint.r0", kLabMaterials[1].r0},
          {"material.glossy_paint.specular_albedo", kLabMaterials[1].specular_albedo},
          {"material.glossy_paint.specular_exponent", kLabMaterials[1].specular_exponent}};
}

TEST(VirtualLab, WrittenAndReadBackTheSameWithAStableChecksum) {
  auto lab = SimulateLab(TrueUnit(), {3});
  ASSERT_TRUE(lab.ok()) << lab.message();
  lt::test::TempDir tmp;
  const fs::path dir = tmp / "lab";
  ASSERT_TRUE(WriteLabFolder(*lab, dir).ok());
  auto back = ReadLabFolder(dir);
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->range_intensity_curves.size(), 1u);
  ASSERT_EQ(back->threshold_sweeps.size(), 1u);
  ASSERT_EQ(back->reflectance_curves.size(), 2u);
  ASSERT_EQ(back->beam_kernels.size(), 1u);
  ASSERT_EQ(back->collector_slices.size(), 2u);
  EXPECT_EQ(back->range_intensity_curves[0].samples.size(),
            lab->range_intensity_curves[0].samples.size());
  EXPECT_EQ(back->beam_kernels[0].counts, lab->beam_kernels[0].counts);
  EXPECT_EQ(back->threshold_sweeps[0].detections, lab->threshold_sweeps[0].detections);
  EXPECT_EQ(back->checksum.size(), 64u);
  auto again = ReadLabFolder(dir);
  EXPECT_EQ(again->checksum, back->checksum);
  // No temporary folder left beside it.
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.parent_path()))
    ++entries;
  EXPECT_EQ(entries, 1u);
}

// Issue 36: a range of 1e308 m in a lab table was read as a measurement.
TEST(VirtualLab, RangesNoBenchCanHaveAreRefusedNamingTheRow) {
  auto lab = SimulateLab(TrueUnit(), {3});
  ASSERT_TRUE(lab.ok()) << lab.message();
  lt::test::TempDir tmp;
  const fs::path dir = tmp / "lab";
  ASSERT_TRUE(WriteLabFolder(*lab, dir).ok());
  const fs::path csv = dir / lab->threshold_sweeps[0].file;
  std::string text;
  {
    std::ifstream in(csv, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t row = text.find('\n') + 1;  // the first row after the header
  text.replace(row, text.find(',', row) - row, "1e308");
  std::ofstream(csv, std::ios::binary) << text;
  auto back = ReadLabFolder(dir);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.message().find("range must be in (0, 1e5] m"), std::string::npos)
      << back.message();
}

// Issue 36: a sigma of 0 in a lab table weighed its row infinitely, and any 0 made the fit
// drop every row's sigma silently; the row is named instead.
TEST(VirtualLab, ASigmaOfZeroIsRefusedNamingTheRow) {
  auto lab = SimulateLab(TrueUnit(), {3});
  ASSERT_TRUE(lab.ok()) << lab.message();
  ASSERT_FALSE(lab->reflectance_curves.empty());
  lt::test::TempDir tmp;
  const fs::path dir = tmp / "lab";
  ASSERT_TRUE(WriteLabFolder(*lab, dir).ok());
  const fs::path csv = dir / lab->reflectance_curves[0].file;
  std::string text;
  {
    std::ifstream in(csv, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t row_end = text.find('\n', text.find('\n') + 1);  // the first data row's end
  const size_t last = text.rfind(',', row_end) + 1;
  text.replace(last, row_end - last, "0");
  std::ofstream(csv, std::ios::binary) << text;
  auto back = ReadLabFolder(dir);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.message().find(csv.filename().string() + ":2: sigma must be positive, got 0"),
            std::string::npos)
      << back.message();
}

void ExpectCoverage(const SensorProfile& base, const char* what, double peak_power_w = 0) {
  const SensorProfile truth = TrueUnit();
  auto expected = Truth(truth);
  if (peak_power_w > 0) expected["detector.peak_power_w"] = peak_power_w;
  Coverage coverage;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto lab = SimulateLab(truth, {seed});
    ASSERT_TRUE(lab.ok()) << lab.message();
    auto c = Calibrate(*lab, base, "virtual", "2026-11-22T00:00:00Z");
    ASSERT_TRUE(c.ok()) << what << " seed " << seed << ": " << c.message();
    for (const auto& e : c->profile.calibration.parameters) {
      const auto t = expected.find(e.key);
      if (t == expected.end()) continue;
      coverage.Add(e.key, e.value, e.stddev, t->second);
    }
  }
  EXPECT_GE(coverage.count(), 20 * 14);
  coverage.Print();
  coverage.Expect(what);
}

// `model: auto` picks the angular model the data support, with and without sigmas.
TEST(VirtualLab, AutoModelPicksTheLobeForGlossyPaintAndLambertForTheWhiteTarget) {
  auto lab = SimulateLab(TrueUnit(), {6});
  ASSERT_TRUE(lab.ok()) << lab.message();
  for (bool sigmas : {true, false}) {
    LabFolder l = *lab;
    for (auto& r : l.reflectance_curves) {
      r.model = "auto";
      if (!sigmas)
        for (auto& s : r.samples)
          s.sigma = 0;
    }
    auto c = Calibrate(l, DataSheet(), "virtual", "2026-11-22T00:00:00Z");
    ASSERT_TRUE(c.ok()) << c.message();
    std::map<std::string, std::string> chosen;
    for (const auto& f : c->fits)
      if (f.kind == "reflectance") chosen[f.file] = f.result.model;
    EXPECT_EQ(chosen["reflectance_glossy_paint.csv"], "lambert_specular") << sigmas;
    EXPECT_EQ(chosen["reflectance_lambertian_50.csv"], "lambert") << sigmas;
  }
}

// From the data sheet: tests/calib/calibration_coverage_test.cpp (50 seeds, per parameter).

// The fits start from the data, so a base's wrong fitted keys change nothing; what a base does
// supply is used: here a cone footprint (the beam fit must replace it by Gaussian spots) and a
// 25 mm aperture with 0.8 optics, so the link constant must turn into a peak power of
// 16 x (20^2 x 0.9) / (25^2 x 0.8) W.
TEST(VirtualLab, CalibrationCoversTheTruthFromAPerturbedBase) {
  SensorProfile base = DataSheet();
  base.detector.link.peak_power_w *= 2.5;
  base.detector.threshold_w *= 0.5;
  base.footprint.kind = physics::FootprintKind::kCone;
  base.footprint.half_angle_rad = 1e-3;
  base.detector.link.aperture_diameter_m = 0.025;
  base.detector.link.optics_transmission = 0.8;
  ExpectCoverage(base, "from a perturbed base", 16 * (0.02 * 0.02 * 0.9) / (0.025 * 0.025 * 0.8));
}

}  // namespace
}  // namespace lt::calib

namespace lt::calib {
namespace {

// Every shipped profile is either measured (a lab with at least one measurement) or refused
// before anything is simulated, naming the profile keys to add; the refusal names no CLI
// flag. (labgen wrote an empty lab for the VLP-16, and refused the threshold profiles one
// missing key at a time.)
TEST(VirtualLab, EveryShippedProfileIsMeasuredOrRefusedNamingTheKeysToAdd) {
  size_t accepted = 0, refused = 0;
  for (const auto& e : fs::directory_iterator(lt::test::ConfigDir() / "sensors")) {
    if (e.path().extension() != ".yaml") continue;
    auto p = LoadSensorProfile(e.path());
    ASSERT_TRUE(p.ok()) << p.message();
    const Status check = CheckVirtualLabProfile(*p);
    auto lab = SimulateLab(*p, {1, Backend::kCpu, 4});
    if (!check.ok()) {
      ++refused;
      ASSERT_FALSE(lab.ok()) << e.path();
      EXPECT_EQ(lab.message(), check.message());
      EXPECT_NE(check.message().find("key 'detector."), std::string::npos) << check.message();
      EXPECT_NE(check.message().find(e.path().string()), std::string::npos) << check.message();
      EXPECT_EQ(check.message().find("--"), std::string::npos) << check.message();
      continue;
    }
    ++accepted;
    ASSERT_TRUE(lab.ok()) << e.path() << ": " << lab.message();
    EXPECT_GT(lab->beam_kernels.size() + lab->threshold_sweeps.size() +
                  lab->range_intensity_curves.size() + lab->reflectance_curves.size() +
                  lab->capability_curves.size() + lab->waveform_sets.size(),
              0u)
        << e.path();
  }
  // The Cube 1 (waveform; ideal with Gaussian spots), the OS0-128 (capability) and the lab
  // example; the airborne scanners, the VLP-16, the MEMS example and the threshold data sheets.
  EXPECT_GE(accepted, 4u);
  EXPECT_GE(refused, 1u);
}

TEST(VirtualLab, AnIdealDetectorWithAConeBeamIsRefusedNamingWhatToAdd) {
  auto vlp = LoadSensorProfile(lt::test::ConfigDir() / "sensors/velodyne_vlp16.yaml");
  ASSERT_TRUE(vlp.ok()) << vlp.message();
  const Status s = CheckVirtualLabProfile(*vlp);
  ASSERT_FALSE(s.ok());
  for (const char* want :
       {"key 'detector.type': is ideal", "beam.footprint is cone", "detector.type threshold",
        "signal_noise_nw > 0", "detector.type capability", "beam.footprint gaussian"})
    EXPECT_NE(s.message().find(want), std::string::npos) << want << "\n" << s.message();
}

// The data sheet lacks the receiver noise the threshold sweep measures; its full overlap is
// declared in the lab (fit: {overlap: none}), and an overlap the rows cannot see is refused.
TEST(VirtualLab, ANoiselessThresholdDetectorIsRefusedAndAnInvisibleOverlapToo) {
  const Status s = CheckVirtualLabProfile(DataSheet());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("key 'detector.signal_noise_nw': is 0"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("e.g. 72"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("overlap_range_m"), std::string::npos) << s.message();
  SensorProfile fixed = DataSheet();
  fixed.detector.signal_noise_w = 72e-9;
  EXPECT_TRUE(CheckVirtualLabProfile(fixed).ok()) << CheckVirtualLabProfile(fixed).message();
  fixed.detector.overlap = {0.8, 2};
  EXPECT_TRUE(CheckVirtualLabProfile(fixed).ok()) << CheckVirtualLabProfile(fixed).message();
  fixed.detector.overlap = {0.2, 2};  // 0.98 of the light at 0.4 m: one row dimmed
  EXPECT_NE(CheckVirtualLabProfile(fixed).message().find("raise it to at least"),
            std::string::npos);
}

// A capability detector whose d_max lies beyond the rays' reach read max_range_m for every
// bright target and calibrated to the reach (80 m came back as 50 m and R_L 0.8 as 0.50).
TEST(VirtualLab, ACapabilityReachBeyondMaxRangeIsRefused) {
  auto sheet = LoadSensorProfile(lt::test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(sheet.ok()) << sheet.message();
  SensorProfile far = *sheet;
  far.detector.max_range_m = 80;
  EXPECT_NE(CheckVirtualLabProfile(far).message().find("key 'detector.max_range_m'"),
            std::string::npos);
  SensorProfile dark = *sheet;
  dark.detector.reflectance_at_max_range = 0.05;
  EXPECT_NE(CheckVirtualLabProfile(dark).message().find("key 'detector.reflectance_at_max_range'"),
            std::string::npos);
}

// The shipped example of docs/calibration.md is the unit the demo and these tests calibrate.
TEST(VirtualLab, TheShippedLabExampleIsTheExampleUnitAsBuilt) {
  auto file = LoadSensorProfile(lt::test::ConfigDir() /
                                "sensors/ouster_os0_128_threshold_lab_example.yaml");
  ASSERT_TRUE(file.ok()) << file.message();
  const SensorProfile unit = ExampleUnitAsBuilt(DataSheet());
  const DetectorConfig &f = file->detector, &u = unit.detector;
  EXPECT_DOUBLE_EQ(f.link.peak_power_w, u.link.peak_power_w);
  EXPECT_NEAR(f.threshold_w, u.threshold_w, 1e-15);
  EXPECT_NEAR(f.signal_noise_w, u.signal_noise_w, 1e-15);
  EXPECT_NEAR(f.walk_reference_power_w, u.walk_reference_power_w, 1e-13);
  EXPECT_DOUBLE_EQ(f.pulse_energy_jitter, u.pulse_energy_jitter);
  EXPECT_DOUBLE_EQ(f.overlap.range_m, u.overlap.range_m);
  EXPECT_DOUBLE_EQ(f.overlap.sharpness, u.overlap.sharpness);
  EXPECT_NEAR(file->footprint.spots[0].sigma_h_rad, unit.footprint.spots[0].sigma_h_rad, 1e-12);
  EXPECT_NEAR(file->footprint.spots[0].sigma_v_rad, unit.footprint.spots[0].sigma_v_rad, 1e-12);
  EXPECT_TRUE(CheckVirtualLabProfile(*file).ok()) << CheckVirtualLabProfile(*file).message();
}

// A capability-detector unit: CalibrationCoverage.Os0CapabilityUnit (50 seeds).

// Three spots 0.17 deg apart, each 0.17 deg wide (the Cube 1's beam, seed 004 Fig. 5): the
// emitter image is fitted with a three-spot mixture and the effective spots come back.
TEST(VirtualLab, ThreeSpotBeamIsRecovered) {
  auto cube = LoadSensorProfile(lt::test::ConfigDir() / "sensors/blickfeld_cube1.yaml");
  ASSERT_TRUE(cube.ok()) << cube.message();
  ASSERT_EQ(cube->footprint.spot_count, 3u);
  auto lab = SimulateLab(*cube, {11, Backend::kCpu, 4});
  ASSERT_TRUE(lab.ok()) << lab.message();
  ASSERT_EQ(lab->beam_kernels.size(), 1u);
  EXPECT_EQ(lab->beam_kernels[0].spots, 3u);
  auto c = Calibrate(*lab, *cube, "virtual", "2026-11-22T00:00:00Z");
  ASSERT_TRUE(c.ok()) << c.message();
  const auto& f = c->profile.footprint;
  ASSERT_EQ(f.spot_count, 3u);
  // Spots may come back in any order: match each true spot to the nearest fitted one.
  for (uint32_t t = 0; t < 3; ++t) {
    const auto& truth = cube->footprint.spots[t];
    uint32_t best = 0;
    for (uint32_t k = 1; k < 3; ++k)
      if (std::abs(f.spots[k].v_offset_rad - truth.v_offset_rad) <
          std::abs(f.spots[best].v_offset_rad - truth.v_offset_rad))
        best = k;
    EXPECT_NEAR(f.spots[best].v_offset_rad, truth.v_offset_rad, 0.02e-3) << t;
    EXPECT_NEAR(f.spots[best].h_offset_rad, truth.h_offset_rad, 0.02e-3) << t;
    EXPECT_NEAR(f.spots[best].sigma_v_rad, truth.sigma_v_rad, 0.01 * truth.sigma_v_rad) << t;
    EXPECT_NEAR(f.spots[best].power,
                truth.power / (cube->footprint.spots[0].power + cube->footprint.spots[1].power +
                               cube->footprint.spots[2].power),
                0.01)
        << t;
  }
}

}  // namespace
}  // namespace lt::calib

namespace lt::calib {
namespace {

TEST(LabFolderValidate, NamesTheFileRowAndValueAndWriteRefuses) {
  auto lab = SimulateLab(TrueUnit(), {2});
  ASSERT_TRUE(lab.ok()) << lab.message();
  EXPECT_TRUE(lab->Validate().ok()) << lab->Validate().message();
  LabFolder bad = *lab;
  bad.range_intensity_curves[0].samples[3].signal = -1;
  const Status s = bad.Validate();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("range_intensity.csv[3].signal"), std::string::npos) << s.message();
  lt::test::TempDir tmp;
  EXPECT_FALSE(WriteLabFolder(bad, tmp / "lab").ok());
  EXPECT_FALSE(std::filesystem::exists(tmp / "lab"));
  LabFolder twice = *lab;
  twice.reflectance_curves[1].material = twice.reflectance_curves[0].material;
  EXPECT_NE(twice.Validate().message().find("conditions.material"), std::string::npos);
  LabFolder no_wavelength = *lab;
  no_wavelength.wavelength_nm = 0;
  EXPECT_NE(no_wavelength.Validate().message().find("wavelength_nm"), std::string::npos);
  LabFolder same_exposure = *lab;
  same_exposure.beam_kernels[0].exposure_us[1] = same_exposure.beam_kernels[0].exposure_us[0];
  EXPECT_NE(same_exposure.Validate().message().find("exposures must differ"), std::string::npos);
}

}  // namespace
}  // namespace lt::calib

namespace lt::calib {
namespace {

// A labgen killed mid-write leaves ".lab.tmp-PID"; the next write into that folder's parent
// removes it once PID is gone, and leaves a live process's folder alone.
TEST(VirtualLab, StaleTemporaryFoldersOfKilledRunsAreRemoved) {
  auto lab = SimulateLab(TrueUnit(), {4});
  ASSERT_TRUE(lab.ok()) << lab.message();
  lt::test::TempDir tmp;
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);  // a pid that is surely gone
  const auto stale = tmp / (".lab.tmp-" + std::to_string(child));
  const auto live = tmp / (".lab.tmp-" + std::to_string(getppid()));
  std::filesystem::create_directories(stale / "sub");
  std::filesystem::create_directories(live);
  ASSERT_TRUE(WriteLabFolder(*lab, tmp / "lab").ok());
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_TRUE(std::filesystem::exists(tmp / "lab/manifest.yaml"));
}

}  // namespace
}  // namespace lt::calib

namespace lt::calib {
namespace {

// The Cube 1's waveform chain (issue 15): labgen's records of single targets go through the
// lab folder (HDF5, read back equal), and `Calibrate` from the data sheet gives the unit's
// SiPM recovery, pole, gain and noise back within their uncertainties; the calibrated profile
// carries them and reads back. Coverage over many labs: tests/calib/waveform_fit_test.cpp.
TEST(VirtualLab, WaveformUnitIsCalibratedThroughTheLabFolder) {
  auto sheet = LoadSensorProfile(lt::test::ConfigDir() / "sensors/blickfeld_cube1.yaml");
  ASSERT_TRUE(sheet.ok()) << sheet.message();
  SensorProfile unit = *sheet;
  unit.detector.waveform.sipm_recovery_ns = 24;
  unit.detector.waveform.transimpedance_ohm = 45;
  unit.detector.waveform.circuit_poles_mhz = {170};
  unit.detector.waveform.thermal_noise_mv = 0.8;
  auto lab = SimulateLab(unit, {11, Backend::kCpu, 16});
  ASSERT_TRUE(lab.ok()) << lab.message();
  ASSERT_EQ(lab->waveform_sets.size(), 6u);
  lt::test::TempDir tmp;
  ASSERT_TRUE(WriteLabFolder(*lab, tmp / "lab").ok());
  auto back = ReadLabFolder(tmp / "lab");
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->waveform_sets.size(), 6u);
  EXPECT_EQ(back->waveform_sets[3].volts, lab->waveform_sets[3].volts);
  EXPECT_EQ(back->waveform_sets[3].range_m, lab->waveform_sets[3].range_m);
  EXPECT_NEAR(back->waveform_sets[3].dt_ns, 1.0, 1e-9);
  auto c = Calibrate(*back, *sheet, "virtual", "2026-11-23T00:00:00Z");
  ASSERT_TRUE(c.ok()) << c.message();
  const std::map<std::string, double> truth = {{"detector.sipm_recovery_ns", 24},
                                               {"detector.transimpedance_ohm", 45},
                                               {"detector.circuit_poles_mhz[0]", 170},
                                               {"detector.thermal_noise_mv", 0.8}};
  size_t found = 0;
  for (const ProfileUpdate& u : c->updates) {
    auto it = truth.find(u.key);
    if (it == truth.end()) continue;
    ++found;
    EXPECT_GT(u.stddev, 0) << u.key;
    EXPECT_NEAR(u.after, it->second, 4 * u.stddev) << u.key;
  }
  EXPECT_EQ(found, truth.size());
  EXPECT_NEAR(c->profile.detector.waveform.transimpedance_ohm, 45, 2);
  auto reread = ParseSensorProfile(SaveSensorProfile(c->profile), "calibrated.yaml");
  ASSERT_TRUE(reread.ok()) << reread.message();
  EXPECT_EQ(reread->detector.waveform.circuit_poles_mhz,
            c->profile.detector.waveform.circuit_poles_mhz);
  EXPECT_FALSE(reread->calibration.parameters.empty());
}

}  // namespace
}  // namespace lt::calib
