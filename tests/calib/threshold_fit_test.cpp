// The detection-threshold fit (calib/threshold_fit.h): recovery and coverage over many
// simulated dark-target sweeps, and its errors.
#include "lidartwin/calib/threshold_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "calib/coverage.h"

namespace lt::calib {
namespace {

// A sweep of 25 signal levels across the transition, 200 pulses each; detections drawn from
// the probit model (computed here with std::erfc, independently of the physics header).
std::vector<DetectionSample> Sweep(double t, double sigma, std::mt19937_64& rng) {
  std::vector<DetectionSample> out;
  for (int i = 0; i < 25; ++i) {
    const double s = t - 3 * sigma + 6 * sigma * i / 24;
    const double p = 0.5 * std::erfc(-(s - t) / (sigma * std::sqrt(2.0)));
    std::binomial_distribution<uint32_t> draw(200, p);
    out.push_back({s, 200, draw(rng)});
  }
  return out;
}

TEST(ThresholdFit, RecoversThresholdAndNoiseWithCoveringUncertainties) {
  const double t = 576, sigma = 40;  // nW
  std::mt19937_64 rng(11);
  test::Coverage coverage;
  for (int draw = 0; draw < 150; ++draw) {
    auto fit = FitDetectionThreshold(Sweep(t, sigma, rng));
    ASSERT_TRUE(fit.ok()) << fit.message();
    coverage.Add(*fit, "threshold", t);
    coverage.Add(*fit, "noise_sigma", sigma);
  }
  coverage.Expect("threshold fit");
}

TEST(ThresholdFit, ASweepThatMissesTheTransitionIsAnError) {
  std::vector<DetectionSample> all_detected = {{10, 100, 100}, {20, 100, 99}, {30, 100, 100}};
  auto fit = FitDetectionThreshold(all_detected);
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.message().find("mostly detected"), std::string::npos) << fit.message();
  auto few = FitDetectionThreshold({{1, 10, 1}, {2, 10, 9}});
  ASSERT_FALSE(few.ok());
  EXPECT_NE(few.message().find("at least 3"), std::string::npos) << few.message();
  auto bad = FitDetectionThreshold({{1, 0, 0}, {2, 10, 11}, {std::nan(""), 10, 5}});
  ASSERT_FALSE(bad.ok());
}

}  // namespace
}  // namespace lt::calib
