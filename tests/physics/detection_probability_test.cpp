// The probit detection model (physics/detection_probability.h) against Phi's known values.
#include "lidartwin/physics/detection_probability.h"

#include <gtest/gtest.h>

namespace lt::physics {
namespace {

TEST(DetectionProbability, IsTheNormalCdfOfTheSignalOverThreshold) {
  EXPECT_DOUBLE_EQ(DetectionProbability(5.0, 5.0, 2.0), 0.5);
  EXPECT_NEAR(DetectionProbability(7.0, 5.0, 2.0), 0.8413447460685429, 1e-15);  // +1 sigma
  EXPECT_NEAR(DetectionProbability(1.0, 5.0, 2.0), 0.0227501319481792, 1e-15);  // -2 sigma
  // Symmetry: p(T + x) + p(T - x) = 1.
  for (double x : {0.3, 1.7, 4.0})
    EXPECT_NEAR(DetectionProbability(5.0 + x, 5.0, 2.0) + DetectionProbability(5.0 - x, 5.0, 2.0),
                1.0, 1e-15);
}

}  // namespace
}  // namespace lt::physics

namespace lt::physics {
namespace {

TEST(NoisyThreshold, IsTheThresholdLessTheNoiseAboveAThousandthOfIt) {
  EXPECT_DOUBLE_EQ(NoisyThreshold(10.0, 2.0), 8.0);
  EXPECT_DOUBLE_EQ(NoisyThreshold(10.0, -3.0), 13.0);
  EXPECT_DOUBLE_EQ(NoisyThreshold(10.0, 9.995), 0.01);
  EXPECT_DOUBLE_EQ(NoisyThreshold(10.0, 50.0), 0.01);
}

}  // namespace
}  // namespace lt::physics
