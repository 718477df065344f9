// A folder of scans as one recording (a KITTI velodyne/ folder), and a sensor measured from its
// points where no metadata comes with it (issue 41's KITTI row).
#include <gtest/gtest.h>

#include <fstream>

#include "lidartwin/datasets/recording.h"
#include "lidartwin/datasets/sensor_import.h"
#include "lidartwin/sim/sensor_profile.h"
#include "test_support.h"

namespace lt {
namespace {

// A KITTI-layout scan of `points` points (x, y, z, reflectance as float32) on a circle.
void WriteKittiScan(const std::filesystem::path& file, int points) {
  std::ofstream out(file, std::ios::binary);
  for (int i = 0; i < points; ++i) {
    const float p[4] = {10.0f * std::cos(i * 0.01f), 10.0f * std::sin(i * 0.01f), -1.0f, 0.5f};
    out.write(reinterpret_cast<const char*>(p), sizeof p);
  }
}

Expected<size_t> FramesOf(const std::filesystem::path& folder, std::vector<size_t>* sizes) {
  auto source = OpenRecording(folder, {});
  if (!source.ok()) return source.error();
  size_t frames = 0;
  Status s = source->ForEachFrame([&](Frame&& f) -> Status {
    ++frames;
    if (sizes) sizes->push_back(f.size());
    return {};
  });
  if (!s.ok()) return s.error();
  return frames;
}

TEST(ScanFolder, TheRealKittiScansAreOneRecordingInNameOrder) {
  LT_REQUIRE_REAL_DATA();
  const auto folder = test::RealDataDir() / "kitti-odometry-patchworkpp";
  std::vector<size_t> sizes;
  auto frames = FramesOf(folder, &sizes);
  ASSERT_TRUE(frames.ok()) << frames.message();
  ASSERT_EQ(*frames, 6u);
  for (size_t k = 0; k < 6; ++k)  // each file's own size (16 bytes a point)
    EXPECT_EQ(sizes[k] * 16,
              std::filesystem::file_size(folder / ("00000" + std::to_string(k) + ".bin")));
  auto source = OpenRecording(folder, {});
  ASSERT_TRUE(source.ok());
  EXPECT_EQ(source->header().reader, "kitti-bin");
  EXPECT_EQ(source->header().frames_known, 6u);
}

// The HDL-64E measured from its scans: 64 channels from about +2 deg down to about -24.9 deg
// (its data sheet's field of view; the lower block's lasers sit 0.1-0.2 m off the origin, so
// their ground returns 5-10 m away look up to 1.5 deg higher from it), about 2,000 columns a
// revolution at 10 Hz (0.17 deg).
TEST(ScanFolder, ASensorIsMeasuredFromTheScansOwnPoints) {
  LT_REQUIRE_REAL_DATA();
  auto yaml = ImportSensorProfile(test::RealDataDir() / "kitti-odometry-patchworkpp", {});
  ASSERT_TRUE(yaml.ok()) << yaml.message();
  auto profile = ParseSensorProfile(*yaml, "kitti.yaml");
  ASSERT_TRUE(profile.ok()) << profile.message();
  ASSERT_EQ(profile->elevation_rad.size(), 64u);
  const double top = profile->elevation_rad.front() * 180 / M_PI;
  const double bottom = profile->elevation_rad.back() * 180 / M_PI;
  EXPECT_NEAR(top, 2.0, 1.0);
  EXPECT_NEAR(bottom, -24.9, 1.5);
  EXPECT_GT(profile->columns, 1900u);
  EXPECT_LT(profile->columns, 2200u);
}

TEST(ScanFolder, FoldersThatHoldNoScansOrMixedKindsAreRefused) {
  const test::TempDir tmp;
  const auto dir = tmp.path() / "scans";
  std::filesystem::create_directories(dir);
  auto empty = FramesOf(dir, nullptr);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.message().find("it has none"), std::string::npos) << empty.message();
  std::ofstream(dir / "notes.txt") << "not a scan";
  WriteKittiScan(dir / "000000.bin", 201);  // KITTI's 16 bytes a point only (not 20)
  WriteKittiScan(dir / "000001.bin", 301);
  std::vector<size_t> sizes;
  auto two = FramesOf(dir, &sizes);
  ASSERT_TRUE(two.ok()) << two.message();
  EXPECT_EQ(*two, 2u);
  EXPECT_EQ(sizes, (std::vector<size_t>{201, 301}));
  std::ofstream(dir / "000002.pcd") << "# .PCD v0.7\n";
  auto mixed = FramesOf(dir, nullptr);
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.message().find("holds both .bin and .pcd files"), std::string::npos)
      << mixed.message();
  std::filesystem::remove(dir / "000002.pcd");
  // A scan cut short names its file.
  std::ofstream(dir / "000003.bin", std::ios::binary) << "0123456789";
  auto cut = FramesOf(dir, nullptr);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.message().find("000003.bin"), std::string::npos) << cut.message();
  // Metadata is for captures.
  auto sidecar = OpenRecording(dir, dir / "x.json");
  ASSERT_FALSE(sidecar.ok());
  EXPECT_NE(sidecar.message().find("only pcap recordings take metadata"), std::string::npos);
}

}  // namespace
}  // namespace lt
