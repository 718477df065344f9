// Issue 36: memory and time bounded on every input, measured on the command as a user runs it.
// compare streams its frame pairs (memory of a pair, not of the recordings) and pairs
// coincident points in near-linear time; "no return" points at (0, 0, 0) are dropped and
// counted.
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "lidartwin/bench/memory_bench.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/datasets/point_cloud_writers.h"
#include "test_support.h"

namespace lt {
namespace {

namespace fs = std::filesystem;
using test::Cli;
using test::Q;

FramePoint PointAt(float x, float y, float z, float intensity) {
  FramePoint p;
  p.x_m = x;
  p.y_m = y;
  p.z_m = z;
  p.range_m = std::sqrt(x * x + y * y + z * z);
  p.intensity = intensity;
  return p;
}

nlohmann::json ReadJson(const fs::path& p) {
  return nlohmann::json::parse(test::ReadAll(p));
}

TEST(BoundedCompare, CoincidentPointsPairInNearLinearTime) {
  // 262,144 copies of one point on both sides: the old k-d tree kept them in one leaf that
  // every query scanned (65,536 took 12 s, 262,144 over 120 s). Target: under 2 s.
  const test::TempDir tmp;
  const fs::path& dir = tmp.path();
  Frame f;
  for (int i = 0; i < 262144; ++i)
    f.Append(PointAt(4, 1, 0.5f, 20));
  ASSERT_TRUE(WritePcd(f, dir / "real.pcd").ok());
  ASSERT_TRUE(WritePcd(f, dir / "sim.pcd").ok());
  // Timed in CPU seconds: wall time on the 2-core CI machine also counts the test running
  // beside it (2.04 s once, under a build; 0.4 s alone).
  const test::ShellUsage run =
      test::UsageOfShell(std::string(LT_CLI) + " compare --real " + Q(dir / "real.pcd") +
                         " --sim " + Q(dir / "sim.pcd") + " --out " + Q(dir / "m.json"));
  ASSERT_EQ(run.code, 0);
  const double seconds = run.cpu_seconds;
  EXPECT_LT(seconds, 2.0);
  // Every copy pairs with a copy: N against N coincident points is N pairs, not one.
  EXPECT_EQ(ReadJson(dir / "m.json")["returns"]["both"], 262144);
}

TEST(BoundedCompare, NoReturnPointsAreDroppedAndCounted) {
  // An organised cloud stores a beam without a return as (0, 0, 0); 40,000 of them made a
  // real frame compare in 4.7 s instead of 0.2, and entered the metrics as real returns.
  const test::TempDir tmp;
  const fs::path& dir = tmp.path();
  Frame real, sim;
  for (int i = 0; i < 2000; ++i) {
    const float y = -10 + 0.01f * static_cast<float>(i);
    real.Append(PointAt(10, y, 0, 20));
    sim.Append(PointAt(10, y, 0, 22));  // the same returns, 2 intensity points brighter
  }
  for (int i = 0; i < 40000; ++i)
    real.Append(PointAt(0, 0, 0, 0));
  ASSERT_TRUE(WritePcd(real, dir / "real.pcd").ok());
  ASSERT_TRUE(WritePcd(sim, dir / "sim.pcd").ok());
  const auto r = Cli("compare --real " + Q(dir / "real.pcd") + " --sim " + Q(dir / "sim.pcd") +
                     " --out " + Q(dir / "m.json"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("40000 point(s) at (0, 0, 0)"), std::string::npos) << r.output;
  const auto m = ReadJson(dir / "m.json");
  EXPECT_EQ(m["no_return_points"]["real"], 40000);
  EXPECT_EQ(m["no_return_points"]["sim"], 0);
  EXPECT_EQ(m["real_points"], 2000);
  EXPECT_EQ(m["returns"]["both"], 2000);
}

TEST(BoundedCompare, AnOutputThatCannotBeOpenedSaysWhy) {
  // Issue 36: "cannot open for writing" came without the system's reason.
  const test::TempDir tmp;
  const fs::path& dir = tmp.path();
  Frame f;
  for (int i = 0; i < 10; ++i)
    f.Append(PointAt(5, 0.1f * static_cast<float>(i), 0, 20));
  ASSERT_TRUE(WritePcd(f, dir / "a.pcd").ok());
  // No file can be made in /proc, even by root (whom permissions do not stop).
  const auto r = Cli("compare --real " + Q(dir / "a.pcd") + " --sim " + Q(dir / "a.pcd") +
                     " --out /proc/lidartwin-test.json");
  EXPECT_EQ(r.code, 1) << r.output;
  const std::string said = "/proc/lidartwin-test.json: cannot open for writing: ";
  const size_t at = r.output.find(said);
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_TRUE(std::isalpha(static_cast<unsigned char>(r.output[at + said.size()])))
      << r.output;  // the reason ("No such file or directory")
}

// `frames` frames of `points` points each, a wall 8 m ahead shifted a little per frame.
void WriteFrames(const fs::path& path, int frames, int points, float dx) {
  auto w = Hdf5FrameWriter::Create(path, DatasetInfo{});
  ASSERT_TRUE(w.ok()) << w.message();
  for (int k = 0; k < frames; ++k) {
    Frame f;
    f.index = static_cast<uint32_t>(k);
    for (int i = 0; i < points; ++i) {
      FramePoint p = PointAt(8 + dx + 0.001f * static_cast<float>(k),
                             -20 + 40.0f * static_cast<float>(i) / static_cast<float>(points),
                             static_cast<float>(i % 16) * 0.1f, 30);
      p.channel = static_cast<uint16_t>(i % 16);
      p.column = static_cast<uint32_t>(i / 16);
      f.Append(p);
    }
    ASSERT_TRUE((*w)->Append(f).ok());
  }
  ASSERT_TRUE((*w)->Close().ok());
}

long PeakRssOfCompare(const fs::path& dir, const std::string& name, int* code) {
  return test::PeakRssOfShell(
      std::string(LT_CLI) + " compare --real " + Q(dir / (name + "-real.h5")) + " --sim " +
          Q(dir / (name + "-sim.h5")) + " --out " + Q(dir / (name + ".json")),
      code);
}

TEST(BoundedCompare, MemoryFollowsAFramePairNotTheRecording) {
  // compare held every frame pair (500 OS0-128 pairs: 2.49 GB). Streamed, 240 pairs take what
  // 12 take, within a few MB: the held pairs alone are 240 x 2 x 12,000 points x 53 bytes
  // (305 MB).
  const test::TempDir tmp;
  const fs::path& dir = tmp.path();
  WriteFrames(dir / "few-real.h5", 12, 12000, 0);
  WriteFrames(dir / "few-sim.h5", 12, 12000, 0.02f);
  WriteFrames(dir / "many-real.h5", 240, 12000, 0);
  WriteFrames(dir / "many-sim.h5", 240, 12000, 0.02f);
  int few_code = -1, many_code = -1;
  const long few = PeakRssOfCompare(dir, "few", &few_code);
  const long many = PeakRssOfCompare(dir, "many", &many_code);
  ASSERT_EQ(few_code, 0);
  ASSERT_EQ(many_code, 0);
  EXPECT_LT(many - few, 40L << 20) << "12 pairs: " << few << " bytes, 240 pairs: " << many;
  EXPECT_EQ(ReadJson(dir / "many.json")["frames"], 240);
}

TEST(BoundedCompare, FrameCountsThatDifferAreStillNamedWhenStreamed) {
  const test::TempDir tmp;
  const fs::path& dir = tmp.path();
  WriteFrames(dir / "a-real.h5", 5, 200, 0);
  WriteFrames(dir / "a-sim.h5", 3, 200, 0.02f);
  const auto r = Cli("compare --real " + Q(dir / "a-real.h5") + " --sim " + Q(dir / "a-sim.h5") +
                     " --out " + Q(dir / "m.json"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("gives 5 frame(s) and"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gives 3"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "m.json"));
  // Chosen frames beyond the file, and out of file order (held rather than streamed).
  const auto beyond =
      Cli("compare --real " + Q(dir / "a-real.h5") + " --sim " + Q(dir / "a-sim.h5") +
          " --real-frames 1,7 --sim-frames 0,1 --out " + Q(dir / "m.json"));
  EXPECT_EQ(beyond.code, 1);
  EXPECT_NE(beyond.output.find("frame 7 does not exist"), std::string::npos) << beyond.output;
  const auto reversed =
      Cli("compare --real " + Q(dir / "a-real.h5") + " --sim " + Q(dir / "a-sim.h5") +
          " --real-frames 4,0 --sim-frames 2,1 --out " + Q(dir / "m.json"));
  ASSERT_EQ(reversed.code, 0) << reversed.output;
  EXPECT_EQ(ReadJson(dir / "m.json")["frames"], 2);
}

#ifdef LT_WITH_OPEN3D
TEST(BoundedReconstruct, A241FrameCaptureStaysUnderOneGigabyte) {
  // The shared HDL-32E capture repeated 40 times is 241 frames (46 MB): read with --static it
  // was killed by the kernel at 24.3 GB. Now the batch path measures it first and streams it.
  LT_REQUIRE_REAL_DATA();
  const test::TempDir tmp;
  const fs::path& dir = tmp.path();
  const fs::path capture = test::RealDataDir() / "rust-lidar-utils/hdl32_example.pcap";
  const fs::path calibration = test::RealDataDir() / "ros-velodyne/32db.yaml";
  ASSERT_TRUE(bench::WriteRepeatedCapture(capture, dir / "long.pcap", 40).ok());
  int code = -1;
  const long peak = test::PeakRssOfShell(std::string(LT_CLI) + " reconstruct " +
                                             Q(dir / "long.pcap") + " --calibration " +
                                             Q(calibration) + " --static --out " + Q(dir / "out"),
                                         &code);
  ASSERT_EQ(code, 0);
  EXPECT_LT(peak, 1L << 30) << peak << " bytes";
  EXPECT_TRUE(fs::exists(dir / "out/scene.yaml"));
}

TEST(BoundedReconstruct, FramesThatNeedIcpAndDoNotFitAreRefusedWithTheEstimate) {
  LT_REQUIRE_REAL_DATA();
  const test::TempDir tmp;
  const fs::path& dir = tmp.path();
  const fs::path capture = test::RealDataDir() / "rust-lidar-utils/hdl32_example.pcap";
  const fs::path calibration = test::RealDataDir() / "ros-velodyne/32db.yaml";
  ASSERT_TRUE(bench::WriteRepeatedCapture(capture, dir / "long.pcap", 20).ok());
  const auto r = Cli("reconstruct " + Q(dir / "long.pcap") + " --calibration " + Q(calibration) +
                     " --out " + Q(dir / "out"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("121 frame(s) of"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("GiB as one batch"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--static"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
}
#endif

}  // namespace
}  // namespace lt
