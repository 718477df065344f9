#include "lidartwin/sim/trajectory.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace lt {
namespace {

TEST(Trajectory, InterpolatesAndHoldsOutsideTheSamples) {
  test::TempDir dir;
  const auto file =
      dir.Write("t.yaml",
                "motion_correction: true\n"
                "poses:\n"
                "  - {time_s: 0.0, position_m: [0, 0, 0], rotation_deg: [0, 0, 0]}\n"
                "  - {time_s: 1.0, position_m: [10, 0, 0], rotation_deg: [0, 0, 90]}\n");
  auto t = LoadTrajectory(file);
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_TRUE(t->motion_correction);
  EXPECT_DOUBLE_EQ(t->At(0.25).translation.x, 2.5);
  EXPECT_DOUBLE_EQ(t->At(-5).translation.x, 0.0);
  EXPECT_DOUBLE_EQ(t->At(5).translation.x, 10.0);
  // Half way the heading is 45 deg: the quaternion's z = sin(22.5 deg).
  EXPECT_NEAR(t->At(0.5).rotation.z, std::sin(22.5 * 3.14159265358979 / 180), 1e-12);
}

TEST(Trajectory, RejectsTimesThatDoNotIncrease) {
  test::TempDir dir;
  const auto file = dir.Write("t.yaml",
                              "poses:\n"
                              "  - {time_s: 1.0, position_m: [0, 0, 0]}\n"
                              "  - {time_s: 1.0, position_m: [1, 0, 0]}\n");
  auto t = LoadTrajectory(file);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("poses[1].time_s"), std::string::npos) << t.message();
}

TEST(Trajectory, RejectsUnknownKeys) {
  test::TempDir dir;
  const auto file =
      dir.Write("t.yaml", "poses:\n  - {time_s: 0, position_m: [0, 0, 0], speed: 3}\n");
  auto t = LoadTrajectory(file);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("unknown key 'poses[0].speed'"), std::string::npos) << t.message();
}

}  // namespace
}  // namespace lt
