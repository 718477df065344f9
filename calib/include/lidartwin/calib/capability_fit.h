// Fit of the capability model (seed 000 sec. II-D, eq. 5) from the maximum detected range of
// targets of known reflectance: d(R) = min(d_max, d_max R / R_L,max)
// (physics/capability.h, CapabilityMaxRange). Both parameters are identifiable only when some
// targets reach d_max and some stop short of it; otherwise the fit says so.
#pragma once

#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/calib/fit_result.h"

namespace lt::calib {

struct CapabilitySample {
  double reflectance;  // R of the target [fraction]
  double max_range_m;  // farthest range it was detected at [m]
  double sigma_m = 0;  // 1-sigma uncertainty of that range; 0: estimated from the fit
};

// Parameters: max_range_m (d_max) and reflectance_at_max_range (R_L,max), the profile keys of
// the capability detector.
Expected<FitResult> FitCapability(const std::vector<CapabilitySample>& samples);

}  // namespace lt::calib
