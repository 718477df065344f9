// A dirty or wet cover (physics/cover.h) in the simulator: a region's transmission lowers the
// power of every return through it by T^2 and of nothing outside it; the window's own echo,
// nearer than the minimum range, is gated out before the return mode picks (so the strongest
// return is still the target) but its tail hides targets close to the sensor, to the range the
// pulse's Gaussian predicts; with no minimum range the echo is reported, labelled as the cover.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "cpu/cpu_simulator.h"
#include "lidartwin/physics/return_signal.h"
#include "lidartwin/sim/scene.h"
#include "sim_test_scenes.h"

namespace lt {
namespace {

// One beam along +x (azimuth 0, elevation 0), threshold 1e-8 W, sigma_r = 0.2546 m, minimum
// range 0.3 m, one surface per sub-ray.
SensorProfile WindowSensor() {
  SensorProfile p = test::ThresholdBeam();
  p.detector.max_surfaces_per_sub_ray = 1;
  p.min_range_m = 0.3;
  return p;
}

// A 10 % plate facing the sensor at `range_m`, behind a cover of `regions` (none: clean).
Scene PlateBehindCover(double range_m, const std::vector<CoverRegionDescription>& regions) {
  Scene s;
  s.materials = test::ConstantMaterials({0.1});
  s.objects.push_back(test::Placed("plate", MakePlate(20, 20), {range_m, 0, 0}, 0, 0, 0, 0, 1, 1));
  if (!regions.empty()) s.description.weather.cover = CoverDescription{regions};
  return s;
}

Frame Simulate(const Scene& scene, const SensorProfile& p) {
  return CpuSimulator(scene, p, Trajectory::Static(), {7}).Simulate(0).value();
}

// T = 0.7 over azimuths [-10, 10] deg: the plate's reported reflectivity (its power over a
// white target's through the clean window) is 0.49 of the clean window's, to float rounding;
// a region at azimuths [20, 60] changes nothing; two layers over the beam multiply.
TEST(Cover, ARegionsTransmissionScalesEveryReturnThroughItByItsSquare) {
  const SensorProfile p = WindowSensor();
  const Frame clean = Simulate(PlateBehindCover(10, {}), p);
  ASSERT_EQ(clean.size(), 1u);
  const Frame dirty = Simulate(PlateBehindCover(10, {{{-10, 10}, {-5, 5}, 0.7, 0}}), p);
  ASSERT_EQ(dirty.size(), 1u);
  EXPECT_NEAR(dirty.intensity[0] / clean.intensity[0], 0.49, 1e-5);
  EXPECT_NEAR(dirty.range_m[0], clean.range_m[0], 1e-6);  // a peak moves with no scale
  const Frame beside = Simulate(PlateBehindCover(10, {{{20, 60}, {-5, 5}, 0.2, 0}}), p);
  ASSERT_EQ(beside.size(), 1u);
  EXPECT_EQ(beside.intensity[0], clean.intensity[0]);
  const Frame layers = Simulate(
      PlateBehindCover(10, {{{-10, 10}, {-5, 5}, 0.7, 0}, {{-180, 180}, {-90, 90}, 0.8, 0}}), p);
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_NEAR(layers.intensity[0] / clean.intensity[0], 0.49 * 0.64, 1e-5);
}

// A window that sends back b = 1e-6 of the 20 W pulse through T_opt 0.9 (18 uW, 1800 times the
// threshold) at 2 cm: its pulse stays above the threshold out to 0.02 + sigma sqrt(2 ln 1800)
// = 1.006 m. The echo is gated out (minimum range 0.3 m), and in the strongest-return mode the
// plate at 5 m, 1.6 times weaker than the window, is still the return, numbered 0. A plate at
// 0.5 m, inside the window's tail, merges with it and is lost; without the window it is seen.
// With no minimum range the window's echo is reported at its range, labelled 104.
TEST(Cover, TheWindowsEchoIsGatedButItsTailHidesNearTargets) {
  SensorProfile p = WindowSensor();
  p.detector.return_mode = physics::ReturnMode::kStrongest;
  p.detector.max_echoes = 1;
  const std::vector<CoverRegionDescription> scattering = {{{-180, 180}, {-90, 90}, 1.0, 1e-6}};
  const Frame far = Simulate(PlateBehindCover(5, scattering), p);
  ASSERT_EQ(far.size(), 1u);
  EXPECT_EQ(far.semantic_class[0], 1);
  EXPECT_NEAR(far.range_m[0], Simulate(PlateBehindCover(5, {}), p).range_m[0], 1e-3);
  EXPECT_EQ(far.return_index[0], 0);
  // The window's tail: where its pulse falls to the threshold.
  const double sigma = p.Threshold().pulse_sigma_m;
  const double tail_m = 0.02 + sigma * std::sqrt(2 * std::log(1e-6 * 20 * 0.9 / 1e-8));
  EXPECT_NEAR(tail_m, 1.006, 1e-3);
  // The near plate, darkened to 1e-5 (11 thresholds at 0.5 m) so the window outshines it.
  Scene near = PlateBehindCover(0.5, scattering);
  near.materials = test::ConstantMaterials({1e-5});
  p.detector.return_mode = physics::ReturnMode::kFirst;
  EXPECT_EQ(Simulate(near, p).size(), 0u);
  Scene near_clean = near;
  near_clean.description.weather.cover.reset();
  EXPECT_EQ(Simulate(near_clean, p).size(), 1u);
  // Past the tail a plate is its own echo: 1e-4 at 1.8 m (8.7 thresholds), where the signal
  // between the two falls to 4e-9 W.
  Scene past = PlateBehindCover(1.8, scattering);
  past.materials = test::ConstantMaterials({1e-4});
  const Frame seen_past = Simulate(past, p);
  ASSERT_EQ(seen_past.size(), 1u);
  EXPECT_NEAR(seen_past.range_m[0], 1.8, 0.01);
  // No minimum range: the window's echo is reported, the cover's.
  p.min_range_m = 0;
  const Frame seen = Simulate(PlateBehindCover(5, scattering), p);
  ASSERT_GE(seen.size(), 1u);
  EXPECT_EQ(seen.semantic_class[0], 104);
  EXPECT_NEAR(seen.range_m[0], 0.02, 2e-3);
  std::printf("[cover] window echo at %.4f m; its tail above the threshold to %.3f m\n",
              seen.range_m[0], tail_m);
}

}  // namespace
}  // namespace lt
