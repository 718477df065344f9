// The fog's own return (internal/fog_echoes.h, FrameFog) and in the simulator: the frame's
// slabs' pulses add up to the single-scattering lidar equation's volume integral, written out
// here apart from the link budget; each slab weighs the share of the beam in front of it; the
// room cuts the far slabs; and a threshold detector in dense fog reports the fog itself where
// its return peaks, labelled as fog, and nothing where that return stays under the threshold.
#include "internal/fog_echoes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "cpu/cpu_simulator.h"
#include "internal/weather_setup.h"
#include "lidartwin/physics/fog.h"
#include "lidartwin/physics/return_signal.h"
#include "lidartwin/sim/scene.h"
#include "sim_test_scenes.h"

namespace lt {
namespace {

using physics::kPi;

// One beam along +x with a threshold detector (sigma_r = 0.2546 m), a near-field overlap of
// 0.8 m, k 2.5, and a minimum range of 0.3 m.
SensorProfile FoggedSensor() {
  SensorProfile p = test::ThresholdBeam();
  p.detector.threshold_w = 1e-7;
  p.detector.max_surfaces_per_sub_ray = 1;
  p.detector.overlap = {0.8, 2.5};
  p.min_range_m = 0.3;
  return p;
}

// The sensor's fog of MOR V at 905 nm: its extinction [1/m] (ln 20 / V below 500 m) and
// backscatter coefficient (water droplets, 18.8 sr).
double Alpha(double visibility_m) {
  return std::log(20.0) / visibility_m;
}
double Beta(double visibility_m) {
  return Alpha(visibility_m) / 18.8;
}

// The frame's slabs for that sensor in fog of MOR V (FrameFog), labelled as object 5.
FogView FrameFogOf(const SensorProfile& p, double visibility_m) {
  WeatherDescription w;
  w.fog = FogDescription{.visibility_m = visibility_m};
  physics::LinkBudget link = p.detector.link;
  link.extinction_per_m = Alpha(visibility_m);
  return FrameFog(p, w, link, 5);
}

// The volume's return per metre of range at r [W/m], from the lidar equation directly:
// P0 (pi d^2 / 4) T_opt beta exp(-2 alpha r) O(r) / r^2, O = 1 - exp(-(r / 0.8)^2.5).
double VolumePerMetre(double r, double visibility_m) {
  const double overlap = 1 - std::exp(-std::pow(r / 0.8, 2.5));
  return 20.0 * kPi * 0.025 * 0.025 / 4 * 0.9 * Beta(visibility_m) *
         std::exp(-2 * Alpha(visibility_m) * r) * overlap / (r * r);
}

// The pulse-convolved volume return at x over [from, to] (the pulse reaches 8 sigma), by
// Simpson's rule on 1 mm panels.
double VolumeSignal(double x, double visibility_m, double sigma, double from, double to) {
  const double a = std::max(from, x - 8 * sigma), b = std::min(to, x + 8 * sigma);
  if (!(b > a)) return 0;
  return test::Simpson(
      [&](double r) {
        return VolumePerMetre(r, visibility_m) * std::exp(-(x - r) * (x - r) / (2 * sigma * sigma));
      },
      a, b, 2 * static_cast<int>((b - a) / 2e-3 + 1));
}

// The slabs' signal at x: their pulses summed.
double SlabSignal(const std::vector<physics::SignalContribution>& c, double sigma, double x) {
  double s = 0;
  for (const auto& k : c)
    s += k.power_w * std::exp(-(x - k.range_m) * (x - k.range_m) / (2 * sigma * sigma));
  return s;
}

std::vector<physics::SignalContribution> Slabs(const FogView& f, const std::vector<SubRayClear>& c,
                                               uint32_t room = 128) {
  std::vector<physics::SignalContribution> out(128);
  const uint32_t n = AddFogSlabs(f, c.data(), static_cast<uint32_t>(c.size()), out.data(), 0, room);
  out.resize(n);
  return out;
}

// A beam that reaches every slab, in fog of 20, 50 and 200 m: its slabs' signal is the volume's
// over the slabs kept, from the minimum range to 40 m, within 1 % or, where the fog is faint
// and its slabs thicker (FrameFog: a ripple of at most 8.5e-4 of the threshold, about twice
// that where the thickness steps), 2.5e-3 of the threshold.
TEST(FogEchoes, TheSlabsPulsesAddUpToTheVolumeIntegral) {
  const SensorProfile p = FoggedSensor();
  const double sigma = p.Threshold().pulse_sigma_m, t = p.detector.threshold_w;
  for (double v : {20.0, 50.0, 200.0}) {
    const FogView f = FrameFogOf(p, v);
    ASSERT_GT(f.slabs, 0u);
    const auto slabs = Slabs(f, {{1e9f, 1.0f}});
    ASSERT_EQ(slabs.size(), f.slabs);
    EXPECT_EQ(slabs[0].source, 5u);
    const double from = f.slab[0].start_m, to = f.slab[f.slabs - 1].end_m;
    double worst = 0;
    for (double x = 0.3; x <= 40; x += 0.0731) {
      const double want = VolumeSignal(x, v, sigma, from, to);
      const double error = std::fabs(SlabSignal(slabs, sigma, x) - want);
      EXPECT_LE(error, std::max(1e-2 * want, 2.5e-3 * t)) << v << " m, x " << x;
      worst = std::max(worst, error / std::max(want, 0.25 * t));
    }
    std::printf(
        "[fog] MOR %.0f m: %u slabs, %.3f to %.2f m; worst error %.2e of the signal "
        "(or of a quarter of the threshold)\n",
        v, f.slabs, from, to, worst);
  }
}

// Sub-rays of weights 0.5, 0.3 and 0.2 stopped inside a slab near 2 m, at 6 m and never: each
// slab holds the share of the beam in front of it, so the beam's signal is the weighted sum of
// one-sub-ray beams', and a sub-ray's slabs hold the volume in front of its surface alone
// (their sum: the integral to its clear length, to 1 %).
TEST(FogEchoes, EachSlabWeighsTheShareOfTheBeamInFrontOfIt) {
  const SensorProfile p = FoggedSensor();
  const double sigma = p.Threshold().pulse_sigma_m;
  const FogView f = FrameFogOf(p, 50);
  uint32_t k = 0;
  while (f.slab[k].end_m < 2)
    ++k;
  const float inside = 0.5f * (f.slab[k].start_m + f.slab[k].end_m);
  const auto beam = Slabs(f, {{inside, 0.5f}, {6.0f, 0.3f}, {1e9f, 0.2f}});
  const auto near = Slabs(f, {{inside, 1.0f}});
  const auto mid = Slabs(f, {{6.0f, 1.0f}});
  const auto open = Slabs(f, {{1e9f, 1.0f}});
  for (double x : {1.0, 2.0, 2.5, 4.0, 6.5, 10.0}) {
    const double want = 0.5 * SlabSignal(near, sigma, x) + 0.3 * SlabSignal(mid, sigma, x) +
                        0.2 * SlabSignal(open, sigma, x);
    EXPECT_NEAR(SlabSignal(beam, sigma, x), want, 1e-6 * want) << x;
  }
  double total = 0;
  for (const auto& c : near)
    total += c.power_w;
  const double integral =
      test::Simpson([](double r) { return VolumePerMetre(r, 50); }, f.slab[0].start_m, inside);
  EXPECT_NEAR(total, integral, 1e-2 * integral);
  EXPECT_EQ(near.size(), k + 1);
}

// The sweep's shares, slab after slab, are FogShare's: sub-rays of random weights ending at
// random ranges (some inside slabs, some on their bounds, some past them all, some before).
TEST(FogEchoes, TheSweepGivesEachSlabFogSharesShare) {
  const FogView f = FrameFogOf(FoggedSensor(), 50);
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> unit(0, 1);
  for (uint32_t n : {1u, 3u, 16u, 64u}) {
    std::vector<SubRayClear> clear(n);
    for (uint32_t k = 0; k < n; ++k) {
      const float pick = unit(rng);
      const uint32_t j = static_cast<uint32_t>(unit(rng) * (f.slabs - 1));
      clear[k] = {pick < 0.2f   ? f.slab[j].start_m
                  : pick < 0.3f ? 1e9f
                  : pick < 0.4f ? 0.1f
                                : 45 * unit(rng),
                  unit(rng) / n};
    }
    FogShareSweep sweep(clear.data(), n);
    for (uint32_t j = 0; j < f.slabs; ++j) {
      const FogSlab& s = f.slab[j];
      EXPECT_NEAR(sweep.Share(s.start_m, s.end_m), FogShare(clear.data(), n, s.start_m, s.end_m),
                  1e-12)
          << n << " sub-rays, slab " << j;
    }
  }
}

// The room cuts the far slabs and leaves the near ones as they were; the frame's least power
// leaves out the weak ones of a beam that reaches only some of a slab.
TEST(FogEchoes, TheRoomCutsTheFarSlabsAndTheLeastPowerTheWeakOnes) {
  const FogView f = FrameFogOf(FoggedSensor(), 50);
  const auto all = Slabs(f, {{1e9f, 1.0f}});
  const auto some = Slabs(f, {{1e9f, 1.0f}}, 7);
  ASSERT_EQ(some.size(), 7u);
  for (size_t j = 0; j < some.size(); ++j) {
    EXPECT_EQ(some[j].range_m, all[j].range_m);
    EXPECT_EQ(some[j].power_w, all[j].power_w);
  }
  for (const auto& k : Slabs(f, {{1e9f, 1e-3f}}))
    EXPECT_GE(k.power_w, f.least_power_w);
  EXPECT_LT(Slabs(f, {{1e9f, 1e-3f}}).size(), all.size());
}

// The frame's slabs: contiguous from the minimum range, at most a quarter of their range and
// 4 sigma_r thick, kept out to the last that returns 1e-3 of the threshold (those after it
// return less), labelled as the object given; none without backscatter. The waveform detector
// (no threshold power) keeps kMostFogSlabs.
TEST(FogEchoes, TheFramesSlabsReachWhereTheyStopMattering) {
  SensorProfile p = FoggedSensor();
  p.detector.threshold_w = 1e-6;  // (at 1e-7 the slabs would run into kMostFogSlabs)
  const double sigma = p.Threshold().pulse_sigma_m;
  const FogView f = FrameFogOf(p, 50);
  ASSERT_GT(f.slabs, 10u);
  ASSERT_LT(f.slabs, kMostFogSlabs);
  EXPECT_EQ(f.object, 5u);
  EXPECT_FLOAT_EQ(f.slab[0].start_m, 0.3f);
  for (uint32_t j = 0; j + 1 < kMostFogSlabs && f.slab[j + 1].end_m > 0; ++j) {
    const FogSlab& s = f.slab[j];
    EXPECT_EQ(s.end_m, f.slab[j + 1].start_m);
    EXPECT_LE(s.end_m - s.start_m, 4 * sigma + 1e-5);
    EXPECT_LE(s.end_m - s.start_m, s.start_m / 4 + 1e-5);
    EXPECT_GT(s.range_m, s.start_m);
    EXPECT_LT(s.range_m, s.end_m);
    if (j >= f.slabs) EXPECT_LT(s.power_w, 1e-3 * p.detector.threshold_w) << j;
  }
  EXPECT_GE(f.slab[f.slabs - 1].power_w, 1e-3 * p.detector.threshold_w);
  WeatherDescription w;
  w.fog = FogDescription{.visibility_m = 50, .backscatter = false};
  EXPECT_EQ(FrameFog(p, w, p.detector.link, 5).slabs, 0u);
  EXPECT_EQ(WeatherObjectCount(w), 0u);
  p.detector.kind = DetectorKind::kWaveform;
  EXPECT_EQ(FrameFogOf(p, 50).slabs, kMostFogSlabs);
  EXPECT_EQ(FrameFogOf(p, 50).least_power_w, 0);
}

Scene FarWallInFog(double visibility_m) {
  Scene s;
  s.materials = test::ConstantMaterials({0.1});
  s.objects.push_back(test::Placed("wall", MakePlate(200, 200), {300, 0, 0}, 0, 0, 0, 0, 1, 1));
  s.description.weather.fog = FogDescription{.visibility_m = visibility_m};
  return s;
}

// Dense fog (MOR 20 m) echoes itself: the simulated echo is labelled as fog (class 102) and lies
// at the peak of the volume's signal, found here by a scan and golden sections of its integral,
// to 1 cm; with the threshold 3 % above that peak no echo is reported, 3 % below one is.
// Without the fog's backscatter there is none.
TEST(FogEchoes, DenseFogEchoesItselfWhereItsReturnPeaks) {
  SensorProfile p = FoggedSensor();
  const Scene scene = FarWallInFog(20);
  const double sigma = p.Threshold().pulse_sigma_m;
  auto volume = [&](double x) { return VolumeSignal(x, 20, sigma, p.min_range_m, 60); };
  double peak_x = 0, peak = 0;
  for (double x = 0.3; x < 5; x += 0.01) {
    const double v = volume(x);
    if (v > peak) {
      peak = v;
      peak_x = x;
    }
  }
  double lo = peak_x - 0.01, hi = peak_x + 0.01;
  while (hi - lo > 1e-5) {
    const double m1 = hi - 0.618 * (hi - lo), m2 = lo + 0.618 * (hi - lo);
    const bool rising = volume(m1) < volume(m2);  // the peak lies right of m1
    (rising ? lo : hi) = rising ? m1 : m2;
  }
  peak_x = 0.5 * (lo + hi);
  peak = volume(peak_x);
  p.detector.threshold_w = 0.5 * peak;
  const Frame f = CpuSimulator(scene, p, Trajectory::Static(), {3}).Simulate(0).value();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f.semantic_class[0], 102);
  EXPECT_NEAR(f.range_m[0], peak_x, 0.01);
  std::printf("[fog] MOR 20 m: echo at %.4f m, the volume's peak at %.4f m\n", f.range_m[0],
              peak_x);
  p.detector.threshold_w = 1.03 * peak;
  EXPECT_EQ(CpuSimulator(scene, p, Trajectory::Static(), {3}).Simulate(0).value().size(), 0u);
  p.detector.threshold_w = 0.97 * peak;
  EXPECT_EQ(CpuSimulator(scene, p, Trajectory::Static(), {3}).Simulate(0).value().size(), 1u);
  Scene clear = scene;
  clear.description.weather.fog->backscatter = false;
  EXPECT_EQ(CpuSimulator(clear, p, Trajectory::Static(), {3}).Simulate(0).value().size(), 0u);
}

}  // namespace
}  // namespace lt
