// MCAP (datasets/rosbag/mcap_bag.h, mcap_writer.h) and PointCloud2: frames written as a ROS 2 bag
// read back field for field, and damaged files refused by the byte. An independent reader
// checks the same files in tests/python/bag_output_test.sh.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "lidartwin/datasets/recording.h"
#include "lidartwin/datasets/ros_bag.h"
#include "rosbag/point_cloud_bag_writer.h"
#include "rosbag/point_cloud_messages.h"
#include "test_support.h"

namespace lt {
namespace {

Frame RandomFrame(uint32_t seed, size_t points, double start_s) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-50, 50);
  Frame f;
  f.start_time_s = start_s;
  f.pose_start.translation = {1.0 * seed, 2, 3};
  for (size_t i = 0; i < points; ++i) {
    FramePoint p;
    p.x_m = u(rng), p.y_m = u(rng), p.z_m = u(rng);
    p.range_m = std::abs(u(rng));
    p.intensity = std::abs(u(rng)) * 4;
    p.reflectance = std::abs(u(rng)) / 50;
    p.channel = static_cast<uint16_t>(rng() % 128);
    p.column = static_cast<uint32_t>(rng() % 2048);
    p.timestamp_s = start_s + (rng() % 100000) * 1e-6;
    p.return_index = static_cast<uint8_t>(rng() % 2);
    p.material_id = static_cast<uint16_t>(rng() % 20);
    p.instance_id = static_cast<uint32_t>(rng());
    p.semantic_class = static_cast<uint16_t>(rng() % 300);
    p.beam_id = static_cast<uint32_t>(rng());
    p.return_type = physics::ReturnType{static_cast<uint8_t>(rng() % physics::kReturnTypeCount)};
    f.Append(p);
  }
  return f;
}

std::filesystem::path WriteBag(const test::TempDir& dir, const std::vector<Frame>& frames) {
  const auto path = dir / "frames.mcap";
  auto w = ros::PointCloudBagWriter::Create(path);
  EXPECT_TRUE(w.ok()) << w.message();
  for (const Frame& f : frames)
    EXPECT_TRUE((*w)->Append(f).ok());
  EXPECT_TRUE((*w)->Close().ok());
  return path;
}

TEST(McapBag, FramesWrittenAsPointCloudsReadBackFieldForField) {
  test::TempDir dir;
  // Enough points for several 1 MiB chunks.
  std::vector<Frame> frames = {RandomFrame(1, 30000, 10.0), RandomFrame(2, 25000, 10.1),
                               RandomFrame(3, 1, 10.2)};
  const auto path = WriteBag(dir, frames);
  auto bag = OpenRosBag(path);
  ASSERT_TRUE(bag.ok()) << bag.message();
  EXPECT_EQ((*bag)->storage(), "mcap");
  ASSERT_EQ((*bag)->topics().size(), 3u);
  EXPECT_EQ((*bag)->topics()[0].name, "/lidar/points");
  EXPECT_EQ((*bag)->topics()[0].type, "sensor_msgs/msg/PointCloud2");
  EXPECT_EQ((*bag)->topics()[0].messages, 3u);
  EXPECT_EQ((*bag)->topics()[2].name, "/tf_static");
  EXPECT_EQ((*bag)->topics()[2].messages, 1u);
  size_t k = 0;
  Status s = (*bag)->ForEachMessage({"/lidar/points"}, [&](const BagMessage& m) -> Status {
    std::vector<std::string> absent;
    auto got = ros::DecodePointCloud2(m, &absent);
    if (!got.ok()) return got.error();
    EXPECT_TRUE(absent.empty());
    const Frame& want = frames[k++];
    EXPECT_EQ(m.time_ns, static_cast<int64_t>(std::llround(want.start_time_s * 1e9)));
    EXPECT_EQ(got->x_m, want.x_m);
    EXPECT_EQ(got->y_m, want.y_m);
    EXPECT_EQ(got->z_m, want.z_m);
    EXPECT_EQ(got->range_m, want.range_m);
    EXPECT_EQ(got->intensity, want.intensity);
    EXPECT_EQ(got->reflectance, want.reflectance);
    EXPECT_EQ(got->channel, want.channel);
    EXPECT_EQ(got->column, want.column);
    EXPECT_EQ(got->return_index, want.return_index);
    EXPECT_EQ(got->return_type, want.return_type);
    EXPECT_EQ(got->material_id, want.material_id);
    EXPECT_EQ(got->instance_id, want.instance_id);
    EXPECT_EQ(got->semantic_class, want.semantic_class);
    EXPECT_EQ(got->beam_id, want.beam_id);
    // Time goes as float32 seconds after the stamp: within a microsecond of 0.1 s.
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got->timestamp_s[i], want.timestamp_s[i], 1e-6);
    return {};
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(k, 3u);
  // And as a recording, what convert and compare read.
  auto rec = ReadRecording(path, "");
  ASSERT_TRUE(rec.ok()) << rec.message();
  EXPECT_EQ(rec->reader, "pointcloud2-bag");
  ASSERT_EQ(rec->frames.size(), 3u);
  EXPECT_EQ(rec->frames[1].size(), 25000u);
}

// rosbag2's sqlite3 storage: the same frames back through our reader.
TEST(McapBag, FramesWrittenAsADb3ReadBackFieldForField) {
  test::TempDir dir;
  const std::vector<Frame> frames = {RandomFrame(7, 3000, 5.0), RandomFrame(8, 2000, 5.1)};
  const auto path = dir / "frames.db3";
  {
    auto w = ros::PointCloudBagWriter::Create(path);
    ASSERT_TRUE(w.ok()) << w.message();
    for (const Frame& f : frames)
      ASSERT_TRUE((*w)->Append(f).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  // Only the bag is left: no temporary file beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
  auto bag = OpenRosBag(path);
  ASSERT_TRUE(bag.ok()) << bag.message();
  EXPECT_EQ((*bag)->storage(), "rosbag2-sqlite3");
  auto rec = ReadRecording(path, "");
  ASSERT_TRUE(rec.ok()) << rec.message();
  ASSERT_EQ(rec->frames.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(rec->frames[k].x_m, frames[k].x_m);
    EXPECT_EQ(rec->frames[k].intensity, frames[k].intensity);
    EXPECT_EQ(rec->frames[k].semantic_class, frames[k].semantic_class);
  }
}

// A frame without some fields (a PCD of x, y, z): the message carries only those it has, and
// they read back absent, not zero.
TEST(McapBag, FieldsAFrameLacksStayAbsentThroughABag) {
  test::TempDir dir;
  Frame sparse = RandomFrame(5, 100, 3.0);
  for (auto* v : {&sparse.intensity, &sparse.reflectance})
    v->clear();
  sparse.channel.clear();
  sparse.timestamp_s.clear();
  sparse.return_index.clear();
  sparse.return_type.clear();
  sparse.beam_id.clear();
  auto bag = OpenRosBag(WriteBag(dir, {sparse}));
  ASSERT_TRUE(bag.ok()) << bag.message();
  Status s = (*bag)->ForEachMessage({"/lidar/points"}, [&](const BagMessage& m) -> Status {
    std::vector<std::string> absent;
    auto got = ros::DecodePointCloud2(m, &absent);
    if (!got.ok()) return got.error();
    EXPECT_EQ(absent, (std::vector<std::string>{"intensity", "ring", "time", "return_type"}));
    EXPECT_TRUE(got->intensity.empty());
    EXPECT_TRUE(got->reflectance.empty());
    EXPECT_TRUE(got->channel.empty());
    EXPECT_TRUE(got->timestamp_s.empty());
    EXPECT_TRUE(got->return_index.empty());
    EXPECT_TRUE(got->return_type.empty());
    EXPECT_TRUE(got->beam_id.empty());
    EXPECT_EQ(got->x_m, sparse.x_m);
    EXPECT_EQ(got->range_m, sparse.range_m);
    EXPECT_EQ(got->semantic_class, sparse.semantic_class);
    return {};
  });
  ASSERT_TRUE(s.ok()) << s.message();
}

// A bag of ours from before return types were kept: the return index went out as
// "return_type" (beside beam_id and column, with no return_index); it reads back as the index.
TEST(McapBag, OurEarlierBagsReturnIndexReadsBackAsTheIndex) {
  test::TempDir dir;
  Frame legacy = RandomFrame(9, 50, 2.0);
  legacy.return_type.assign(legacy.return_index.begin(), legacy.return_index.end());
  const std::vector<uint8_t> indices = legacy.return_index;
  legacy.return_index.clear();
  auto bag = OpenRosBag(WriteBag(dir, {legacy}));
  ASSERT_TRUE(bag.ok()) << bag.message();
  Status s = (*bag)->ForEachMessage({"/lidar/points"}, [&](const BagMessage& m) -> Status {
    auto got = ros::DecodePointCloud2(m, nullptr);
    if (!got.ok()) return got.error();
    EXPECT_EQ(got->return_index, indices);
    EXPECT_TRUE(got->return_type.empty());
    return {};
  });
  ASSERT_TRUE(s.ok()) << s.message();
}

std::vector<uint8_t> Bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Every message of every topic read, as convert would.
Status ReadAll(const std::filesystem::path& p) {
  auto bag = OpenRosBag(p);
  if (!bag.ok()) return bag.error();
  return (*bag)->ForEachMessage({}, [](const BagMessage&) -> Status { return {}; });
}

TEST(McapBag, DamagedFilesAreRefusedByTheByte) {
  test::TempDir dir;
  const auto good = Bytes(WriteBag(dir, {RandomFrame(4, 20000, 1.0)}));
  // Not MCAP.
  std::vector<uint8_t> text(good.begin(), good.end());
  text[1] = 'X';
  EXPECT_NE(
      ReadAll(test::WriteBytes(dir, "a.mcap", text)).message().find("a.mcap: not an MCAP file"),
      std::string::npos);
  // A flipped bit in a chunk's compressed records: zstd or the chunk's CRC says so.
  std::vector<uint8_t> flipped = good;
  flipped[good.size() / 3] ^= 0x10;
  const std::string flip_error = ReadAll(test::WriteBytes(dir, "c.mcap", flipped)).message();
  EXPECT_TRUE(flip_error.find("CRC-32 does not match") != std::string::npos ||
              flip_error.find("zstd gives") != std::string::npos)
      << flip_error;
}

TEST(McapBag, ARecordingCutShortKeepsItsWholeChunksWithAWarning) {
  test::TempDir dir;
  // Three frames of about 1 MB: three chunks or more.
  const auto good = Bytes(WriteBag(
      dir, {RandomFrame(5, 30000, 1.0), RandomFrame(6, 30000, 1.1), RandomFrame(7, 30000, 1.2)}));
  std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(good.size() * 3 / 4));
  auto bag = OpenRosBag(test::WriteBytes(dir, "cut.mcap", cut));
  ASSERT_TRUE(bag.ok()) << bag.message();
  size_t clouds = 0;
  ASSERT_TRUE((*bag)
                  ->ForEachMessage({"/lidar/points"},
                                   [&](const BagMessage&) -> Status {
                                     ++clouds;
                                     return {};
                                   })
                  .ok());
  EXPECT_GE(clouds, 1u);
  EXPECT_LT(clouds, 3u);
  ASSERT_EQ((*bag)->warnings().size(), 1u);
  EXPECT_NE((*bag)->warnings()[0].find("cut.mcap: record at byte"), std::string::npos);
  EXPECT_NE((*bag)->warnings()[0].find("a recording cut short"), std::string::npos);
  // Every truncation of the first 4 kB reads or fails with a message, never a crash.
  for (size_t n = 0; n < 4096; n += 7) {
    std::vector<uint8_t> head(good.begin(), good.begin() + static_cast<long>(n));
    (void)ReadAll(test::WriteBytes(dir, "d.mcap", head)).ok();
  }
}

// Magic, then a Chunk record: `compression`, its uncompressed size, and `payload`.
std::vector<uint8_t> ChunkFile(const std::string& compression, uint64_t uncompressed,
                               const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> c;
  auto u64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i)
      c.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  u64(0), u64(0), u64(uncompressed);
  c.insert(c.end(), {0, 0, 0, 0});  // crc: not computed
  c.push_back(static_cast<uint8_t>(compression.size())), c.insert(c.end(), {0, 0, 0});
  c.insert(c.end(), compression.begin(), compression.end());
  u64(payload.size());
  c.insert(c.end(), payload.begin(), payload.end());
  std::vector<uint8_t> b = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n', 0x06};
  for (int i = 0; i < 8; ++i)
    b.push_back(static_cast<uint8_t>(c.size() >> (8 * i)));
  b.insert(b.end(), c.begin(), c.end());
  return b;
}

TEST(McapBag, AChunkThatClaimsMoreThanItsBytesCanHoldIsRefusedBeforeAllocating) {
  test::TempDir dir;
  const std::string huge =
      ReadAll(test::WriteBytes(dir, "e.mcap", ChunkFile("", uint64_t{1} << 40, {}))).message();
  EXPECT_NE(huge.find("says it holds 1099511627776 bytes uncompressed, more than the 1073741824"),
            std::string::npos)
      << huge;
  // 1 GiB claimed by 352 bytes of lz4 or of zstd: LZ4 cannot give more than 255 times its
  // input, a zstd frame states its size.
  const std::string lz4 = ReadAll(test::WriteBytes(dir, "f.mcap",
                                                   ChunkFile("lz4", uint64_t{1} << 30,
                                                             std::vector<uint8_t>(352, 0x11))))
                              .message();
  EXPECT_NE(lz4.find("in 352 lz4 bytes (LZ4 gives at most 255 times its input)"), std::string::npos)
      << lz4;
  std::vector<uint8_t> zstd_frame = {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x10};  // states 16 bytes
  zstd_frame.resize(352, 0);
  const std::string zstd =
      ReadAll(test::WriteBytes(dir, "g.mcap", ChunkFile("zstd", uint64_t{1} << 30, zstd_frame)))
          .message();
  EXPECT_NE(zstd.find("in 352 zstd bytes whose frame states 16"), std::string::npos) << zstd;
}

}  // namespace
}  // namespace lt
