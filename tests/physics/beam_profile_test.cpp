// Beam profiles against independent computations: the super-Gaussian's order 2 is the
// normalised Gaussian, and the emitter x collector product against numerical quadrature.
#include "lidartwin/physics/beam_profile.h"

#include <gtest/gtest.h>

#include <cmath>

namespace lt::physics {
namespace {

TEST(BeamProfile, SuperGaussianOfOrderTwoIsTheGaussianSpot) {
  const double sh = 0.7, sv = 1.3, power = 2.5;
  const double peak = power / (2 * kPi * sh * sv);
  for (double h : {-2.0, 0.0, 0.4, 3.0}) {
    for (double v : {-1.0, 0.2, 2.5}) {
      EXPECT_NEAR(SuperGaussianSpot(h, v, 0.1, -0.2, sh, sv, 2.0, peak),
                  GaussianSpotIntensity(h, v, 0.1, -0.2, sh, sv, power), 1e-14);
    }
  }
  // A larger order is flatter at the centre and falls faster beyond one sigma.
  EXPECT_GT(SuperGaussianSpot(0.5, 0.0, 0.0, 0.0, 1.0, 1.0, 8.0, 1.0), std::exp(-0.5 * 0.25));
  EXPECT_LT(SuperGaussianSpot(2.0, 0.0, 0.0, 0.0, 1.0, 1.0, 8.0, 1.0), std::exp(-0.5 * 4.0));
}

TEST(BeamProfile, SeparableSuperGaussianIsTheProductOfItsSlices) {
  for (double order : {2.0, 3.5, 8.0}) {
    for (double h : {-2.0, 0.3, 1.7}) {
      for (double v : {-0.8, 0.0, 2.2}) {
        const double a = (h - 0.1) / 0.9, b = (v + 0.2) / 1.4;
        const double slices = 2.0 * std::exp(-0.5 * std::pow(std::abs(a), order)) *
                              std::exp(-0.5 * std::pow(std::abs(b), order));
        EXPECT_NEAR(SeparableSuperGaussianSpot(h, v, 0.1, -0.2, 0.9, 1.4, order, 2.0), slices,
                    1e-13);
      }
    }
  }
  EXPECT_NEAR(SeparableSuperGaussianSpot(0.7, -0.4, 0.0, 0.0, 1.0, 1.0, 2.0, 1.0),
              SuperGaussianSpot(0.7, -0.4, 0.0, 0.0, 1.0, 1.0, 2.0, 1.0), 1e-15);
}

TEST(BeamProfile, GaussianBehindSliceUndoesTheProduct) {
  double mu = 0, s = 0, mean = 0, sigma = 0;
  GaussianBehindSlice(0.4, 1.1, 3.0, &mu, &s);
  GaussianTimesSlice(mu, s, 0.0, 3.0, &mean, &sigma);
  EXPECT_NEAR(mean, 0.4, 1e-14);
  EXPECT_NEAR(sigma, 1.1, 1e-14);
}

TEST(BeamProfile, GaussianTimesSliceMatchesQuadrature) {
  const double mu = 0.3, se = 0.8, c = -0.5, sc = 2.0;
  double mean = 0, sigma = 0;
  const double share = GaussianTimesSlice(mu, se, c, sc, &mean, &sigma);
  double m0 = 0, m1 = 0, m2 = 0;
  const double dx = 1e-4;
  for (double x = -20; x < 20; x += dx) {
    const double f = std::exp(-0.5 * (x - mu) * (x - mu) / (se * se)) / (std::sqrt(2 * kPi) * se) *
                     std::exp(-0.5 * (x - c) * (x - c) / (sc * sc));
    m0 += f * dx;
    m1 += f * x * dx;
    m2 += f * x * x * dx;
  }
  EXPECT_NEAR(share, m0, 1e-9);
  EXPECT_NEAR(mean, m1 / m0, 1e-9);
  EXPECT_NEAR(sigma, std::sqrt(m2 / m0 - (m1 / m0) * (m1 / m0)), 1e-9);
}

}  // namespace
}  // namespace lt::physics
