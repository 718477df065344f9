// A wet surface (physics/wet_surface.h): Fresnel's equations against Snell's-angle forms and
// Brewster's angle, the diffuse reflectances against their identity, and the wet albedo
// against photons walked through the film one by one.
#include "lidartwin/physics/wet_surface.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace lt::physics {
namespace {

constexpr double kPi = 3.14159265358979323846;

// (sin(i - t) / sin(i + t))^2 and (tan(i - t) / tan(i + t))^2, t from Snell's law.
double SnellFresnel(double n, double i) {
  if (i == 0) return std::pow((n - 1) / (n + 1), 2);
  const double t = std::asin(std::sin(i) / n);
  const double s = std::pow(std::sin(i - t) / std::sin(i + t), 2);
  const double p = std::pow(std::tan(i - t) / std::tan(i + t), 2);
  return 0.5 * (s + p);
}

TEST(WetSurface, FresnelFollowsSnellsAnglesBrewsterAndTotalInternalReflection) {
  for (double n : {1.318, 1.333, 1.5}) {
    for (double deg : {0.0, 10.0, 30.0, 45.0, 60.0, 80.0, 89.0}) {
      const double i = deg * kPi / 180;
      EXPECT_NEAR(FresnelReflectance<double>(n, std::cos(i)), SnellFresnel(n, i), 1e-12)
          << n << " " << deg;
    }
    // At Brewster's angle (tan i = n) p-light is not reflected: R = s / 2.
    const double b = std::atan(n);
    const double t = std::asin(std::sin(b) / n);
    EXPECT_NEAR(FresnelReflectance<double>(n, std::cos(b)),
                0.5 * std::pow(std::sin(b - t) / std::sin(b + t), 2), 1e-12);
  }
  // From water into air past the critical angle (48.6 deg): everything reflected.
  EXPECT_EQ(FresnelReflectance<double>(1 / 1.333, std::cos(50 * kPi / 180)), 1);
  EXPECT_LT(FresnelReflectance<double>(1 / 1.333, std::cos(47 * kPi / 180)), 1);
}

// The internal diffuse reflectance integrated directly (water to air, total internal
// reflection included) equals 1 - (1 - r_e) / n^2, the identity WetDiffuseGain uses; water's
// external one is Lekner and Dorf's 0.066.
TEST(WetSurface, TheDiffuseReflectancesMeetTheirIdentity) {
  for (double n : {1.318, 1.333, 1.5}) {
    const double r_e = DiffuseFresnelReflectance(n);
    const double r_i = DiffuseFresnelReflectance(1 / n);
    EXPECT_NEAR(r_i, 1 - (1 - r_e) / (n * n), 1e-5) << n;
  }
  EXPECT_NEAR(DiffuseFresnelReflectance(1.333), 0.066, 0.001);
}

// Photons walked through the film: entering at normal incidence (1 - R(0)), absorbed by the
// surface below with probability 1 - rho or sent up in a Lambertian direction, leaving the film
// with probability 1 - R_internal(theta) or reflected back down. The share that leaves is the
// wet albedo, which the model's BRDF, rho (1 - R(0)) (1 - R(theta_o)) / (pi n^2 (1 - rho r_i)),
// integrates to over the upper hemisphere: rho (1 - R(0)) (1 - r_i) / (1 - rho r_i).
TEST(WetSurface, TheWetAlbedoIsWhatPhotonsWalkedThroughTheFilmLeaveWith) {
  std::mt19937_64 rng(43);
  std::uniform_real_distribution<double> u(0, 1);
  const double n = 1.328;
  for (double rho : {0.1, 0.5, 0.9}) {
    const int photons = 400000;
    int left = 0;
    for (int k = 0; k < photons; ++k) {
      if (u(rng) < FresnelReflectance<double>(n, 1.0)) continue;  // reflected by the film
      while (true) {
        if (u(rng) >= rho) break;                // absorbed by the surface
        const double cos_t = std::sqrt(u(rng));  // Lambertian: cos^2 uniform
        if (u(rng) >= FresnelReflectance<double>(1 / n, cos_t)) {
          ++left;
          break;
        }
      }
    }
    const double r_i = 1 - (1 - DiffuseFresnelReflectance(n)) / (n * n);
    const double t0 = 1 - FresnelReflectance<double>(n, 1.0);
    const double model = rho * t0 * (1 - r_i) / (1 - rho * r_i);
    const double walked = double(left) / photons;
    EXPECT_NEAR(walked, model, 4 * std::sqrt(model * (1 - model) / photons)) << rho;
    // The same from the BRDF: gain x (1 - R(0)) x rho / pi integrated against (1 - R(theta_o))
    // cos(theta_o) over the hemisphere, which is pi (1 - r_e).
    const double from_brdf = rho * t0 * WetDiffuseGain(rho, n) * (1 - DiffuseFresnelReflectance(n));
    EXPECT_NEAR(from_brdf, model, 1e-5 * model) << rho;
  }
  // Darker when wet: a 10 % asphalt seen straight on keeps 57 % of its dry return.
  EXPECT_NEAR(WetBrdfFactor<double>(1.328, WetDiffuseGain(0.1, 1.328), 1.0), 0.57, 0.01);
}

}  // namespace
}  // namespace lt::physics
