// `lidartwin calibrate-real` run as a user would: the report over the shared real data, and
// bad input that names the file and line and writes nothing.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "cli_support.h"
#include "test_support.h"

namespace lt {
namespace {

using test::Cli;
using test::CliRun;
using test::Q;

TEST(CalibrateRealCli, WritesTheReportWithItsPlots) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto report = dir / "report";
  auto r = Cli("calibrate-real " + Q(test::RealDataDir()) + " --report " + Q(report));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Spectralon 905 nm"), std::string::npos) << r.output;
  std::ifstream in(report / "real_data_report.md");
  const std::string md((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(md.find("## Spectralon panel"), std::string::npos);
  // The Spectralon table is a model's output: its fits' misfit, never a test's verdict on it
  // (issue 40: no p-values, information criteria or "preferred").
  for (const std::string& text : {md, r.output}) {
    EXPECT_EQ(text.find("(p)"), std::string::npos);
    EXPECT_EQ(text.find("ΔAIC"), std::string::npos);
    EXPECT_EQ(text.find("preferred"), std::string::npos);
  }
  EXPECT_NE(md.find("closer to the response"), std::string::npos);
  EXPECT_NE(md.find("| OS-1-32-G_v2.1.1 | rho cos |"), std::string::npos);
  for (const char* svg : {"spectralon_905nm.svg", "spectralon_residuals.svg",
                          "ouster_detection_unit_link.svg", "ouster_detection_photons.svg"}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(report / svg)) << svg;
    EXPECT_NE(md.find(svg), std::string::npos) << svg;
  }
}

TEST(CalibrateRealCli, BadInputNamesFileAndLineAndWritesNothing) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "data/spectralon-grit-lab");
  dir.Write("data/spectralon-grit-lab/BRF_normalization_factor.csv", "# A\n0,0.9,oops\n");
  const auto report = dir / "report";
  auto r = Cli("calibrate-real " + Q(dir / "data") + " --report " + Q(report));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("BRF_normalization_factor.csv: line 2: column 3: 'oops'"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(report));
  auto usage = Cli("calibrate-real " + Q(dir / "data"));
  EXPECT_EQ(usage.code, 2) << usage.output;
  auto bad_option = Cli("calibrate-real " + Q(dir / "data") + " --report " + Q(report) +
                        " --wavelengths 850,abc");
  EXPECT_EQ(bad_option.code, 2) << bad_option.output;
  EXPECT_NE(bad_option.output.find("--wavelengths"), std::string::npos) << bad_option.output;
}

}  // namespace
}  // namespace lt
