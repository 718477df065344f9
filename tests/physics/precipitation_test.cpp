// Rain and snow (physics/precipitation.h): the size distributions against their papers' forms,
// each integral against numerical quadrature, the diameter draw against its CDF, the drop's
// geometric-optics backscatter against rays traced through a sphere, the flake's against a
// Monte Carlo over orientations, and the beam's tube against its integral.
#include "lidartwin/physics/precipitation.h"

#include <gtest/gtest.h>

#include "test_support.h"

#include <cmath>
#include <random>

namespace lt::physics {
namespace {

using test::Simpson;

TEST(Precipitation, TheSizeDistributionsAreThePapersForms) {
  EXPECT_EQ(MarshallPalmer(1).n0_per_m3_mm, 8000);
  EXPECT_NEAR(MarshallPalmer(1).slope_per_mm, 4.1, 1e-15);
  EXPECT_NEAR(MarshallPalmer(25).slope_per_mm, 4.1 / std::exp(0.21 * std::log(25.0)), 1e-12);
  EXPECT_NEAR(MarshallPalmer(25).slope_per_mm, 2.08553, 1e-5);  // by hand
  EXPECT_NEAR(GunnMarshall(1).n0_per_m3_mm, 3800, 1e-9);
  EXPECT_NEAR(GunnMarshall(1).slope_per_mm, 2.55, 1e-15);
  EXPECT_NEAR(GunnMarshall(2).n0_per_m3_mm, 3800 / std::pow(2.0, 0.87), 1e-9);
  EXPECT_NEAR(std::pow(kFlakeToMeltedDiameter, 3), 10, 1e-12);  // 1 / 0.1 g/cm^3
}

TEST(Precipitation, DensityAndExtinctionAreTheDistributionsIntegrals) {
  for (double rate : {0.5, 5.0, 25.0, 50.0, 150.0}) {
    for (const ExponentialSizeDistribution& n : {MarshallPalmer(rate), GunnMarshall(rate)}) {
      auto density = [&](double d) { return n.n0_per_m3_mm * std::exp(-n.slope_per_mm * d); };
      EXPECT_NEAR(NumberDensityPerM3(n, 0.5, 6), Simpson(density, 0.5, 6),
                  1e-9 * NumberDensityPerM3(n, 0.5, 6))
          << rate;
      // Q_ext times the mean projected area, share x pi (s D)^2 / 4, D in mm (1e-6 m^2/mm^2),
      // integrated far into the tail.
      for (double scale : {1.0, kFlakeToMeltedDiameter}) {
        for (auto [q, share] :
             {std::pair{2.0, kSphereProjectedShare}, std::pair{1.3, kDiscProjectedShare}}) {
          auto cross = [&](double d) {
            return q * share * kPi * (scale * d) * (scale * d) / 4 * 1e-6 * density(d);
          };
          const double alpha = PrecipitationExtinctionPerM(n, scale, q, share);
          EXPECT_NEAR(alpha, Simpson(cross, 0, 60 / n.slope_per_mm), 1e-9 * alpha) << rate;
        }
      }
    }
  }
  // 25 mm/h of rain: 2 pi 8000 / (2 x 2.0857^3) 1e-6 = 2.77e-3 /m, by hand.
  EXPECT_NEAR(PrecipitationExtinctionPerM(MarshallPalmer(25), 1, 2, 1), 2.77e-3, 0.01e-3);
}

// The draw is the inverse of the cut distribution's CDF: u maps to the diameter below which a
// share u of the particles in [d_min, d_max] lie, by quadrature of N(D).
TEST(Precipitation, TheDiameterDrawInvertsTheCutDistribution) {
  const double slope = 2.0857, lo = 0.5, hi = 6;
  auto n = [&](double d) { return std::exp(-slope * d); };
  const double total = Simpson(n, lo, hi);
  for (double u : {1e-9, 0.1, 0.5, 0.9, 0.999, 1 - 1e-9}) {
    const double d = TruncatedExponentialDiameter(slope, lo, hi, u);
    EXPECT_GE(d, lo);
    EXPECT_LE(d, hi);
    EXPECT_NEAR(Simpson(n, lo, d) / total, u, 1e-9) << u;
  }
}

TEST(Precipitation, WatersIndexFollowsHaleAndQuerrysTable) {
  EXPECT_EQ(WaterRefractiveIndex(800), 1.329);
  EXPECT_EQ(WaterRefractiveIndex(600), 1.329);
  EXPECT_NEAR(WaterRefractiveIndex(905), 1.32795, 1e-12);
  EXPECT_NEAR(WaterRefractiveIndex(1550), 1.317875, 1e-12);
  EXPECT_EQ(WaterRefractiveIndex(2000), 1.317);
  EXPECT_NEAR(NormalFresnelReflectance(1.328), 0.019851, 1e-6);
  EXPECT_NEAR(NormalFresnelReflectance(1.5), 0.04, 1e-15);
}

// The ray that enters a sphere at height h, reflects once off its back and leaves: its angle
// to the reversed beam, traced with Snell's law in the plane of incidence (angles, not the
// paraxial formula the model uses).
double BackReflectedAngle(double h_over_a, double n) {
  const double i = std::asin(h_over_a);
  const double r = std::asin(h_over_a / n);
  const double deviation = kPi + 2 * i - 4 * r;  // from the incident direction
  return deviation - kPi;                        // 0: straight back
}

// The drop's backscatter: the front reflection's a^2 R / 4 and the back reflection's focusing,
// whose cone half-angle per unit height is the traced ray's slope at the axis. The traced slope
// gives the model's per-D^2 cross section to 1e-6.
TEST(Precipitation, ADropsBackscatterIsItsTwoRaysFromGeometricOptics) {
  for (double n : {1.317, 1.328, 1.333, 1.5}) {
    const double h = 1e-5;
    const double slope = std::abs(BackReflectedAngle(h, n)) / h;  // |2 - 4/n| by tracing
    const double r = NormalFresnelReflectance(n);
    const double per_a2 = r / 4 + (1 - r) * (1 - r) * r / (slope * slope);
    EXPECT_NEAR(DropBackscatterPerDiameter2(n), per_a2 / 4, 1e-6 * per_a2 / 4) << n;
  }
  // Water at 905 nm: the back reflection is 3.8 times the front one.
  const double r = NormalFresnelReflectance(1.328);
  EXPECT_NEAR((DropBackscatterPerDiameter2(1.328) * 4 - r / 4) / (r / 4), 3.75, 0.01);
}

// A Lambertian disc at a random orientation: its mean dsigma/dOmega back along the beam,
// rho A cos^2(theta) / pi, by Monte Carlo over isotropic normals, is rho D^2 / 12.
TEST(Precipitation, AFlakesBackscatterIsALambertianDiscsAveragedOverOrientations) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  const double rho = 0.8, d = 2e-3, area = kPi * d * d / 4;
  double sum = 0;
  const int draws = 2000000;
  for (int k = 0; k < draws; ++k) {
    const double cos_t = u(rng);  // z of a uniform direction on the sphere
    sum += rho * area * cos_t * cos_t / kPi;
  }
  const double mean = sum / draws;
  EXPECT_NEAR(FlakeBackscatterPerDiameter2(rho) * d * d, mean, 3e-3 * mean);
}

TEST(Precipitation, TheTubesVolumeIsItsIntegralAndRangeAtVolumeItsInverse) {
  for (double t : {0.0, 1e-4, 2.7e-3, 0.05}) {
    for (uint32_t sub_rays : {1u, 8u, 16u}) {
      const double r0 = 0.01, near = 0.3, far = 37;
      auto area = [&](double r) { return kPi * (r0 + r * t) * (r0 + r * t) / sub_rays; };
      const double v = TubeVolumeM3(r0, t, sub_rays, near, far);
      EXPECT_NEAR(v, Simpson(area, near, far), 1e-10 * v) << t << " " << sub_rays;
      for (double at : {0.31, 1.0, 12.5, 37.0})
        EXPECT_NEAR(
            RangeAtTubeVolume(r0, t, sub_rays, near, TubeVolumeM3(r0, t, sub_rays, near, at)), at,
            1e-9 * at)
            << t;
    }
  }
  // The cone's form meets the cylinder's as the divergence vanishes.
  EXPECT_NEAR(TubeVolumeM3(0.01, 1e-12, 1, 1, 2), TubeVolumeM3(0.01, 0, 1, 1, 2), 1e-12);
}

}  // namespace
}  // namespace lt::physics
