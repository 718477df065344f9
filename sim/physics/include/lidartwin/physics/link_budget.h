// Received power (model tier 4): the link budget of seed 002 eq. (2), written with the
// monostatic BRDF beta so that other surfaces than Lambertian ones fit in:
//   P_rx = P_tx * pi beta(theta) cos(theta) * d_ap^2 / (4 R^2) * T_atm(R)^2 * T_opt
// For a Lambertian target beta = rho / pi and this is exactly eq. (2):
//   P_rx = rho d_ap^2 / (4 R^2) cos(theta) T_atm^2 T_opt P_tx.
// The target is assumed to fill the footprint; a sub-ray scales it by its weight (its share
// of the beam's power), which is how a partly covered footprint loses power (seed 004 eq. 5).
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/units.h"

namespace lt::physics {

struct LinkBudget {
  double peak_power_w;         // P_tx, peak of the emitted pulse [W]
  double aperture_diameter_m;  // d_ap, receiver aperture [m]
  double optics_transmission;  // T_opt [fraction]
  double extinction_per_m;     // alpha of T_atm(R) = exp(-alpha R) [1/m], 0: clear air
};

// One-way atmospheric transmission T_atm(R) = exp(-alpha R) (Beer-Lambert).
template <typename T>
LT_HD T AtmosphericTransmission(const LinkBudget& l, T range_m) {
  using std::exp;
  return exp(-static_cast<T>(l.extinction_per_m) * range_m);
}

// P_rx [W] from a target of monostatic BRDF beta [1/sr] at range_m [m] and incidence cosine
// cos_theta, seed 002 eq. (2).
template <typename T>
LT_HD T ReceivedPower(const LinkBudget& l, T beta_sr, T cos_theta, T range_m) {
  const T d = static_cast<T>(l.aperture_diameter_m);
  const T t_atm = AtmosphericTransmission(l, range_m);
  return static_cast<T>(l.peak_power_w) * static_cast<T>(kPi) * beta_sr * cos_theta * d * d /
         (T(4) * range_m * range_m) * t_atm * t_atm * static_cast<T>(l.optics_transmission);
}

// The power a white (rho = 1) Lambertian target at normal incidence returns from range_m: the
// reference that turns an echo's power into a calibrated reflectivity, as sensors that report
// reflectivity do (Ouster "reflectivity": 100 for a white diffuse target at any range, above
// 100 for retroreflectors).
template <typename T>
LT_HD T WhiteTargetPower(const LinkBudget& l, T range_m) {
  return ReceivedPower(l, static_cast<T>(1 / kPi), T(1), range_m);
}

// The reported intensity of every detector but the waveform one: a calibrated reflectivity,
// 100 times the reflectance a white Lambertian target would need to return the same power
// (seed 000 eq. 4: I = 100 R0 cos theta for a diffuse target; above 100 for retroreflectors).
// `reflectance_equivalent` is R0 cos theta for the ideal and capability detectors, the echo's
// power over WhiteTargetPower for the threshold detector. The one place the factor 100 lives.
template <typename T>
LT_HD T ReportedIntensity(T reflectance_equivalent) {
  return T(100) * reflectance_equivalent;
}
// The threshold detector's form: an echo's power over a white target's, in the order the
// product was always taken (100 P, then over P_white).
template <typename T>
LT_HD T ReportedIntensity(T power_w, T white_target_power_w) {
  return T(100) * power_w / white_target_power_w;
}
// Back: the reflectance equivalent of a reported intensity (KITTI stores it as 0..1).
template <typename T>
LT_HD T ReflectanceEquivalent(T reported_intensity) {
  return reported_intensity / T(100);
}

// Near-field overlap of a biaxial or obscured receiver: the share of the returned light the
// detector sees at range R, O(R) = 1 - exp(-(R / R_o)^k), rising from 0 to 1 around the overlap
// range R_o (k sets how sharply). A common empirical form for LiDAR overlap functions
// (e.g. Halldorsson & Langerholc 1978 give the geometry; the exponential form is its usual fit).
template <typename T>
LT_HD T NearFieldOverlap(T range_m, T overlap_range_m, T sharpness) {
  using std::exp;
  using std::pow;
  return T(1) - exp(-pow(range_m / overlap_range_m, sharpness));
}

// One pulse's emitted energy relative to the nominal: 1 + j z for a jitter j (relative rms)
// and a standard normal draw z, kept at 0 or above (j <= 0.25 in profiles, so 1 + j z < 0
// needs z < -4).
template <typename T>
LT_HD T PulseEnergyFactor(T jitter, T z) {
  const T f = T(1) + jitter * z;
  return f > T(0) ? f : T(0);
}

// A sensor's overlap function: range_m = 0 means full overlap at every range.
struct Overlap {
  double range_m;    // R_o [m]
  double sharpness;  // k
};

// The share of the returned light the detector sees at range_m (NearFieldOverlap), 1 without
// an overlap function.
template <typename T>
LT_HD T OverlapShare(const Overlap& o, T range_m) {
  return o.range_m > 0
             ? NearFieldOverlap(range_m, static_cast<T>(o.range_m), static_cast<T>(o.sharpness))
             : T(1);
}

// The least overlap share a calibrated intensity is referred to: nearer than that (R below
// about 1e-3 R_o for k = 2) the reference stays there rather than dividing by nothing.
inline constexpr double kLeastCalibratedOverlap = 1e-6;

// The white target's echo as a sensor's intensity calibration sees it at range R: its power
// through the near-field overlap. A sensor's reflectivity is calibrated at its own ranges, so
// that a target reads the same inside the overlap as beyond it (issue 40, item 1: referred to
// the far-field power alone, a 50 % target at 2 m inside a 3 m overlap read 18 %).
template <typename T>
LT_HD T CalibratedWhiteTargetPower(const LinkBudget& l, const Overlap& o, T range_m) {
  const T share = OverlapShare(o, range_m);
  return WhiteTargetPower(l, range_m) *
         (share > T(kLeastCalibratedOverlap) ? share : T(kLeastCalibratedOverlap));
}

}  // namespace lt::physics
