// reproduce and reconstruct on recordings that cannot be reproduced as asked (issue 12 "Bad
// input"): one frame, frames ICP cannot align, a held-out frame out of range, poses of the
// wrong count, contradictory options. Each is a clear error naming the problem, never a
// silent fallback, and nothing is left half-written.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_support.h"
#include "test_support.h"

namespace lt {
namespace {

using test::Cli;
using test::Q;

std::string Os1Args() {
  const auto os1 = test::RealDataDir() / "ouster-sdk";
  return "--recording " + Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3.pcap") + " --metadata " +
         Q(os1 / "OS-1-128_v2.3.0_1024x10.json");
}

TEST(ReproduceHostile, OneFrameIsNotEnoughToReproduce) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto os0 = test::RealDataDir() / "ouster-sdk";
  const auto r = Cli("reproduce --recording " + Q(os0 / "OS-0-128-U1_v2.3.0_1024x10.pcap") +
                     " --metadata " + Q(os0 / "OS-0-128-U1_v2.3.0_1024x10.json") +
                     " --simulate-frame 0 --out " + Q(dir / "rep"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("has 1 frame(s); reproducing one needs at least one other"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "rep"));
}

TEST(ReproduceHostile, AHeldOutFrameOutOfRangeNamesTheFrames) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto r =
      Cli("reproduce " + Os1Args() + " --static --simulate-frame 3 --out " + Q(dir / "rep"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--simulate-frame 3: the recording has 3 frames (0..2)"),
            std::string::npos)
      << r.output;
  const auto list = Cli("reproduce " + Os1Args() + " --static --simulate-frame 1 " +
                        "--reconstruct-frames 0,7 --out " + Q(dir / "rep"));
  EXPECT_EQ(list.code, 2) << list.output;
  EXPECT_NE(list.output.find("7"), std::string::npos) << list.output;
}

TEST(ReproduceHostile, PosesOfTheWrongCountAreCounted) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto poses = dir.Write("two.txt",
                               "1 0 0 0 0 1 0 0 0 0 1 0\n"
                               "1 0 0 0.25 0 1 0 0 0 0 1 0\n");
  const auto r = Cli("reproduce " + Os1Args() + " --poses " + Q(poses) +
                     " --simulate-frame 1 --out " + Q(dir / "rep"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("2 poses for 3 frames"), std::string::npos) << r.output;
}

TEST(ReproduceHostile, FramesIcpCannotAlignAreAnErrorNotAStaticGuess) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  // The VLP-16 capture's first frame is a third of a revolution: too little overlap.
  const auto velo = test::RealDataDir();
  const auto r =
      Cli("reproduce --recording " + Q(velo / "rust-lidar-utils/velodyne_example_vlp16.pcap") +
          " --calibration " + Q(velo / "ros-velodyne/VLP16db.yaml") + " --simulate-frame 1 --out " +
          Q(dir / "rep"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("estimating poses by ICP"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("may not overlap or ICP did not converge"), std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "rep/metrics.json"));
}

// The threshold detector gathers the beam's footprint: a sensor whose profile knows no
// divergence (a RoboSense unit's DIFOP angles) is refused, naming the option and what to give;
// `auto` keeps the ideal detector there.
TEST(ReproduceHostile, TheThresholdDetectorNeedsTheBeamsDivergence) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto bag = test::RealDataDir() / "nebula/robosense-helios16p";
  std::string db3;
  for (const auto& e : std::filesystem::directory_iterator(bag))
    if (e.path().extension() == ".db3") db3 = e.path().string();
  ASSERT_FALSE(db3.empty());
  const std::string common =
      "reproduce --recording " + Q(db3) + " --reconstruct-frames 0,1 --simulate-frame 2 --static";
  const auto r = Cli(common + " --detector threshold --out " + Q(dir / "rep"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--detector"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("needs the beam's divergence"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "rep"));
  // With a given profile it is no choice: the profile's detector stands.
  const auto given = Cli(
      common + " --detector threshold --sensor " +
      Q(std::filesystem::path(LT_SOURCE_DIR) / "configs/sensors/ouster_os0_128_threshold.yaml") +
      " --out " + Q(dir / "given"));
  EXPECT_EQ(given.code, 2) << given.output;
  EXPECT_NE(given.output.find("keeps its own detector"), std::string::npos) << given.output;
  // auto: the ideal detector, as before.
  const auto automatic = Cli(common + " --out " + Q(dir / "auto"));
  ASSERT_EQ(automatic.code, 0) << automatic.output;
  const std::string sensor = test::ReadAll(dir / "auto/sensor.yaml");
  EXPECT_NE(sensor.find("detector:\n  type: ideal"), std::string::npos) << sensor.substr(0, 2000);
}

// A capture holds no poses: --incremental cannot estimate them (ICP holds every frame), so it
// asks for them rather than placing every frame at the origin.
TEST(ReproduceHostile, IncrementalReconstructionOfACaptureNeedsPoses) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto os1 = test::RealDataDir() / "ouster-sdk";
  const auto r =
      Cli("reconstruct " + Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3.pcap") + " --metadata " +
          Q(os1 / "OS-1-128_v2.3.0_1024x10.json") + " --incremental --out " + Q(dir / "rec"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--incremental needs --poses KITTI.txt or --static"), std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "rec/scene.yaml"));
}

// The outputs are one set: a run that fails after meshing leaves the earlier run's outputs as
// they were, and no staging folder.
TEST(ReproduceHostile, AFailedRunLeavesTheEarlierOutputsWhole) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto os1 = test::RealDataDir() / "ouster-sdk";
  const std::string poses = Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3_poses_kitti.txt");
  const auto good = Cli("reproduce " + Os1Args() + " --poses " + poses +
                        " --pose-at end --simulate-frame 1 --out " + Q(dir / "rep"));
  ASSERT_EQ(good.code, 0) << good.output;
  const std::string metrics = test::ReadAll(dir / "rep/metrics.json");
  const std::string sensor = test::ReadAll(dir / "rep/sensor.yaml");
  // A detector bound cannot be fitted on an empty range window: the run fails after reading.
  const auto bad = Cli("reproduce " + Os1Args() + " --poses " + poses +
                       " --simulate-frame 2 --max-range-m 1.01 --out " + Q(dir / "rep"));
  EXPECT_EQ(bad.code, 1) << bad.output;
  EXPECT_EQ(test::ReadAll(dir / "rep/metrics.json"), metrics);
  EXPECT_EQ(test::ReadAll(dir / "rep/sensor.yaml"), sensor);
  for (const auto& e : std::filesystem::directory_iterator(dir / "rep"))
    EXPECT_EQ(e.path().filename().string().find(".reproduce.tmp-"), std::string::npos) << e.path();
}

TEST(ReproduceHostile, ContradictoryOrUnknownOptionsAreUsageErrors) {
  test::TempDir dir;
  const auto poses = dir.Write("p.txt", "1 0 0 0 0 1 0 0 0 0 1 0\n");
  for (const auto& [args, expected] : std::vector<std::pair<std::string, std::string>>{
           {"--poses " + Q(poses) + " --static", "give --poses or --static, not both"},
           {"--pose-at dawn", "option --pose-at: 'dawn' (expected start, middle or end)"},
           {"--detector magic",
            "option --detector: 'magic' (expected auto, threshold, ideal, recording or "
            "capability)"},
           {"--intensity loud", "option --intensity: 'loud'"},
           {"--method marching-cubes", "'marching-cubes' (expected range-image"},
           {"--pose-at end", "--pose-at says when the poses of --poses hold"},
           {"--rotation-rate-hz 1e9", "option --rotation-rate-hz: must be 0"}}) {
    const auto r = Cli("reproduce --recording x.pcap --metadata m.json --simulate-frame 0 " + args +
                       " --out " + Q(dir / "rep"));
    EXPECT_EQ(r.code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << args << ": " << r.output;
  }
  const auto inc = Cli("reconstruct x.h5 --incremental --method poisson --out " + Q(dir / "r"));
  EXPECT_EQ(inc.code, 2) << inc.output;
  EXPECT_NE(inc.output.find("--incremental meshes range images"), std::string::npos) << inc.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "rep"));
}

}  // namespace
}  // namespace lt
