// The reflectance fit (calib/reflectance_fit.h): recovery of known parameters and the
// coverage of the reported standard deviations over many noise draws (DESIGN.md sec. 5:
// "every fit a recovery test with coverage of its reported uncertainty").
#include "lidartwin/calib/reflectance_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "calib/coverage.h"
#include "lidartwin/physics/surface_response.h"
#include "lidartwin/physics/units.h"

namespace lt::calib {
namespace {

// Intensity 100 pi beta cos(theta), computed independently of the fit's own code path.
double TrueIntensity(double r0, double ks, double n, double deg) {
  const double c = std::cos(deg * physics::kDegToRad);
  const double c2 = 2 * c * c - 1;
  const double lobe = c2 > 0 ? ks * (n + 2) / 2 * std::pow(c2, n) : 0;  // pi beta_s
  return 100 * (r0 + lobe) * c;
}

std::vector<ReflectanceSample> Sweep(double r0, double ks, double n, double sigma,
                                     std::mt19937_64& rng, bool give_sigma) {
  std::normal_distribution<double> noise(0, sigma);
  std::vector<ReflectanceSample> s;
  for (double deg = 0; deg <= 80; deg += 2.5)
    s.push_back({deg, TrueIntensity(r0, ks, n, deg) + noise(rng), give_sigma ? sigma : 0.0});
  return s;
}

TEST(ReflectanceFit, RecoversALambertianTargetExactlyWithoutNoise) {
  std::mt19937_64 rng(1);
  auto fit = FitReflectance(Sweep(0.42, 0, 1, 0.0, rng, false), AngularModel::kLambert);
  ASSERT_TRUE(fit.ok()) << fit.message();
  EXPECT_NEAR(fit->Find("r0")->value, 0.42, 1e-9);
  EXPECT_LT(fit->residual_rms, 1e-8);
  EXPECT_TRUE(fit->converged);
  EXPECT_EQ(fit->points_used, 33u);
}

// Over many noise draws each parameter's truth must lie within 1 sigma about 68 % of the time
// and within 2 sigma about 95 % (the 68 +- 10 % and 95 +- 5 %), with the sigmas given
// and with them estimated from the residuals.
// 300 parameter draws: the binomial spread of the 2-sigma share is then 0.013, well inside
// the +- 0.05 allowed.
void ExpectCoverage(AngularModel model, double r0, double ks, double n, bool give_sigma) {
  std::mt19937_64 rng(give_sigma ? 7 : 8);
  test::Coverage coverage;
  const int draws = model == AngularModel::kLambert ? 300 : 100;
  for (int draw = 0; draw < draws; ++draw) {
    auto fit = FitReflectance(Sweep(r0, ks, n, 0.5, rng, give_sigma), model);
    ASSERT_TRUE(fit.ok()) << fit.message();
    coverage.Add(*fit, "r0", r0);
    if (model == AngularModel::kLambertSpecular) {
      coverage.Add(*fit, "specular_albedo", ks);
      coverage.Add(*fit, "specular_exponent", n);
    }
  }
  coverage.Expect(std::string(AngularModelName(model)) + ", sigma " +
                  (give_sigma ? "given" : "estimated"));
}

TEST(ReflectanceFit, LambertUncertaintiesCoverTheTruth) {
  ExpectCoverage(AngularModel::kLambert, 0.3, 0, 1, true);
  ExpectCoverage(AngularModel::kLambert, 0.3, 0, 1, false);
}

TEST(ReflectanceFit, LambertSpecularUncertaintiesCoverTheTruth) {
  ExpectCoverage(AngularModel::kLambertSpecular, 0.2, 0.3, 40, true);
  ExpectCoverage(AngularModel::kLambertSpecular, 0.2, 0.3, 40, false);
}

// A retroreflective cone (seed 004 sec. I-B): 100 (R0 + pi beta_r cos(pi/2 theta/theta_max))
// cos(theta) below theta_max, computed here independently of MonostaticBrdf.
double TrueRetroIntensity(double r0, double beta, double max_deg, double deg) {
  const double c = std::cos(deg * physics::kDegToRad);
  const double cone =
      deg < max_deg ? physics::kPi * beta * std::cos(physics::kPi / 2 * deg / max_deg) : 0;
  return 100 * (r0 + cone) * c;
}

TEST(ReflectanceFit, RetroreflectiveConeUncertaintiesCoverTheTruth) {
  for (bool give_sigma : {true, false}) {
    std::mt19937_64 rng(give_sigma ? 11 : 12);
    std::normal_distribution<double> noise(0, 2.0);
    test::Coverage coverage;
    for (int draw = 0; draw < 100; ++draw) {
      std::vector<ReflectanceSample> s;
      for (double deg = 0; deg <= 80; deg += 2.5)
        s.push_back(
            {deg, TrueRetroIntensity(0.1, 2.0, 55, deg) + noise(rng), give_sigma ? 2.0 : 0.0});
      auto fit = FitReflectance(s, AngularModel::kRetroreflective);
      ASSERT_TRUE(fit.ok()) << fit.message();
      coverage.Add(*fit, "r0", 0.1);
      coverage.Add(*fit, "retroreflective_peak_sr", 2.0);
      coverage.Add(*fit, "retroreflective_max_entrance_deg", 55);
      EXPECT_NEAR(ModelIntensity(*fit, 10), TrueRetroIntensity(0.1, 2.0, 55, 10), 5);
    }
    coverage.Expect(std::string("retroreflective, sigma ") + (give_sigma ? "given" : "estimated"));
  }
}

TEST(ReflectanceFit, ModelIntensityReproducesTheFittedCurve) {
  std::mt19937_64 rng(3);
  auto fit = FitReflectance(Sweep(0.2, 0.3, 40, 0.0, rng, false), AngularModel::kLambertSpecular);
  ASSERT_TRUE(fit.ok()) << fit.message();
  for (double deg : {0.0, 5.0, 20.0, 60.0})
    EXPECT_NEAR(ModelIntensity(*fit, deg), TrueIntensity(0.2, 0.3, 40, deg), 1e-6) << deg;
}

TEST(ReflectanceFit, TooFewPointsAndNonFiniteInputAreClearErrors) {
  auto few = FitReflectance({{0, 50, 1}, {10, 49, 1}, {std::nan(""), 1, 1}},
                            AngularModel::kLambertSpecular);
  ASSERT_FALSE(few.ok());
  EXPECT_NE(few.message().find("2 usable points for 3 parameters"), std::string::npos)
      << few.message();
  // Only specular data near normal incidence cannot separate the lobe's albedo and exponent.
  std::vector<ReflectanceSample> flat;
  for (int k = 0; k < 10; ++k)
    flat.push_back({60 + k * 2.0, 10.0, 0.1});
  auto degenerate = FitReflectance(flat, AngularModel::kLambertSpecular);
  ASSERT_FALSE(degenerate.ok());
  EXPECT_NE(degenerate.message().find("rank-deficient"), std::string::npos) << degenerate.message();
  EXPECT_FALSE(ParseAngularModel("phong").ok());
}

}  // namespace
}  // namespace lt::calib
