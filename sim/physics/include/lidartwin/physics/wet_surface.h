// A wet surface (issue 43): a diffuse surface under a film of water, darker than when dry
// because light scattered up from it is partly sent back down by the film's surface, where
// total internal reflection traps it, and the surface absorbs part of it again (Lekner and
// Dorf, "Why some things are darker when wet", Appl. Opt. 27:1278, 1988). The film's own
// mirror reflection leaves the beam's way back (a road seen from a car is never at normal
// incidence) and returns nothing to a monostatic sensor. docs/physics.md, "Weather".
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

// Unpolarised Fresnel reflectance of light at incidence cosine cos_i onto a medium of relative
// index n (n2 / n1), the mean of the s and p reflectances; 1 past total internal reflection
// (n < 1).
template <typename T, typename P>
LT_HD T FresnelReflectance(P n, T cos_i) {
  using std::sqrt;
  const T nn = static_cast<T>(n);
  const T sin2_t = (T(1) - cos_i * cos_i) / (nn * nn);
  if (!(sin2_t < T(1))) return T(1);
  const T cos_t = sqrt(T(1) - sin2_t);
  const T rs = (cos_i - nn * cos_t) / (cos_i + nn * cos_t);
  const T rp = (cos_t - nn * cos_i) / (cos_t + nn * cos_i);
  return T(0.5) * (rs * rs + rp * rp);
}

// The share of diffuse (Lambertian) light a flat interface of relative index n reflects: the
// cosine-weighted mean of FresnelReflectance over the hemisphere, integral of R(theta)
// sin(2 theta) dtheta, by the midpoint rule in cos^2 theta (uniform for this weight) over
// 4096 steps. Host only.
inline double DiffuseFresnelReflectance(double n) {
  constexpr int kSteps = 4096;
  double sum = 0;
  for (int i = 0; i < kSteps; ++i) {
    const double cos2 = (i + 0.5) / kSteps;
    sum += FresnelReflectance<double>(n, std::sqrt(cos2));
  }
  return sum / kSteps;
}

// A film of index n over a Lambertian surface of reflectance rho: the monostatic BRDF is
// rho (1 - R(theta))^2 / (pi n^2 (1 - rho r_i)) (Lekner and Dorf 1988): the light that enters
// the film (1 - R) is scattered up with radiance reduced by n^2 on leaving it (the radiance
// theorem) through (1 - R) again, and the share r_i of the upwelling light that the film's
// surface sends back down (internal diffuse reflectance, r_i = 1 - (1 - r_e) / n^2 with r_e
// the external one, DiffuseFresnelReflectance(n)) is scattered up again rho r_i, rho^2 r_i^2,
// ... times. The gain 1 / (n^2 (1 - rho r_i)), the factor on a dry surface's BRDF besides the
// two Fresnel transmissions.
inline double WetDiffuseGain(double rho, double n) {
  const double r_i = 1 - (1 - DiffuseFresnelReflectance(n)) / (n * n);
  return 1 / (n * n * (1 - rho * r_i));
}

// The wet surface's monostatic BRDF over its dry one at incidence cosine cos_theta:
// (1 - R(theta))^2 times the gain.
template <typename T, typename P>
LT_HD T WetBrdfFactor(P n, P gain, T cos_theta) {
  const T t = T(1) - FresnelReflectance<T>(n, cos_theta);
  return t * t * static_cast<T>(gain);
}

}  // namespace lt::physics
