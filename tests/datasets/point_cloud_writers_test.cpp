#include "lidartwin/datasets/point_cloud_writers.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "test_support.h"

namespace lt {
namespace {

Frame ThreePoints() {
  Frame f;
  for (int i = 0; i < 3; ++i) {
    f.x_m.push_back(1.5f * i);
    f.y_m.push_back(-2.0f);
    f.z_m.push_back(0.25f);
    f.range_m.push_back(3.0f);
    f.intensity.push_back(10.0f * i);
    f.reflectance.push_back(0.5f);
    f.channel.push_back(static_cast<uint16_t>(i));
    f.column.push_back(7);
    f.timestamp_s.push_back(0.5 * i);
    f.return_index.push_back(0);
    f.material_id.push_back(1);
    f.instance_id.push_back(9);
    f.semantic_class.push_back(64);
    f.beam_id.push_back(static_cast<uint32_t>(100 + i));
  }
  return f;
}

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Record layout of a PCD: 4x float (x y z range) 2x float (intensity reflectance),
// u16 channel, u32 column, f64 timestamp, u8 return, u16 material, u32 instance,
// u16 class, u32 beam = 24 + 2 + 4 + 8 + 1 + 2 + 4 + 2 + 4 = 51 bytes.
constexpr size_t kRecord = 51;
// A PLY widens the unsigned 16-bit fields to int and the 32-bit ones to double, types Open3D
// loads: 24 + 4 + 8 + 8 + 1 + 4 + 8 + 4 + 8 = 69 bytes.
constexpr size_t kPlyRecord = 69;

TEST(PointCloudWriters, PlyHasAHeaderAndBinaryRecords) {
  test::TempDir dir;
  ASSERT_TRUE(WritePly(ThreePoints(), dir / "f.ply").ok());
  const std::string s = ReadAll(dir / "f.ply");
  const auto end = s.find("end_header\n");
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(s.rfind("ply\nformat binary_little_endian 1.0\n", 0), 0u);
  EXPECT_NE(s.find("element vertex 3\n"), std::string::npos);
  EXPECT_NE(s.find("property double timestamp\n"), std::string::npos);
  const size_t data = end + std::strlen("end_header\n");
  EXPECT_NE(s.find("property int channel\nproperty double column\n"), std::string::npos);
  ASSERT_EQ(s.size() - data, 3 * kPlyRecord);
  float x = 0;
  std::memcpy(&x, &s[data + kPlyRecord], 4);  // second point's x
  EXPECT_FLOAT_EQ(x, 1.5f);
  double beam = 0;
  std::memcpy(&beam, &s[data + 3 * kPlyRecord - 8], 8);  // last point's beam id
  EXPECT_EQ(beam, 102.0);
}

TEST(PointCloudWriters, PcdDeclaresFieldsSizesAndTypes) {
  test::TempDir dir;
  ASSERT_TRUE(WritePcd(ThreePoints(), dir / "f.pcd").ok());
  const std::string s = ReadAll(dir / "f.pcd");
  EXPECT_NE(s.find("FIELDS x y z range intensity"), std::string::npos);
  EXPECT_NE(s.find("SIZE 4 4 4 4 4 4 2 4 8 1 2 4 2 4\n"), std::string::npos);
  EXPECT_NE(s.find("TYPE F F F F F F U U F U U U U U\n"), std::string::npos);
  EXPECT_NE(s.find("POINTS 3\nDATA binary\n"), std::string::npos);
  const size_t data = s.find("DATA binary\n") + std::strlen("DATA binary\n");
  EXPECT_EQ(s.size() - data, 3 * kRecord);
}

TEST(PointCloudWriters, FailsWithoutLeavingAFile) {
  test::TempDir dir;
  const Status s = WritePly(ThreePoints(), dir / "missing_dir/f.ply");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("f.ply"), std::string::npos);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace lt
