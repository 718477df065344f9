// Fog extinction from the visibility (physics/fog.h): the MOR definition, Kim et al.'s
// wavelength exponent, and hand values.
#include "lidartwin/physics/fog.h"

#include <gtest/gtest.h>

#include "test_support.h"

#include <cmath>

namespace lt::physics {
namespace {

// MOR: a collimated beam keeps 5 % of its flux over the visibility, at 550 nm, whatever V.
TEST(Fog, TheVisibilityIsThePathThatKeepsFivePercent) {
  for (double v : {5.0, 30.0, 50.0, 100.0, 1000.0, 1e5})
    EXPECT_NEAR(std::exp(-MorExtinctionPerM(v) * v), 0.05, 1e-15) << v;
  EXPECT_NEAR(MorExtinctionPerM(50), 0.059915, 1e-6);                       // ln 20 / 50 m, by hand
  EXPECT_DOUBLE_EQ(FogExtinctionPerM(1000, 550), MorExtinctionPerM(1000));  // (1)^-q = 1
}

// Kim et al. 2001's q: the table's values, and its pieces meeting where they change.
TEST(Fog, KimsExponentFollowsTheirTableAndIsContinuousBelow6Km) {
  EXPECT_EQ(KimWavelengthExponent(0.1), 0);
  EXPECT_EQ(KimWavelengthExponent(0.5), 0);
  EXPECT_NEAR(KimWavelengthExponent(0.8), 0.3, 1e-15);
  EXPECT_NEAR(KimWavelengthExponent(2), 0.66, 1e-15);
  EXPECT_EQ(KimWavelengthExponent(10), 1.3);
  EXPECT_EQ(KimWavelengthExponent(60), 1.6);
  for (double at : {0.5, 1.0, 6.0}) {
    EXPECT_NEAR(KimWavelengthExponent(at * (1 - 1e-12)), KimWavelengthExponent(at * (1 + 1e-12)),
                1e-10)
        << at;
  }
}

// Dense fog attenuates every near-infrared wavelength alike; haze spares the longer ones by
// (lambda_1 / lambda_2)^-q.
TEST(Fog, DenseFogIsGreyAndHazeSparesLongerWavelengths) {
  for (double v : {30.0, 50.0, 100.0, 499.0}) {
    EXPECT_EQ(FogExtinctionPerM(v, 905), FogExtinctionPerM(v, 1550)) << v;
    EXPECT_EQ(FogExtinctionPerM(v, 905), MorExtinctionPerM(v)) << v;
  }
  const double q = 0.16 * 2 + 0.34;  // V = 2 km
  EXPECT_NEAR(FogExtinctionPerM(2000, 1550) / FogExtinctionPerM(2000, 905),
              std::pow(1550.0 / 905.0, -q), 1e-14);
  EXPECT_LT(FogExtinctionPerM(2000, 1550), FogExtinctionPerM(2000, 905));
  // By hand: V = 2 km at 905 nm, 2.9957 / 2000 m x (905 / 550)^-0.66 = 1.0783e-3 / m.
  EXPECT_NEAR(FogExtinctionPerM(2000, 905), 1.0783e-3, 1e-7);
}

// The fogged detection range against the defining equation R_c^2 / d^2 = exp(2 alpha d),
// solved here by bisection, and Lambert W's known values (W(e) = 1, W(1) = Omega).
TEST(Fog, TheDetectionRangeInFogSolvesTheLinkBudget) {
  EXPECT_NEAR(FogDetectionRangeM(std::exp(1.0), 1.0), 1.0, 1e-14);
  EXPECT_NEAR(FogDetectionRangeM(1.0, 1.0), 0.5671432904097838, 1e-14);
  EXPECT_EQ(FogDetectionRangeM(50, 0), 50);
  // Far outside any fog (alpha R_c up to 1e305, and down to 1e-300): W against its defining
  // equation w + ln w = ln x, which does not overflow.
  for (double x : {1e-300, 1e-12, 1e-3, 21.0, 1e6, 1e100, 1e305}) {
    const double w = FogDetectionRangeM(x, 1.0);
    EXPECT_NEAR(w + std::log(w), std::log(x), 1e-13 * (1 + std::fabs(std::log(x)))) << x;
  }
  for (double clear : {5.0, 17.7, 50.0, 200.0}) {
    for (double v : {5.0, 30.0, 50.0, 100.0, 1000.0, 1e5}) {
      const double alpha = MorExtinctionPerM(v);
      double lo = 0, hi = clear;  // g(d) = 2 ln(R_c / d) - 2 alpha d falls through 0 once
      for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (2 * std::log(clear / mid) - 2 * alpha * mid > 0 ? lo : hi) = mid;
      }
      EXPECT_NEAR(FogDetectionRangeM(clear, alpha), lo, 1e-9 * clear) << clear << " m, V " << v;
    }
  }
}

// The lidar ratio: beta_pi = alpha / S, at MOR 50 m and 905 nm (q = 0 below 500 m: alpha =
// ln 20 / 50) with water fog's 18.8 sr; Hahner et al.'s 0.046 / MOR is S = ln 20 / 0.046.
TEST(Fog, TheBackscatterIsTheExtinctionOverTheLidarRatio) {
  const double alpha = std::log(20.0) / 50;
  EXPECT_NEAR(FogBackscatterPerMSr(FogExtinctionPerM(50, 905), kWaterFogLidarRatioSr), alpha / 18.8,
              1e-15);
  EXPECT_NEAR(FogBackscatterPerMSr(alpha, std::log(20.0) / 0.046), 0.046 / 50, 1e-15);
}

// A slab's return: without extinction or overlap the integral of K beta / r^2 is K beta (b - a)
// / (a b) and its centroid a b ln(b / a) / (b - a); with them, against Simpson's rule on
// 20,000 panels. Slabs a quarter of their range thick (FrameFog's nearest), and thinner.
TEST(Fog, ASlabsReturnIsTheVolumeIntegralAtItsCentroid) {
  const double beta = 3.2e-3;
  const LinkBudget clear{20, 0.025, 0.9, 0};
  const double k = 20 * kPi * 0.025 * 0.025 / 4 * 0.9;  // P0 pi d^2 / 4 T_opt
  for (auto [a, b] : {std::pair{0.05, 0.0625}, {0.3, 0.375}, {2.0, 2.45}, {40.0, 41.0}}) {
    const VolumeReturn v = FogVolumeReturn(clear, {0, 0}, beta, a, b);
    const double power = k * beta * (b - a) / (a * b);
    EXPECT_NEAR(v.power_w, power, 1e-7 * power) << a;
    EXPECT_NEAR(v.centroid_m, a * b * std::log(b / a) / (b - a), 1e-7 * a) << a;
    const LinkBudget fog{20, 0.025, 0.9, 0.06};
    const Overlap overlap{0.8, 2.5};
    auto f = [&](double r) {
      return k * beta * std::exp(-0.12 * r) * (1 - std::exp(-std::pow(r / 0.8, 2.5))) / (r * r);
    };
    const VolumeReturn w = FogVolumeReturn(fog, overlap, beta, a, b);
    const double want = test::Simpson(f, a, b);
    EXPECT_NEAR(w.power_w, want, 1e-6 * want) << a;
    EXPECT_NEAR(w.centroid_m, test::Simpson([&](double r) { return r * f(r); }, a, b) / want,
                1e-6 * a)
        << a;
  }
}

}  // namespace
}  // namespace lt::physics
