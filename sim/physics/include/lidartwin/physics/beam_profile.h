// The beam's far-field profiles as functions of the angle from the beam direction, for the
// calibration fits and labgen (seed 004 sec. III): the emitter's relative radiant intensity
// eta(h, v) measured with a goniometer (sec. III-A), the collector's sensitivity kappa from two
// slices (sec. III-B), and the effective kernel eta x kappa the model uses (sec. III-C). The
// simulator samples the same Gaussian spots (beam_footprint.h: GaussianSpot).
#pragma once

#include <cmath>

#include "lidartwin/physics/beam_footprint.h"
#include "lidartwin/physics/hd.h"

namespace lt::physics {

// An elliptical super-Gaussian spot of peak `peak`:
//   I(h, v) = peak exp(-1/2 q^(p/2)),  q = ((h - h0) / sigma_h)^2 + ((v - v0) / sigma_v)^2.
// Order p = 2 is the Gaussian spot of the simulator (sigma the standard deviation); larger p
// flattens the top and steepens the edge (a flat-top beam as p grows).
template <typename T>
LT_HD T SuperGaussianSpot(T h, T v, T h0, T v0, T sigma_h, T sigma_v, T order, T peak) {
  using std::exp;
  using std::pow;
  const T a = (h - h0) / sigma_h;
  const T b = (v - v0) / sigma_v;
  const T q = a * a + b * b;
  return peak * exp(T(-0.5) * pow(q + T(1e-300), order / T(2)));
}

// The separable form, a product of two 1-D super-Gaussian slices (seed 004 sec. III-B treats
// the collector's slices so): peak exp(-|a|^p / 2) exp(-|b|^p / 2). Equal to SuperGaussianSpot
// for p = 2; for other orders its contours are rounded squares, not ellipses.
template <typename T>
LT_HD T SeparableSuperGaussianSpot(T h, T v, T h0, T v0, T sigma_h, T sigma_v, T order, T peak) {
  using std::exp;
  using std::pow;
  const T a = (h - h0) / sigma_h;
  const T b = (v - v0) / sigma_v;
  return peak * exp(T(-0.5) *
                    (pow(a * a + T(1e-300), order / T(2)) + pow(b * b + T(1e-300), order / T(2))));
}

// A Gaussian spot of total power `power` (its integral over h and v): the simulator's spot.
template <typename T>
LT_HD T GaussianSpotIntensity(T h, T v, T h0, T v0, T sigma_h, T sigma_v, T power) {
  using std::exp;
  const T a = (h - h0) / sigma_h;
  const T b = (v - v0) / sigma_v;
  return power / (T(2 * kPi) * sigma_h * sigma_v) * exp(T(-0.5) * (a * a + b * b));
}

// One axis of an emitter Gaussian N(mu, s_e^2) times a collector Gaussian slice
// exp(-(x - c)^2 / (2 s_c^2)) (seed 004 sec. III-C, the effective kernel eta x kappa): again a
// Gaussian, of mean (mu s_c^2 + c s_e^2) / (s_e^2 + s_c^2) and variance s_e^2 s_c^2 / (s_e^2 +
// s_c^2), carrying the share (s / s_e) exp(-(mu - c)^2 / (2 (s_e^2 + s_c^2))) of the emitter's
// power (s the product's sigma). Returns that share; writes the mean and sigma.
template <typename T>
LT_HD T GaussianTimesSlice(T mu, T s_e, T c, T s_c, T* mean, T* sigma) {
  using std::exp;
  using std::sqrt;
  const T ve = s_e * s_e, vc = s_c * s_c;
  *mean = (mu * vc + c * ve) / (ve + vc);
  *sigma = sqrt(ve * vc / (ve + vc));
  const T d = mu - c;
  return *sigma / s_e * exp(-d * d / (T(2) * (ve + vc)));
}

// The inverse of GaussianTimesSlice for a slice centred at 0: the emitter Gaussian
// (mean, sigma) whose product with a slice of sigma s_c has mean `mean` and sigma `sigma`
// (sigma < s_c): s_e^2 = s^2 s_c^2 / (s_c^2 - s^2), mu = mean (s_e^2 + s_c^2) / s_c^2.
template <typename T>
LT_HD void GaussianBehindSlice(T mean, T sigma, T s_c, T* emitter_mean, T* emitter_sigma) {
  using std::sqrt;
  const T vc = s_c * s_c;
  const T ve = sigma * sigma * vc / (vc - sigma * sigma);
  *emitter_sigma = sqrt(ve);
  *emitter_mean = mean * (ve + vc) / vc;
}

}  // namespace lt::physics
