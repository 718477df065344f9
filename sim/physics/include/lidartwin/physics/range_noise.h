// Range errors (model tier 6): additive Gaussian range noise.
#pragma once

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

}  // namespace lt::physics
