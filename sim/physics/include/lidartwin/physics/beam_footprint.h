// Beam footprint (model tier 2): a beam as several sub-rays inside its divergence cone, and
// the two ways of seed 003 ("Beam Divergence") to turn them into one output:
//   random selection: the output of one randomly chosen sub-ray;
//   average:          the average of the outputs of all sub-rays.
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/philox.h"
#include "lidartwin/physics/vec3.h"

namespace lt::physics {

enum class DivergenceMode : uint32_t { kRandomSelection, kAverage };

struct BeamFootprint {
  uint32_t sub_rays;  // 1: the central ray only
  double
      half_angle_rad;  // half the divergence (seed 003: a cone whose apex angle is the divergence)
  DivergenceMode mode;
};

// A direction uniform in solid angle inside the cone of half-angle `half_angle` around the unit
// `axis`: cos(theta) = 1 - u1 (1 - cos a), phi = 2 pi u2.
template <typename T>
LT_HD Vec3<T> DirectionInCone(const Vec3<T>& axis, T half_angle, uint32_t w1, uint32_t w2) {
  using std::cos;
  using std::fabs;
  using std::sin;
  using std::sqrt;
  const T cos_t = 1 - UniformOpen01<T>(w1) * (1 - cos(half_angle));
  const T sin_t = sqrt(1 - cos_t * cos_t);
  const T phi = static_cast<T>(6.283185307179586476925286766559) * UniformOpen01<T>(w2);
  const Vec3<T> helper = fabs(axis.z) < static_cast<T>(0.9) ? Vec3<T>{0, 0, 1} : Vec3<T>{1, 0, 0};
  const Vec3<T> e1 = Normalized(Cross(helper, axis));
  const Vec3<T> e2 = Cross(axis, e1);
  return cos_t * axis + sin_t * (cos(phi) * e1 + sin(phi) * e2);
}

}  // namespace lt::physics
