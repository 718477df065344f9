// Road spray in the simulator (internal/spray_echoes.h, FrameSpray): the chords' transmission
// and the slabs' returns against the lidar equation integrated apart; the frame's clusters,
// as many as the rate and their lives give, the same clusters from frame to frame where they
// have moved on; and a vehicle at 100 km/h on a wet road throwing up spray that a threshold
// detector sees, labelled as the vehicle's plume, that dims the vehicle behind it, and none at
// 40 km/h.
#include "internal/spray_echoes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "cpu/cpu_simulator.h"
#include "internal/spray_setup.h"
#include "lidartwin/physics/spray.h"
#include "lidartwin/sim/scene.h"
#include "sim_test_scenes.h"
#include "test_support.h"

namespace lt {
namespace {

using physics::kPi;

// The link of test::ThresholdBeam: 20 W, 25 mm aperture, T_opt 0.9, clear air.
const physics::LinkBudget kLink{20.0, 0.025, 0.9, 0.0};

// Two chords of extinction 0.3 and 0.5 /m: the two-way transmission is exp(-2 sum alpha L) over
// the parts in front of the range, by hand.
TEST(SprayEchoes, TheTransmissionIsBeerLambertOverTheChordsInFront) {
  const SprayChord c[2] = {{4.0f, 4.6f, 0.3f, 9}, {8.0f, 9.0f, 0.5f, 9}};
  EXPECT_DOUBLE_EQ(SprayTransmission(c, 2, 3.0), 1.0);
  EXPECT_NEAR(SprayTransmission(c, 2, 4.3), std::exp(-2 * 0.3 * 0.3), 1e-6);
  EXPECT_NEAR(SprayTransmission(c, 2, 8.5), std::exp(-2 * (0.3 * 0.6 + 0.5 * 0.5)), 1e-6);
  EXPECT_NEAR(SprayTransmission(c, 2, 20), std::exp(-2 * (0.18 + 0.5)), 1e-6);
  EXPECT_DOUBLE_EQ(SprayTransmission(c, 0, 20), 1.0);
}

// The slabs of those two chords (sigma 0.2546 m: at most 0.38 m thick) against the volume
// lidar equation written out here, P0 (pi d^2 / 4) T_opt (alpha / S) exp(-2 depth(r)) / r^2,
// integrated by Simpson on 1 mm panels: their powers sum to its integral within 0.5 % (the
// slabs carry the transmission at their centroids), their centroids within each chord, and the
// chord behind the first surface (clear at 8.5 m) is cut there.
TEST(SprayEchoes, TheSlabsReturnTheVolumeIntegralThroughTheSprayInFront) {
  const SprayChord c[2] = {{4.0f, 4.6f, 0.3f, 9}, {8.0f, 9.0f, 0.5f, 9}};
  SprayView v;
  const double sigma = 0.2546;
  auto integrand = [&](double r, double alpha) {
    return 20.0 * kPi * 0.025 * 0.025 / 4 * 0.9 * (alpha / 18.8) * SprayTransmission(c, 2, r) /
           (r * r);
  };
  physics::SignalContribution out[16];
  const uint32_t n = SprayReturns(v, kLink, {0, 0}, sigma, c, 2, 1.0, 8.5, out, 16);
  double first = 0, second = 0;
  uint32_t in_first = 0;
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(out[i].source, 9u);
    const bool one = out[i].range_m < 5;
    (one ? first : second) += out[i].power_w;
    in_first += one;
    if (one) {
      EXPECT_GT(out[i].range_m, 4.0f);
      EXPECT_LT(out[i].range_m, 4.6f);
    } else {
      EXPECT_GT(out[i].range_m, 8.0f);
      EXPECT_LT(out[i].range_m, 8.5f);
    }
  }
  EXPECT_EQ(in_first, 2u);  // 0.6 m in slabs of at most 0.38 m
  EXPECT_EQ(n, 4u);         // and 0.5 m of the second
  const double want_first =
      test::Simpson([&](double r) { return integrand(r, 0.3); }, 4.0, 4.6, 600);
  const double want_second =
      test::Simpson([&](double r) { return integrand(r, 0.5); }, 8.0, 8.5, 500);
  EXPECT_NEAR(first / want_first, 1, 5e-3);
  EXPECT_NEAR(second / want_second, 1, 5e-3);
  // Room for one: the nearest slab alone.
  EXPECT_EQ(SprayReturns(v, kLink, {0, 0}, sigma, c, 2, 1.0, 8.5, out, 1), 1u);
  EXPECT_LT(out[0].range_m, 4.6f);
}

// A ray along a plume of 20 clusters 0.5 m apart, stored farthest first (as a plume behind a
// vehicle is, youngest first): the 8 chords kept are the nearest, in range order.
TEST(SprayEchoes, TheNearestChordsAreKeptInRangeOrder) {
  std::vector<SprayCluster> clusters;
  for (int k = 19; k >= 0; --k) {
    SprayCluster c{};
    c.from[0] = 2.0 + 0.5 * k;
    c.way[0] = 1;
    c.speed_m_s = 0;
    c.drag_per_m = 0.1f;
    c.radius_m = 0.2f;
    c.spawn_s = -1;
    c.end_s = 1;
    c.extinction_per_m = 0.3f;
    c.tau_s = 1e6f;
    c.object = 4;
    clusters.push_back(c);
  }
  const SprayPlume plume{{-1, -1, -1}, {20, 1, 1}, 0, 20};
  SprayView v;
  v.plumes = 1;
  v.plume = &plume;
  v.cluster = clusters.data();
  SprayChord out[kMostSprayChords];
  const uint32_t n = SprayChords(v, {0, 0, 0}, {1, 0, 0}, 0.0, 0.05, 50, out);
  ASSERT_EQ(n, kMostSprayChords);
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_NEAR(out[i].near_m, 2.0 + 0.5 * i - 0.2, 1e-5) << i;
    EXPECT_NEAR(out[i].far_m, 2.0 + 0.5 * i + 0.2, 1e-5) << i;
  }
}

// A car-sized box at 100 km/h along +x, its rear 12.75 m ahead of the origin at t = 0.
SpraySource Car(double speed_kmh) {
  return {0, 7, {12.75, -0.9, 0}, {17.25, 0.9, 1.5}, {speed_kmh / 3.6, 0, 0}};
}

// Frames 0 and 1 (10 Hz) of a car at 100 km/h on 1 mm of water: the clusters alive are about
// rate x (4 tau + T) = 150 x 4.9 (tau's spread widens it a little); a cluster of frame 0 that
// lives on is in frame 1 with the same spawn, radius and time constant, where frame 0's motion
// left it at their common instant (the closed form: to float rounding); every cluster is
// spawned behind the car's rear, across 3.4 m and up 1.5 m. The same seed gives the same
// clusters.
TEST(SprayFrames, ClustersLiveOnFromFrameToFrame) {
  SprayDescription d{10, 1, 18.8, 105};
  std::vector<SprayCluster> c0, c1, again;
  std::vector<SprayPlume> p0, p1, pa;
  const std::vector<SpraySource> car = {Car(100)};
  FrameSpray(car, d, 3, 0.0, 0.1, c0, p0);
  FrameSpray(car, d, 3, 0.1, 0.1, c1, p1);
  FrameSpray(car, d, 3, 0.0, 0.1, again, pa);
  ASSERT_EQ(p0.size(), 1u);
  const double expected = 150 * (4 * 1.2 + 0.1);
  EXPECT_GT(c0.size(), 0.95 * expected);
  EXPECT_LT(c0.size(), 1.15 * expected);
  ASSERT_EQ(again.size(), c0.size());
  for (size_t i = 0; i < c0.size(); ++i) {
    EXPECT_EQ(again[i].spawn_s, c0[i].spawn_s) << i;
    EXPECT_EQ(again[i].radius_m, c0[i].radius_m) << i;
    EXPECT_EQ(again[i].from[0], c0[i].from[0]) << i;
    EXPECT_EQ(again[i].way[2], c0[i].way[2]) << i;
  }
  std::map<double, const SprayCluster*> later;
  for (const SprayCluster& c : c1)
    later[c.spawn_s] = &c;
  size_t matched = 0;
  auto at = [](const SprayCluster& c, double t, int i) {
    const physics::Vec3<double> p = SprayClusterAt(c, t);
    return i == 0 ? p.x : (i == 1 ? p.y : p.z);
  };
  for (const SprayCluster& c : c0) {
    EXPECT_EQ(c.object, 7u);
    EXPECT_GE(c.radius_m, 0.0f);
    EXPECT_LE(c.radius_m, 1.0f);
    auto it = later.find(c.spawn_s);
    if (it == later.end() || c.end_s < 0.1 || c.spawn_s > 0.1) continue;
    const SprayCluster& d1 = *it->second;
    EXPECT_EQ(d1.radius_m, c.radius_m);
    EXPECT_EQ(d1.tau_s, c.tau_s);
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(at(c, 0.1, i), at(d1, 0.1, i), 1e-9) << c.spawn_s;
    ++matched;
  }
  EXPECT_GT(matched, c0.size() * 9 / 10);
  // Spawned behind the rear: where each is at its spawn, in the car's frame then.
  for (const SprayCluster& c : c1) {
    const double rear = 12.75 + 100 / 3.6 * c.spawn_s;
    EXPECT_LE(c.from[0], rear + 1e-9);
    EXPECT_GE(c.from[0], rear - 100 / 3.6 * 0.1 - 1e-9);
    EXPECT_LE(std::abs(c.from[1]), 1.7 + 1e-9);
    EXPECT_GE(c.from[2], -1e-9);
    EXPECT_LE(c.from[2], 1.5 + 1e-9);
  }
  // At 40 km/h: none.
  FrameSpray({Car(40)}, d, 3, 0.0, 0.1, c0, p0);
  EXPECT_TRUE(c0.empty());
  EXPECT_TRUE(p0.empty());
}

// The car as a scene (a 10 % box at 100 km/h), a wet road's spray of visibility 10 m in a
// fresh cluster, seen by 32 threshold beams from -15 to 5 deg over 360 columns.
Scene CarInSpray(double speed_kmh, bool spray) {
  Scene s;
  s.materials = test::ConstantMaterials({0.1});
  SceneObject car = test::Placed("car", MakeBox(4.5, 1.8, 1.5), {15, 0, 0.75}, 0, 0, 0, 0, 3, 10);
  car.motion.velocity_m_s = {speed_kmh / 3.6, 0, 0};
  s.objects.push_back(car);
  if (spray) s.description.weather.spray = SprayDescription{10, 1, 18.8, 105};
  return s;
}

SensorProfile SprayWatcher() {
  SensorProfile p = test::ThresholdBeam();
  const SensorProfile spin = test::SpinningSensor(32, 5, -15, 360, 10);
  p.elevation_rad = spin.elevation_rad;
  p.azimuth_offset_rad = spin.azimuth_offset_rad;
  p.firing_offset_s = spin.firing_offset_s;
  p.columns = spin.columns;
  p.detector.max_surfaces_per_sub_ray = 1;
  p.detector.return_mode = physics::ReturnMode::kLast;
  p.detector.max_echoes = 2;
  return p;
}

// With spray, echoes labelled 105 with one instance of their own (the plume's) lie behind the
// car's rear; the car's own echoes are never brighter than without spray and some are dimmer;
// the same seed gives the same frame; at 40 km/h there is no spray.
TEST(Spray, AFastCarOnAWetRoadThrowsUpSprayThatEchoesAndDims) {
  const SensorProfile p = SprayWatcher();
  const Scene wet = CarInSpray(100, true), dry = CarInSpray(100, false);
  const Frame f = CpuSimulator(wet, p, Trajectory::Static(), {5}).Simulate(0).value();
  const Frame clear = CpuSimulator(dry, p, Trajectory::Static(), {5}).Simulate(0).value();
  size_t spray = 0;
  uint32_t plume = 0;
  std::map<uint32_t, float> car_wet, car_dry;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f.semantic_class[i] == 105) {
      if (spray++ == 0) plume = f.instance_id[i];
      EXPECT_EQ(f.instance_id[i], plume);
      EXPECT_NE(f.instance_id[i], 3u);
      EXPECT_LT(f.x_m[i], 12.75 + 100 / 3.6 * 0.1 + 1);
    } else if (f.semantic_class[i] == 10) {
      car_wet[f.beam_id[i]] = f.intensity[i];
    }
  }
  for (size_t i = 0; i < clear.size(); ++i)
    if (clear.semantic_class[i] == 10) car_dry[clear.beam_id[i]] = clear.intensity[i];
  EXPECT_GT(spray, 20u);
  size_t dimmer = 0, both = 0;
  for (const auto& [beam, intensity] : car_wet) {
    auto it = car_dry.find(beam);
    if (it == car_dry.end()) continue;
    ++both;
    EXPECT_LE(intensity, it->second * (1 + 1e-6)) << beam;
    dimmer += intensity < 0.99f * it->second;
  }
  EXPECT_GT(both, 50u);
  EXPECT_GT(dimmer, 0u);
  std::printf("[spray] %zu spray echoes, %zu of %zu car echoes dimmer by 1 %% or more\n", spray,
              dimmer, both);
  const Frame again = CpuSimulator(wet, p, Trajectory::Static(), {5}).Simulate(0).value();
  EXPECT_EQ(again.range_m, f.range_m);
  const Frame slow =
      CpuSimulator(CarInSpray(40, true), p, Trajectory::Static(), {5}).Simulate(0).value();
  for (uint16_t c : slow.semantic_class)
    EXPECT_NE(c, 105);
}

}  // namespace
}  // namespace lt
