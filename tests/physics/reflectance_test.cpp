#include "lidartwin/physics/reflectance.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lidartwin/physics/scan_pattern.h"

namespace lt::physics {
namespace {

TEST(LambertianReflectance, FollowsR0CosTheta) {  // seed 000 eq. (4)
  EXPECT_DOUBLE_EQ(LambertianReflectance(0.8, 1.0), 0.8);
  EXPECT_NEAR(LambertianReflectance(0.8, std::cos(60 * kDegToRad)), 0.4, 1e-15);
  EXPECT_NEAR(LambertianReflectance(0.8, std::cos(90 * kDegToRad)), 0.0, 1e-16);
}

TEST(IncidenceCosine, IsTheAbsoluteCosineAndSymmetricInTheNormal) {
  const Vec3<double> d = Normalized(Vec3<double>{1, 1, 0});
  const Vec3<double> n{-1, 0, 0};
  EXPECT_NEAR(IncidenceCosine(d, n), std::cos(45 * kDegToRad), 1e-15);
  EXPECT_DOUBLE_EQ(IncidenceCosine(d, n), IncidenceCosine(d, Vec3<double>{1, 0, 0}));
  EXPECT_DOUBLE_EQ(IncidenceCosine(Vec3<double>{0, 0, 1}, Vec3<double>{1, 0, 0}), 0.0);
}

}  // namespace
}  // namespace lt::physics
