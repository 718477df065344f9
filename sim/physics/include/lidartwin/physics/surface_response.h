// Surface response (model tier 3) for a monostatic LiDAR, where light leaves and returns along
// the same line, so the BRDF is only ever evaluated at Phi_o = Phi_i (seed 004 eq. 1).
//   diffuse:         Lambertian, beta = R0 / pi (seed 000 eq. 4 once multiplied by cos theta)
//   specular lobe:   normalised Phong lobe, beta_s = k_s (n + 2) / (2 pi) cos^n(alpha), alpha
//                    the angle between the mirror direction and the way back to the sensor,
//                    which is 2 theta for a monostatic sensor (seed 003 "Lambert plus a
//                    specular lobe"; Lafortune & Willems 1994 for the normalisation)
//   retroreflector:  peak BRDF beta_r (100..1000 sr^-1, seed 004 sec. I-B) towards the source;
//                    a co-axial sensor always sees the peak of the observation-angle lobe, so
//                    only the entrance-angle efficiency cos-tapers it to zero at theta_max
//   glass:           a fraction `transmittance` of the light crosses the surface each way
//   partial cover:   foliage and fences intercept a fraction `coverage` of the footprint;
//                    the rest continues (seed 001 sec. 5.2, multiple returns)
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/units.h"

namespace lt::physics {

// Over the scalar type P of its parameters, so that calibration fits them with ceres::Jet.
template <typename P>
struct BasicSurfaceResponse {
  P r0;                      // diffuse reflectance at normal incidence [fraction]
  P specular_albedo;         // k_s [fraction], 0: none
  P specular_exponent;       // n [-]
  P retro_peak_sr;           // beta_r [1/sr], 0: not retroreflective
  P retro_max_entrance_rad;  // theta_max [rad]
  P transmittance;           // one-way [fraction], 0: opaque
  P coverage;                // [fraction] of the footprint intercepted, 1: solid
};
using SurfaceResponse = BasicSurfaceResponse<double>;

// Monostatic BRDF beta(theta) [1/sr] at incidence cosine cos_theta (theta between the beam
// and the surface normal).
template <typename T, typename P>
LT_HD T MonostaticBrdf(const BasicSurfaceResponse<P>& s, T cos_theta) {
  using std::acos;
  using std::cos;
  using std::pow;
  const T inv_pi = static_cast<T>(1 / kPi);
  T beta = static_cast<T>(s.r0) * inv_pi;
  if (s.specular_albedo > P(0)) {
    // cos(2 theta) = 2 cos^2 theta - 1; the lobe is one-sided.
    const T cos_alpha = T(2) * cos_theta * cos_theta - T(1);
    if (cos_alpha > T(0)) {
      beta += static_cast<T>(s.specular_albedo) * (static_cast<T>(s.specular_exponent) + T(2)) *
              static_cast<T>(0.5) * inv_pi * pow(cos_alpha, static_cast<T>(s.specular_exponent));
    }
  }
  if (s.retro_peak_sr > P(0)) {
    // At normal incidence theta is 0 without acos, whose derivative is infinite there (the
    // calibration evaluates this with ceres::Jet).
    const T theta = cos_theta < T(1) ? acos(cos_theta) : T(0);
    const T theta_max = static_cast<T>(s.retro_max_entrance_rad);
    if (theta < theta_max) {
      beta += static_cast<T>(s.retro_peak_sr) * cos(static_cast<T>(kPi / 2) * theta / theta_max);
    }
  }
  return beta;
}

// The fraction of a sub-ray's light that reaches the surfaces behind this one and comes back
// through it: gaps pass (1 - coverage) both ways along the same line; the covered part passes
// the material twice (transmittance^2).
template <typename T, typename P>
LT_HD T ContinuationFactor(const BasicSurfaceResponse<P>& s) {
  const T c = static_cast<T>(s.coverage);
  const T t = static_cast<T>(s.transmittance);
  return (1 - c) + c * t * t;
}

// Whether a sub-ray goes on past this surface.
LT_HD inline bool SurfaceLetsLightThrough(const SurfaceResponse& s) {
  return s.coverage < 1 || s.transmittance > 0;
}

}  // namespace lt::physics
