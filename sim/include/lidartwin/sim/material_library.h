// Materials: reflectance spectra interpolated at the sensor wavelength (Hermite, seed 003).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/status.h"

namespace lt {

// A reflectance flat in wavelength (the library key `reflectance`) is held as one sample at
// this wavelength; interpolation clamps at the ends, so it holds at every wavelength.
inline constexpr double kFlatSpectrumWavelengthNm = 1.0;

// The largest reflectance an apparent material may hold (Material::apparent): a hundred times
// a white Lambertian target, past any paint or sign a lidar reads (Hesai's 255 is 2.55 times).
inline constexpr double kMaxApparentReflectance = 100;

struct Material {
  std::string name;
  std::vector<double> wavelength_nm;  // strictly increasing
  std::vector<double> reflectance;    // fraction 0..1 at normal incidence
  std::string source;                 // where the figures come from
  // The ASTER file the spectrum was read from (absolute; key `spectrum_file`), so that
  // SaveMaterialLibrary refers to it again; empty for a spectrum given in the library.
  std::string spectrum_file{};
  // Surface response beyond Lambertian (physics/surface_response.h); defaults: opaque,
  // fully covering, diffuse only.
  double specular_albedo = 0;                   // k_s of the Phong lobe [fraction]
  double specular_exponent = 0;                 // n [-]
  double retroreflective_peak_sr = 0;           // beta_r [1/sr]
  double retroreflective_max_entrance_deg = 0;  // theta_max [deg]
  double transmittance = 0;                     // one-way [fraction]
  double coverage = 1;                          // [fraction] of the footprint intercepted
  double roughness_deg = 0;  // sigma of the facets' slopes (Oren-Nayar) [deg], 0: Lambertian
  // The reflectance is apparent: R0 as a sensor read it, I / (G cos theta) on a reconstructed
  // surface (reconstruct/), which glints, retroreflective paint and grazing faces put above 1.
  // Such a material may hold up to kMaxApparentReflectance; a physical one stays within [0, 1].
  bool apparent = false;

  // R0 at the wavelength, Hermite-interpolated and clamped at the ends.
  double ReflectanceAt(double wavelength_nm) const;

  // The ranges of configs/README.md ("Material library"), by key within the material's entry
  // (`reflectance`, `spectrum.wavelength_nm`, `coverage`, ...): the spectrum non-empty, strictly
  // increasing in wavelength, within [0, 1]; the surface-response fractions; reflectance plus
  // transmittance at most 1. Validate() is OK for every material LoadMaterialLibrary returns.
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

struct MaterialLibrary {
  std::vector<Material> materials;
  // Index of the named material, or -1.
  int Find(const std::string& name) const;

  // At least one material, names unique, each material valid (key paths `materials[i]...`).
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

// A spectrum file in the ASTER spectral library format (header lines with "X Units:
// Wavelength (micrometers)" and "Y Units: Reflectance (percent)", then two columns), as in
// ../shared/real-data/aster-spectra-helios. Converted to nm and fractions, sorted.
Expected<Material> LoadAsterSpectrum(const std::filesystem::path& file);

// The material library YAML (configs/materials/library.yaml): parsed, each spectrum sorted
// by wavelength (repeated wavelengths averaged), then validated; errors name the file, the key
// path and its line.
Expected<MaterialLibrary> LoadMaterialLibrary(const std::filesystem::path& file);
Expected<MaterialLibrary> ParseMaterialLibrary(const std::string& yaml_text,
                                               const std::filesystem::path& file);

// The library as YAML that ParseMaterialLibrary reads back to the same library (the one
// writer beside the one loader; tests/sim/material_library_writer_test.cpp): a flat
// reflectance as `reflectance`, a spectrum read from a file as `spectrum_file` (absolute
// path), any other as `spectrum`; the surface-response keys of a material that has them.
// `header` (may be empty) goes first, as '#' comment lines.
std::string SaveMaterialLibrary(const MaterialLibrary& library, const std::string& header = "");

}  // namespace lt
