// Pulse-energy jitter and receiver noise from the spread of simulated pulses: recovery and
// coverage over 150 measurement sets (pulses drawn here, independently of the simulator).
#include "lidartwin/calib/jitter_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "calib/coverage.h"

namespace lt::calib {
namespace {

TEST(JitterFit, RecoversJitterAndNoiseWithCoverage) {
  const double j = 0.02, sigma = 90;
  std::mt19937_64 rng(8);
  std::normal_distribution<double> n(0, 1);
  test::Coverage coverage;
  for (int set = 0; set < 150; ++set) {
    std::vector<SignalSpreadSample> samples;
    for (double s : {1e3, 2e3, 4e3, 8e3, 1.6e4, 3.2e4, 1e5, 1e6}) {
      const int pulses = 400;
      double sum = 0, sum2 = 0;
      for (int k = 0; k < pulses; ++k) {
        const double x = s * (1 + j * n(rng)) + sigma * n(rng);
        sum += x;
        sum2 += x * x;
      }
      const double mean = sum / pulses;
      samples.push_back({mean, std::sqrt((sum2 - pulses * mean * mean) / (pulses - 1)), 400});
    }
    auto fit = FitPulseEnergyJitter(samples);
    ASSERT_TRUE(fit.ok()) << fit.message();
    coverage.Add(*fit, "pulse_energy_jitter", j);
    coverage.Add(*fit, "noise_sigma", sigma);
  }
  coverage.Expect("pulse-energy jitter");
}

// Every signal far above the noise: sigma cannot be told from 0. Fitted as a variance, it
// comes back near 0 with an uncertainty as wide as the smallest spread, an upper bound rather
// than a value (once, in ln sigma, a rank-deficient covariance); the jitter is still found.
TEST(JitterFit, SpreadsOfOneRegimeAloneLeaveTheOtherTermOnlyAnUpperBound) {
  std::vector<SignalSpreadSample> high;
  for (double s : {1e6, 2e6, 4e6})
    high.push_back({s, 0.02 * s, 400});
  auto fit = FitPulseEnergyJitter(high);
  ASSERT_TRUE(fit.ok()) << fit.message();
  const FitParameter* j = fit->Find("pulse_energy_jitter");
  const FitParameter* sigma = fit->Find("noise_sigma");
  ASSERT_TRUE(j && sigma);
  EXPECT_NEAR(j->value, 0.02, 1e-6);
  EXPECT_LT(j->stddev, 0.002);
  EXPECT_LT(sigma->value, sigma->stddev);
  EXPECT_GT(sigma->stddev, 0.1 * 0.02 * 1e6);  // as wide as a tenth of the smallest spread
  auto few = FitPulseEnergyJitter({{1e3, 90, 400}, {1e6, 2e4, 1}});
  ASSERT_FALSE(few.ok());
  EXPECT_NE(few.message().find("usable spreads"), std::string::npos) << few.message();
}

}  // namespace
}  // namespace lt::calib
