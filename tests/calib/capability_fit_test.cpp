// The capability fit (calib/capability_fit.h): recovery and coverage of d_max and R_L,max.
#include "lidartwin/calib/capability_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "calib/coverage.h"

namespace lt::calib {
namespace {

// Targets of 5 % .. 95 % reflectance; the farthest detected range of each with Gaussian noise
// (computed here independently: d_max min(1, R / R_L)).
std::vector<CapabilitySample> Targets(double d_max, double r_l, double sigma, std::mt19937_64& rng,
                                      bool give_sigma) {
  std::normal_distribution<double> noise(0, sigma);
  std::vector<CapabilitySample> out;
  for (double r = 0.05; r < 0.96; r += 0.05)
    out.push_back({r, d_max * std::min(1.0, r / r_l) + noise(rng), give_sigma ? sigma : 0.0});
  return out;
}

TEST(CapabilityFit, RecoversTheDataSheetParametersWithCoveringUncertainties) {
  const double d_max = 50, r_l = 0.6;
  for (bool give_sigma : {true, false}) {
    std::mt19937_64 rng(give_sigma ? 21 : 22);
    test::Coverage coverage;
    for (int draw = 0; draw < 150; ++draw) {
      auto fit = FitCapability(Targets(d_max, r_l, 0.4, rng, give_sigma));
      ASSERT_TRUE(fit.ok()) << fit.message();
      coverage.Add(*fit, "max_range_m", d_max);
      coverage.Add(*fit, "reflectance_at_max_range", r_l);
    }
    coverage.Expect(std::string("capability fit, sigma ") + (give_sigma ? "given" : "estimated"));
  }
}

TEST(CapabilityFit, TargetsThatAllReachDMaxCannotGiveTheReflectanceLimit) {
  auto fit = FitCapability({{0.7, 50, 0.1}, {0.8, 50, 0.1}, {0.9, 50, 0.1}});
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.message().find("R_L,max"), std::string::npos) << fit.message();
}

}  // namespace
}  // namespace lt::calib
