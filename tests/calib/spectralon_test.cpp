// The Spectralon panel readers and its monostatic response (calib/spectralon.h): synthetic
// files, malformed ones (errors name the file, line and cell), and the shared real data.
#include "lidartwin/calib/spectralon.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "test_support.h"

namespace lt::calib {
namespace {

// A table row: the angle, then kBrfTableWavelengths factors a + b (lambda - 350 nm).
std::string Row(double angle, double a, double b, const std::string& sep = ",") {
  std::string row = std::to_string(angle);
  for (size_t c = 0; c < kBrfTableWavelengths; ++c)
    row += sep + std::to_string(a + b * static_cast<double>(c));
  return row;
}

void ExpectError(const Expected<BrfNormalisation>& r, const std::string& fragment) {
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find(fragment), std::string::npos) << r.message();
}

TEST(SpectralonBrfTable, ReadsRowsAndInterpolatesBetweenWavelengths) {
  test::TempDir dir;
  const auto file = dir.Write("brf.csv", Row(0, 0.9, 1e-4) + "\r\n" + Row(10, 1.0, 0) + "\r\n");
  auto t = LoadBrfNormalisation(file);
  ASSERT_TRUE(t.ok()) << t.message();
  ASSERT_EQ(t->incidence_deg.size(), 2u);
  EXPECT_EQ(t->incidence_deg[1], 10);
  auto a = t->AtWavelength(850.5);  // column 500.5: 0.9 + 1e-4 x 500.5
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_NEAR((*a)[0], 0.9 + 0.05005, 1e-9);
  EXPECT_NEAR((*a)[1], 1.0, 1e-12);
  auto edge = t->AtWavelength(2500);
  ASSERT_TRUE(edge.ok()) << edge.message();
  EXPECT_NEAR((*edge)[0], 0.9 + 0.215, 1e-9);
  auto outside = t->AtWavelength(349);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.message().find("349 nm is outside"), std::string::npos) << outside.message();
}

TEST(SpectralonBrfTable, MalformedFilesNameFileLineAndCell) {
  test::TempDir dir;
  std::string bad_cell = Row(10, 1, 0);
  bad_cell.replace(bad_cell.find(',', bad_cell.find(',') + 1), 1, ",abc,");
  ExpectError(LoadBrfNormalisation(dir.Write("cell.csv", Row(0, 1, 0) + "\n" + bad_cell + "\n")),
              "cell.csv: line 2: column 3: 'abc' is not a finite number");
  ExpectError(LoadBrfNormalisation(dir.Write("short.csv", Row(0, 1, 0) + "\n1,2,3\n")),
              "short.csv: line 2: 3 cells; expected the incidence angle and 2151 factors");
  ExpectError(LoadBrfNormalisation(dir.Write("order.csv", Row(5, 1, 0) + "\n" + Row(5, 1, 0))),
              "order.csv: line 2: incidence angle 5 deg does not increase");
  ExpectError(LoadBrfNormalisation(dir.Write("angle.csv", Row(95, 1, 0))),
              "angle.csv: line 1: incidence angle 95 deg is outside 0..90");
  ExpectError(LoadBrfNormalisation(dir.Write("zero.csv", Row(0, 0, 1))),
              "zero.csv: line 1: column 2 (350 nm): normalisation factor 0 is not positive");
  ExpectError(LoadBrfNormalisation(dir.Write("nan.csv", "# header only\n0,nan\n")),
              "nan.csv: line 2: column 2: 'nan' is not a finite number");
  ExpectError(LoadBrfNormalisation(dir.Write("empty.csv", "\n# nothing\n")),
              "empty.csv: no data rows");
  ExpectError(LoadBrfNormalisation(dir / "missing.csv"), "missing.csv: cannot open");
}

TEST(SpectralonPanelReflectance, ReadsBothLayoutsAndInterpolates) {
  test::TempDir dir;
  auto sphere = LoadPanelReflectance(
      dir.Write("sphere.txt", "# Wavelength [nm], Diffuse Reflectance\n850,0.98\n851,0.97\n"));
  ASSERT_TRUE(sphere.ok()) << sphere.message();
  EXPECT_TRUE(sphere->uncertainty.empty());
  double u = -1;
  auto mid = sphere->At(850.25, &u);
  ASSERT_TRUE(mid.ok()) << mid.message();
  EXPECT_NEAR(*mid, 0.9775, 1e-12);
  EXPECT_EQ(u, 0);
  auto labsphere =
      LoadPanelReflectance(dir.Write("cal.txt", "850 0.99 0.0049\r\n851\t0.98\t0.0051\r\n"));
  ASSERT_TRUE(labsphere.ok()) << labsphere.message();
  auto r = labsphere->At(851, &u);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(*r, 0.98, 1e-12);
  EXPECT_NEAR(u, 0.0051, 1e-12);
  auto outside = labsphere->At(900);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.message().find("cal.txt: wavelength 900 nm is outside the file's 850..851"),
            std::string::npos)
      << outside.message();
}

TEST(SpectralonPanelReflectance, MalformedFilesNameFileAndLine) {
  test::TempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {"850 99.0\n", "percent.txt: line 1: reflectance 99 is outside 0..1.2"},
      {"850 0.9\n851 0.9 0.01\n", "columns.txt: line 2: 3 columns where the first data row has 2"},
      {"850 0.9\n849 0.9\n", "order.txt: line 2: wavelength 849 nm does not increase"},
      {"850 0.9 -0.1\n", "negative.txt: line 1: uncertainty -0.1 is negative"},
      {"850\n", "one.txt: line 1: 1 columns; expected wavelength"},
      {"850 0.9x\n", "cell.txt: line 1: column 2: '0.9x' is not a finite number"},
  };
  const char* names[] = {"percent.txt",  "columns.txt", "order.txt",
                         "negative.txt", "one.txt",     "cell.txt"};
  for (size_t k = 0; k < std::size(cases); ++k) {
    auto r = LoadPanelReflectance(dir.Write(names[k], cases[k].first));
    ASSERT_FALSE(r.ok()) << names[k];
    EXPECT_NE(r.message().find(cases[k].second), std::string::npos) << r.message();
  }
}

TEST(SpectralonResponse, IsTheReflectanceFactorTimesCosineOverA) {
  // A = 1 everywhere: a Lambertian panel, I = 100 rho cos(theta), fitted exactly by Lambert.
  const std::vector<double> angles = {0, 20, 40, 60}, ones = {1, 1, 1, 1};
  const auto flat = SpectralonMonostaticResponse(angles, ones, 0.9);
  ASSERT_EQ(flat.size(), 4u);
  EXPECT_NEAR(flat[3].intensity, 45, 1e-9);
  auto fit = FitReflectance(flat, AngularModel::kLambert);
  ASSERT_TRUE(fit.ok()) << fit.message();
  EXPECT_NEAR(fit->Find("r0")->value, 0.9, 1e-9);
  // A divides: a larger normalisation factor is a darker monostatic response.
  const auto darker = SpectralonMonostaticResponse({30}, {1.25}, 0.9);
  EXPECT_NEAR(darker[0].intensity, 100 * 0.9 * std::cos(30 * M_PI / 180) / 1.25, 1e-9);
}

std::filesystem::path Spectralon() {
  return test::RealDataDir() / "spectralon-grit-lab";
}

TEST(SpectralonRealData, TableLayoutIsAnglesByWavelengths) {
  LT_REQUIRE_REAL_DATA();
  auto t = LoadBrfNormalisation(Spectralon() / "BRF_normalization_factor.csv");
  ASSERT_TRUE(t.ok()) << t.message();
  // 0..70 deg in 1 deg steps (SOURCES.md says 0..89; the file has 71 rows).
  ASSERT_EQ(t->incidence_deg.size(), 71u);
  for (size_t i = 0; i < t->incidence_deg.size(); ++i)
    EXPECT_EQ(t->incidence_deg[i], static_cast<double>(i));
  // First and last cells of the file, and the 850 nm column (500 steps after 350 nm).
  EXPECT_NEAR(t->a.front(), 0.899161959, 1e-12);
  EXPECT_NEAR(t->a.back(), 1.168959955, 1e-12);
  auto a850 = t->AtWavelength(850);
  ASSERT_TRUE(a850.ok());
  EXPECT_NEAR(a850->front(), 0.89917098, 1e-12);
}

}  // namespace
}  // namespace lt::calib
