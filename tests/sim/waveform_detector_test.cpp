// The waveform detector in the simulator (CPU backend; the gpu tests hold CUDA to the same
// frames): ranges and intensities of plates, sunlight, echoes, labels and determinism
// (seed 002 sec. 5; the equations' own tests are in tests/physics/waveform_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "cpu/cpu_simulator.h"
#include "internal/waveform_setup.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/photon_counting.h"
#include "sim/expect_same_frames.h"
#include "sim/sim_test_scenes.h"
#include "test_support.h"

namespace lt {
namespace {

// One beam along +x (one channel, `columns` columns) with the waveform detector.
SensorProfile WaveformSensor(uint32_t columns = 1) {
  SensorProfile p = test::SpinningSensor(1, 0, 0, columns, 10);
  p.clockwise = false;
  p.min_range_m = 3.5;  // beyond the internal reflection's window (3.3 m)
  p.max_range_m = 200;
  p.detector.kind = DetectorKind::kWaveform;
  p.detector.link = {0.2, 0.02, 0.9, 0.0};
  p.detector.pulse_width_ns = 4;
  p.detector.return_mode = physics::ReturnMode::kFirst;
  p.detector.max_echoes = 4;
  p.detector.max_surfaces_per_sub_ray = 2;
  WaveformConfig& w = p.detector.waveform;
  w.internal_reflection_nw = 50;
  w.thermal_noise_mv = 1;
  EXPECT_TRUE(p.Validate().ok()) << p.Validate().message();
  return p;
}

Scene PlateScene(double range_m, double reflectance, double sunlight = 0) {
  Scene s;
  s.materials = test::ConstantMaterials({reflectance});
  s.objects.push_back(test::Placed("plate", MakePlate(20, 20), {range_m, 0, 0}, 0, 0, 0, 0, 7, 42));
  s.description.sunlight = sunlight;
  return s;
}

Frame Simulate(const Scene& scene, const SensorProfile& profile, uint64_t seed = 1,
               unsigned threads = 0) {
  return CpuSimulator(scene, profile, Trajectory::Static(), {seed, threads}).Simulate(0).value();
}

TEST(WaveformDetector, NoiseFreePlatesReadTheirRangeAndAnIntensityInverseInRangeSquared) {
  SensorProfile p = WaveformSensor();
  p.detector.waveform.shot_noise = false;
  p.detector.waveform.thermal_noise_mv = 0;
  p.detector.waveform.dark_count_rate_khz = 0;
  double i10 = 0;
  for (double r : {10.0, 14.3, 20.0, 27.77}) {
    const Frame f = Simulate(PlateScene(r, 0.5), p);
    ASSERT_EQ(f.size(), 1u) << r;
    // The sub-sample peak fit's error (tests/physics/waveform_test.cpp): within 2.5 mm.
    EXPECT_NEAR(f.range_m[0], r, 2.5e-3) << r;
    EXPECT_EQ(f.instance_id[0], 7u);
    EXPECT_EQ(f.semantic_class[0], 42u);
    EXPECT_EQ(f.return_index[0], 0u);
    ASSERT_EQ(f.echo_pulse_width_ns.size(), 1u);
    EXPECT_GT(f.echo_pulse_width_ns[0], 4.0f);  // the circuit widens the 4 ns pulse
    if (r == 10.0) i10 = f.intensity[0];
    // Intensity: integer counts of the peak height, linear in the received power (1/R^2)
    // to the fit's 0.3 % and the rounding's half count.
    EXPECT_EQ(f.intensity[0], std::floor(f.intensity[0]));
    EXPECT_NEAR(f.intensity[0], i10 * 100 / (r * r), 3e-3 * i10 * 100 / (r * r) + 0.5) << r;
  }
  EXPECT_GT(i10, 100);
}

// The fraction of `pulses` frames of one beam that see the plate at its range (each frame
// draws its own photons and noise).
double DetectionRate(double range_m, double sunlight) {
  const uint32_t pulses = 48;
  const SensorProfile p = WaveformSensor();
  const Scene scene = PlateScene(range_m, 0.1, sunlight);
  CpuSimulator sim(scene, p, Trajectory::Static(), {3, 1});
  int hits = 0;
  for (uint32_t k = 0; k < pulses; ++k) {
    const Frame f = sim.Simulate(k).value();
    for (size_t i = 0; i < f.size(); ++i)
      if (std::abs(f.range_m[i] - range_m) < 0.3) {
        ++hits;
        break;
      }
  }
  return static_cast<double>(hits) / pulses;
}

TEST(WaveformDetector, SunlightShortensTheDetectionRangeOfATenPercentPlate) {
  // Seed 002 sec. 6.2.2: in sunlight the real sensor sees a 10 % plate less far. The noise
  // of the sun's photons raises the threshold (noise_threshold_factor x the pretrigger rms).
  double dark_range = 0, sunny_range = 0;
  for (double r = 10; r <= 120; r += 10) {
    if (DetectionRate(r, 0.0) >= 0.5) dark_range = r;
    if (DetectionRate(r, 1.0) >= 0.5) sunny_range = r;
  }
  std::printf("10 %% plate detected in half the pulses to %.0f m without sun, %.0f m in sun\n",
              dark_range, sunny_range);
  EXPECT_GE(dark_range, 30);
  EXPECT_LT(sunny_range, dark_range);
  EXPECT_GT(sunny_range, 0);
}

TEST(WaveformDetector, SunlightPowerIsEquationFourWithTheG173Band) {
  SensorProfile p = WaveformSensor();
  // 905 nm +- 15 nm of ASTM G173 global tilt: 21.59 W/m^2 (the file's trapezoid sum,
  // scripts/make-solar-table.py); times the 3 mrad field's solid angle, the aperture and T_opt.
  const double omega = physics::ConeSolidAngle(3e-3);
  const double expected = 21.585495 * omega * 0.02 * 0.02 * 0.9 / 4;
  EXPECT_NEAR(SunPowerPerAlbedo(p, 1.0), expected, 1e-6 * expected);
  EXPECT_NEAR(SunPowerPerAlbedo(p, 0.5), expected / 2, 1e-6 * expected);
  EXPECT_EQ(SunPowerPerAlbedo(p, 0.0), 0.0);
}

TEST(WaveformDetector, SameSeedSameFrameOnAnyThreadCountAndAnotherSeedDiffers) {
  const SensorProfile p = WaveformSensor(256);
  const Scene s = PlateScene(35, 0.1, 1.0);
  const Frame a = Simulate(s, p, 5, 1);
  const Frame b = Simulate(s, p, 5, 2);
  test::ExpectSameFrames(a, b, "1 vs 2 threads");
  const Frame c = Simulate(s, p, 6, 2);
  bool differs = a.size() != c.size();
  for (size_t i = 0; !differs && i < a.size(); ++i)
    differs = a.range_m[i] != c.range_m[i] || a.intensity[i] != c.intensity[i];
  EXPECT_TRUE(differs);
}

TEST(WaveformDetector, TwoPlatesGiveTwoEchoesAndNoiseEchoesCarryNoLabels) {
  SensorProfile p = WaveformSensor();
  p.footprint.kind = physics::FootprintKind::kGaussian;
  p.footprint.sub_rays = 32;
  p.footprint.spot_count = 1;
  p.footprint.spots[0] = {0, 0, 0.5e-3, 0.5e-3, 1.0};
  p.detector.waveform.shot_noise = false;
  p.detector.waveform.thermal_noise_mv = 0;
  // Half the footprint on a plate at 10 m, the rest on a wall at 16 m.
  Scene s;
  s.materials = test::ConstantMaterials({0.5, 0.5});
  s.objects.push_back(test::Placed("plate", MakePlate(2, 2), {10, 1, 0}, 0, 0, 0, 0, 1, 64));
  s.objects.push_back(test::Placed("wall", MakePlate(50, 50), {16, 0, 0}, 0, 0, 0, 1, 2, 1));
  const Frame f = Simulate(s, p);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NEAR(f.range_m[0], 10, 5e-3);
  EXPECT_NEAR(f.range_m[1], 16, 5e-3);
  EXPECT_EQ(f.instance_id[0], 1u);
  EXPECT_EQ(f.instance_id[1], 2u);
  EXPECT_EQ(f.return_index[1], 1u);
  // A threshold within the thermal noise: echoes in empty air, without labels.
  SensorProfile noisy = WaveformSensor(64);
  noisy.detector.waveform.thermal_noise_mv = 3;
  noisy.detector.waveform.noise_threshold_factor = 0;
  noisy.detector.waveform.threshold_mv = 3;
  Scene empty = PlateScene(500, 0.5);  // beyond max_range_m and the record
  const Frame n = Simulate(empty, noisy);
  ASSERT_GT(n.size(), 0u);
  for (size_t i = 0; i < n.size(); ++i) {
    EXPECT_EQ(n.instance_id[i], 0xffffffffu);
    EXPECT_EQ(n.material_id[i], 0xffffu);
  }
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

// Records of selected beams (`simulate --waveforms`): each frame carries them, in beam order;
// the record holds the echo the frame reports (its target peak at the plate's round trip, its
// height giving the reported intensity to within the peak fit) and the frame is the same as
// without records.
TEST(WaveformDetector, SelectedBeamsCarryTheirRecords) {
  SensorProfile p = WaveformSensor(8);
  const Scene scene = PlateScene(20, 0.5);
  SimulationOptions options{9, 0};
  options.waveform_beams = {0, 5};
  CpuSimulator sim(scene, p, Trajectory::Static(), options);
  const Frame f = sim.Simulate(0).value();
  ASSERT_EQ(f.waveform_beams, (std::vector<uint32_t>{0, 5}));
  const uint32_t n = p.detector.waveform.samples;
  ASSERT_EQ(f.waveform_samples, n);
  ASSERT_EQ(f.waveform_volts.size(), 2u * n);
  EXPECT_NEAR(f.waveform_dt_s, 1e-9, 1e-18);
  const Frame plain = Simulate(scene, p, 9);
  test::ExpectSameFrames(plain, f, "with and without records");
  // Beam 0 looks along +x at the plate: its record peaks where the plate's echo is.
  ASSERT_GT(f.size(), 0u);
  ASSERT_EQ(f.beam_id[0], 0u);
  const double t_e = 64e-9 + 4 * 4e-9 / physics::kFwhmPerSigma;
  const auto target = static_cast<uint32_t>((t_e + 2 * 20 / physics::kSpeedOfLight_m_s) / 1e-9);
  uint32_t top = target - 10;
  for (uint32_t i = target - 10; i < target + 20; ++i)
    if (f.waveform_volts[i] > f.waveform_volts[top]) top = i;
  EXPECT_NEAR(top, target, 4);  // the circuit delays the peak by a few samples
  double baseline = 0;
  for (uint32_t i = 0; i < 64; ++i)
    baseline += f.waveform_volts[i] / 64;
  const double height = f.waveform_volts[top] - baseline;
  EXPECT_NEAR(f.intensity[0], 4096 * height / 2.0, 0.05 * f.intensity[0] + 2);
  // Records need the waveform detector and beams the profile has.
  SensorProfile ideal = p;
  ideal.detector.kind = DetectorKind::kIdeal;
  EXPECT_NE(CreateSimulator(Backend::kCpu, scene, ideal, Trajectory::Static(), options)
                .message()
                .find("need the waveform detector"),
            std::string::npos);
  options.waveform_beams = {0, 8};
  EXPECT_NE(CreateSimulator(Backend::kCpu, scene, p, Trajectory::Static(), options)
                .message()
                .find("beam 8 is beyond"),
            std::string::npos);
}

// The internal reflection is the same pulse in every beam: MakeWaveformTables computes its
// bins once (physics/internal_reflection.h). The tabulated chain must be the chain that
// computes it per beam: the same power, so the same noise-free record; the same draws where
// the bins' means are drawn by inversion; Poisson counts at its peak (57 photons: rejection
// otherwise).
TEST(WaveformDetector, InternalReflectionIsTabulatedOnceASensor) {
  SensorProfile p = WaveformSensor();
  const WaveformTables t = MakeWaveformTables(p);
  const physics::WaveformChain w = MakeWaveformChain(p, t);
  physics::WaveformChain per_beam = w;
  per_beam.internal = {};
  const double t_int = physics::EmissionTime(w) + w.internal_delay_s;
  const physics::SampleSpan span = physics::PulseSpan(w, t_int);
  ASSERT_EQ(w.internal.first_bin, span.first);
  ASSERT_EQ(int64_t{w.internal.bins}, span.last - span.first + 1);
  const double half_inv_var = 0.5 / (w.pulse_sigma_s * w.pulse_sigma_s);
  uint32_t peak = 0;
  for (uint32_t b = 0; b < w.internal.bins; ++b) {
    EXPECT_EQ(w.internal.bin[b].power_w,
              physics::PulseSample(w, w.internal_power_w, t_int, span.first + b, half_inv_var));
    EXPECT_NE(w.internal.bin[b].first, physics::kUntabulated) << b;
    if (w.internal.bin[b].power_w > w.internal.bin[peak].power_w) peak = b;
  }
  auto mean_of = [&](uint32_t b) {
    return physics::MeanPhotonCount<double>(w.internal.bin[b].power_w, w.dt_s, w.photon_energy_j,
                                            w.efficiency, 0.0);
  };
  const double peak_mean = mean_of(peak);
  EXPECT_NEAR(peak_mean, 57, 1);
  // Noise-free records: the same power, bit for bit.
  SensorProfile quiet = p;
  quiet.detector.waveform.shot_noise = false;
  quiet.detector.waveform.thermal_noise_mv = 0;
  const WaveformTables tq = MakeWaveformTables(quiet);
  const physics::WaveformChain wq = MakeWaveformChain(quiet, tq);
  physics::WaveformChain wq_per_beam = wq;
  wq_per_beam.internal = {};
  const std::vector<physics::SignalContribution> plate = {{20.0f, 2e-9f, 0, 0}};
  std::vector<physics::ComplexF> a(wq.samples), b(wq.samples);
  physics::SimulateWaveform(wq, plate.data(), 1, 0.0, {1, 0, 0, 0, 0}, a.data());
  physics::SimulateWaveform(wq_per_beam, plate.data(), 1, 0.0, {1, 0, 0, 0, 0}, b.data());
  for (uint32_t i = 0; i < wq.samples; ++i)
    ASSERT_EQ(a[i].re, b[i].re) << i;
  // Draws: bin by bin, beam by beam, against the per-beam chain's where it inverts too, and the
  // peak's counts over many beams against Poisson's mean and variance.
  const uint32_t beams = 100000;
  double sum = 0, sum2 = 0;
  for (uint32_t beam = 0; beam < beams; ++beam) {
    const physics::RandomKey key{5, 2, beam, 0, 0};
    for (uint32_t k = 0; k < w.internal.bins; ++k) {
      if (beam >= 2000 && k != peak) continue;
      const uint32_t i = w.internal.first_bin + k;
      const float power = w.internal.bin[k].power_w;
      const physics::Philox4x32 words = physics::PhotonWords(key, i);
      const float n = physics::BinPhotons(w, key, i, power, 0.0, words);
      if (mean_of(k) < physics::kPoissonRejectionMean) {
        ASSERT_EQ(n, physics::BinPhotons(per_beam, key, i, power, 0.0, words)) << beam << " " << k;
      }
      if (k == peak) {
        sum += n;
        sum2 += double(n) * n;
      }
    }
  }
  const double m = sum / beams, var = sum2 / beams - m * m;
  EXPECT_NEAR(m, peak_mean, 5 * std::sqrt(peak_mean / beams));
  EXPECT_NEAR(var, peak_mean, 5 * std::sqrt((2 * peak_mean * peak_mean + peak_mean) / beams));
}

}  // namespace
}  // namespace lt
