// Field-by-field comparisons of the configuration structs that the round-trip tests of the
// writers use (the public headers are also compiled as C++17 by nvcc, so the structs carry no
// defaulted operator==). A field added to a struct belongs here too.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "lidartwin/sim/material_library.h"

namespace lt::test {

inline void ExpectSameMaterial(const Material& a, const Material& b, const std::string& what) {
  EXPECT_EQ(a.name, b.name) << what;
  EXPECT_EQ(a.wavelength_nm, b.wavelength_nm) << what << " " << a.name;
  EXPECT_EQ(a.reflectance, b.reflectance) << what << " " << a.name;
  EXPECT_EQ(a.source, b.source) << what << " " << a.name;
  EXPECT_EQ(a.spectrum_file, b.spectrum_file) << what << " " << a.name;
  EXPECT_EQ(a.specular_albedo, b.specular_albedo) << what << " " << a.name;
  EXPECT_EQ(a.specular_exponent, b.specular_exponent) << what << " " << a.name;
  EXPECT_EQ(a.retroreflective_peak_sr, b.retroreflective_peak_sr) << what << " " << a.name;
  EXPECT_EQ(a.retroreflective_max_entrance_deg, b.retroreflective_max_entrance_deg)
      << what << " " << a.name;
  EXPECT_EQ(a.transmittance, b.transmittance) << what << " " << a.name;
  EXPECT_EQ(a.coverage, b.coverage) << what << " " << a.name;
}

inline void ExpectSameLibrary(const MaterialLibrary& a, const MaterialLibrary& b,
                              const std::string& what) {
  ASSERT_EQ(a.materials.size(), b.materials.size()) << what;
  for (size_t i = 0; i < a.materials.size(); ++i)
    ExpectSameMaterial(a.materials[i], b.materials[i], what);
}

}  // namespace lt::test
