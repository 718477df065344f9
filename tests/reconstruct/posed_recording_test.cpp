// The angle between two rotations that ICP's report and reproduce's stillness test share,
// against rotations about one axis built by hand (q = (cos a/2, sin a/2 n)).
#include "lidartwin/reconstruct/posed_recording.h"

#include <gtest/gtest.h>

#include <cmath>

namespace lt {
namespace {

physics::Quat<double> AboutZ(double deg) {
  const double half = deg * M_PI / 360;
  return {std::cos(half), 0, 0, std::sin(half)};
}

TEST(TurnedDeg, IsTheAngleBetweenTwoRotationsWhicheverTheirSigns) {
  EXPECT_NEAR(TurnedDeg({1, 0, 0, 0}, AboutZ(30)), 30, 1e-9);
  EXPECT_NEAR(TurnedDeg(AboutZ(10), AboutZ(-25)), 35, 1e-9);
  const physics::Quat<double> q = AboutZ(0.2), minus_q{-q.w, -q.x, -q.y, -q.z};
  EXPECT_NEAR(TurnedDeg(q, minus_q), 0, 1e-6);  // one rotation, two signs
  EXPECT_NEAR(TurnedDeg({1, 0, 0, 0}, AboutZ(0.2)), 0.2, 1e-6);
  EXPECT_NEAR(TurnedDeg({1, 0, 0, 0}, {0, 1, 0, 0}), 180, 1e-9);  // half a turn about x
}

}  // namespace
}  // namespace lt
