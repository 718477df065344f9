// Range errors (model tier 6): additive Gaussian range noise, range quantisation and outliers
// along the beam.
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

// Measured range = true range + sigma * z, z ~ N(0, 1) (seed 000 sec. II-A: "Gaussian noise
// is also added ... to define a noise scaling factor"; seed 000 sec. II-D uses the noisy
// depth in the capability test).
//   range_m: true range [m]; sigma_m: standard deviation [m]; standard_normal: z [-]
template <typename T>
LT_HD T NoisyRange(T range_m, T sigma_m, T standard_normal) {
  return range_m + sigma_m * standard_normal;
}

// A range as the sensor's counter reports it: rounded to a multiple of its resolution
// (Ouster: 1 mm; Velodyne HDL-32E: 2 mm). resolution_m <= 0 leaves the range as it is.
template <typename T>
LT_HD T QuantisedRange(T range_m, T resolution_m) {
  using std::floor;
  return resolution_m > 0 ? floor(range_m / resolution_m + static_cast<T>(0.5)) * resolution_m
                          : range_m;
}

// Seed 001 sec. 5.2 step 4: an outlier replaces a return by a point on the pulse's path,
// uniform between the sensor's minimum range and the return ("outliers are visible along the
// pulse path"). u: uniform in (0, 1).
template <typename T>
LT_HD T OutlierRange(T min_range_m, T range_m, T u) {
  return min_range_m + u * (range_m - min_range_m);
}

}  // namespace lt::physics
