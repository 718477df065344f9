// The solar band table (sim/sensor/solar_band_table.cpp) against the ASTM G173 file it was
// computed from (../shared/real-data/astm-g173-pvlib), and its band integrals.
#include "sensor/solar_band.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "test_support.h"

namespace lt {
namespace {

TEST(SolarBand, TableIsTheCumulativeTrapezoidSumOfTheG173File) {
  LT_REQUIRE_REAL_DATA();
  std::ifstream in(test::RealDataDir() / "astm-g173-pvlib/ASTMG173.csv");
  ASSERT_TRUE(in) << "astm-g173-pvlib/ASTMG173.csv is missing from the real data";
  std::string line;
  std::getline(in, line);        // title
  std::getline(in, line);        // column names
  std::map<int, double> global;  // W/m^2/nm at whole nanometres
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string wl, extra, glob;
    std::getline(row, wl, ',');
    std::getline(row, extra, ',');
    std::getline(row, glob, ',');
    const double w = std::stod(wl);
    if (w == static_cast<int>(w)) global[static_cast<int>(w)] = std::stod(glob);
  }
  ASSERT_GT(global.size(), 1500u);
  double sum = 0;
  EXPECT_EQ(kSolarCumulativeW_m2[0], 0.0);
  for (int k = 1; k <= 800; ++k) {
    const int nm = 800 + k;
    ASSERT_TRUE(global.count(nm) && global.count(nm - 1)) << nm;
    sum += 0.5 * (global[nm - 1] + global[nm]);
    // Six decimals in the table.
    ASSERT_NEAR(kSolarCumulativeW_m2[k], sum, 6e-7 * k) << nm;
  }
}

TEST(SolarBand, BandIntegralsAreDifferencesOfTheTable) {
  // 905 nm with a 30 nm band-pass: 21.585495 W/m^2 (the file's trapezoid sum).
  EXPECT_NEAR(SolarBandIrradiance(890, 920), 21.585495, 1e-5);
  EXPECT_NEAR(SolarBandIrradiance(890, 920), kSolarCumulativeW_m2[120] - kSolarCumulativeW_m2[90],
              1e-12);
  // Half a nanometre: linear between the table's points.
  EXPECT_NEAR(SolarBandIrradiance(890.5, 891),
              0.5 * (kSolarCumulativeW_m2[91] - kSolarCumulativeW_m2[90]), 1e-12);
  // The water band at 940 nm is darker than the band at 905 nm of the same width.
  EXPECT_LT(SolarBandIrradiance(925, 955), 0.6 * SolarBandIrradiance(890, 920));
  EXPECT_EQ(SolarBandIrradiance(1000, 1000), 0.0);
}

}  // namespace
}  // namespace lt
