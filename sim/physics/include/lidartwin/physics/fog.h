// Fog and haze (issue 43): the extinction coefficient from the visibility, at the sensor's
// wavelength. The return signal's two passes through it are the link budget's T_atm(R)^2
// (link_budget.h, seed 002 eq. 2), so fog lowers every contribution the threshold and waveform
// detectors range on. docs/physics.md, "Weather".
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/link_budget.h"

namespace lt::physics {

// Visibility is taken as the meteorological optical range (MOR, WMO): the path over which a
// collimated beam keeps 5 % of its flux. By Beer-Lambert, exp(-alpha V) = 0.05, so at the eye's
// wavelength alpha = ln(20) / V = 2.996 / V [1/m]. Fog chambers report MOR, and so do Hahner et
// al.'s fog simulation (ICCV 2021) and Bijelic et al.'s benchmark (IV 2018). Koschmieder's 2 %
// contrast (3.912 / V, the form Kim et al. 2001 write) would read the same fog 30 % denser.
inline constexpr double kMorTransmission = 0.05;
inline constexpr double kVisibilityWavelengthNm = 550;  // where V is defined (photopic peak)

// alpha [1/m] at 550 nm of a fog or haze of MOR `visibility_m`.
inline double MorExtinctionPerM(double visibility_m) {
  return std::log(1 / kMorTransmission) / visibility_m;
}

// The wavelength exponent q of alpha(lambda) = alpha_550 (lambda / 550 nm)^-q for a visibility
// in km (Kim, McArthur and Korevaar, "Comparison of laser beam propagation at 785 nm and 1550 nm
// in fog and haze for optical wireless communications", Proc. SPIE 4214, 2001: Kruse's
// relation with their q below 6 km): 1.6 above 50 km, 1.3 from 6 to 50 km, 0.16 V + 0.34 from
// 1 to 6 km, V - 0.5 from 0.5 to 1 km, and 0 below 0.5 km, where fog drops are much larger than
// any near-infrared wavelength and attenuate 785, 905 and 1550 nm alike. The pieces meet: 0 at
// 0.5 km, 0.5 at 1 km, 1.3 at 6 km (1.6 above 50 km is Kruse's clear-air step). Kim's
// visibilities are Koschmieder's (2 %), 1.31 times the MOR of the same air; the breakpoints are
// applied to the MOR as given, which moves q by at most that factor's share near them (at MOR
// 400 m Kim's table would give q = 0.02, here 0).
inline double KimWavelengthExponent(double visibility_km) {
  if (visibility_km > 50) return 1.6;
  if (visibility_km > 6) return 1.3;
  if (visibility_km > 1) return 0.16 * visibility_km + 0.34;
  if (visibility_km > 0.5) return visibility_km - 0.5;
  return 0;
}

// alpha [1/m] at `wavelength_nm` of a fog or haze of MOR `visibility_m`.
inline double FogExtinctionPerM(double visibility_m, double wavelength_nm) {
  const double q = KimWavelengthExponent(visibility_m * 1e-3);
  return MorExtinctionPerM(visibility_m) * std::pow(wavelength_nm / kVisibilityWavelengthNm, -q);
}

// How far a target is seen in fog, where it is seen to clear_range_m in clear air (with the
// profile's own extinction at 0): the range d at which rho K exp(-2 alpha d) / d^2 falls to the
// threshold that rho K / R_c^2 reaches at R_c (the link budget with extinction alpha [1/m], seed
// 002 eq. 2, a target filling the footprint). (R_c / d)^2 = exp(2 alpha d) gives
// alpha R_c = alpha d exp(alpha d), so d = W(alpha R_c) / alpha, W the principal branch of
// Lambert's W (x = W e^W). W solves w + ln w = ln x, increasing and concave in w: Newton steps
// from log(1 + x), which is never below W(x), climb to it from below after the first, and ln x
// stays finite for every finite x > 0 where w e^w would overflow. It falls to R_c as alpha
// goes to 0.
inline double FogDetectionRangeM(double clear_range_m, double extinction_per_m) {
  const double x = extinction_per_m * clear_range_m;
  if (!(x > 0)) return clear_range_m;
  if (!std::isfinite(x)) return 0;
  const double log_x = std::log(x);
  double w = std::log1p(x);
  for (int i = 0; i < 100; ++i) {
    const double next = w - (w + std::log(w) - log_x) / (1 + 1 / w);
    const double step = std::fabs(next - w);
    w = next > 0 ? next : w / 2;  // a first step past 0 (it cannot be, by concavity): halve
    if (step <= 1e-15 * w) break;
  }
  return w / extinction_per_m;
}

// The fog's own return (its volumetric backscatter) follows from its extinction through the
// lidar ratio S [sr], the ratio of extinction to backscatter: beta_pi = alpha / S. Fog and
// cloud droplets (radii of a few um, many wavelengths across) have S of 18-20 sr in the near
// infrared; O'Connor, Illingworth and Gaussiat (J. Atmos. Oceanic Technol. 21, 2004) take
// 18.8 sr for liquid water clouds at a 905 nm ceilometer's wavelength. Hahner et al.'s fog
// simulation (ICCV 2021) takes beta_pi = 0.046 / MOR, which is S = 65 sr: a fog 3.5 times
// darker. Multiple scattering, which raises a dense fog's return, is left out.
inline constexpr double kWaterFogLidarRatioSr = 18.8;

// beta_pi [1/(m sr)] of a fog of extinction alpha [1/m] and lidar ratio S [sr].
inline double FogBackscatterPerMSr(double extinction_per_m, double lidar_ratio_sr) {
  return extinction_per_m / lidar_ratio_sr;
}

// The light the fog in [a, b) along a beam (0 < a < b) returns to a beam that reaches all of
// it: the single-scattering lidar equation of a volume target (Hahner et al., ICCV 2021,
// sec. 3; seed 002 eq. 2 with a target's beta dA replaced by beta_pi dr over a footprint the
// fog fills), the integral over [a, b] of ReceivedPower(beta_pi, R = r) O(r) dr, O the
// near-field overlap. As a contribution of the return signal it is a pulse of that power at the
// slab's centroid (the power-weighted mean range). Simpson's rule on kPanels panels (even):
// 16 are exact for 1 / r^2 to 1e-7 on a slab a quarter of its range thick.
struct VolumeReturn {
  double power_w;
  double centroid_m;
};
template <int kPanels = 16>
LT_HD VolumeReturn FogVolumeReturn(const LinkBudget& link, const Overlap& overlap,
                                   double backscatter_per_m_sr, double a, double b) {
  static_assert(kPanels % 2 == 0, "Simpson's rule takes an even number of panels");
  const double h = (b - a) / kPanels;
  double power = 0, moment = 0;
  for (int i = 0; i <= kPanels; ++i) {
    const double r = a + i * h;
    const double w = i == 0 || i == kPanels ? 1 : (i % 2 ? 4 : 2);
    const double f = ReceivedPower(link, backscatter_per_m_sr, 1.0, r) * OverlapShare(overlap, r);
    power += w * f;
    moment += w * f * r;
  }
  return {power * h / 3, power > 0 ? moment / power : 0.5 * (a + b)};
}

}  // namespace lt::physics
