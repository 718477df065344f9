// Surface response (model tier 3) for a monostatic LiDAR, where light leaves and returns along
// the same line, so the BRDF is only ever evaluated at Phi_o = Phi_i (seed 004 eq. 1).
//   diffuse:         Lambertian, beta = R0 / pi (seed 000 eq. 4 once multiplied by cos theta);
//                    on a rough surface Oren and Nayar's qualitative model (below)
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
#include "lidartwin/physics/wet_surface.h"

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
  P roughness_rad;           // sigma of the facets' slope angle [rad], 0: Lambertian
  // Under a film of water (wet_surface.h): the water's index and WetDiffuseGain; 0: dry.
  P wet_index = P(0);
  P wet_gain = P(1);
};
using SurfaceResponse = BasicSurfaceResponse<double>;

// A rough diffuse surface's monostatic BRDF over a Lambertian one of the same reflectance at
// normal incidence. Oren and Nayar's qualitative model ("Generalization of Lambert's
// reflectance model", SIGGRAPH 1994, sec. 4.4): beta = rho/pi (A + B max(0, cos(phi_r -
// phi_i)) sin(alpha) tan(beta')), A = 1 - 0.5 s^2 / (s^2 + 0.33), B = 0.45 s^2 / (s^2 + 0.09),
// alpha = max and beta' = min of the two zenith angles. Light leaves and returns along one line,
// so both zenith angles are theta and the azimuths agree: A + B sin(theta) tan(theta). Divided
// by A, so that R0 stays the reflectance at normal incidence that targets are rated by:
//   1 + (B / A) sin^2(theta) / cos(theta).
// Times cos(theta) (the received power's), a rough surface at grazing incidence keeps B / A of
// its normal-incidence return (0.66 at s = 1 rad) where a Lambertian one falls to nothing: the
// road and rough walls that sensors read brighter at grazing than cos(theta) says.
//
// B / A of the model at slope sigma [rad]: 0 when smooth, 0.66 at 1 rad.
template <typename T, typename P>
LT_HD T OrenNayarGrazingRatio(P roughness_rad) {
  const T s2 = static_cast<T>(roughness_rad) * static_cast<T>(roughness_rad);
  const T a = T(1) - T(0.5) * s2 / (s2 + T(0.33));
  const T b = T(0.45) * s2 / (s2 + T(0.09));
  return b / a;
}

// The rough surface's BRDF over the Lambertian one (above).
template <typename T, typename P>
LT_HD T RoughDiffuseFactor(P roughness_rad, T cos_theta) {
  if (!(roughness_rad > P(0))) return T(1);
  // At exactly grazing incidence tan(theta) is infinite; the floor on the cosine keeps the
  // factor finite (the received power's cos(theta) takes it back to B / A).
  const T c = cos_theta > T(1e-6) ? cos_theta : T(1e-6);
  return T(1) + OrenNayarGrazingRatio<T>(roughness_rad) * (T(1) - c * c) / c;
}

// The diffuse shading a return reads, R0 times this: cos(theta) for a Lambertian surface,
// cos(theta) RoughDiffuseFactor = cos(theta) + (B / A) sin^2(theta) for a rough one (the
// intensity reading of a reconstruction divides by the same). Linear in B / A, which the fit
// of a recording's roughness searches over (reconstruct/, roughness_fit.h).
template <typename T>
LT_HD T DiffuseShadingOfRatio(T grazing_ratio, T cos_theta) {
  return cos_theta + grazing_ratio * (T(1) - cos_theta * cos_theta);
}

template <typename T, typename P>
LT_HD T DiffuseShading(P roughness_rad, T cos_theta) {
  if (!(roughness_rad > P(0))) return cos_theta;
  return DiffuseShadingOfRatio(OrenNayarGrazingRatio<T>(roughness_rad), cos_theta);
}

// sigma [rad] whose B / A is grazing_ratio (bisection; B / A rises with sigma), within
// [0, max_rad].
inline double RoughnessOfGrazingRatio(double grazing_ratio, double max_rad) {
  double lo = 0, hi = max_rad;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (OrenNayarGrazingRatio<double>(mid) < grazing_ratio ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Monostatic BRDF beta(theta) [1/sr] at incidence cosine cos_theta (theta between the beam
// and the surface normal).
template <typename T, typename P>
LT_HD T MonostaticBrdf(const BasicSurfaceResponse<P>& s, T cos_theta) {
  using std::acos;
  using std::cos;
  using std::pow;
  const T inv_pi = static_cast<T>(1 / kPi);
  T beta = static_cast<T>(s.r0) * inv_pi * RoughDiffuseFactor(s.roughness_rad, cos_theta);
  if (s.specular_albedo > P(0)) {
    // cos(2 theta) = 2 cos^2 theta - 1; the lobe is one-sided.
    const T cos_alpha = T(2) * cos_theta * cos_theta - T(1);
    if (cos_alpha > T(0)) {
      beta += static_cast<T>(s.specular_albedo) * (static_cast<T>(s.specular_exponent) + T(2)) *
              static_cast<T>(0.5) * inv_pi * pow(cos_alpha, static_cast<T>(s.specular_exponent));
    }
  }
  // Under water, the diffuse and specular light passes the film's surface both ways and is
  // partly trapped below it (wet_surface.h); a retroreflector's prisms stand out of the film.
  if (s.wet_index > P(0)) beta *= WetBrdfFactor<T>(s.wet_index, s.wet_gain, cos_theta);
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
