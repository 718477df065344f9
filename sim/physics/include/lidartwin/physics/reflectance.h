// Surface response: angle-dependent Lambertian reflectance.
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/vec3.h"

namespace lt::physics {

// cos(theta) between a beam direction and a surface normal, theta the incidence angle.
// Both unit vectors; the sign is dropped because surfaces are two-sided.
template <typename T>
LT_HD T IncidenceCosine(const Vec3<T>& beam_direction, const Vec3<T>& surface_normal) {
  using std::fabs;
  return fabs(Dot(beam_direction, surface_normal));
}

// Seed 000 eq. (4): R_lambda(theta) = R_lambda(theta = 0) cos(theta).
//   r0:        reflectance at normal incidence at the sensor wavelength [fraction, 0..1]
//   cos_theta: cosine of the incidence angle [-]
// Returns the Lambertian target reflectance at that incidence [fraction].
template <typename T>
LT_HD T LambertianReflectance(T r0, T cos_theta) {
  return r0 * cos_theta;
}

}  // namespace lt::physics
