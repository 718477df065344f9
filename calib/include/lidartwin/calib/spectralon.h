// A Spectralon panel's angular response from its published characterisation
// (real-data/spectralon-grit-lab, from grit-lab/grit-lab-spectralon-panel-model, MIT; the
// model of the TGRS 2024 Spectralon BRF paper of that group):
//   BRF_normalization_factor.csv  A(theta_i, lambda): one row per incidence angle theta_i,
//       first cell theta_i [deg] (0..70 in 1 deg steps in the shipped file: 71 rows, not the
//       0..89 SOURCES.md states), then one cell per wavelength, 350..2500 nm in 1 nm steps
//       (2151 cells; the file has no header: the grid is the one upstream's BRF-model.py
//       interpolates it on). Upstream divides its BRF model's shape by A interpolated at the
//       illumination zenith, BRF = f(theta_i, theta_r, phi, lambda) / A(theta_i, lambda): A is the
//       shape's directional-hemispherical reflectance factor, (1/pi) int f cos(theta_r) dOmega_r,
//       so that the normalised BRF reflects all the light into the hemisphere.
//   Spectralon_Num4.txt  the Labsphere 8 deg/hemispherical calibration: wavelength [nm],
//       reflectance [fraction], uncertainty [fraction] (white-space separated).
//   Spectralon-panel-4-diffuse-reflectance_2023Jan18.txt  an integrating-sphere measurement
//       of the same panel: wavelength [nm], reflectance [fraction] (a '#' header, commas).
//
// The monostatic response (a LiDAR: theta_r = theta_i, backscatter azimuth). Our fits take the
// calibrated intensity I(theta) = 100 pi beta(theta) cos(theta) (reflectance_fit.h), the echo
// over a white Lambertian target's at normal incidence. A reflectance factor is BRF = pi beta
// (the BRDF over a perfect Lambertian reflector's, 1/pi), so I = 100 BRF(theta, theta) cos(theta).
// The panel's BRF is its hemispherical reflectance rho(lambda) times the normalised shape:
//   I(theta) = 100 rho(lambda) cos(theta) f(theta, theta, 0, lambda) / A(theta, lambda).
// The shared files give rho and A, not f. We take f = 1, the shape's Lambertian base: the
// response the data imply is I(theta) = 100 rho cos(theta) / A(theta, lambda). Upstream's
// own shape at the backscatter geometry (its view-zenith darkening and truncated backscatter
// lobe, which nearly cancel) stays within 0.95..1.002 of 1 over 0..70 deg: under 1.6 % up to
// 30 deg, up to 5 % at 60..70 deg. That is this response's model error; docs/calibration.md
// "Real measurements" has the derivation and the numbers.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/calib/reflectance_fit.h"

namespace lt::calib {

// The wavelength grid of BRF_normalization_factor.csv (upstream BRF-model.py: "350nm -
// 2500nm wavelength in 1nm steps"); the file itself has no header.
inline constexpr double kBrfTableFirstWavelength_nm = 350;
inline constexpr double kBrfTableWavelengthStep_nm = 1;
inline constexpr size_t kBrfTableWavelengths = 2151;

struct BrfNormalisation {
  std::string file;
  std::vector<double> incidence_deg;  // theta_i of each row, increasing
  std::vector<double> a;              // A(theta_i, lambda), row-major [row][wavelength column]

  // A at every row for one wavelength (linear between the grid's columns); an error outside
  // 350..2500 nm.
  Expected<std::vector<double>> AtWavelength(double wavelength_nm) const;
};

// Reads the table. Errors name the file and line: rows of unequal length, a wavelength count
// other than the documented grid's, incidence angles not increasing or outside 0..90 deg,
// factors that are not positive.
Expected<BrfNormalisation> LoadBrfNormalisation(const std::filesystem::path& file);

struct PanelReflectance {
  std::string file;
  std::vector<double> wavelength_nm;  // increasing
  std::vector<double> reflectance;    // [fraction]
  std::vector<double> uncertainty;    // [fraction], as the calibration states it; empty: none

  // Linear between the listed wavelengths; an error outside them. `uncertainty` (optional)
  // receives the interpolated uncertainty, or 0 when the file has none.
  Expected<double> At(double query_nm, double* uncertainty = nullptr) const;
};

// Reads a reflectance file of two (wavelength, reflectance) or three (and uncertainty)
// columns. Errors name the file and line: a row of another length, wavelengths not
// increasing, a reflectance outside 0..1.2 or a negative uncertainty.
Expected<PanelReflectance> LoadPanelReflectance(const std::filesystem::path& file);

// The monostatic response the panel data imply at one wavelength, I(theta) = 100 rho
// cos(theta) / A(theta): one sample per incidence angle, sigma 0 (the table is a model
// output without noise: the fits estimate the scatter from their residuals).
std::vector<ReflectanceSample> SpectralonMonostaticResponse(
    const std::vector<double>& incidence_deg, const std::vector<double>& a_at_wavelength,
    double reflectance);

}  // namespace lt::calib
