// Detector tier "capability": the data-sheet range model of seed 000 sec. II-D.
#pragma once

#include "lidartwin/physics/hd.h"

namespace lt::physics {

// Seed 000 eq. (5): R_L(d) = R_L,max / d_max * d, the smallest Lambertian reflectance that is
// detected at range d.
//   range_m:                  d [m]
//   reflectance_at_max_range: R_L,max, reflectance needed at d_max [fraction]
//   max_range_m:              d_max [m]
template <typename T>
LT_HD T ReflectanceLimit(T range_m, T reflectance_at_max_range, T max_range_m) {
  return reflectance_at_max_range / max_range_m * range_m;
}

// Seed 000 sec. II-D: a point at range d (noise included) with reflectance R is detected when
// R_L(d) <= R and d <= d_max; everything beyond d_max is dropped.
template <typename T>
LT_HD bool CapabilityDetects(T reflectance, T range_m, T reflectance_at_max_range, T max_range_m) {
  return range_m <= max_range_m &&
         ReflectanceLimit(range_m, reflectance_at_max_range, max_range_m) <= reflectance;
}

// The farthest range at which a target of reflectance R is detected: R_L(d) <= R gives
// d <= d_max R / R_L,max, and nothing is detected beyond d_max (seed 000 eq. 5, sec. II-D).
template <typename T>
LT_HD T CapabilityMaxRange(T reflectance, T reflectance_at_max_range, T max_range_m) {
  const T limited = max_range_m * reflectance / reflectance_at_max_range;
  return limited < max_range_m ? limited : max_range_m;
}

}  // namespace lt::physics
