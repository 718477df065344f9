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

}  // namespace lt::physics
