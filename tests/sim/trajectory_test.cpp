#include "lidartwin/sim/trajectory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "sim/expect_same_config.h"
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
  // Issue 36: the hint names the optional keys too, not only those this pose gave.
  EXPECT_NE(t.message().find("known keys here: position_m, rotation_deg, time_s"),
            std::string::npos)
      << t.message();
}

TEST(TrajectoryWriter, ReadsBackTheSame) {
  test::TempDir dir;
  auto a = LoadTrajectory(
      dir.Write("t.yaml",
                "motion_correction: true\nstart_time_s: -0.05\nposes:\n"
                "  - {time_s: 0.1, position_m: [1.5, -2, 0.25], rotation_deg: [1, -2, 179.5]}\n"
                "  - {time_s: 0.2, position_m: [2.5, -2, 0.25], rotation_deg: [-30, 89.9, -45]}\n"
                "  - {time_s: 0.35, position_m: [1e-3, 7, 1e5], rotation_deg: [0, 0, 0]}\n"));
  ASSERT_TRUE(a.ok()) << a.message();
  ASSERT_TRUE(a->Validate().ok()) << a->Validate().message();
  const std::string text = SaveTrajectory(*a, "written by the test");
  auto b = ParseTrajectory(text, dir / "u.yaml");
  ASSERT_TRUE(b.ok()) << b.message() << "\n" << text;
  test::ExpectSameTrajectory(*a, *b);
  auto c = ParseTrajectory(SaveTrajectory(*b), dir / "v.yaml");
  ASSERT_TRUE(c.ok()) << c.message();
  test::ExpectSameTrajectory(*a, *c);
  // Without poses: the identity pose, which moves the sensor the same way.
  Trajectory none = Trajectory::Static();
  none.start_time_s = 2;
  auto d = ParseTrajectory(SaveTrajectory(none), dir / "w.yaml");
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_EQ(d->start_time_s, 2);
  EXPECT_EQ(d->At(5).translation.x, 0);
  EXPECT_EQ(d->At(5).rotation.w, 1);
}

TEST(TrajectoryValidate, EachRuleNamesItsKey) {
  Trajectory valid;
  valid.time_s = {0, 1};
  valid.poses = {Trajectory::Static().At(0), Trajectory::Static().At(0)};
  ASSERT_TRUE(valid.Validate().ok()) << valid.Validate().message();
  ASSERT_TRUE(Trajectory::Static().Validate().ok());
  const struct {
    const char* key;
    std::function<void(Trajectory&)> breaks;
    const char* problem;
  } rules[] = {
      {"poses", [](Trajectory& t) { t.time_s.pop_back(); }, "1 times for 2 poses"},
      {"poses[1].time_s", [](Trajectory& t) { t.time_s[1] = 0; },
       "times must increase strictly (0 after 0)"},
      {"poses[0].time_s", [](Trajectory& t) { t.time_s[0] = NAN; }, "must be within +-1e10 s"},
      // Issue 36: a first pose at 1e300 s was named as start_time_s.
      {"poses[0].time_s", [](Trajectory& t) { t.time_s[0] = -1e300; },
       "must be within +-1e10 s, got -1e+300"},
      {"poses[1].position_m", [](Trajectory& t) { t.poses[1].translation.y = INFINITY; },
       "must be finite"},
      {"poses[0].rotation_deg", [](Trajectory& t) { t.poses[0].rotation.w = 2; },
       "is not a rotation (a quaternion of norm 2, not 1)"},
      {"start_time_s", [](Trajectory& t) { t.start_time_s = NAN; }, "must be finite"},
      // Issue 36: at 1e20 s a double cannot tell the frames' times apart.
      {"start_time_s", [](Trajectory& t) { t.start_time_s = 1e20; },
       "must be within +-1e10 s, got 1e+20"},
  };
  for (const auto& rule : rules) {
    Trajectory t = valid;
    rule.breaks(t);
    const Status s = t.Validate();
    ASSERT_FALSE(s.ok()) << rule.key;
    EXPECT_NE(s.message().find("trajectory: key '" + std::string(rule.key) + "': " + rule.problem),
              std::string::npos)
        << s.message();
  }
}

}  // namespace
}  // namespace lt
