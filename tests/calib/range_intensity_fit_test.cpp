// The range-intensity fit (calib/range_intensity_fit.h): recovery and coverage of the link
// constant and the near-field overlap.
#include "lidartwin/calib/range_intensity_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "calib/coverage.h"

namespace lt::calib {
namespace {

// Three Lambertian targets (10, 50, 90 %) from 0.5 to 30 m; signal K rho cos / (4 R^2) O(R)
// with 2 % noise (computed here independently of the physics headers).
std::vector<RangeIntensitySample> Sweep(double k, double r_o, double sharp, std::mt19937_64& rng,
                                        bool give_sigma) {
  std::normal_distribution<double> unit(0, 1);
  std::vector<RangeIntensitySample> out;
  for (double rho : {0.1, 0.5, 0.9}) {
    for (double r = 0.5; r <= 30; r *= 1.15) {
      const double s = k * rho / (4 * r * r) * (1 - std::exp(-std::pow(r / r_o, sharp)));
      const double sigma = 0.02 * s + 1e-3;
      out.push_back({r, rho, 0.0, s + sigma * unit(rng), give_sigma ? sigma : 0.0});
    }
  }
  return out;
}

TEST(RangeIntensityFit, RecoversLinkConstantAndOverlapWithCoveringUncertainties) {
  const double k = 4e4, r_o = 2.0, sharp = 2.5;
  std::mt19937_64 rng(31);
  test::Coverage coverage;
  for (int draw = 0; draw < 100; ++draw) {
    auto fit = FitRangeIntensity(Sweep(k, r_o, sharp, rng, true));
    ASSERT_TRUE(fit.ok()) << fit.message();
    coverage.Add(*fit, "link_constant", k);
    coverage.Add(*fit, "overlap_range_m", r_o);
    coverage.Add(*fit, "overlap_sharpness", sharp);
  }
  coverage.Expect("range-intensity fit");
}

TEST(RangeIntensityFit, OnlyFarPointsCannotShowTheOverlap) {
  std::vector<RangeIntensitySample> far;
  for (double r = 20; r <= 30; r += 1)
    far.push_back({r, 0.5, 0, 1e4 * 0.5 / (4 * r * r), 0.1});
  auto fit = FitRangeIntensity(far);
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.message().find("range-intensity fit"), std::string::npos) << fit.message();
}

TEST(RangeIntensityFit, ModelSignalIsTheFittedCurve) {
  FitResult fit;
  fit.parameters = {
      {"link_constant", 4e4, 0}, {"overlap_range_m", 2, 0}, {"overlap_sharpness", 2.5, 0}};
  for (double r : {0.5, 2.0, 10.0}) {
    const double truth =
        4e4 * 0.5 * std::cos(0.5) / (4 * r * r) * (1 - std::exp(-std::pow(r / 2, 2.5)));
    EXPECT_NEAR(ModelSignal(fit, r, 0.5, 0.5 * 180 / M_PI), truth, 1e-9 * truth) << r;
  }
  fit.parameters.pop_back();
  EXPECT_TRUE(std::isnan(ModelSignal(fit, 1, 0.5, 0)));
}

}  // namespace
}  // namespace lt::calib
