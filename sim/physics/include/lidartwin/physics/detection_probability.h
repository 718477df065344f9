// Detection probability of an echo against its expected signal (issue 10 "detection threshold"):
// with Gaussian noise of standard deviation sigma on the signal, an echo of expected signal S
// crosses the threshold T with probability
//   p(S) = Phi((S - T) / sigma) = erfc(-(S - T) / (sigma sqrt 2)) / 2,
// the probit model fitted to dark-target sweeps (seed 004 sec. III-C: "the detection threshold
// was determined using the same measurement setup and a dark diffuse target").
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

// signal, threshold, sigma in one unit (W, nW or counts); sigma > 0.
template <typename T>
LT_HD T DetectionProbability(T signal, T threshold, T sigma) {
  using std::erfc;
  return T(0.5) * erfc(-(signal - threshold) / (sigma * T(1.4142135623730951)));
}

// The spread of a pulse's signal S at the comparator: the receiver noise sigma and the
// pulse-energy jitter j (link_budget.h, PulseEnergyFactor) are independent, so their variances
// add: sqrt(sigma^2 + (j S)^2). With jitter the detection probability is
// DetectionProbability(S, T, SignalSpread(sigma, j, S)).
template <typename T>
LT_HD T SignalSpread(T sigma, T jitter, T signal) {
  using std::sqrt;
  return sqrt(sigma * sigma + jitter * jitter * signal * signal);
}

// The receiver's noise as the simulator applies it: one Gaussian draw n = sigma z per pulse is
// added to the signal at the comparator, so an echo of peak S is detected when S + n > T, with
// probability Phi((S - T) / sigma) (DetectionProbability above), and its reported peak power is
// S + n. Detecting the noiseless signal against T - n gives the same echoes; that threshold is
// kept above T / 1000 so the detector stays defined (profiles hold sigma <= T / 3, so the floor
// is reached by fewer than 0.14 % of pulses, and only where the echo is certain anyway).
template <typename T>
LT_HD T NoisyThreshold(T threshold, T noise) {
  const T t = threshold - noise;
  const T floor = threshold * T(1e-3);
  return t > floor ? t : floor;
}

}  // namespace lt::physics
