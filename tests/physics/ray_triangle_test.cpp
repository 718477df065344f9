#include "lidartwin/physics/ray_triangle.h"

#include <gtest/gtest.h>

#include <cmath>

namespace lt::physics {
namespace {

const Vec3<double> kA{5, -1, -1}, kB{5, 1, -1}, kC{5, 0, 1};

TEST(RayTriangleDistance, HitsInFrontAndMissesOutside) {
  EXPECT_DOUBLE_EQ(RayTriangleDistance<double>({0, 0, 0}, {1, 0, 0}, kA, kB, kC), 5.0);
  EXPECT_DOUBLE_EQ(RayTriangleDistance<double>({0, 0, 0}, {2, 0, 0}, kA, kB, kC), 2.5);
  // Meets the plane at z = 2.5, above the apex at z = 1.
  EXPECT_LT(RayTriangleDistance<double>({0, 0, 0}, {1, 0, 0.5}, kA, kB, kC), 0.0);
  EXPECT_LT(RayTriangleDistance<double>({0, 0, 0}, {0, 1, 0}, kA, kB, kC), 0.0);   // parallel
  EXPECT_LT(RayTriangleDistance<double>({10, 0, 0}, {1, 0, 0}, kA, kB, kC), 0.0);  // behind
}

TEST(RayPlaneDistance, GivesTheExactPlaneDistance) {
  const Vec3<double> n{-1, 0, 0};
  const Vec3<double> d = Normalized(Vec3<double>{1, 1, 0});
  EXPECT_NEAR(RayPlaneDistance({0, 0, 0}, d, kA, n), 5 * std::sqrt(2.0), 1e-12);
}

}  // namespace
}  // namespace lt::physics
