// Tiers 2-5 in the simulator: a footprint of weighted sub-rays, surface responses, the return
// signal and the threshold detector, each against an analytic case (CPU backend; the gpu
// tests hold CUDA to the same frames).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "cpu/cpu_simulator.h"
#include "internal/weather_setup.h"
#include "lidartwin/physics/beam_footprint.h"
#include "lidartwin/physics/detection_probability.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/precipitation.h"
#include "lidartwin/physics/return_signal.h"
#include "sim/sim_test_scenes.h"
#include "test_support.h"

namespace lt {
namespace {

using physics::kPi;

const physics::LinkBudget kLink{20.0, 0.025, 0.9, 0.0};

void GaussianFootprint(SensorProfile& p, double sigma_rad, uint32_t sub_rays) {
  p.footprint.kind = physics::FootprintKind::kGaussian;
  p.footprint.sub_rays = sub_rays;
  p.footprint.spot_count = 1;
  p.footprint.spots[0] = {0, 0, sigma_rad, sigma_rad, 1.0};
}

Material WithResponse(Material m, double transmittance, double coverage, double retro = 0) {
  m.transmittance = transmittance;
  m.coverage = coverage;
  m.retroreflective_peak_sr = retro;
  m.retroreflective_max_entrance_deg = retro > 0 ? 60 : 0;
  return m;
}

Frame SimulateOnce(const Scene& scene, const SensorProfile& profile, uint32_t frame = 0,
                   uint64_t seed = 1) {
  return CpuSimulator(scene, profile, Trajectory::Static(), {seed}).Simulate(frame).value();
}

double PulseSigma(const SensorProfile& p) {
  return p.Threshold().pulse_sigma_m;
}

// The peak of a1 g(x - r1) + a2 g(x - r2), by a dense scan (independent of the detector).
std::pair<double, double> PeakOfTwo(double a1, double r1, double a2, double r2, double sigma) {
  double best_x = 0, best = 0;
  for (double x = std::min(r1, r2) - 1; x < std::max(r1, r2) + 1; x += 1e-5) {
    const double v =
        a1 * physics::GaussianPulse(x - r1, sigma) + a2 * physics::GaussianPulse(x - r2, sigma);
    if (v > best) {
      best = v;
      best_x = x;
    }
  }
  return {best_x, best};
}

// A plate whose edge lies on the beam axis (it covers y > 0) at 10 m, a wall behind at 10 + d.
Scene EdgeScene(double d) {
  Scene s;
  s.materials = test::ConstantMaterials({0.8, 0.3});
  s.objects.push_back(test::Placed("plate", MakePlate(2, 2), {10, 1, 0}, 0, 0, 0, 0, 1, 64));
  s.objects.push_back(test::Placed("wall", MakePlate(50, 50), {10 + d, 0, 0}, 0, 0, 0, 1, 2, 1));
  return s;
}

TEST(ThresholdDetector, HalfCoveredBeamGivesOneMixedEchoAtTheAnalyticSplit) {
  SensorProfile p = test::ThresholdBeam();
  GaussianFootprint(p, 0.5e-3, 32);  // stratified: exactly 16 sub-rays on each side
  const double d = 0.15;             // well inside the pulse (sigma_r = 0.25 m)
  const Frame f = SimulateOnce(EdgeScene(d), p);
  ASSERT_EQ(f.size(), 1u);
  // Half the power from each surface, at normal incidence (sub-ray angles < 2 mrad change
  // ranges by < 2e-5 m and cos theta by < 2e-6).
  const double a1 = 0.5 * physics::ReceivedPower(kLink, 0.8 / kPi, 1.0, 10.0);
  const double a2 = 0.5 * physics::ReceivedPower(kLink, 0.3 / kPi, 1.0, 10.0 + d);
  const auto [peak_x, peak] = PeakOfTwo(a1, 10.0, a2, 10.0 + d, PulseSigma(p));
  EXPECT_NEAR(f.range_m[0], peak_x, 2e-4);
  EXPECT_NEAR(f.intensity[0], 100 * peak / physics::WhiteTargetPower(kLink, peak_x),
              2e-3 * f.intensity[0]);
  EXPECT_EQ(f.instance_id[0], 1u);  // the plate dominates the mixed echo
  ASSERT_EQ(f.echo_pulse_width_ns.size(), 1u);
}

TEST(ThresholdDetector, TwoSurfacesInOneFootprintSplitIntoTwoEchoesOnlyBeyondThePulseWidth) {
  SensorProfile p = test::ThresholdBeam();
  GaussianFootprint(p, 0.5e-3, 32);
  const double sigma = PulseSigma(p), t = p.detector.threshold_w;
  const double fwhm_m = 0.5 * physics::kSpeedOfLight_m_s * 4e-9;  // emitted pulse: 0.6 m
  // Within the emitted pulse: one echo.
  const Frame near = SimulateOnce(EdgeScene(0.3 * fwhm_m), p);
  EXPECT_EQ(near.size(), 1u);
  // Beyond the echoes' own widths (each half of the beam alone, EPW = 2 sigma sqrt(2 ln a/T)):
  // two echoes.
  const double w1 = physics::GaussianEchoWidth(
      sigma, 0.5 * physics::ReceivedPower(kLink, 0.8 / kPi, 1.0, 10.0), t);
  const double w2 = physics::GaussianEchoWidth(
      sigma, 0.5 * physics::ReceivedPower(kLink, 0.3 / kPi, 1.0, 12.0), t);
  const double d = 1.5 * 0.5 * (w1 + w2);
  const Frame far = SimulateOnce(EdgeScene(d), p);
  ASSERT_EQ(far.size(), 2u);
  EXPECT_NEAR(far.range_m[0], 10.0, 1e-3);
  EXPECT_NEAR(far.range_m[1], 10.0 + d, 1e-3);
  EXPECT_EQ(far.return_index[0], 0u);
  EXPECT_EQ(far.return_index[1], 1u);
  // Each echo carries half the beam: intensity 100 R0 / 2.
  EXPECT_NEAR(far.intensity[0], 40.0, 0.1);
  EXPECT_NEAR(far.intensity[1], 15.0, 0.1);
}

TEST(ThresholdDetector, GlassGivesAWeakFirstEchoAndTheObjectBehindASecond) {
  Scene s;
  s.materials = test::ConstantMaterials({0.04, 0.5});
  s.materials.materials[0] = WithResponse(s.materials.materials[0], 0.9, 1.0);
  s.objects.push_back(test::Placed("pane", MakePlate(2, 2), {5, 0, 0}, 0, 0, 0, 0, 1, 64));
  s.objects.push_back(test::Placed("plate", MakePlate(2, 2), {8, 0, 0}, 0, 0, 0, 1, 2, 64));
  SensorProfile p = test::ThresholdBeam();
  GaussianFootprint(p, 0.5e-3, 8);
  const Frame f = SimulateOnce(s, p);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NEAR(f.range_m[0], 5.0, 1e-3);
  EXPECT_NEAR(f.range_m[1], 8.0, 1e-3);
  EXPECT_NEAR(f.intensity[0], 4.0, 0.01);               // 100 R0 of the glass
  EXPECT_NEAR(f.intensity[1], 100 * 0.5 * 0.81, 0.05);  // through the pane twice: T^2
  EXPECT_EQ(f.instance_id[0], 1u);
  EXPECT_EQ(f.instance_id[1], 2u);
  // An opaque pane hides the plate.
  s.materials.materials[0].transmittance = 0;
  EXPECT_EQ(SimulateOnce(s, p).size(), 1u);
}

// Two leaf layers 10 and 14 m below the sensor intercepting 40 % of the footprint each, above
// ground at 20 m.
Scene Canopy() {
  Scene s;
  s.materials = test::ConstantMaterials({0.45, 0.3});
  s.materials.materials[0] = WithResponse(s.materials.materials[0], 0, 0.4);
  s.objects.push_back(test::Placed("crown", MakePlate(5, 5), {0, 0, -10}, 0, 90, 0, 0, 1, 5));
  s.objects.push_back(test::Placed("under", MakePlate(5, 5), {0, 0, -14}, 0, 90, 0, 0, 2, 5));
  s.objects.push_back(test::Placed("ground", MakePlate(50, 50), {0, 0, -20}, 0, 90, 0, 1, 3, 2));
  return s;
}

TEST(ThresholdDetector, CanopyGivesSeveralEchoesAndTheLastReachesTheGround) {
  // Two leaf layers intercepting 40 % of the footprint each, above ground (looking down).
  const Scene s = Canopy();
  SensorProfile p = test::SpinningSensor(1, -90, -90, 1, 10);
  const SensorProfile t = test::ThresholdBeam();
  p.detector = t.detector;
  p.detector.return_mode = physics::ReturnMode::kLast;
  p.detector.max_echoes = 3;
  GaussianFootprint(p, 0.5e-3, 8);
  const Frame f = SimulateOnce(s, p);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_NEAR(f.range_m[0], 10.0, 1e-3);
  EXPECT_NEAR(f.range_m[1], 14.0, 1e-3);
  EXPECT_NEAR(f.range_m[2], 20.0, 1e-3);
  EXPECT_NEAR(f.intensity[0], 100 * 0.45 * 0.4, 0.05);
  EXPECT_NEAR(f.intensity[1], 100 * 0.45 * 0.4 * 0.6, 0.05);
  EXPECT_NEAR(f.intensity[2], 100 * 0.3 * 0.6 * 0.6, 0.05);  // through both layers' gaps
  EXPECT_EQ(f.semantic_class[2], 2u);
}

// The canopy's three echoes (10, 14 and 20 m; received power falling with each) labelled as each
// return mode's sensor labels them (physics::SelectedEchoTypes), in the frame's return_type.
TEST(ThresholdDetector, FramesSayWhatKindOfReturnEachPointIs) {
  const Scene s = Canopy();
  SensorProfile p = test::SpinningSensor(1, -90, -90, 1, 10);
  p.detector = test::ThresholdBeam().detector;
  GaussianFootprint(p, 0.5e-3, 8);
  using T = physics::ReturnType;
  auto kinds = [&](physics::ReturnMode mode, uint32_t k) {
    p.detector.return_mode = mode;
    p.detector.max_echoes = k;
    const Frame f = SimulateOnce(s, p);
    EXPECT_EQ(f.return_type.size(), f.size());
    std::vector<T> out;
    for (size_t i = 0; i < f.size(); ++i)
      out.push_back(T{f.return_type[i]});
    return out;
  };
  EXPECT_EQ(kinds(physics::ReturnMode::kFirst, 3),
            (std::vector<T>{T::kFirst, T::kSecond, T::kUnknown}));
  EXPECT_EQ(kinds(physics::ReturnMode::kLast, 1), (std::vector<T>{T::kLast}));
  EXPECT_EQ(kinds(physics::ReturnMode::kStrongest, 2),
            (std::vector<T>{T::kStrongest, T::kSecondStrongest}));
  EXPECT_EQ(kinds(physics::ReturnMode::kDual, 2),
            (std::vector<T>{T::kFirstStrongest, T::kLastWeak}));
  // The ideal tier reports one return a beam (the nearest surface): its mode's kind.
  p.detector.kind = DetectorKind::kIdeal;
  EXPECT_EQ(kinds(physics::ReturnMode::kLast, 1), (std::vector<T>{T::kLast}));
}

TEST(ThresholdDetector, EchoPulseWidthFollowsTheAmplitudeAndGrowsWithIncidence) {
  SensorProfile p = test::ThresholdBeam();
  const double sigma_r = PulseSigma(p);
  // Single ray at normal incidence: EPW = 2 sigma_r sqrt(2 ln(a / T)) in time.
  for (double r0 : {0.05, 0.2, 0.8}) {
    Scene s;
    s.materials = test::ConstantMaterials({r0});
    s.objects.push_back(test::Placed("plate", MakePlate(4, 4), {15, 0, 0}, 0, 0, 0, 0, 1, 64));
    const Frame f = SimulateOnce(s, p);
    ASSERT_EQ(f.size(), 1u);
    const double a = physics::ReceivedPower(kLink, r0 / kPi, 1.0, 15.0);
    const double epw_ns = 2 * physics::GaussianEchoWidth(sigma_r, a, p.detector.threshold_w) /
                          physics::kSpeedOfLight_m_s * 1e9;
    EXPECT_NEAR(f.echo_pulse_width_ns[0], epw_ns, 1e-4) << r0;
  }
  // A wide footprint on a slanted plate spreads the returns in range: wider echoes.
  GaussianFootprint(p, 5e-3, 64);
  double previous = 0;
  for (double yaw : {0.0, 45.0, 70.0}) {
    Scene s;
    s.materials = test::ConstantMaterials({0.9});
    s.objects.push_back(test::Placed("plate", MakePlate(8, 8), {15, 0, 0}, 0, 0, yaw, 0, 1, 64));
    const Frame f = SimulateOnce(s, p);
    ASSERT_EQ(f.size(), 1u) << yaw;
    if (yaw > 0) {
      EXPECT_GT(f.echo_pulse_width_ns[0], previous) << yaw;
    }
    previous = f.echo_pulse_width_ns[0];
  }
}

// A 1 m retroreflective (or diffuse) sign 20 m ahead in front of a dark wall, scanned in
// 0.5 mrad steps by a beam whose kernel is a tabulated Gaussian (sigma 2 mrad) sampled as a
// deterministic quadrature (every cell once, tail exponent 0).
struct BloomCase {
  Scene scene;
  SensorProfile profile;
  double sigma = 2e-3;
  BloomCase(bool retro) {
    scene.materials = test::ConstantMaterials({retro ? 0.0 : 0.9, 0.05});
    if (retro) scene.materials.materials[0] = WithResponse(scene.materials.materials[0], 0, 1, 500);
    scene.objects.push_back(test::Placed("sign", MakePlate(1, 1), {20, 0, 0}, 0, 0, 0, 0, 1, 64));
    scene.objects.push_back(test::Placed("wall", MakePlate(60, 20), {30, 0, 0}, 0, 0, 0, 1, 2, 1));
    profile = test::ThresholdBeam(12566);  // 0.5 mrad columns
    profile.detector.return_mode = physics::ReturnMode::kStrongest;
    profile.detector.max_echoes = 1;
    profile.detector.threshold_w = 3.2e-6;
    KernelTable k;
    for (int i = 0; i < 64; ++i)
      k.h_mrad.push_back(-16 + 0.5 * i + 0.25);
    k.v_mrad = {-0.05, 0.05};
    for (int j = 0; j < 2; ++j) {
      for (double h : k.h_mrad)
        k.value.push_back(std::exp(-h * h / (2 * 2.0 * 2.0)));
    }
    profile.kernel = PrepareKernelSampling(k, 0.0);
    profile.footprint.kind = physics::FootprintKind::kTable;
    profile.footprint.sub_rays = 128;
    profile.detector.max_surfaces_per_sub_ray = 1;
  }
  // Widest angle off the sign's centre at which the sign still gives a point, minus its true
  // half-width.
  double Widening() const {
    const Frame f = SimulateOnce(scene, profile);
    double widest = 0;
    for (size_t i = 0; i < f.size(); ++i) {
      if (f.instance_id[i] != 1) continue;
      widest = std::max(widest, std::abs(std::atan2(double{f.y_m[i]}, double{f.x_m[i]})));
    }
    return widest - std::atan(0.5 / 20);
  }
};

TEST(ThresholdDetector, RetroreflectiveSignBloomsByTheAngleWhereKernelTimesGainCrossesThreshold) {
  const BloomCase retro(true);
  // The sign's share S(delta) = Phi(-delta / sigma) of the beam, times the sign's full power,
  // reaches the threshold at delta* = -sigma Phi^-1(T / P_sign).
  const double p_sign = physics::ReceivedPower(kLink, 500.0, 1.0, 20.0);
  const double delta = -retro.sigma * physics::InverseNormalCdf(3.2e-6 / p_sign);
  const double widening = retro.Widening();
  EXPECT_GT(delta, 6e-3);  // several beam steps: a real bloom
  // Tolerance: one beam step (0.5 mrad) plus one kernel cell (0.5 mrad).
  EXPECT_NEAR(widening, delta, 1.0e-3);
  // Diffuse sign of the same size at twice the threshold: its contour does not widen, and it
  // is seen out to within a beam step or two of its edge (so the first check is not passed by
  // a sign that gives no points at all).
  const BloomCase diffuse(false);
  const double diffuse_widening = diffuse.Widening();
  std::printf("[bloom] retroreflective %.2f mrad (analytic %.2f), diffuse %.2f mrad\n",
              1e3 * widening, 1e3 * delta, 1e3 * diffuse_widening);
  EXPECT_LT(diffuse_widening, 0.5e-3);
  EXPECT_GT(diffuse_widening, -1.0e-3);
}

TEST(ThresholdDetector, KernelSidelobeAt1e5ProducesEchoesAtThePredictedRate) {
  // Main lobe at 0 (sees nothing), a sidelobe 1e-5 of the peak at h = 20 mrad where a
  // retroreflective sign stands. With tail exponent 0.5 the sidelobe holds a share q of the
  // sampling CDF; a beam of n stratified sub-rays samples it with probability
  // 1 - prod_k (1 - n |I cap stratum_k|), I its interval of the CDF.
  Scene s;
  s.materials = test::ConstantMaterials({0.0});
  s.materials.materials[0] = WithResponse(s.materials.materials[0], 0, 1, 1000);
  s.objects.push_back(test::Placed("sign", MakePlate(0.3, 1), {20, 0.4, 0}, 0, 0, 0, 0, 1, 64));
  SensorProfile p = test::ThresholdBeam();
  KernelTable k;
  for (int i = 0; i < 32; ++i)
    k.h_mrad.push_back(-4 + i);  // -4 .. 27 mrad
  k.v_mrad = {-0.5, 0.5};
  for (int j = 0; j < 2; ++j) {
    for (double h : k.h_mrad)
      k.value.push_back(std::abs(h) <= 2 ? std::exp(-h * h / 2)
                                         : (std::abs(h - 20) <= 2 ? 1e-5 : 0));
  }
  p.kernel = PrepareKernelSampling(k, 0.5);
  p.footprint.kind = physics::FootprintKind::kTable;
  const uint32_t n = 16;
  p.footprint.sub_rays = n;
  // Sidelobe cells: h = 18 .. 22 in both rows (c = j * 32 + 22 .. 26).
  double predicted_miss = 1;
  for (int j = 0; j < 2; ++j) {
    const int c0 = j * 32 + 22, c1 = j * 32 + 26;
    const double a = p.kernel.cdf[c0 - 1], b = p.kernel.cdf[c1];
    for (uint32_t m = 0; m < n; ++m) {
      const double lo = std::max(a, double(m) / n), hi = std::min(b, double(m + 1) / n);
      if (hi > lo) predicted_miss *= 1 - n * (hi - lo);
    }
  }
  const double predicted = 1 - predicted_miss;
  ASSERT_GT(predicted, 0.05);
  ASSERT_LT(predicted, 0.95);
  const uint32_t beams = 3000;
  uint32_t echoes = 0;
  CpuSimulator sim(s, p, Trajectory::Static(), {5});
  for (uint32_t frame = 0; frame < beams; ++frame) {
    const Frame f = sim.Simulate(frame).value();
    for (size_t i = 0; i < f.size(); ++i)
      echoes += f.instance_id[i] == 1;
  }
  const double rate = double(echoes) / beams;
  const double sd = std::sqrt(predicted * (1 - predicted) / beams);
  EXPECT_NEAR(rate, predicted, 4 * sd) << "predicted " << predicted;
}

TEST(ThresholdDetector, SameSeedSameFrameAndNoiseKeyedPerEcho) {
  Scene s = EdgeScene(2.0);
  SensorProfile p = test::ThresholdBeam(64);
  GaussianFootprint(p, 2e-3, 16);
  p.detector.range_noise_sigma_m = 0.02;
  p.detector.outlier_probability = 0.1;
  p.detector.range_resolution_m = 0.001;
  const Frame a = SimulateOnce(s, p, 0, 7), b = SimulateOnce(s, p, 0, 7),
              c = SimulateOnce(s, p, 0, 8);
  ASSERT_GT(a.size(), 10u);
  EXPECT_EQ(a.range_m, b.range_m);
  EXPECT_EQ(a.intensity, b.intensity);
  EXPECT_EQ(a.echo_pulse_width_ns, b.echo_pulse_width_ns);
  EXPECT_NE(a.range_m, c.range_m);
  for (float r : a.range_m)  // quantised to 1 mm
    EXPECT_NEAR(r * 1000.0f, std::round(r * 1000.0f), 2e-3f);
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

// Raster gathering (seed 004 Alg. 1) against sub-ray tracing on the lab scene seen by the
// Cube 1 with its kernel table. Both use the same footprint samples; the raster replaces each
// sample's own hit by the plane of the pixel its direction falls in (0.25 mrad pixels against
// 0.4 deg beam spacing and a 3 deg kernel), so planes give the same ranges and only samples
// within a pixel of a depth edge can take the other surface. Tolerance: strongest echoes of
// at least 97 % of the beams within 1 cm of each other and with the same label, echo counts
// equal to 1 %, and the median range difference below 1 mm.
TEST(RasterGather, AgreesWithSubRayTracingWithinTheRasterisationTolerance) {
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  auto traced = LoadSensorProfile(test::ConfigDir() / "sensors/blickfeld_cube1_threshold.yaml");
  ASSERT_TRUE(scene.ok() && traced.ok()) << traced.message();
  traced->detector.return_mode = physics::ReturnMode::kStrongest;
  traced->detector.max_echoes = 1;
  SensorProfile raster = traced.value();
  raster.raster_gather = true;
  raster.raster_resolution_rad = 0.25e-3;
  const Frame a = SimulateOnce(*scene, *traced, 0, 3);
  const Frame b = SimulateOnce(*scene, raster, 0, 3);
  ASSERT_GT(a.size(), 1000u);
  std::map<uint32_t, size_t> in_b;
  for (size_t k = 0; k < b.size(); ++k)
    in_b[b.beam_id[k]] = k;
  size_t close = 0, same_label = 0;
  std::vector<double> diffs;
  for (size_t k = 0; k < a.size(); ++k) {
    auto it = in_b.find(a.beam_id[k]);
    if (it == in_b.end()) continue;
    const double d = std::abs(double{a.range_m[k]} - double{b.range_m[it->second]});
    diffs.push_back(d);
    close += d < 0.01;
    same_label += a.instance_id[k] == b.instance_id[it->second];
  }
  std::sort(diffs.begin(), diffs.end());
  std::printf(
      "[raster] %zu traced echoes, %zu raster echoes, %zu within 1 cm, %zu same label, "
      "median |diff| %.3g m\n",
      a.size(), b.size(), close, same_label, diffs[diffs.size() / 2]);
  EXPECT_NEAR(double(b.size()), double(a.size()), 0.01 * a.size());
  EXPECT_GE(close, 0.97 * a.size());
  EXPECT_GE(same_label, 0.97 * a.size());
  EXPECT_LT(diffs[diffs.size() / 2], 1e-3);
}

TEST(RasterGather, RefusesAMovingSensor) {
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  auto p = LoadSensorProfile(test::ConfigDir() / "sensors/blickfeld_cube1_threshold.yaml");
  ASSERT_TRUE(scene.ok() && p.ok());
  p->raster_gather = true;
  Trajectory moving;
  moving.time_s = {0.0, 1.0};
  moving.poses = {{{1, 0, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {1, 0, 0}}};
  auto f = CpuSimulator(*scene, *p, moving, {}).Simulate(0);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("static sensor"), std::string::npos) << f.message();
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

// Seed 001 Fig. 3: pulses from above pass through the canopy's gaps; several returns per
// pulse, the last of many reaching the ground. An airborne line scanner 60 m above the
// procedural forest, with a 5 mrad footprint (30 cm on the crowns, about a leaf's size) of 32
// sub-rays and the threshold detector reporting up to 4 echoes (last returns).
TEST(ThresholdDetector, ForestCanopyGivesSeveralEchoesPerPulseAndLastReturnsReachTheGround) {
  auto scene = LoadScene(test::ConfigDir() / "scenes/forest.yaml", {});
  auto p = LoadSensorProfile(test::ConfigDir() / "sensors/airborne_parallel.yaml");
  ASSERT_TRUE(scene.ok() && p.ok()) << scene.message() << p.message();
  const SensorProfile t = test::ThresholdBeam();
  p->detector = t.detector;
  p->detector.return_mode = physics::ReturnMode::kLast;
  p->detector.max_echoes = 4;
  p->detector.max_surfaces_per_sub_ray = 4;
  p->detector.threshold_w = 2e-9;
  GaussianFootprint(*p, 5e-3 / physics::kFwhmPerSigma, 32);
  Trajectory above;
  above.time_s = {0.0, 1.0};
  above.poses = {{{1, 0, 0, 0}, {-5, 0, 60}}, {{1, 0, 0, 0}, {5, 0, 60}}};
  const Frame f = CpuSimulator(*scene, *p, above, {2}).Simulate(0).value();
  ASSERT_GT(f.size(), 1000u);
  // Per beam: its echoes in range order (return_index), the last one's class.
  std::map<uint32_t, std::vector<size_t>> beams;
  for (size_t i = 0; i < f.size(); ++i)
    beams[f.beam_id[i]].push_back(i);
  size_t multi = 0, multi_ending_on_ground = 0, canopy_first = 0;
  for (const auto& [beam, points] : beams) {
    if (points.size() < 2) continue;
    ++multi;
    const size_t last = points.back();
    multi_ending_on_ground += f.semantic_class[last] == 2;
    canopy_first += f.semantic_class[points.front()] == 5;
    for (size_t k = 1; k < points.size(); ++k)  // echoes in range order
      EXPECT_GT(f.range_m[points[k]], f.range_m[points[k - 1]]);
  }
  std::printf(
      "[forest] %zu beams with echoes, %zu with several, %zu of them last on the ground, "
      "%zu first in the canopy\n",
      beams.size(), multi, multi_ending_on_ground, canopy_first);
  EXPECT_GT(multi, beams.size() / 20);           // the canopy splits a good share of pulses
  EXPECT_GT(multi_ending_on_ground, multi / 4);  // and many still reach the ground
  EXPECT_GT(canopy_first, multi / 2);            // through the crowns, not beside them
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

// A wall at `range` facing the sensor, reflectance 0.1.
Scene WallAt(double range) {
  Scene s;
  s.materials = test::ConstantMaterials({0.1});
  s.objects.push_back(test::Placed("wall", MakePlate(200, 200), {range, 0, 0}, 0, 0, 0, 0, 1, 1));
  return s;
}

TEST(ThresholdDetector, ReceiverNoiseDetectsAtTheProbitRateAndAddsToThePeak) {
  // 4000 pulses (one per frame) at a wall whose echo sits half a noise sigma above the
  // threshold: the share detected must be Phi(0.5) = 0.6915 (physics/detection_probability.h),
  // and the detected peaks are S + n for the noise draws n > T - S, a truncated Gaussian whose
  // mean is S + sigma phi(a) / (1 - Phi(a)), a = (T - S) / sigma.
  SensorProfile p = test::ThresholdBeam();
  const double range = 20;
  const double s = physics::ReceivedPower(kLink, 0.1 / kPi, 1.0, range);
  p.detector.threshold_w = s / 1.1;
  const double sigma = 0.2 * p.detector.threshold_w;  // S - T = 0.1 T = 0.5 sigma
  p.detector.signal_noise_w = sigma;
  const Scene wall = WallAt(range);
  CpuSimulator sim(wall, p, Trajectory::Static(), {7});
  const int pulses = 4000;
  int detected = 0;
  double sum = 0;
  for (int frame = 0; frame < pulses; ++frame) {
    const Frame f = sim.Simulate(frame).value();
    if (f.size() == 0) continue;
    ++detected;
    sum += f.intensity[0] / 100 * physics::WhiteTargetPower(kLink, range);
  }
  const double expected = physics::DetectionProbability(s, p.detector.threshold_w, sigma);
  EXPECT_NEAR(detected / double(pulses), expected,
              4 * std::sqrt(expected * (1 - expected) / pulses));
  const double a = (p.detector.threshold_w - s) / sigma;
  const double phi = std::exp(-0.5 * a * a) / std::sqrt(2 * kPi);
  const double mean = s + sigma * phi / (1 - 0.5 * std::erfc(-a / std::sqrt(2.0)));
  // The truncated Gaussian's sd is below sigma; 4 standard errors of its mean.
  EXPECT_NEAR(sum / detected, mean, 4 * sigma / std::sqrt(double(detected)));
  EXPECT_GT(std::abs(sum / detected - s), 0.05 * sigma);  // the noise is really there
}

// The overlap scales the echo's power (what the detector sees: a threshold just above the
// dimmed power loses the echo, one just below keeps it), while the calibrated intensity is
// referred to the white target through the same overlap and reads the target's own (issue 40,
// item 1: a sensor's reflectivity is calibrated at its own ranges).
TEST(ThresholdDetector, NearFieldOverlapScalesTheEchoPowerNotTheCalibratedIntensity) {
  SensorProfile p = test::ThresholdBeam();
  p.detector.threshold_w = 1e-12;
  const Frame full = SimulateOnce(WallAt(3), p);
  ASSERT_EQ(full.size(), 1u);
  const double share = 1 - std::exp(-std::pow(3.0 / 4.0, 2.0));  // independent of NearFieldOverlap
  // The echo's power without the overlap, from its calibrated intensity.
  const double power = full.intensity[0] / 100 * physics::WhiteTargetPower(p.detector.link, 3.0);
  p.detector.overlap = {4.0, 2.0};
  const Frame partial = SimulateOnce(WallAt(3), p);
  ASSERT_EQ(partial.size(), 1u);
  EXPECT_NEAR(partial.intensity[0] / full.intensity[0], 1.0, 1e-6);
  p.detector.threshold_w = 1.02 * share * power;
  EXPECT_EQ(SimulateOnce(WallAt(3), p).size(), 0u);
  p.detector.threshold_w = 0.98 * share * power;
  EXPECT_EQ(SimulateOnce(WallAt(3), p).size(), 1u);
}

// Fog (physics/fog.h) on the return signal: a wall at 20 m seen through fog of visibility 50 m
// returns exp(-2 alpha R) of its clear-air power, alpha = ln 20 / 50 m (written here apart from
// fog.h), and reads that much darker: its reflectivity is referred to the clear-air link the
// sensor was calibrated through. The threshold then decides whether it is seen at all. The
// fog's own return is left out here (FogEchoes.* test it).
TEST(ThresholdDetector, FogDarkensAnEchoByItsTwoWayTransmissionAndLosesItUnderTheThreshold) {
  SensorProfile p = test::ThresholdBeam();
  p.detector.threshold_w = 1e-12;
  const double range = 20, alpha = std::log(20.0) / 50;
  Scene clear = WallAt(range);
  Scene fog = WallAt(range);
  fog.description.weather.fog = FogDescription{.visibility_m = 50, .backscatter = false};
  const Frame a = SimulateOnce(clear, p);
  const Frame b = SimulateOnce(fog, p);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  const double transmission = std::exp(-2 * alpha * range);  // 0.091
  EXPECT_NEAR(b.intensity[0] / a.intensity[0], transmission, 1e-6 * transmission);
  const double fogged_power =
      a.intensity[0] / 100 * physics::WhiteTargetPower(p.detector.link, range) * transmission;
  p.detector.threshold_w = 1.02 * fogged_power;
  EXPECT_EQ(SimulateOnce(fog, p).size(), 0u);
  EXPECT_EQ(SimulateOnce(clear, p).size(), 1u);
  p.detector.threshold_w = 0.98 * fogged_power;
  EXPECT_EQ(SimulateOnce(fog, p).size(), 1u);
}

// The ideal and capability detectors never read the return signal, so they cannot see weather:
// a scene with fog is refused for them, naming the key, rather than simulated as clear air.
TEST(ThresholdDetector, WeatherIsRefusedForDetectorsThatDoNotReadTheSignal) {
  Scene fog = WallAt(20);
  fog.description.weather.fog = FogDescription{50};
  SensorProfile p = test::ThresholdBeam();
  for (DetectorKind kind : {DetectorKind::kIdeal, DetectorKind::kCapability}) {
    p.detector.kind = kind;
    auto f = CpuSimulator(fog, p, Trajectory::Static(), {1}).Simulate(0);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.message().find("weather.fog"), std::string::npos) << f.message();
    EXPECT_NE(f.message().find(kind == DetectorKind::kIdeal ? "ideal" : "capability"),
              std::string::npos)
        << f.message();
  }
}

// Rain (physics/precipitation.h, internal/particle_echoes.h) on the return signal, one channel
// around the circle with a wall 20 m ahead: the wall reads darker by the rain's two-way
// extinction exp(-2 alpha R), alpha = 2 pi n0 / (2 slope^3) (written here apart from
// precipitation.h), to the share the drops that fall within its pulse add (within 20 deg of
// the wall's normal, below 3e-3 of it; the obliquer the wall, the larger their share);
// the drops the threshold sees are reported as rain: its semantic class, the instance after
// the wall's, no material, and only in front of the wall.
TEST(ThresholdDetector, RainDarkensTheWallByItsExtinctionAndReturnsEchoesLabelledAsRain) {
  SensorProfile p = test::ThresholdBeam(360);
  p.detector.threshold_w = 3e-9;
  p.footprint.kind = physics::FootprintKind::kCone;
  p.footprint.half_angle_rad = 1.5e-3;
  p.footprint.sub_rays = 8;
  const double range = 20;
  Scene clear = WallAt(range);
  Scene rain = WallAt(range);
  rain.description.weather.rain = RainDescription{.rate_mm_h = 50};
  const double slope = 4.1 * std::pow(50.0, -0.21);
  const double alpha = 2 * kPi * 8000 / (2 * slope * slope * slope) * 1e-6;  // 4.1e-3 /m
  const Frame a = SimulateOnce(clear, p);
  auto clear_echo = [&](uint32_t column) {  // the clear frame's echo of a column, or a.size()
    size_t k = 0;
    while (k < a.size() && a.column[k] != column)
      ++k;
    return k;
  };
  uint32_t rain_echoes = 0;
  double worst = 0;
  for (uint32_t frame = 0; frame < 4; ++frame) {
    const Frame b = SimulateOnce(rain, p, frame);
    for (size_t i = 0; i < b.size(); ++i) {
      if (b.semantic_class[i] == 101) {
        ++rain_echoes;
        EXPECT_EQ(b.instance_id[i], 2u);
        EXPECT_EQ(b.material_id[i], 65535);
        const size_t k = clear_echo(b.column[i]);
        if (k < a.size()) EXPECT_LT(b.range_m[i], a.range_m[k] + 0.5);
        continue;
      }
      ASSERT_EQ(b.instance_id[i], 1u);
      const size_t k = clear_echo(b.column[i]);
      ASSERT_LT(k, a.size());
      const double transmission = std::exp(-2 * alpha * a.range_m[k]);  // 0.85 at 20 m
      const double ratio = b.intensity[i] / a.intensity[k];
      if (b.column[i] > 20 && b.column[i] < 340) continue;  // oblique: drops weigh more
      EXPECT_NEAR(ratio, transmission, 3e-3) << b.column[i];
      worst = std::max(worst, std::abs(ratio - transmission));
    }
  }
  EXPECT_GT(rain_echoes, 10u);
  std::printf(
      "[rain] %u rain echoes in 4 frames of 360 beams; wall within 20 deg: |ratio - "
      "exp(-2 alpha R)| <= %.2g\n",
      rain_echoes, worst);
}

// Rain is refused for the ideal detector, naming it. A profile whose sub-rays fill the beam's
// 128 contributions with surfaces (32 x 4) has no slot to spare for particles: its sub-rays
// hold them in the surface slots they leave unused, so beams at the sky still see the rain.
TEST(ThresholdDetector, RainIsRefusedForTheIdealDetectorAndFillsTheSlotsSurfacesLeave) {
  Scene rain = WallAt(20);
  rain.description.weather.rain = RainDescription{.rate_mm_h = 50};
  SensorProfile p = test::ThresholdBeam(360);
  p.detector.kind = DetectorKind::kIdeal;
  auto f = CpuSimulator(rain, p, Trajectory::Static(), {1}).Simulate(0);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("weather.rain"), std::string::npos) << f.message();
  p = test::ThresholdBeam(360);
  p.detector.threshold_w = 3e-9;
  p.footprint.kind = physics::FootprintKind::kCone;
  p.footprint.half_angle_rad = 1e-3;
  p.footprint.sub_rays = 32;  // 32 x 4 surfaces fill the beam's 128 slots
  EXPECT_EQ(ParticleSlots(p, rain.description.weather), 0u);
  p.detector.max_surfaces_per_sub_ray = 3;
  EXPECT_EQ(ParticleSlots(p, rain.description.weather), 1u);
  p.detector.max_surfaces_per_sub_ray = 4;
  f = CpuSimulator(rain, p, Trajectory::Static(), {1}).Simulate(0);
  ASSERT_TRUE(f.ok()) << f.message();
  uint32_t rain_echoes = 0;
  for (uint16_t c : f->semantic_class)
    rain_echoes += c == 101;
  EXPECT_GT(rain_echoes, 10u);
}

// A wet wall (physics/wet_surface.h) seen straight on: its echo is (1 - R0)^2 / (n^2 (1 - rho
// r_i)) of the dry one's (Lekner and Dorf 1988), R0 = ((n - 1) / (n + 1))^2 and r_i the
// internal diffuse reflectance, both written here apart from wet_surface.h (r_i by Snell's
// angles with total internal reflection, midpoint rule over 20,000 steps in cos^2).
TEST(ThresholdDetector, AWetWallReadsDarkerByItsFilm) {
  SensorProfile p = test::ThresholdBeam();
  p.detector.threshold_w = 1e-12;
  Scene dry = WallAt(10);
  Scene wet = WallAt(10);
  wet.description.weather.wet = WetDescription{{"m0"}};
  const Frame a = SimulateOnce(dry, p);
  const Frame b = SimulateOnce(wet, p);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  const double n = physics::WaterRefractiveIndex(p.wavelength_nm), rho = 0.1;
  const double r0 = std::pow((n - 1) / (n + 1), 2);
  double r_i = 0;
  const int steps = 20000;
  for (int k = 0; k < steps; ++k) {
    const double i = std::acos(std::sqrt((k + 0.5) / steps));  // from inside the film
    const double s = std::sin(i) * n;                          // sin of the way out
    if (s >= 1) {
      r_i += 1;
      continue;
    }
    const double t = std::asin(s);
    r_i += i == 0 ? r0
                  : 0.5 * (std::pow(std::sin(i - t) / std::sin(i + t), 2) +
                           std::pow(std::tan(i - t) / std::tan(i + t), 2));
  }
  r_i /= steps;
  const double expected = (1 - r0) * (1 - r0) / (n * n * (1 - rho * r_i));  // 0.57
  EXPECT_NEAR(b.intensity[0] / a.intensity[0], expected, 1e-4 * expected);
  EXPECT_NEAR(b.range_m[0], a.range_m[0], 1e-6);
}

}  // namespace
}  // namespace lt
