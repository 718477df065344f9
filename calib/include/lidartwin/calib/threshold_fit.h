// Fit of the detection threshold T and the signal noise sigma from detection counts against
// expected signal (a dark diffuse target swept in distance or attenuation, seed 004 sec. III-C):
// p(S) = Phi((S - T) / sigma) (physics/detection_probability.h). Maximum likelihood of the
// binomial counts, solved by iteratively reweighted least squares, so that at the solution
// J^T J is the Fisher information and ceres::Covariance gives the parameters' standard
// deviations.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/calib/fit_result.h"

namespace lt::calib {

struct DetectionSample {
  double expected_signal;  // S, in the unit T is wanted in (for example nW)
  uint32_t trials;         // pulses fired at this signal level
  uint32_t detections;     // pulses that gave an echo
};

// Parameters: threshold, noise_sigma (both in the signal's unit). `jitter`: the pulse-energy
// jitter j, known (from FitPulseEnergyJitter): p(S) = Phi((S - T) / sqrt(sigma^2 + (j S)^2)).
Expected<FitResult> FitDetectionThreshold(const std::vector<DetectionSample>& samples,
                                          double jitter = 0);

}  // namespace lt::calib
