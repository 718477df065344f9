// The material library's writer beside its loader (house rule 13) and Validate(): every
// shipped library reads back from SaveMaterialLibrary to the same library, as does one built
// in code with every form of spectrum and every surface key; each range rule fails with its
// key path.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "lidartwin/sim/material_library.h"
#include "sim/expect_same_config.h"
#include "test_support.h"

namespace lt {
namespace {

// load -> save -> load, and a second round, give the same library.
void ExpectRoundTrip(const MaterialLibrary& a, const std::filesystem::path& as) {
  const std::string text = SaveMaterialLibrary(a, "written by the round-trip test");
  auto b = ParseMaterialLibrary(text, as);
  ASSERT_TRUE(b.ok()) << b.message() << "\n" << text;
  test::ExpectSameLibrary(a, *b, text);
  EXPECT_EQ(text.rfind("# written by the round-trip test\n", 0), 0u) << text;
  auto c = ParseMaterialLibrary(SaveMaterialLibrary(*b), as);
  ASSERT_TRUE(c.ok()) << c.message();
  test::ExpectSameLibrary(a, *c, "second round");
}

TEST(MaterialLibraryWriter, EveryShippedLibraryReadsBackTheSame) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::ConfigDir() / "materials")) {
    if (entry.path().extension() != ".yaml") continue;
    auto a = LoadMaterialLibrary(entry.path());
    ASSERT_TRUE(a.ok()) << a.message();
    EXPECT_TRUE(a->Validate().ok()) << a->Validate().message();
    ExpectRoundTrip(*a, std::filesystem::temp_directory_path() / "round_trip/library.yaml");
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

// Every form and every key, written from a library built in code; a spectrum file is referred
// to by its absolute path, so the library may be written anywhere.
TEST(MaterialLibraryWriter, EveryFormAndKeyReadsBackTheSame) {
  test::TempDir dir;
  const auto aster = dir.Write("panel.txt",
                               "Name: test panel\nX Units: Wavelength (micrometers)\n"
                               "Y Units: Reflectance (percent)\n0.905 52\n0.85 50\n1.55 61\n");
  auto from_file = LoadAsterSpectrum(aster);
  ASSERT_TRUE(from_file.ok()) << from_file.message();
  EXPECT_EQ(from_file->spectrum_file, std::filesystem::absolute(aster).string());
  MaterialLibrary lib;
  Material flat{.name = "flat",
                .wavelength_nm = {kFlatSpectrumWavelengthNm},
                .reflectance = {0.3},
                .source = "code"};
  Material glossy{.name = "glossy",
                  .wavelength_nm = {850, 905},
                  .reflectance = {0.2, 0.25},
                  .source = "a \"quoted\": source # with YAML characters",
                  .specular_albedo = 0.1,
                  .specular_exponent = 0};  // 0 written out: the loader would default it to 50
  Material sign{.name = "sign", .wavelength_nm = {905}, .reflectance = {0.6}, .source = "s"};
  sign.retroreflective_peak_sr = 300;
  sign.retroreflective_max_entrance_deg = 45;
  Material glass{.name = "glass",
                 .wavelength_nm = {kFlatSpectrumWavelengthNm},
                 .reflectance = {0.04},
                 .source = "g"};
  glass.transmittance = 0.92;
  Material leaves = *from_file;
  leaves.name = "leaves";
  leaves.coverage = 0.4;
  Material glint{.name = "glint",
                 .wavelength_nm = {kFlatSpectrumWavelengthNm},
                 .reflectance = {2.5},
                 .source = "read by reproduce"};
  glint.apparent = true;
  glint.roughness_deg = 23.5;  // a reconstructed road's (Oren-Nayar sigma)
  lib.materials = {flat, glossy, sign, glass, leaves, glint};
  ASSERT_TRUE(lib.Validate().ok()) << lib.Validate().message();
  ExpectRoundTrip(lib, dir / "elsewhere/library.yaml");
  const std::string text = SaveMaterialLibrary(lib);
  // Numbers as people write them: the shortest text that reads back exactly.
  EXPECT_NE(text.find("reflectance: 0.3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("spectrum_file: " + from_file->spectrum_file), std::string::npos) << text;
}

// One rule per row: a valid material, changed by `breaks`, fails on `key` with `problem`.
struct MaterialRule {
  const char* key;
  std::function<void(Material&)> breaks;
  const char* problem;
};

TEST(MaterialValidate, EachRuleNamesItsKey) {
  const Material valid{
      .name = "m", .wavelength_nm = {850, 905}, .reflectance = {0.2, 0.3}, .source = "s"};
  ASSERT_TRUE(valid.Validate().ok()) << valid.Validate().message();
  const MaterialRule rules[] = {
      {"name", [](Material& m) { m.name.clear(); }, "must not be empty"},
      {"spectrum.wavelength_nm",
       [](Material& m) {
         m.wavelength_nm.clear();
         m.reflectance.clear();
       },
       "the spectrum has no samples (material 'm')"},
      {"spectrum", [](Material& m) { m.reflectance.pop_back(); },
       "wavelength_nm has 2 entries, reflectance 1"},
      {"spectrum.wavelength_nm", [](Material& m) { m.wavelength_nm[0] = -5; },
       "wavelength -5 nm is not in (0, 1e6] nm"},
      {"spectrum.wavelength_nm", [](Material& m) { m.wavelength_nm[1] = 850; },
       "wavelengths must increase strictly (850 nm after 850 nm)"},
      {"spectrum.reflectance", [](Material& m) { m.reflectance[1] = 1.5; },
       "reflectance 1.5 at 905 nm is outside [0, 1]"},
      {"reflectance",
       [](Material& m) {
         m.wavelength_nm = {kFlatSpectrumWavelengthNm};
         m.reflectance = {-0.1};
       },
       "must be a fraction in [0, 1], got -0.1"},
      {"spectrum_file",
       [](Material& m) {
         m.spectrum_file = "/x.txt";
         m.wavelength_nm[0] = 0;
       },
       "wavelength 0 nm is not in (0, 1e6] nm"},
      {"specular_albedo", [](Material& m) { m.specular_albedo = 1.2; },
       "must be a fraction in [0, 1], got 1.2"},
      {"specular_exponent", [](Material& m) { m.specular_exponent = 2e5; },
       "must be in [0, 100000], got 200000"},
      {"retroreflective_peak_sr", [](Material& m) { m.retroreflective_peak_sr = -1; },
       "must be in [0, 100000] 1/sr"},
      {"retroreflective_max_entrance_deg", [](Material& m) { m.retroreflective_peak_sr = 100; },
       "must be in (0, 90], got 0"},
      {"retroreflective_max_entrance_deg",
       [](Material& m) { m.retroreflective_max_entrance_deg = 120; },
       "must be in (0, 90], got 120"},
      {"transmittance", [](Material& m) { m.transmittance = -0.5; },
       "must be a fraction in [0, 1], got -0.5"},
      {"transmittance", [](Material& m) { m.transmittance = 0.8; },
       "plus the reflectance (0.3) exceeds 1, got 0.8"},
      {"coverage", [](Material& m) { m.coverage = 0; }, "must be a fraction in (0, 1], got 0"},
      {"roughness_deg", [](Material& m) { m.roughness_deg = -1; },
       "must be in [0, 90) deg, got -1"},
      {"roughness_deg", [](Material& m) { m.roughness_deg = 90; },
       "must be in [0, 90) deg, got 90"},
      // An apparent reflectance (a sensor's reading) may exceed 1, up to 100; a physical one not.
      {"reflectance",
       [](Material& m) {
         m.wavelength_nm = {kFlatSpectrumWavelengthNm};
         m.reflectance = {2.5};
       },
       "must be a fraction in [0, 1], got 2.5"},
      {"reflectance",
       [](Material& m) {
         m.wavelength_nm = {kFlatSpectrumWavelengthNm};
         m.reflectance = {150};
         m.apparent = true;
       },
       "must be a fraction in [0, 100] (apparent), got 150"},
  };
  for (const MaterialRule& rule : rules) {
    Material m = valid;
    rule.breaks(m);
    const Status s = m.Validate();
    ASSERT_FALSE(s.ok()) << rule.key << ": " << rule.problem;
    EXPECT_NE(s.message().find("key '" + std::string(rule.key) + "': "), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find(rule.problem), std::string::npos) << s.message();
  }
}

TEST(MaterialValidate, TheLibraryNeedsMaterialsWithUniqueNames) {
  MaterialLibrary lib;
  EXPECT_EQ(lib.Validate().message(),
            "material library: key 'materials': the library has no materials");
  const Material m{.name = "m", .wavelength_nm = {850}, .reflectance = {0.2}, .source = "s"};
  lib.materials = {m, m};
  EXPECT_EQ(lib.Validate().message(),
            "material library: key 'materials[1].name': duplicate material name 'm'");
  lib.materials[1].name = "n";
  lib.materials[1].coverage = 2;
  EXPECT_NE(lib.Validate().message().find("key 'materials[1].coverage'"), std::string::npos)
      << lib.Validate().message();
}

// The loader reports what Validate() finds at the line of the value.
TEST(MaterialValidate, TheLoaderGivesTheLine) {
  test::TempDir dir;
  auto lib = LoadMaterialLibrary(dir.Write("m.yaml",
                                           "materials:\n  - name: a\n    source: s\n"
                                           "    reflectance: 0.5\n    coverage: 1.5\n"));
  ASSERT_FALSE(lib.ok());
  EXPECT_NE(lib.message().find("m.yaml: key 'materials[0].coverage' (line 5): must be a "
                               "fraction in (0, 1], got 1.5 (material 'a')"),
            std::string::npos)
      << lib.message();
}

}  // namespace
}  // namespace lt
