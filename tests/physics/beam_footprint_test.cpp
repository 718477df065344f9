#include "lidartwin/physics/beam_footprint.h"

#include <gtest/gtest.h>

#include <cmath>

namespace lt::physics {
namespace {

// Uniform in solid angle inside a cone of half-angle a: every draw within a of the axis, and
// E[cos theta] = 1 - (1 - cos a) / 2.
TEST(DirectionInCone, StaysInsideTheConeWithTheUniformMean) {
  const double a = 0.02;
  const Vec3<double> axis = Normalized(Vec3<double>{0.3, -0.5, 0.8});
  const int n = 100000;
  double mean_cos = 0;
  Vec3<double> mean{0, 0, 0};
  for (int i = 0; i < n; ++i) {
    const Philox4x32 w = RandomWords({5, 0, static_cast<uint32_t>(i), 0, kStreamSubRayDirection});
    const Vec3<double> d = DirectionInCone(axis, a, w.v[0], w.v[1]);
    ASSERT_NEAR(Norm(d), 1.0, 1e-12);
    const double c = Dot(d, axis);
    ASSERT_GE(c, std::cos(a) - 1e-12);
    mean_cos += c / n;
    mean = mean + (1.0 / n) * d;
  }
  const double expected = 1 - (1 - std::cos(a)) / 2;
  // Standard error of cos theta: (1 - cos a) / sqrt(12 n); 5 of them.
  EXPECT_NEAR(mean_cos, expected, 5 * (1 - std::cos(a)) / std::sqrt(12.0 * n));
  // No preferred side: the mean direction is the axis.
  EXPECT_NEAR(Dot(Normalized(mean), axis), 1.0, 1e-7);
}

}  // namespace
}  // namespace lt::physics
