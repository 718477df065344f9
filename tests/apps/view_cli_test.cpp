// lidartwin view, compare --pairs and report's viewer from the command line (issue 13): the
// cases the hostile review found.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_support.h"
#include "test_support.h"

namespace lt::test {
namespace {

const std::string kOs0 = std::string(LT_SOURCE_DIR) + "/configs/sensors/ouster_os0_128.yaml";
const std::string kLab = std::string(LT_SOURCE_DIR) + "/configs/scenes/lab_plates.yaml";

class ViewCli : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"a.h5", "b.h5"}) {
      const CliRun r = Cli("simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) + " --seed " +
                           (name[0] == 'a' ? "1" : "2") + " --out " + Q(dir_.path() / name));
      ASSERT_EQ(r.code, 0) << r.output;
    }
  }
  std::filesystem::path P(const char* name) const { return dir_.path() / name; }
  TempDir dir_;
};

TEST_F(ViewCli, OutputsThatAreTheSameFileOrAnInputAreUsageErrors) {
  CliRun r = Cli("compare --real " + Q(P("a.h5")) + " --sim " + Q(P("b.h5")) + " --out " +
                 Q(P("same.json")) + " --pairs " + Q(P("same.json")));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--out and --pairs name the same file"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(P("same.json")));
  const auto before = std::filesystem::file_size(P("a.h5"));
  r = Cli("view --real " + Q(P("a.h5")) + " --sim " + Q(P("b.h5")) + " --export " + Q(P("a.h5")));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("is the --real file"), std::string::npos) << r.output;
  EXPECT_EQ(std::filesystem::file_size(P("a.h5")), before);
}

TEST_F(ViewCli, ReportFindsTheRecordingsFromAnyFolderAndRefusesChangedOnes) {
  // compare run inside the folder with relative names; report run from elsewhere.
  CliRun r = RunShell("cd " + Q(dir_.path()) + " && " + LT_CLI +
                      " compare --real a.h5 --sim b.h5 --out m.json");
  ASSERT_EQ(r.code, 0) << r.output;
  r = RunShell("cd / && " + std::string(LT_CLI) + " report " + Q(P("m.json")) + " --out " +
               Q(P("report")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(ReadAll(P("report") / "report.html").find("Worst frames in the viewer"),
            std::string::npos)
      << r.output;
  // The simulated file rewritten (another seed): report says so and shows no viewer.
  r = Cli("simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) + " --seed 7 --out " +
          Q(P("b.h5")));
  ASSERT_EQ(r.code, 0) << r.output;
  r = Cli("report " + Q(P("m.json")) + " --out " + Q(P("report2")));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("changed since the comparison"), std::string::npos) << r.output;
  EXPECT_EQ(ReadAll(P("report2") / "report.html").find("Worst frames in the viewer"),
            std::string::npos);
}

TEST_F(ViewCli, FramesAreChosenAndMismatchesExplained) {
  CliRun r = Cli("view --real " + Q(P("a.h5")) + " --sim " + Q(P("b.h5")) +
                 " --real-frames 3 --export " + Q(P("v.html")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("frame 3 does not exist"), std::string::npos) << r.output;
  r = Cli("view --real " + Q(P("a.h5")) + " --sim " + Q(P("b.h5")) +
          " --real-frames 4294967296 --export " + Q(P("v.html")));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("4294967296 is not a frame number"), std::string::npos) << r.output;
  r = Cli("view --real " + Q(P("a.h5")) + " --sim " + Q(P("b.h5")) + " --port 65536");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(std::filesystem::exists(P("v.html")));
  r = Cli("view --real " + Q(P("a.h5")) + " --sim " + Q(P("b.h5")) + " --export " + Q(P("v.html")));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("1 frame pair(s)"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace lt::test
