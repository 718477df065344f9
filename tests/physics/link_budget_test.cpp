// Link budget (seed 002 eq. 2) and the monostatic surface responses.
#include "lidartwin/physics/link_budget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "lidartwin/physics/surface_response.h"

namespace lt::physics {
namespace {

const LinkBudget kLink{20.0, 0.025, 0.9, 0.0};

SurfaceResponse Lambert(double r0) {
  return {r0, 0, 0, 0, 0, 0, 1, 0};
}

TEST(LinkBudget, LambertianTargetIsExactlySeed002Equation2) {
  // P_rx = rho d^2 / (4 R^2) cos(theta) T_atm^2 T_opt P_tx.
  const double rho = 0.3, cos_t = 0.8, r = 25;
  const double expected = rho * 0.025 * 0.025 / (4 * r * r) * cos_t * 1.0 * 0.9 * 20.0;
  EXPECT_NEAR(ReceivedPower(kLink, MonostaticBrdf(Lambert(rho), cos_t), cos_t, r), expected, 1e-15);
}

TEST(LinkBudget, InverseSquareAndTwoWayExtinction) {
  const double p10 = ReceivedPower(kLink, 0.1, 1.0, 10.0);
  EXPECT_NEAR(ReceivedPower(kLink, 0.1, 1.0, 20.0), p10 / 4, 1e-18);
  LinkBudget fog = kLink;
  fog.extinction_per_m = 0.01;  // 10 /km
  EXPECT_NEAR(ReceivedPower(fog, 0.1, 1.0, 10.0), p10 * std::exp(-2 * 0.01 * 10.0), 1e-18);
  EXPECT_NEAR(WhiteTargetPower(kLink, 10.0), ReceivedPower(kLink, 1 / kPi, 1.0, 10.0), 1e-18);
}

TEST(SurfaceResponse, LambertIsRhoOverPiAtEveryAngle) {
  for (double c : {1.0, 0.5, 0.1})
    EXPECT_DOUBLE_EQ(MonostaticBrdf(Lambert(0.4), c), 0.4 / kPi);
}

// Oren and Nayar's qualitative model as they give it, for any pair of directions (SIGGRAPH
// 1994, sec. 4.4): L = rho / pi E cos(theta_i) (A + B max(0, cos(phi_r - phi_i)) sin(alpha)
// tan(beta)), written here apart from RoughDiffuseFactor's monostatic reduction.
double OrenNayarRadiance(double rho, double sigma, double theta_i, double theta_r, double phi_i,
                         double phi_r) {
  const double s2 = sigma * sigma;
  const double a = 1 - 0.5 * s2 / (s2 + 0.33), b = 0.45 * s2 / (s2 + 0.09);
  const double alpha = std::max(theta_i, theta_r), beta = std::min(theta_i, theta_r);
  return rho / kPi * std::cos(theta_i) *
         (a + b * std::max(0.0, std::cos(phi_r - phi_i)) * std::sin(alpha) * std::tan(beta));
}

TEST(SurfaceResponse, ARoughSurfaceIsOrenNayarsSeenFromItsSourceScaledToItsNormalReturn) {
  for (double sigma : {0.1, 0.5, 1.0, 1.5}) {
    SurfaceResponse s = Lambert(0.3);
    s.roughness_rad = sigma;
    const double normal = OrenNayarRadiance(0.3, sigma, 0, 0, 0, 0);
    for (double theta_deg : {0.0, 20.0, 45.0, 70.0, 85.0, 89.0}) {
      const double t = theta_deg * kDegToRad;
      // beta cos(theta) is the radiance per irradiance; R0 is the normal return's reflectance.
      const double expected = OrenNayarRadiance(0.3, sigma, t, t, 0.7, 0.7) / normal * 0.3 / kPi;
      EXPECT_NEAR(MonostaticBrdf(s, std::cos(t)) * std::cos(t), expected, 1e-12 * (1 + expected))
          << sigma << " rad at " << theta_deg << " deg";
    }
  }
  // A hand value: sigma 0.5 rad, theta 60 deg: A = 0.784483, B = 0.330882, 1 + B / A 0.75 / 0.5.
  EXPECT_NEAR(RoughDiffuseFactor(0.5, 0.5), 1.6326761, 1e-7);
  // Smooth: Lambert, exactly.
  EXPECT_EQ(RoughDiffuseFactor(0.0, 0.3), 1.0);
  EXPECT_EQ(DiffuseShading(0.0, 0.3), 0.3);
  // At grazing incidence a Lambertian return vanishes, a rough one keeps B / A (0.6615 at 1 rad).
  EXPECT_NEAR(DiffuseShading(1.0, 1e-9), 0.6615453, 1e-6);
  EXPECT_TRUE(std::isfinite(DiffuseShading(1.0, 0.0)));
  // Rougher reads brighter at every oblique angle, never at normal incidence.
  EXPECT_EQ(DiffuseShading(1.0, 1.0), 1.0);
  EXPECT_GT(DiffuseShading(1.0, 0.5), DiffuseShading(0.3, 0.5));
}

TEST(SurfaceResponse, SpecularLobePeaksAtNormalIncidenceAndVanishesBeyond45Degrees) {
  SurfaceResponse s = Lambert(0.1);
  s.specular_albedo = 0.5;
  s.specular_exponent = 20;
  // At normal incidence the mirror direction is the way back: k_s (n + 2) / (2 pi).
  EXPECT_NEAR(MonostaticBrdf(s, 1.0), 0.1 / kPi + 0.5 * 22 / (2 * kPi), 1e-12);
  // theta = 30 deg: alpha = 60 deg.
  const double c30 = std::cos(30 * kDegToRad);
  EXPECT_NEAR(MonostaticBrdf(s, c30), 0.1 / kPi + 0.5 * 22 / (2 * kPi) * std::pow(0.5, 20), 1e-12);
  // theta > 45 deg: 2 theta > 90 deg, no lobe.
  EXPECT_DOUBLE_EQ(MonostaticBrdf(s, std::cos(50 * kDegToRad)), 0.1 / kPi);
}

TEST(SurfaceResponse, RetroreflectorPeaksAtItsGainAndTapersToZeroAtTheMaximumEntranceAngle) {
  SurfaceResponse s = Lambert(0.0);
  s.retro_peak_sr = 500;
  s.retro_max_entrance_rad = 40 * kDegToRad;
  EXPECT_NEAR(MonostaticBrdf(s, 1.0), 500.0, 1e-9);
  // Half way: cos(pi/4).
  EXPECT_NEAR(MonostaticBrdf(s, std::cos(20 * kDegToRad)), 500 * std::cos(kPi / 4), 1e-9);
  EXPECT_DOUBLE_EQ(MonostaticBrdf(s, std::cos(41 * kDegToRad)), 0.0);
  // Three orders of magnitude above the brightest diffuse surface (1/pi), seed 004 sec. I-B.
  EXPECT_GT(MonostaticBrdf(s, 1.0) / (1 / kPi), 1000);
}

TEST(SurfaceResponse, ContinuationThroughGlassAndGaps) {
  SurfaceResponse glass = Lambert(0.02);
  glass.transmittance = 0.9;
  EXPECT_TRUE(SurfaceLetsLightThrough(glass));
  EXPECT_NEAR(ContinuationFactor<double>(glass), 0.81, 1e-15);  // through twice
  SurfaceResponse leaves = Lambert(0.4);
  leaves.coverage = 0.3;
  EXPECT_NEAR(ContinuationFactor<double>(leaves), 0.7, 1e-15);  // the gaps, both ways alike
  EXPECT_FALSE(SurfaceLetsLightThrough(Lambert(0.5)));
}

}  // namespace
}  // namespace lt::physics

namespace lt::physics {
namespace {

TEST(NearFieldOverlap, RisesFromZeroToOneThroughOneMinusOneOverEAtTheOverlapRange) {
  EXPECT_DOUBLE_EQ(NearFieldOverlap(0.0, 2.0, 2.5), 0.0);
  EXPECT_NEAR(NearFieldOverlap(2.0, 2.0, 2.5), 1 - std::exp(-1.0), 1e-15);
  EXPECT_NEAR(NearFieldOverlap(20.0, 2.0, 2.5), 1.0, 1e-12);
  EXPECT_LT(NearFieldOverlap(1.0, 2.0, 4.0), NearFieldOverlap(1.0, 2.0, 1.0));  // sharper rise
}

}  // namespace
}  // namespace lt::physics

namespace lt::physics {
namespace {

TEST(PulseEnergyFactor, IsOnePlusJitterTimesDrawClampedAtZero) {
  EXPECT_DOUBLE_EQ(PulseEnergyFactor(0.02, 1.5), 1.03);
  EXPECT_DOUBLE_EQ(PulseEnergyFactor(0.02, -2.0), 0.96);
  EXPECT_EQ(PulseEnergyFactor(0.25, -5.0), 0.0);
}

// Seed 000 eq. 4: a diffuse target of R0 at incidence theta reads 100 R0 cos theta; the
// threshold detector's echo of a white target's power reads 100 at any range, twice it 200.
TEST(ReportedIntensity, IsAHundredTimesTheReflectanceEquivalent) {
  EXPECT_DOUBLE_EQ(ReportedIntensity(0.5 * std::cos(0.3)), 50 * std::cos(0.3));
  EXPECT_FLOAT_EQ(ReportedIntensity(0.18f), 18.0f);
  EXPECT_DOUBLE_EQ(ReflectanceEquivalent(ReportedIntensity(0.37)), 0.37);
  const LinkBudget l{20, 0.02, 0.9, 1e-4};
  for (double range : {1.0, 17.0, 120.0}) {
    const double white = WhiteTargetPower(l, range);
    EXPECT_NEAR(ReportedIntensity(white, white), 100, 1e-12) << range;
    EXPECT_NEAR(ReportedIntensity(2 * white, white), 200, 1e-12) << range;
  }
}

TEST(OverlapShare, IsOneWithoutAnOverlapFunctionAndTheOverlapWithOne) {
  EXPECT_EQ(OverlapShare(Overlap{0, 2}, 0.5), 1.0);
  EXPECT_NEAR(OverlapShare(Overlap{2, 3}, 1.0), 1 - std::exp(-0.125), 1e-15);
}

// The calibrated intensity's reference: the white target's power through the overlap, written
// out here (rho = 1, normal incidence: P_tx d^2 T_opt / (4 R^2), seed 002 eq. 2), held at
// 1e-6 of it where the overlap vanishes; without an overlap, the white target's power itself.
TEST(CalibratedWhiteTargetPower, IsTheWhiteTargetThroughTheOverlap) {
  const LinkBudget l{16, 0.02, 0.9, 0.0};
  for (double r : {0.3, 1.0, 2.0, 3.0, 10.0}) {
    const double white = 16 * 0.02 * 0.02 * 0.9 / (4 * r * r);
    EXPECT_NEAR(CalibratedWhiteTargetPower(l, Overlap{3, 2}, r) /
                    (white * (1 - std::exp(-(r / 3) * (r / 3)))),
                1.0, 1e-12)
        << r;
    EXPECT_NEAR(CalibratedWhiteTargetPower(l, Overlap{0, 2}, r) / white, 1.0, 1e-12) << r;
  }
  EXPECT_NEAR(CalibratedWhiteTargetPower(l, Overlap{3, 2}, 1e-6) / WhiteTargetPower(l, 1e-6),
              kLeastCalibratedOverlap, 1e-18);
}

}  // namespace
}  // namespace lt::physics
