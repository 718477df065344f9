// Materials: reflectance spectra interpolated at the sensor wavelength (Hermite, seed 003).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/sim/status.h"

namespace lt {

struct Material {
  std::string name;
  std::vector<double> wavelength_nm;  // strictly increasing
  std::vector<double> reflectance;    // fraction 0..1 at normal incidence
  std::string source;                 // where the figures come from
  // Surface response beyond Lambertian (physics/surface_response.h); defaults: opaque,
  // fully covering, diffuse only.
  double specular_albedo = 0;                   // k_s of the Phong lobe [fraction]
  double specular_exponent = 0;                 // n [-]
  double retroreflective_peak_sr = 0;           // beta_r [1/sr]
  double retroreflective_max_entrance_deg = 0;  // theta_max [deg]
  double transmittance = 0;                     // one-way [fraction]
  double coverage = 1;                          // [fraction] of the footprint intercepted

  // R0 at the wavelength, Hermite-interpolated and clamped at the ends.
  double ReflectanceAt(double wavelength_nm) const;
};

struct MaterialLibrary {
  std::vector<Material> materials;
  // Index of the named material, or -1.
  int Find(const std::string& name) const;
};

// A spectrum file in the ASTER spectral library format (header lines with "X Units:
// Wavelength (micrometers)" and "Y Units: Reflectance (percent)", then two columns), as in
// ../shared/real-data/aster-spectra-helios. Converted to nm and fractions, sorted.
Expected<Material> LoadAsterSpectrum(const std::filesystem::path& file);

// The material library YAML (configs/materials/library.yaml).
Expected<MaterialLibrary> LoadMaterialLibrary(const std::filesystem::path& file);

}  // namespace lt
