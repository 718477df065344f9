#include "lidartwin/physics/hermite.h"

#include <gtest/gtest.h>

namespace lt::physics {
namespace {

TEST(Hermite, PassesThroughEveryNode) {
  const double x[] = {400, 500, 650, 900, 1550};
  const double y[] = {0.10, 0.30, 0.25, 0.60, 0.40};
  for (int i = 0; i < 5; ++i)
    EXPECT_DOUBLE_EQ(HermiteInterpolate(x, y, 5, x[i]), y[i]);
}

TEST(Hermite, ReproducesLinearDataExactly) {
  const double x[] = {0, 1, 3, 7};
  const double y[] = {1, 3, 7, 15};  // y = 2x + 1
  for (double q = 0; q <= 7; q += 0.37)
    EXPECT_NEAR(HermiteInterpolate(x, y, 4, q), 2 * q + 1, 1e-12);
}

TEST(Hermite, ClampsToTheEndValuesOutsideTheTable) {
  const double x[] = {850, 905, 1550};
  const double y[] = {0.27, 0.28, 0.36};
  EXPECT_DOUBLE_EQ(HermiteInterpolate(x, y, 3, 400.0), 0.27);
  EXPECT_DOUBLE_EQ(HermiteInterpolate(x, y, 3, 2000.0), 0.36);
}

TEST(Hermite, OneSampleIsConstant) {
  const double x[] = {1};
  const double y[] = {0.5};
  EXPECT_DOUBLE_EQ(HermiteInterpolate(x, y, 1, 850.0), 0.5);
}

// Hand-computed: y = x^2 at 0..3. Fritsch-Butland tangents (equal spacing) at nodes 1 and 2:
// 2 / (1/1 + 1/3) = 1.5 and 2 / (1/3 + 1/5) = 3.75. At s = 0.5 the Hermite basis is
// (0.5, 0.125, 0.5, -0.125): 0.5*1 + 0.125*1.5 + 0.5*4 - 0.125*3.75 = 2.21875.
TEST(Hermite, MatchesAHandComputedCase) {
  const double x[] = {0, 1, 2, 3};
  const double y[] = {0, 1, 4, 9};
  EXPECT_NEAR(HermiteInterpolate(x, y, 4, 1.5), 2.21875, 1e-12);
}

TEST(Hermite, DoesNotOvershootMonotoneOrFlatData) {
  const double x[] = {0, 1, 2, 3, 4};
  const double y[] = {0, 0, 1, 1, 1};  // a step: no ringing below 0 or above 1
  double previous = -1;
  for (double q = 0; q <= 4; q += 0.01) {
    const double v = HermiteInterpolate(x, y, 5, q);
    EXPECT_GE(v, 0.0);
    EXPECT_LE(v, 1.0);
    EXPECT_GE(v, previous - 1e-15);
    previous = v;
  }
  EXPECT_DOUBLE_EQ(HermiteInterpolate(x, y, 5, 0.5), 0.0);  // flat stretch stays flat
}

}  // namespace
}  // namespace lt::physics
