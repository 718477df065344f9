#include "lidartwin/datasets/hdf5_frames.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "test_support.h"

namespace lt {
namespace {

Frame SampleFrame(uint32_t index, size_t n) {
  Frame f;
  f.index = index;
  f.start_time_s = 0.1 * index;
  f.end_time_s = 0.1 * (index + 1);
  f.pose_end = {{0.5, 0.5, 0.5, 0.5}, {1, 2, 3}};
  f.motion_corrected = true;
  for (size_t i = 0; i < n; ++i) {
    f.x_m.push_back(static_cast<float>(i) * 0.5f);
    f.y_m.push_back(-static_cast<float>(i));
    f.z_m.push_back(1.25f);
    f.range_m.push_back(static_cast<float>(i) + 0.125f);
    f.intensity.push_back(42.5f);
    f.reflectance.push_back(0.8f);
    f.channel.push_back(static_cast<uint16_t>(i % 128));
    f.column.push_back(static_cast<uint32_t>(i / 128));
    f.timestamp_s.push_back(f.start_time_s + 1e-6 * static_cast<double>(i));
    f.return_index.push_back(0);
    f.material_id.push_back(3);
    f.instance_id.push_back(static_cast<uint32_t>(i % 5));
    f.semantic_class.push_back(64);
    f.beam_id.push_back(static_cast<uint32_t>(i));
  }
  return f;
}

DatasetInfo Info() {
  DatasetInfo info;
  info.software_version = "0.1.0";
  info.sensor_name = "ouster_os0_128";
  info.sensor_profile_yaml = "name: ouster_os0_128\n";
  info.scene_yaml = "objects: []\n";
  info.backend = "cpu";
  info.seed = 1234567890123ull;
  info.wavelength_nm = 850;
  return info;
}

Status WriteFrames(const std::filesystem::path& path, const std::vector<Frame>& frames) {
  auto w = Hdf5FrameWriter::Create(path, Info());
  if (!w.ok()) return w.error();
  for (const auto& f : frames) {
    if (Status s = (*w)->Append(f); !s.ok()) return s;
  }
  return (*w)->Close();
}

TEST(Hdf5Frames, RoundTripsEveryFieldAndTheMetadata) {
  test::TempDir dir;
  const auto path = dir / "frames.h5";
  const std::vector<Frame> frames = {SampleFrame(0, 1000), SampleFrame(1, 0),
                                     SampleFrame(2, 70000)};
  ASSERT_TRUE(WriteFrames(path, frames).ok());
  auto back = ReadHdf5Frames(path);
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    const Frame& a = frames[k];
    const Frame& b = (*back)[k];
    EXPECT_EQ(a.index, b.index);
    EXPECT_EQ(a.x_m, b.x_m);
    EXPECT_EQ(a.range_m, b.range_m);
    EXPECT_EQ(a.channel, b.channel);
    EXPECT_EQ(a.column, b.column);
    EXPECT_EQ(a.timestamp_s, b.timestamp_s);
    EXPECT_EQ(a.instance_id, b.instance_id);
    EXPECT_EQ(a.semantic_class, b.semantic_class);
    EXPECT_EQ(a.beam_id, b.beam_id);
    EXPECT_TRUE(b.echo_pulse_width_ns.empty());  // not written: not modelled
    EXPECT_EQ(a.motion_corrected, b.motion_corrected);
    EXPECT_DOUBLE_EQ(a.pose_end.rotation.w, b.pose_end.rotation.w);
    EXPECT_DOUBLE_EQ(a.pose_end.translation.z, b.pose_end.translation.z);
  }
  auto summary = ReadHdf5Summary(path);
  ASSERT_TRUE(summary.ok()) << summary.message();
  EXPECT_EQ(summary->schema_version, 1);
  EXPECT_EQ(summary->info.seed, 1234567890123ull);
  EXPECT_EQ(summary->info.sensor_name, "ouster_os0_128");
  EXPECT_EQ(summary->info.sensor_profile_yaml, "name: ouster_os0_128\n");
  EXPECT_EQ(summary->frames[2].points, 70000u);
  ASSERT_FALSE(summary->fields.empty());
  EXPECT_EQ(summary->fields[0].first, "x");
  EXPECT_EQ(summary->fields[0].second, "m");
}

TEST(Hdf5Frames, SameContentGivesByteIdenticalFiles) {
  test::TempDir dir;
  ASSERT_TRUE(WriteFrames(dir / "a.h5", {SampleFrame(0, 5000)}).ok());
  // HDF5 stores object times with one-second resolution unless told not to: wait past one.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE(WriteFrames(dir / "b.h5", {SampleFrame(0, 5000)}).ok());
  std::ifstream a(dir / "a.h5", std::ios::binary), b(dir / "b.h5", std::ios::binary);
  const std::string sa((std::istreambuf_iterator<char>(a)), {});
  const std::string sb((std::istreambuf_iterator<char>(b)), {});
  ASSERT_GT(sa.size(), 1000u);
  EXPECT_TRUE(sa == sb) << "HDF5 output differs between two identical writes";
}

TEST(Hdf5Frames, NothingAppearsUntilClose) {
  test::TempDir dir;
  const auto path = dir / "partial.h5";
  {
    auto w = Hdf5FrameWriter::Create(path, Info());
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Append(SampleFrame(0, 10)).ok());
    EXPECT_FALSE(std::filesystem::exists(path));
  }  // abandoned without Close(): no file, no temporary left behind
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(Hdf5Frames, RejectsNonHdf5TruncatedAndForeignFiles) {
  test::TempDir dir;
  auto text = ReadHdf5Summary(dir.Write("text.h5", "this is not HDF5"));
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("text.h5: not an HDF5 file"), std::string::npos) << text.message();

  const auto good = dir / "good.h5";
  ASSERT_TRUE(WriteFrames(good, {SampleFrame(0, 20000)}).ok());
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const auto truncated = dir.Write("truncated.h5", bytes.substr(0, bytes.size() / 2));
  auto t = ReadHdf5Frames(truncated);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("truncated.h5"), std::string::npos) << t.message();

  auto missing = ReadHdf5Summary(dir / "missing.h5");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("no such file"), std::string::npos);
}

TEST(Hdf5Frames, CreateFailsCleanlyInAMissingDirectory) {
  test::TempDir dir;
  auto w = Hdf5FrameWriter::Create(dir / "no/such/dir/out.h5", Info());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.message().find("out.h5"), std::string::npos) << w.message();
}

}  // namespace
}  // namespace lt
