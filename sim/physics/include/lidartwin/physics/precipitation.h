// Rain and snow (issue 43): particles sized by an exponential size distribution, the extinction
// they add to the link, the light one particle sends back, and where along a beam they lie.
// The beam pipeline samples them per sub-ray (sim/internal/particle_echoes.h); each is a
// contribution to the return signal the threshold and waveform detectors range on.
// docs/physics.md, "Weather".
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/units.h"

namespace lt::physics {

// N(D) = n0 exp(-slope D): particles per m^3 per mm of diameter D [mm].
struct ExponentialSizeDistribution {
  double n0_per_m3_mm;
  double slope_per_mm;
};

// Rain of `rate_mm_h` (Marshall and Palmer, J. Meteor. 5:165, 1948): n0 = 8000 m^-3 mm^-1,
// slope 4.1 R^-0.21 mm^-1.
inline ExponentialSizeDistribution MarshallPalmer(double rate_mm_h) {
  return {8000, 4.1 * std::pow(rate_mm_h, -0.21)};
}

// Snow of `rate_mm_h` as melted water (Gunn and Marshall, J. Meteor. 15:452, 1958): n0 =
// 3800 R^-0.87 m^-3 mm^-1, slope 2.55 R^-0.48 mm^-1, D the diameter of the melted flake.
inline ExponentialSizeDistribution GunnMarshall(double rate_mm_h) {
  return {3800 * std::pow(rate_mm_h, -0.87), 2.55 * std::pow(rate_mm_h, -0.48)};
}

// A snowflake's optical diameter over its melted diameter: the same mass at a bulk density of
// 0.1 g/cm^3, fresh snow's (mass conservation: (1 / 0.1)^(1/3) = 2.154).
inline constexpr double kFlakeToMeltedDiameter = 2.154434690031884;

// Particles per m^3 with a diameter in [d_min, d_max] mm: the integral of N(D).
inline double NumberDensityPerM3(const ExponentialSizeDistribution& n, double d_min_mm,
                                 double d_max_mm) {
  return n.n0_per_m3_mm / n.slope_per_mm *
         (std::exp(-n.slope_per_mm * d_min_mm) - std::exp(-n.slope_per_mm * d_max_mm));
}

// The extinction coefficient [1/m] of the whole distribution (D from 0 to infinity), each
// particle of optical diameter `optical_scale` D removing Q_ext times its mean projected area,
// `projected_share` of pi (scale D)^2 / 4: alpha = Q_ext share pi / 4 (scale)^2 integral D^2
// N(D) dD = Q_ext share pi (scale)^2 n0 / (2 slope^3), in mm^2 per m^3 (1e-6).
// Drops of millimetres are thousands of wavelengths across, so Q_ext tends to 2 (the
// extinction paradox; van de Hulst, "Light Scattering by Small Particles", 1957, sec. 8.22),
// alike at 905 and 1550 nm: half by absorption and reflection, half by diffraction into a lobe
// of about 1.22 lambda / D (1 mrad for a 1 mm drop at 905 nm). A receiver whose field of view
// holds that lobe takes the diffracted half back, and sees Q_ext nearer 1.
inline constexpr double kLargeParticleExtinctionEfficiency = 2;
// Mean projected areas over pi D^2 / 4 (Cauchy: a convex body's mean projection is a quarter of
// its surface): a sphere 1, a flat disc at a random orientation 1/2.
inline constexpr double kSphereProjectedShare = 1;
inline constexpr double kDiscProjectedShare = 0.5;
inline double PrecipitationExtinctionPerM(const ExponentialSizeDistribution& n,
                                          double optical_scale, double extinction_efficiency,
                                          double projected_share) {
  const double s = n.slope_per_mm;
  return extinction_efficiency * projected_share * kPi * optical_scale * optical_scale *
         n.n0_per_m3_mm / (2 * s * s * s) * 1e-6;
}

// A diameter [mm] drawn from N(D) cut to [d_min, d_max], by its inverse CDF at u in (0, 1).
LT_HD inline double TruncatedExponentialDiameter(double slope_per_mm, double d_min_mm,
                                                 double d_max_mm, double u) {
  using std::exp;
  using std::log;
  const double lo = exp(-slope_per_mm * d_min_mm);
  const double hi = exp(-slope_per_mm * d_max_mm);
  return -log(lo - u * (lo - hi)) / slope_per_mm;
}

// Water's refractive index in the near infrared (Hale and Querry, Appl. Opt. 12:555, 1973,
// their table, read at 0.8, 1.0, 1.2 and 1.6 um): linear between, held outside.
inline double WaterRefractiveIndex(double wavelength_nm) {
  const double um[] = {0.8, 1.0, 1.2, 1.6};
  const double n[] = {1.329, 1.327, 1.324, 1.317};
  const double x = wavelength_nm * 1e-3;
  if (x <= um[0]) return n[0];
  for (int i = 1; i < 4; ++i) {
    if (x <= um[i]) return n[i - 1] + (n[i] - n[i - 1]) * (x - um[i - 1]) / (um[i] - um[i - 1]);
  }
  return n[3];
}

// Fresnel reflectance at normal incidence, ((n - 1) / (n + 1))^2.
inline double NormalFresnelReflectance(double n) {
  return (n - 1) * (n - 1) / ((n + 1) * (n + 1));
}

// A water drop's differential backscatter cross section per squared diameter [sr^-1]
// (dsigma/dOmega = this x D^2), geometric optics (van de Hulst 1957, sec. 12.3). Two rays
// leave a sphere of radius a back along the beam:
// - the reflection off its front, which a sphere spreads evenly over all directions: R a^2 / 4;
// - the ray that enters, reflects once off the back and leaves: a paraxial ray at height h
//   leaves deviated from exact backscatter by h / a (2 - 4 / n) (from the deviation
//   pi + 2 i - 4 r of one internal reflection), so the flux (1 - R)^2 R of the disc of radius
//   h spreads over a cone of half-angle |2 - 4/n| h / a: (1 - R)^2 R a^2 / (2 - 4 / n)^2.
// For n = 1.328 the second is 3.8 times the first (the drop focuses its back reflection).
// Per D^2: R [1/4 + (1 - R)^2 / (2 - 4 / n)^2] / 4.
inline double DropBackscatterPerDiameter2(double n) {
  const double r = NormalFresnelReflectance(n);
  const double focus = 2 - 4 / n;
  return r * (0.25 + (1 - r) * (1 - r) / (focus * focus)) / 4;
}

// A snowflake as a Lambertian disc of diameter D and reflectance rho at a random orientation:
// dsigma/dOmega = rho (pi D^2 / 4) <cos^2> / pi with <cos^2> = 1/3 over orientations:
// rho D^2 / 12 (per D^2: rho / 12).
inline double FlakeBackscatterPerDiameter2(double reflectance) {
  return reflectance / 12;
}

// A beam as a cone whose radius grows from `exit_radius_m` at the sensor by `divergence` metres
// per metre; a sub-ray carries 1/`sub_rays` of its cross section, a tube of area
// pi (r0 + R t)^2 / sub_rays. Volume of that tube from near_m to far_m [m^3]:
// pi / (3 t sub_rays) [(r0 + far t)^3 - (r0 + near t)^3], and pi r0^2 (far - near) / sub_rays
// as t goes to 0.
LT_HD inline double TubeVolumeM3(double exit_radius_m, double divergence, uint32_t sub_rays,
                                 double near_m, double far_m) {
  const double a = exit_radius_m + near_m * divergence;
  const double b = exit_radius_m + far_m * divergence;
  if (divergence * (far_m - near_m) < 1e-9 * exit_radius_m)
    return kPi * a * a * (far_m - near_m) / sub_rays;
  return kPi * (b * b * b - a * a * a) / (3 * divergence * sub_rays);
}

// Its inverse: the range at which the tube from near_m holds `volume_m3`.
LT_HD inline double RangeAtTubeVolume(double exit_radius_m, double divergence, uint32_t sub_rays,
                                      double near_m, double volume_m3) {
  using std::cbrt;
  const double a = exit_radius_m + near_m * divergence;
  const double linear = near_m + volume_m3 * sub_rays / (kPi * a * a);
  if (divergence * (linear - near_m) < 1e-9 * exit_radius_m) return linear;
  const double b = cbrt(a * a * a + 3 * divergence * sub_rays * volume_m3 / kPi);
  return near_m + (b - a) / divergence;
}

}  // namespace lt::physics
