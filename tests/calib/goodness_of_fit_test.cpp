// The chi-square goodness of fit (goodness_of_fit.h): the tail against tabulated quantiles and
// closed forms, the p-values of correct models uniform, and a fit's worst point named.
#include "lidartwin/calib/goodness_of_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lidartwin/calib/range_intensity_fit.h"

namespace lt::calib {
namespace {

// Upper-tail quantiles of chi-square (Abramowitz & Stegun, Table 26.8; NIST/SEMATECH
// e-Handbook 1.3.6.7.4): P(chi^2_nu >= x) = p.
TEST(GoodnessOfFit, ChiSquareTailMatchesTabulatedQuantiles) {
  struct Row {
    double x, dof, p;
  };
  for (const Row& r : {Row{3.841, 1, 0.05}, Row{6.635, 1, 0.01}, Row{0.01579, 1, 0.90},
                       Row{18.307, 10, 0.05}, Row{23.209, 10, 0.01}, Row{4.865, 10, 0.90},
                       Row{124.342, 100, 0.05}, Row{135.807, 100, 0.01}, Row{82.358, 100, 0.90},
                       Row{10.828, 1, 0.001}, Row{149.449, 100, 0.001}}) {
    EXPECT_NEAR(ChiSquareUpperTail(r.x, r.dof) / r.p, 1.0, 2e-3) << r.x << " " << r.dof;
  }
}

// Closed forms: two degrees of freedom, e^(-x/2); one, erfc(sqrt(x / 2)); both branches of the
// gamma function (series below a + 1, continued fraction above), far into the tail.
TEST(GoodnessOfFit, ChiSquareTailMatchesClosedForms) {
  for (double x : {1e-6, 0.1, 1.0, 2.9, 3.1, 10.0, 100.0, 1000.0}) {
    EXPECT_NEAR(ChiSquareUpperTail(x, 2) / std::exp(-x / 2), 1.0, 1e-12) << x;
    EXPECT_NEAR(ChiSquareUpperTail(x, 1) / std::erfc(std::sqrt(x / 2)), 1.0, 1e-10) << x;
  }
  EXPECT_EQ(ChiSquareUpperTail(0, 5), 1.0);
  EXPECT_EQ(ChiSquareUpperTail(1e6, 5), 0.0);
  EXPECT_TRUE(std::isnan(RegularisedUpperGamma(0, 1)));
}

// A correct model with its true sigmas: the fit's p-value is uniform, so about 5 % fall below
// 0.05 and 0.01 % below the refusal's 1e-4 (2,000 range-intensity sweeps, binomial bands at
// 4 sigma). The same rows with one scaled by 1.2 are judged poor, that row named.
TEST(GoodnessOfFit, CorrectModelsGiveUniformPValuesAndABadRowIsNamed) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z;
  const double k = 2e4, r_o = 0.8, sharp = 2.5;
  int below5 = 0, below_poor = 0, judged = 0;
  const int sweeps = 2000;
  for (int n = 0; n < sweeps; ++n) {
    std::vector<RangeIntensitySample> rows;
    for (double r : {0.3, 0.4, 0.5, 0.7, 1.0, 1.4, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0}) {
      const double s = k * 0.5 / (4 * r * r) * (1 - std::exp(-std::pow(r / r_o, sharp)));
      const double sigma = 0.01 * s + 0.05;
      rows.push_back({r, 0.5, 0, s + sigma * z(rng), sigma});
    }
    auto fit = FitRangeIntensity(rows);
    ASSERT_TRUE(fit.ok()) << fit.message();
    ASSERT_TRUE(fit->goodness.judged);
    EXPECT_EQ(fit->goodness.dof, 10);
    ++judged;
    below5 += fit->goodness.p_value < 0.05;
    below_poor += IsPoorFit(fit->goodness);
    if (n == 0) {
      rows[8].signal *= 1.2;  // the 4 m row
      auto bad = FitRangeIntensity(rows);
      ASSERT_TRUE(bad.ok()) << bad.message();
      EXPECT_TRUE(IsPoorFit(bad->goodness)) << GoodnessText(bad->goodness);
      EXPECT_NE(bad->goodness.worst.find("range 4 m"), std::string::npos) << bad->goodness.worst;
      EXPECT_GT(BirgeRatio(bad->goodness), 5);
    }
  }
  const double sd5 = std::sqrt(0.05 * 0.95 / judged);
  EXPECT_NEAR(double(below5) / judged, 0.05, 4 * sd5) << below5;
  EXPECT_LE(below_poor, 3) << "expected about 0.2 of 2,000 below 1e-4";
}

}  // namespace
}  // namespace lt::calib
