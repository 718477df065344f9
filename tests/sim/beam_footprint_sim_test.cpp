// Tier 2 in the simulator: sub-rays in the divergence cone, seed 003's two output modes.
#include <gtest/gtest.h>

#include "cpu/cpu_simulator.h"
#include "sim/sim_test_scenes.h"
#include "test_support.h"

namespace lt {
namespace {

// A 0.5 m plate 5 m ahead whose edge lies on the x axis, in front of a wall at 10 m; one beam
// straight along x, so half its cone meets the plate (a mixed pixel).
struct EdgeScene {
  Scene scene;
  SensorProfile profile;
  EdgeScene(uint32_t sub_rays, physics::DivergenceMode mode) {
    scene.materials = test::ConstantMaterials({0.8, 0.2});
    scene.objects.push_back(
        test::Placed("plate", MakePlate(0.5, 0.5), {5, 0.25, 0}, 0, 0, 0, 0, 7, 64));
    scene.objects.push_back(
        test::Placed("wall", MakePlate(100, 100), {10, 0, 0}, 0, 0, 0, 1, 8, 1));
    profile = test::SpinningSensor(1, 0, 0, 1, 10);
    // 100 mrad divergence: 0.25 m wide at 5 m.
    profile.footprint.sub_rays = sub_rays;
    profile.footprint.half_angle_rad = 0.05;
    profile.footprint.mode = mode;
  }
};

TEST(BeamFootprint, AverageModeMixesThePlateAndTheWall) {
  EdgeScene s(64, physics::DivergenceMode::kAverage);
  const Frame f = CpuSimulator(s.scene, s.profile, Trajectory::Static(), {3}).Simulate(0).value();
  ASSERT_EQ(f.size(), 1u);
  // About half the sub-rays see the plate (5 m) and half the wall (10 m, 1/cos <= 1.0013).
  EXPECT_GT(f.range_m[0], 6.0);
  EXPECT_LT(f.range_m[0], 9.0);
  EXPECT_NEAR(f.y_m[0], 0.0, 1e-6);  // reported along the central ray
  // Intensity: mean of 100 R over the sub-rays, all of which return here (0.8 or 0.2 at
  // near-normal incidence): between the two.
  EXPECT_GT(f.intensity[0], 20.0 * 0.99);
  EXPECT_LT(f.intensity[0], 80.0);
  EXPECT_EQ(f.instance_id[0], 7u);  // the plate's return is the stronger one
  EXPECT_EQ(s.profile.RaysPerFrame(), 64u);
}

TEST(BeamFootprint, RandomSelectionReportsOneSubRay) {
  int plate = 0, wall = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    EdgeScene s(8, physics::DivergenceMode::kRandomSelection);
    const Frame f =
        CpuSimulator(s.scene, s.profile, Trajectory::Static(), {seed}).Simulate(0).value();
    ASSERT_EQ(f.size(), 1u);
    const double r = f.range_m[0];
    const bool on_plate = r > 5.0 - 1e-6 && r < 5.0 / std::cos(0.05) + 1e-6;
    const bool on_wall = r > 10.0 - 1e-6 && r < 10.0 / std::cos(0.05) + 1e-6;
    ASSERT_TRUE(on_plate || on_wall) << r;
    EXPECT_EQ(f.instance_id[0], on_plate ? 7u : 8u);
    plate += on_plate;
    wall += on_wall;
  }
  // Half the cone meets the plate: both outcomes occur, neither dominates.
  EXPECT_GT(plate, 60);
  EXPECT_GT(wall, 60);
}

TEST(BeamFootprint, OneSubRayIsTheCentralRay) {
  EdgeScene s(1, physics::DivergenceMode::kAverage);
  const Frame f = CpuSimulator(s.scene, s.profile, Trajectory::Static(), {3}).Simulate(0).value();
  ASSERT_EQ(f.size(), 1u);
  // The central ray lies exactly on the plate's edge: watertight, it hits the plate or the
  // wall straight ahead, at 5 or 10 m exactly.
  EXPECT_TRUE(std::abs(f.range_m[0] - 5.0f) < 1e-6 || std::abs(f.range_m[0] - 10.0f) < 1e-6);
}

TEST(BeamFootprint, ProfileKeysAndErrors) {
  test::TempDir dir;
  const std::string base =
      "name: t\nwavelength_nm: 905\nmax_range_m: 100\n"
      "scan:\n  type: spinning\n  elevation_deg: [0]\n  columns_per_revolution: 4\n"
      "  rotation_rate_hz: 10\ndetector:\n  type: ideal\n";
  auto ok = LoadSensorProfile(
      dir.Write("ok.yaml", base + "beam:\n  divergence_mrad: 3\n  sub_rays: 8\n  mode: average\n"));
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok->footprint.sub_rays, 8u);
  EXPECT_DOUBLE_EQ(ok->footprint.half_angle_rad, 1.5e-3);
  EXPECT_EQ(ok->RaysPerFrame(), 32u);
  auto no_cone = LoadSensorProfile(
      dir.Write("bad1.yaml", base + "beam:\n  divergence_mrad: 0\n  sub_rays: 8\n"));
  ASSERT_FALSE(no_cone.ok());
  EXPECT_NE(no_cone.message().find("'beam.sub_rays'"), std::string::npos) << no_cone.message();
  auto mode = LoadSensorProfile(
      dir.Write("bad2.yaml", base + "beam:\n  divergence_mrad: 3\n  mode: median\n"));
  ASSERT_FALSE(mode.ok());
  EXPECT_NE(mode.message().find("unknown mode 'median'"), std::string::npos) << mode.message();
}

}  // namespace
}  // namespace lt
