#include "lidartwin/sim/material_library.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace lt {
namespace {

MaterialLibrary Library() {
  auto lib = LoadMaterialLibrary(test::ConfigDir() / "materials/library.yaml");
  EXPECT_TRUE(lib.ok()) << lib.message();
  return lib.ok() ? lib.value() : MaterialLibrary{};
}

TEST(MaterialLibrary, ShippedLibraryLoadsWithSources) {
  const MaterialLibrary lib = Library();
  EXPECT_GE(lib.materials.size(), 14u);
  for (const auto& m : lib.materials)
    EXPECT_FALSE(m.source.empty()) << m.name;
  const int plate = lib.Find("lambertian_10");
  ASSERT_GE(plate, 0);
  EXPECT_DOUBLE_EQ(lib.materials[plate].ReflectanceAt(850), 0.10);
  EXPECT_DOUBLE_EQ(lib.materials[plate].ReflectanceAt(1550), 0.10);
  EXPECT_EQ(lib.Find("unobtainium"), -1);
}

// Every ASTER-sourced table must agree with the spectrum it cites, read here from the file
// in ../shared/real-data and interpolated by our Hermite scheme (the tables were read off by
// linear interpolation: 0.5 percentage points covers the difference).
TEST(MaterialLibrary, TablesMatchTheAsterSpectraTheyCite) {
  LT_REQUIRE_REAL_DATA();
  const MaterialLibrary lib = Library();
  const std::pair<const char*, const char*> cited[] = {
      {"asphalt", "asphalt"},        {"aluminium", "aluminum"},  {"wood", "wood"},
      {"copper", "copper"},          {"grass", "grass"},         {"grass_dry", "grass_dry"},
      {"conifer", "conifer"},        {"deciduous", "deciduous"}, {"shingle_gray", "shingle_gray"},
      {"shingle_red", "shingle_red"}};
  for (const auto& [name, file] : cited) {
    auto spectrum = LoadAsterSpectrum(test::RealDataDir() / "aster-spectra-helios" /
                                      (std::string(file) + ".txt"));
    ASSERT_TRUE(spectrum.ok()) << spectrum.message();
    const int id = lib.Find(name);
    ASSERT_GE(id, 0) << name;
    for (double wl : {850.0, 905.0, 1550.0}) {
      EXPECT_NEAR(lib.materials[id].ReflectanceAt(wl), spectrum->ReflectanceAt(wl), 0.005)
          << name << " at " << wl << " nm";
    }
  }
}

TEST(AsterSpectrum, ReadsUnitsAndSortsSamples) {
  LT_REQUIRE_REAL_DATA();
  auto s = LoadAsterSpectrum(test::RealDataDir() / "aster-spectra-helios/asphalt.txt");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_NEAR(s->wavelength_nm.front(), 420.0, 1e-9);  // 0.42 um
  EXPECT_NEAR(s->wavelength_nm.back(), 14000.0, 1e-6);
  for (size_t i = 1; i < s->wavelength_nm.size(); ++i) {
    ASSERT_LT(s->wavelength_nm[i - 1], s->wavelength_nm[i]);
  }
  // First sample: 0.42 um, 15.6055 percent; below the table the value clamps to it.
  EXPECT_NEAR(s->ReflectanceAt(300), 0.156055, 1e-9);
  EXPECT_NE(s->source.find("Asphaltic concrete"), std::string::npos);
}

TEST(AsterSpectrum, RejectsFilesWithoutUnits) {
  test::TempDir dir;
  auto s = LoadAsterSpectrum(dir.Write("x.txt", "0.85\t20\n0.9\t21\n"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("x.txt:1"), std::string::npos) << s.message();
}

TEST(MaterialLibrary, ErrorsNameTheFileAndMaterial) {
  test::TempDir dir;
  auto lib = LoadMaterialLibrary(
      dir.Write("m.yaml", "materials:\n  - {name: a, reflectance: 1.5, source: s}\n"));
  ASSERT_FALSE(lib.ok());
  EXPECT_NE(lib.message().find("m.yaml"), std::string::npos) << lib.message();
  EXPECT_NE(lib.message().find("'a'"), std::string::npos) << lib.message();
  auto dup =
      LoadMaterialLibrary(dir.Write("d.yaml",
                                    "materials:\n  - {name: a, reflectance: 0.5, source: s}\n"
                                    "  - {name: a, reflectance: 0.4, source: s}\n"));
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.message().find("duplicate"), std::string::npos) << dup.message();
  auto mismatch = LoadMaterialLibrary(
      dir.Write("l.yaml",
                "materials:\n  - name: a\n    source: s\n"
                "    spectrum: {wavelength_nm: [850, 905], reflectance: [0.5]}\n"));
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.message().find("materials[0].spectrum"), std::string::npos)
      << mismatch.message();
}

}  // namespace
}  // namespace lt
