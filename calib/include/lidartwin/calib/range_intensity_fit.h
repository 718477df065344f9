// Fit of a sensor's range-intensity curve from the raw signal of Lambertian targets (issue 10
// "range-intensity"): S = K P_rx(R, rho, theta) O(R), with P_rx the link budget of seed 002
// eq. 2 for a unit link (physics::ReceivedPower: rho cos(theta) / (4 R^2)), K the link-budget
// constant in the signal's unit (peak power, aperture, optics and detector gain together) and
// O(R) = 1 - exp(-(R / R_o)^k) the near-field overlap (physics::NearFieldOverlap).
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/calib/fit_result.h"

namespace lt::calib {

struct RangeIntensitySample {
  double range_m;
  double reflectance;    // rho of the target [fraction]
  double incidence_deg;  // theta
  double signal;         // raw signal (photons, counts, or any unit proportional to power)
  double sigma = 0;      // 1-sigma noise of the signal; 0: estimated from the fit
  // Optional, for the pulse-energy jitter fit: the pulses' standard deviation and how many
  // were averaged (0: not measured).
  double spread = 0;
  uint32_t pulses = 0;
};

// The near-field overlap: fitted, or declared complete at every range (a coaxial sensor, or one
// whose overlap ends before its minimum range): then only K is fitted.
enum class OverlapFit { kFitted, kNone };

// Parameters: link_constant (K), overlap_range_m (R_o), overlap_sharpness (k); with
// OverlapFit::kNone, R_o = 0 and k = 2 as declared, with no uncertainty. Errors, besides too
// few points and no convergence: a fitted overlap that the rows do not determine (fewer than
// two rows where O(R) < 0.9, or R_o uncertain by more than half), naming what to measure.
Expected<FitResult> FitRangeIntensity(const std::vector<RangeIntensitySample>& samples,
                                      OverlapFit overlap = OverlapFit::kFitted);

// The fitted model's signal for one target (the fit's own expression), for plots, residuals
// and predictions; NaN when `fit` lacks a parameter.
double ModelSignal(const FitResult& fit, double range_m, double reflectance, double incidence_deg);

}  // namespace lt::calib
