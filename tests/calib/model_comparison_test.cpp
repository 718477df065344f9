// Nested-model comparison (calib/model_comparison.h): the F distribution's tail against
// tabulated values, and the criteria on fits whose residual sums are known.
#include "lidartwin/calib/model_comparison.h"

#include <gtest/gtest.h>

#include <cmath>

namespace lt::calib {
namespace {

FitResult Fit(size_t n, double rms, int parameters) {
  FitResult f;
  f.points_used = n;
  f.residual_rms = rms;
  for (int i = 0; i < parameters; ++i)
    f.parameters.push_back({std::string(1, static_cast<char>('a' + i)), 0, 0});
  return f;
}

TEST(ModelComparison, FTailMatchesTables) {
  // F(1, 1) is symmetric about 1 (median 1); the tabulated critical value F_0.05(2, 10) = 4.10
  // (Abramowitz & Stegun table 26.9); and F(2, d2) has the closed form
  // P = (1 + 2 f / d2)^(-d2 / 2).
  EXPECT_NEAR(FDistributionUpperTail(1, 1, 1), 0.5, 1e-12);
  EXPECT_NEAR(FDistributionUpperTail(4.10, 2, 10), 0.05, 5e-4);
  for (double f : {0.5, 3.0, 40.0, 250.0}) {
    const double exact = std::pow(1 + 2 * f / 68, -34.0);
    EXPECT_NEAR(FDistributionUpperTail(f, 2, 68), exact, 1e-10 * exact + 1e-300) << f;
  }
  EXPECT_EQ(FDistributionUpperTail(0, 2, 68), 1.0);
  EXPECT_EQ(FDistributionUpperTail(INFINITY, 2, 68), 0.0);
}

TEST(ModelComparison, NestedFitsGiveFAicAndBic) {
  // RSS 100 and 25 over 50 points, 1 and 3 parameters.
  const auto c = CompareNestedFits(Fit(50, std::sqrt(2.0), 1), Fit(50, std::sqrt(0.5), 3));
  EXPECT_NEAR(c.rss_simple, 100, 1e-9);
  EXPECT_NEAR(c.rss_full, 25, 1e-9);
  EXPECT_NEAR(c.f_statistic, (75.0 / 2) / (25.0 / 47), 1e-9);
  EXPECT_NEAR(c.aic_simple, 50 * std::log(2.0) + 2, 1e-9);
  EXPECT_NEAR(c.aic_full, 50 * std::log(0.5) + 6, 1e-9);
  EXPECT_NEAR(c.bic_full - c.bic_simple, 50 * std::log(0.25) + 2 * std::log(50.0), 1e-9);
  EXPECT_TRUE(c.full_preferred());
  EXPECT_LT(c.p_value, 1e-9);
  // Two parameters that buy nothing: the simple model is preferred, the F test sees nothing.
  const auto same = CompareNestedFits(Fit(50, 1, 1), Fit(50, 1, 3));
  EXPECT_FALSE(same.full_preferred());
  EXPECT_NEAR(same.p_value, 1.0, 1e-12);
}

}  // namespace
}  // namespace lt::calib
