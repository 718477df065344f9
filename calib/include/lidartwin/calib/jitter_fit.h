// Fit of the pulse-energy jitter j and the receiver noise sigma from the pulse-to-pulse spread
// of the raw signal at several mean signals S (the range-intensity measurement's `spread`
// column): spread(S) = sqrt(sigma^2 + (j S)^2) (physics::SignalSpread). Residuals are in log
// space, ln s - ln spread(S), each with its sampling sigma 1 / sqrt(2 (N - 1)) for a standard
// deviation s of N pulses.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/calib/fit_result.h"

namespace lt::calib {

struct SignalSpreadSample {
  double signal;    // mean signal S
  double spread;    // sample standard deviation of the pulses' signals, same unit
  uint32_t pulses;  // N, >= 2
};

// Parameters: pulse_energy_jitter (fraction), noise_sigma (the signal's unit). Both are
// identifiable only when the spreads cover signals where each term dominates; otherwise the
// covariance is rank-deficient and the fit says so.
// sampling_spread m: a relative spread of the signal known to come from elsewhere, independent
// of the pulse energy (the simulator's sampling of a tabulated beam kernel,
// SampledPowerStatistics): the model is then sqrt(sigma^2 + (j^2 + m^2) S^2) and j is what is
// left. sampling_kurtosis gamma: that spread's excess kurtosis, which widens each spread's
// sampling error: Var(ln s) = (2 / (N - 1) + g / N) / 4, g = gamma (m S)^4 / spread(S)^4 the
// signal's own excess kurtosis (weights from a first pass, then refitted). Spreads within the
// sampling's own give a jitter near 0 with its upper bound, and the chi^2 judges the rest.
Expected<FitResult> FitPulseEnergyJitter(const std::vector<SignalSpreadSample>& samples,
                                         double sampling_spread = 0, double sampling_kurtosis = 0);

}  // namespace lt::calib
