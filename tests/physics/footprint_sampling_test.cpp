// Stratified footprint sampling (physics/beam_footprint.h): Phi^-1, Gaussian spots, offsets.
#include <gtest/gtest.h>

#include <cmath>

#include "lidartwin/physics/beam_footprint.h"
#include "lidartwin/physics/scan_pattern.h"

namespace lt::physics {
namespace {

TEST(InverseNormalCdf, InvertsPhiAcrossTheWholeRange) {
  for (double p : {1e-12, 1e-6, 0.01, 0.02425, 0.1, 0.5, 0.7, 0.97575, 0.999, 1 - 1e-9}) {
    const double x = InverseNormalCdf(p);
    EXPECT_NEAR(0.5 * std::erfc(-x / std::sqrt(2.0)), p, 1e-12 * std::max(1.0, p / 1e-3) + 1e-15)
        << p;
  }
  EXPECT_DOUBLE_EQ(InverseNormalCdf(0.5), 0.0);
  EXPECT_NEAR(InverseNormalCdf(0.975), 1.959963984540054, 1e-12);
}

BeamFootprint Gaussian(double sigma_h, double sigma_v, uint32_t n) {
  BeamFootprint f{};
  f.sub_rays = n;
  f.kind = FootprintKind::kGaussian;
  f.spot_count = 1;
  f.spots[0] = {0, 0, sigma_h, sigma_v, 1.0};
  return f;
}

TEST(SampleFootprint, GaussianSubRaysHaveTheProfilesMomentsAndEqualWeights) {
  const double sh = 2e-3, sv = 1e-3;
  const uint32_t n = 16;
  const BeamFootprint f = Gaussian(sh, sv, n);
  double sum_h = 0, sum_v = 0, sum_hh = 0, sum_vv = 0, weight = 0;
  const uint32_t beams = 4000;
  for (uint32_t b = 0; b < beams; ++b) {
    const Philox4x32 shift = RandomWords({9, 0, b, 0, kStreamFootprintShift});
    for (uint32_t k = 0; k < n; ++k) {
      const Philox4x32 w = RandomWords({9, 0, b, k, kStreamSubRayDirection});
      const FootprintSample s = SampleFootprint(f, k, n, w.v[0], shift.v[0], w.v[1]);
      sum_h += s.h_rad;
      sum_v += s.v_rad;
      sum_hh += s.h_rad * s.h_rad;
      sum_vv += s.v_rad * s.v_rad;
      weight += s.weight;
    }
  }
  const double m = double{beams} * n;
  EXPECT_NEAR(weight / beams, 1.0, 1e-12);  // every beam's weights sum to 1
  EXPECT_NEAR(sum_h / m, 0.0, 0.02 * sh);
  EXPECT_NEAR(sum_v / m, 0.0, 0.02 * sv);
  EXPECT_NEAR(std::sqrt(sum_hh / m), sh, 0.02 * sh);
  EXPECT_NEAR(std::sqrt(sum_vv / m), sv, 0.02 * sv);
}

TEST(SampleFootprint, StratificationPutsExactlyHalfTheSubRaysOnEachSideOfTheAxis) {
  // u1 = (k + jitter) / n: with n even, n / 2 sub-rays fall at h < 0 in every beam; this is
  // what makes a half-covered beam split its power evenly without sampling noise.
  const uint32_t n = 32;
  const BeamFootprint f = Gaussian(1e-3, 1e-3, n);
  for (uint32_t b = 0; b < 100; ++b) {
    const Philox4x32 shift = RandomWords({1, 0, b, 0, kStreamFootprintShift});
    uint32_t left = 0;
    for (uint32_t k = 0; k < n; ++k) {
      const Philox4x32 w = RandomWords({1, 0, b, k, kStreamSubRayDirection});
      left += SampleFootprint(f, k, n, w.v[0], shift.v[0], w.v[1]).h_rad < 0;
    }
    EXPECT_EQ(left, n / 2);
  }
}

TEST(SampleFootprint, SpotsReceiveSubRaysInProportionToTheirPower) {
  BeamFootprint f = Gaussian(1e-4, 1e-4, 12);
  f.spot_count = 3;
  f.spots[0] = {-5e-3, 0, 1e-4, 1e-4, 0.25};
  f.spots[1] = {0, 0, 1e-4, 1e-4, 0.5};
  f.spots[2] = {5e-3, 0, 1e-4, 1e-4, 0.25};
  uint32_t count[3] = {0, 0, 0};
  for (uint32_t k = 0; k < 12; ++k) {
    const Philox4x32 w = RandomWords({1, 0, 0, k, kStreamSubRayDirection});
    const double h = SampleFootprint(f, k, 12, w.v[0], 7, w.v[1]).h_rad;
    ++count[h < -2.5e-3 ? 0 : (h > 2.5e-3 ? 2 : 1)];
  }
  EXPECT_EQ(count[0], 3u);
  EXPECT_EQ(count[1], 6u);
  EXPECT_EQ(count[2], 3u);
}

TEST(OffsetDirection, OffsetsAreTrueAnglesAtAnyElevation) {
  for (double el : {0.0, 0.5, 1.2}) {
    const Vec3<double> b = OffsetDirection(0.3, el, 0.0, 0.0);
    const Vec3<double> h = OffsetDirection(0.3, el, 0.01, 0.0);
    const Vec3<double> v = OffsetDirection(0.3, el, 0.0, -0.02);
    EXPECT_NEAR(std::acos(Dot(b, h)), 0.01, 1e-12) << el;
    EXPECT_NEAR(std::acos(Dot(b, v)), 0.02, 1e-12) << el;
    EXPECT_NEAR(Dot(b, BeamDirection(0.3, el)), 1.0, 1e-15);
  }
}

}  // namespace
}  // namespace lt::physics
