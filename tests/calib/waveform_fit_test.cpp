// The waveform fit (calib/waveform_fit.h) against records the chain makes from a known profile:
// recovery of the SiPM's recovery time, the circuit's pole and gain and the thermal noise, the
// coverage of their reported standard deviations, and seed 002 eq. (12)'s amplitude MAPE.
#include "lidartwin/calib/waveform_fit.h"

#include <gtest/gtest.h>

#include "calib/coverage.h"
#include "lidartwin/calib/lab_folder.h"
#include "lidartwin/datasets/hdf5_arrays.h"
#include "test_support.h"

namespace lt::calib {
namespace {

SensorProfile Cube() {
  auto p = LoadSensorProfile(lt::test::ConfigDir() / "sensors/blickfeld_cube1.yaml");
  EXPECT_TRUE(p.ok()) << p.message();
  return *p;
}

// The unit: the data sheet's chain with another recovery time, pole, gain and noise.
SensorProfile Unit() {
  SensorProfile p = Cube();
  WaveformConfig& w = p.detector.waveform;
  w.sipm_recovery_ns = 27;
  w.transimpedance_ohm = 58;
  w.circuit_poles_mhz = {125};
  w.thermal_noise_mv = 1.4;
  return p;
}

// Targets of seed 002 sec. 6.1 (10 % at 10..40 m) and an 80 % plate near enough to saturate
// the SiPM (its recovery time shows only there).
std::vector<WaveformSet> Lab(const SensorProfile& unit, uint64_t seed, uint32_t records = 64) {
  std::vector<WaveformSet> sets;
  const std::pair<double, double> targets[] = {{5, 0.8},  {8, 0.8},  {10, 0.1},
                                               {20, 0.1}, {30, 0.1}, {40, 0.1}};
  uint32_t k = 0;
  for (const auto& [range, rho] : targets) {
    WaveformSet s;
    s.file = "waveforms_" + std::to_string(k) + ".h5";
    s.range_m = range;
    s.reflectance = rho;
    s.dt_ns = unit.detector.waveform.sample_interval_ns;
    s.samples = unit.detector.waveform.samples;
    s.records = records;
    s.volts = MeasuredWaveforms(unit, range, rho, records, seed * 100 + k++);
    sets.push_back(std::move(s));
  }
  return sets;
}

TEST(WaveformFit, RecoversTheUnitsChainWithCoverage) {
  const SensorProfile unit = Unit();
  test::Coverage coverage;
  double worst_mape = 0, mean_mape = 0, mean_sheet_mape = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const auto lab = Lab(unit, seed);
    auto fit = FitWaveforms(Cube(), lab);
    ASSERT_TRUE(fit.ok()) << fit.message();
    coverage.Add(*fit, "sipm_recovery_ns", 27);
    coverage.Add(*fit, "transimpedance_ohm", 58);
    coverage.Add(*fit, "circuit_poles_mhz[0]", 125);
    coverage.Add(*fit, "thermal_noise_mv", 1.4);
    const double mape = fit->Find("check.amplitude_mape_percent")->value;
    worst_mape = std::max(worst_mape, mape);
    mean_mape += mape / 30;
    mean_sheet_mape += 100 * WaveformAmplitudeMape(Cube(), lab).value() / 30;
  }
  coverage.Print();
  coverage.Expect("waveform fit");
  // The fitted chain reproduces the mean records' peaks to within their noise (the farthest
  // targets' peaks, a few mV, carry 2-3 % of it with 64 records), far closer than the data
  // sheet's chain (seed 002 reports 1.7 % against a real unit).
  std::printf(
      "[waveform] amplitude MAPE over 30 labs: fitted %.2f %% (worst %.2f %%), data "
      "sheet %.2f %%\n",
      mean_mape, worst_mape, mean_sheet_mape);
  EXPECT_LT(mean_mape, 2.5);
  EXPECT_LT(worst_mape, 4.0);
  EXPECT_GT(mean_sheet_mape, 4 * mean_mape);
}

TEST(WaveformFit, SaysWhatIsMissing) {
  const SensorProfile unit = Unit();
  auto sets = Lab(unit, 1, 64);
  SensorProfile ideal = Cube();
  ideal.detector.kind = DetectorKind::kIdeal;
  EXPECT_NE(FitWaveforms(ideal, sets).message().find("is not `waveform`"), std::string::npos);
  SensorProfile other = Cube();
  other.detector.waveform.samples = 4096;
  EXPECT_NE(FitWaveforms(other, sets).message().find("waveforms_0.h5: records of 2048 samples"),
            std::string::npos);
  auto few = Lab(unit, 1, 16);
  EXPECT_NE(FitWaveforms(Cube(), few).message().find("16 records; at least 32"), std::string::npos);
  // A measured circuit response has no poles to fit.
  SensorProfile measured = Cube();
  measured.detector.waveform.circuit_response = {{0, 600}, {50, 5}, {0, -90}};
  EXPECT_NE(FitWaveforms(measured, sets).message().find("a measured response is not fitted"),
            std::string::npos);
}

}  // namespace
}  // namespace lt::calib

namespace lt::calib {
namespace {

// A lab folder's waveform files, damaged: each refused with the file and the problem, before
// a fit can run on them (reader) or when the records cannot be the manifest's (fit).
TEST(WaveformFit, DamagedRecordsAreRefusedByName) {
  LabFolder lab;
  lab.name = "damaged";
  lab.wavelength_nm = 905;
  auto sets = Lab(Unit(), 2, 32);
  sets.resize(2);
  lab.waveform_sets = sets;
  lt::test::TempDir tmp;
  ASSERT_TRUE(WriteLabFolder(lab, tmp / "lab").ok());
  const auto file = tmp / "lab" / sets[0].file;
  auto rewrite = [&](std::vector<double> time, std::vector<double> volts, size_t records) {
    Hdf5Array t{{time.size()}, time}, v{{records, time.size()}, volts};
    std::filesystem::remove(file);
    ASSERT_TRUE(WriteHdf5Arrays(file, {{"time_ns", t}, {"volts", v}}).ok());
  };
  std::vector<double> time(2048), volts(2048 * 32, 0.1);
  for (size_t i = 0; i < time.size(); ++i)
    time[i] = static_cast<double>(i);
  std::vector<double> shifted = time;
  for (double& x : shifted)
    x -= 64;
  rewrite(shifted, volts, 32);
  EXPECT_NE(ReadLabFolder(tmp / "lab").message().find("time_ns must start at 0"),
            std::string::npos);
  rewrite({0, 1}, std::vector<double>(64, 0.1), 32);
  EXPECT_NE(ReadLabFolder(tmp / "lab").message().find("time_ns has 2 samples"), std::string::npos);
  volts[5] = 1e30;
  rewrite(time, volts, 32);
  EXPECT_NE(
      ReadLabFolder(tmp / "lab").message().find("volts[0][5] is 1.000000015e+30 V, not a voltage"),
      std::string::npos)
      << ReadLabFolder(tmp / "lab").message();
  // Records the fit cannot take: a target beyond the record, or not the manifest's target.
  auto far = sets;
  far[0].range_m = 5000;
  EXPECT_NE(FitWaveforms(Cube(), far).message().find("echoes after the 2048 ns record ends"),
            std::string::npos);
  auto wrong = Lab(Unit(), 3, 32);
  for (auto& s : wrong)
    s.reflectance *= 3;
  EXPECT_NE(FitWaveforms(Cube(), wrong).message().find("the chain does not fit the records"),
            std::string::npos);
}

}  // namespace
}  // namespace lt::calib
