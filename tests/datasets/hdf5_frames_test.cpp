#include "lidartwin/datasets/hdf5_frames.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <thread>
#include <tuple>

#include "../../datasets/hdf5/chunk_codec.h"
#include "../../datasets/hdf5/frame_tables.h"
#include "../../datasets/hdf5/isolated_call.h"
#include "frame_bytes.h"
#include "lidartwin/datasets/hdf5_arrays.h"
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
    EXPECT_TRUE(b.return_type.empty());          // absent: the source did not say
    EXPECT_EQ(a.motion_corrected, b.motion_corrected);
    EXPECT_DOUBLE_EQ(a.pose_end.rotation.w, b.pose_end.rotation.w);
    EXPECT_DOUBLE_EQ(a.pose_end.translation.z, b.pose_end.translation.z);
  }
  auto summary = ReadHdf5Summary(path);
  ASSERT_TRUE(summary.ok()) << summary.message();
  EXPECT_EQ(summary->schema_version, 2);
  EXPECT_EQ(summary->info.seed, 1234567890123ull);
  EXPECT_EQ(summary->info.sensor_name, "ouster_os0_128");
  EXPECT_EQ(summary->info.sensor_profile_yaml, "name: ouster_os0_128\n");
  EXPECT_EQ(summary->frames[2].points, 70000u);
  ASSERT_FALSE(summary->fields.empty());
  EXPECT_EQ(summary->fields[0].first, "x");
  EXPECT_EQ(summary->fields[0].second, "m");
}

// Schema v2: the columns hold every frame's points in turn, cut into chunks of 65,536 values
// whatever the frame boundaries, and the file holds the same few datasets however many frames
// it has. Frames of 1 to 70,000 points read back exactly, the chunk they share included.
TEST(Hdf5Frames, ColumnsRunAcrossFramesInChunksOfTheirOwn) {
  test::TempDir dir;
  const auto path = dir / "many.h5";
  std::vector<Frame> frames;
  uint64_t points = 0;
  for (uint32_t k = 0; k < 300; ++k) {
    frames.push_back(SampleFrame(k, k == 150 ? 70000 : 1 + (k * 37) % 500));
    points += frames.back().size();
  }
  ASSERT_TRUE(WriteFrames(path, frames).ok());
  auto back = ReadHdf5Frames(path);
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->size(), frames.size());
  for (size_t k = 0; k < frames.size(); ++k) {
    EXPECT_EQ(test::FrameBytes((*back)[k]), test::FrameBytes(frames[k])) << "frame " << k;
  }
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t x = H5Dopen2(file, "/points/x", H5P_DEFAULT);
  const hid_t space = H5Dget_space(x), dcpl = H5Dget_create_plist(x);
  hsize_t n = 0, chunk = 0;
  H5Sget_simple_extent_dims(space, &n, nullptr);
  H5Pget_chunk(dcpl, 1, &chunk);
  EXPECT_EQ(n, points);
  EXPECT_EQ(chunk, 65536u);
  hsize_t chunks = 0;
  H5Dget_num_chunks(x, space, &chunks);
  EXPECT_EQ(chunks, (points + 65535) / 65536);
  H5G_info_t info;
  const hid_t rows = H5Gopen2(file, "/frames", H5P_DEFAULT);
  H5Gget_info(rows, &info);
  EXPECT_EQ(info.nlinks, hdf5::RowColumns().size());  // columns, not a group a frame
  H5Gclose(rows);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Dclose(x);
  H5Fclose(file);
}

// The cutter's chunks hold every value once, in order, each chunk full but the last.
TEST(TableCutter, ChunksTileTheValuesInOrder) {
  hdf5::TableCutter cutter([](const Frame&, uint64_t, uint64_t) {
    return std::vector<std::string>{};  // never called: no chunk here spans 8 frames
  });
  std::vector<hdf5::ChunkPlan> chunks;
  const std::vector<uint64_t> counts = {0, 65535, 1, 1, 200000, 7, 0, 65536};
  for (uint64_t count : counts) {
    auto frame = std::make_shared<const Frame>();
    for (auto& c : cutter.Add(frame, count))
      chunks.push_back(std::move(c));
  }
  auto last = cutter.Finish();
  ASSERT_TRUE(last.has_value());
  chunks.push_back(*last);
  uint64_t total = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].index, i);
    uint64_t in_chunk = 0;
    for (const auto& piece : chunks[i].pieces)
      in_chunk += piece.count;
    if (i + 1 < chunks.size()) {
      EXPECT_EQ(in_chunk, 65536u) << "chunk " << i;
    }
    total += in_chunk;
  }
  EXPECT_EQ(total, cutter.values());
  EXPECT_EQ(total, 65535u + 1 + 1 + 200000 + 7 + 65536);
  EXPECT_FALSE(cutter.Finish().has_value());
}

// Return types (an optional column, nebula's codes) go out and back where the frames carry them.
TEST(Hdf5Frames, ReturnTypesReadBackWhereFramesCarryThem) {
  test::TempDir dir;
  std::vector<Frame> frames = {SampleFrame(0, 300), SampleFrame(1, 0), SampleFrame(2, 5000)};
  for (Frame& f : frames)
    for (size_t i = 0; i < f.size(); ++i)
      f.return_type.push_back(static_cast<uint8_t>(i % physics::kReturnTypeCount));
  ASSERT_TRUE(WriteFrames(dir / "types.h5", frames).ok());
  auto back = ReadHdf5Frames(dir / "types.h5");
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->size(), 3u);
  for (size_t k = 0; k < 3; ++k)
    EXPECT_EQ((*back)[k].return_type, frames[k].return_type) << k;
}

// A field a frame carries that earlier frames did not (or the reverse) would leave the columns
// of different lengths: refused by name, and no file appears.
TEST(Hdf5Frames, AFieldThatComesOrGoesBetweenFramesIsRefused) {
  test::TempDir dir;
  Frame with = SampleFrame(1, 10);
  with.echo_pulse_width_ns.assign(10, 3.5f);
  const Status added = WriteFrames(dir / "added.h5", {SampleFrame(0, 10), with});
  EXPECT_NE(added.message().find(
                "frame 1: field 'echo_pulse_width' has 10 values, but the file's earlier frames "
                "do not carry it"),
            std::string::npos)
      << added.message();
  Frame without = SampleFrame(0, 10);
  with.index = 0;
  without.index = 1;
  const Status dropped = WriteFrames(dir / "dropped.h5", {with, without});
  EXPECT_NE(dropped.message().find("frame 1: field 'echo_pulse_width' has 0 values for 10 points"),
            std::string::npos)
      << dropped.message();
  EXPECT_FALSE(std::filesystem::exists(dir / "added.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir / "dropped.h5"));
  with.index = 1;
  auto back = [&] {
    EXPECT_TRUE(WriteFrames(dir / "pulse.h5", {SampleFrame(0, 0), with}).ok());
    return ReadHdf5Frames(dir / "pulse.h5");
  }();
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ((*back)[1].echo_pulse_width_ns, with.echo_pulse_width_ns);
}

// A chunk is one zlib stream of its shuffled bytes, whatever mix of stored planes (random
// bytes: a float's low mantissa), runs (labels, exponents) and searched ones (sequences) it
// holds: zlib's own inflate gives the shuffled values back. Random planes cost their size (stored,
// not grown); a constant column shrinks to almost nothing; a chunk that cannot fit is stored
// shuffled with deflate marked as skipped.
TEST(ChunkCodec, PlanesInflateToTheShuffledValues) {
  constexpr uint64_t n = 65536;
  std::mt19937 rng(7);
  std::vector<float> noisy(n);
  std::vector<uint32_t> sequence(n), constant(n, 42);
  for (uint64_t i = 0; i < n; ++i) {
    noisy[i] = 10.0f + std::uniform_real_distribution<float>(0, 1)(rng);
    sequence[i] = static_cast<uint32_t>(3 * i + i / 7);
  }
  auto check = [&](const void* values, size_t value_bytes, double max_ratio,
                   const char* what) -> size_t {
    const auto chunk = hdf5::EncodeChunk(static_cast<const char*>(values), n, value_bytes, 5);
    EXPECT_EQ(chunk.index, 5u);
    EXPECT_EQ(chunk.filter_mask, 0u) << what;
    std::string inflated(n * value_bytes, '\0');
    uLongf size = inflated.size();
    const int status =
        uncompress(reinterpret_cast<Bytef*>(inflated.data()), &size,
                   reinterpret_cast<const Bytef*>(chunk.bytes.data()), chunk.bytes.size());
    EXPECT_EQ(status, Z_OK) << what;
    EXPECT_EQ(size, n * value_bytes) << what;
    if (status != Z_OK || size != n * value_bytes) return 0;
    const auto* raw = static_cast<const unsigned char*>(values);
    size_t wrong = 0;
    for (uint64_t i = 0; i < n; ++i) {
      for (size_t b = 0; b < value_bytes; ++b) {
        wrong += static_cast<unsigned char>(inflated[b * n + i]) != raw[i * value_bytes + b];
      }
    }
    EXPECT_EQ(wrong, 0u) << what << ": bytes that differ from the shuffled values";
    EXPECT_LT(static_cast<double>(chunk.bytes.size()), max_ratio * n * value_bytes) << what;
    return chunk.bytes.size();
  };
  // Two random mantissa planes stored (a little over half the bytes), exponent planes deflated.
  const size_t noisy_bytes = check(noisy.data(), 4, 0.8, "noisy floats");
  EXPECT_GT(noisy_bytes, n * 4 / 2);
  check(sequence.data(), 4, 0.25, "a sequence");
  check(constant.data(), 4, 0.01, "a constant");
  // Every order of the three codings (ADR 0021): byte 0 repeats (runs), byte 1 is random
  // (stored), byte 2 counts (searched by libdeflate, which takes byte 3's runs too); labels of
  // two bytes that change now and then (runs only, the stream ended by its own final block);
  // a frame's times (searched from the first byte).
  std::vector<uint32_t> mixed(n);
  std::vector<uint16_t> labels(n);
  std::vector<double> times(n);
  for (uint64_t i = 0; i < n; ++i) {
    mixed[i] = 0x17u | (static_cast<uint32_t>(rng() & 0xff) << 8) |
               (static_cast<uint32_t>(i * 7 & 0xff) << 16) | (0x3fu << 24);
    labels[i] = static_cast<uint16_t>(i / 1500 % 5 == 0 ? 300 + i / 1500 : 12);
    times[i] = 1000.0 + 1e-7 * static_cast<double>(i);
  }
  check(mixed.data(), 4, 0.45, "runs, stored, searched");
  check(labels.data(), 2, 0.01, "labels");
  check(times.data(), 8, 0.35, "times");
  // The same chunk gives the same bytes whatever the thread encoded before (each thread keeps
  // its compressor and buffers from chunk to chunk).
  const auto sequence_alone =
      hdf5::EncodeChunk(reinterpret_cast<const char*>(sequence.data()), n, 4, 0);
  std::vector<uint32_t> random_words(n);
  for (auto& w : random_words)
    w = static_cast<uint32_t>(rng());
  hdf5::EncodeChunk(reinterpret_cast<const char*>(random_words.data()), n, 4, 0);  // ends stored
  EXPECT_EQ(hdf5::EncodeChunk(reinterpret_cast<const char*>(sequence.data()), n, 4, 0).bytes,
            sequence_alone.bytes);
  std::thread([&] {
    EXPECT_EQ(hdf5::EncodeChunk(reinterpret_cast<const char*>(sequence.data()), n, 4, 0).bytes,
              sequence_alone.bytes);
  }).join();
  // Random bytes throughout: stored planes cannot fit with the zlib header in the raw size.
  std::vector<uint8_t> random(n);
  for (auto& b : random)
    b = static_cast<uint8_t>(rng());
  const auto chunk = hdf5::EncodeChunk(reinterpret_cast<const char*>(random.data()), n, 1, 0);
  EXPECT_EQ(chunk.filter_mask, 2u);
  EXPECT_EQ(chunk.bytes, std::string(random.begin(), random.end()));
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

// Issue 36: on a full disk the export printed libhdf5's whole error stack: its writer thread
// appends frames, and a thread-safe libhdf5 switches the printing off per thread. A child
// process with a 64 KiB file-size limit appends on a new thread; nothing but our error reaches
// its stderr.
TEST(Hdf5Frames, AFailedWriteOnAnotherThreadPrintsNothing) {
  test::TempDir dir;
  const auto log = dir / "stderr.txt";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    ::signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG instead
    struct rlimit limit {
      64 * 1024, 64 * 1024
    };
    ::setrlimit(RLIMIT_FSIZE, &limit);
    auto w = Hdf5FrameWriter::Create(dir / "full.h5", Info());
    if (!w.ok()) ::_exit(3);
    Frame f = SampleFrame(0, 50000);
    std::mt19937 rng(7);
    for (float& x : f.x_m)
      x = std::uniform_real_distribution<float>(-50, 50)(rng);  // incompressible
    Status failed;
    std::thread([&] {
      for (int k = 0; k < 20 && failed.ok(); ++k)
        failed = (*w)->Append(f);
      if (failed.ok()) failed = (*w)->Close();
    }).join();
    ::_exit(failed.ok() ? 4 : 0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::ifstream in(log);
  const std::string printed((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(printed, "");
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
  EXPECT_NE(missing.message().find("No such file or directory"), std::string::npos);
}

TEST(Hdf5Frames, CreateFailsCleanlyInAMissingDirectory) {
  test::TempDir dir;
  auto w = Hdf5FrameWriter::Create(dir / "no/such/dir/out.h5", Info());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.message().find("out.h5"), std::string::npos) << w.message();
}

// Issue 11 finding 2: attributes in compact storage are capped at 64 KiB; a 450-object scene's
// YAML is larger and must still be written and read back whole.
TEST(Hdf5Frames, MetadataLargerThan64KiBRoundTrips) {
  test::TempDir dir;
  const auto path = dir / "big_scene.h5";
  DatasetInfo info = Info();
  info.scene_yaml.clear();
  for (int i = 0; i < 6000; ++i)
    info.scene_yaml += "  - name: plate_" + std::to_string(i) + "\n    type: plate\n";
  ASSERT_GT(info.scene_yaml.size(), 150000u);
  info.sensor_profile_yaml = std::string(70000, 'p');
  auto w = Hdf5FrameWriter::Create(path, info);
  ASSERT_TRUE(w.ok()) << w.message();
  ASSERT_TRUE((*w)->Append(SampleFrame(0, 10)).ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto back = ReadHdf5Summary(path);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->info.scene_yaml, info.scene_yaml);
  EXPECT_EQ(back->info.sensor_profile_yaml, info.sensor_profile_yaml);
  EXPECT_TRUE(back->warnings.empty());
}

// A simulation records its scene's material names, so that compare can name the by-material
// bins without --scene; a file without them (a recording) has no attribute and reads none.
TEST(Hdf5Frames, MaterialNamesRoundTripAndAreOptional) {
  test::TempDir dir;
  DatasetInfo info = Info();
  info.material_names = {"asphalt", "", "white paint"};
  for (const auto& [file, names] :
       {std::pair{std::string("named.h5"), info.material_names},
        std::pair{std::string("plain.h5"), std::vector<std::string>{}}}) {
    info.material_names = names;
    auto w = Hdf5FrameWriter::Create(dir / file, info);
    ASSERT_TRUE(w.ok()) << w.message();
    ASSERT_TRUE((*w)->Append(SampleFrame(0, 10)).ok());
    ASSERT_TRUE((*w)->Close().ok());
    auto back = ReadHdf5Summary(dir / file);
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back->info.material_names, names) << file;
    EXPECT_TRUE(back->warnings.empty());
  }
}

// The intensity column's unit is the recording's own (DatasetInfo::intensity_unit), "percent"
// where none is given; a converted recording written before units were carried (no
// absent_fields on /points) reads "unknown", one written since keeps what it says (KITTI's
// percent).
TEST(Hdf5Frames, IntensityUnitIsTheRecordingsOwn) {
  test::TempDir dir;
  const auto unit_of = [](const Hdf5Summary& s) {
    for (const auto& [name, unit] : s.fields)
      if (name == "intensity") return unit;
    return std::string("(none)");
  };
  for (const auto& [backend, given, old, column, read] :
       std::vector<std::tuple<std::string, std::string, bool, std::string, std::string>>{
           {"ouster-pcap", "ouster signal photons", false, "ouster signal photons",
            "ouster signal photons"},
           {"cpu", "counts 0-4096", false, "counts 0-4096", "counts 0-4096"},
           {"cpu", "", false, "percent", "percent"},
           {"kitti-bin", "percent", false, "percent", "percent"},
           {"ouster-pcap", "", true, "percent", "unknown"}}) {
    DatasetInfo info = Info();
    info.backend = backend;
    info.intensity_unit = given;
    const auto path = dir / (backend + given + (old ? "old" : "") + ".h5");
    auto w = Hdf5FrameWriter::Create(path, info);
    ASSERT_TRUE(w.ok()) << w.message();
    ASSERT_TRUE((*w)->Append(SampleFrame(0, 10)).ok());
    ASSERT_TRUE((*w)->Close().ok());
    if (old) {  // as written before /points named its absent fields
      const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
      const hid_t g = H5Gopen2(f, "/points", H5P_DEFAULT);
      ASSERT_GE(H5Adelete(g, "absent_fields"), 0);
      H5Gclose(g);
      H5Fclose(f);
    }
    auto back = ReadHdf5Summary(path);
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(unit_of(*back), column) << backend << " " << given;
    EXPECT_EQ(back->info.intensity_unit, read) << backend << " " << given;
  }
}

// A frames file written with the raw HDF5 API, to declare what our writer never would: its
// /frames rows (Rows) and /points columns (Field) as the test says.
class HandMadeFile {
 public:
  explicit HandMadeFile(const std::filesystem::path& path)
      : file_(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) {
    StringAttr(file_, "schema", kFramesSchemaName);
    const double version = kFramesSchemaVersion;
    DoubleAttr(file_, "schema_version", version);
    H5Gclose(H5Gcreate2(file_, "/frames", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(H5Gcreate2(file_, "/points", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  }
  ~HandMadeFile() { Close(); }
  void Close() {
    if (file_ < 0) return;
    H5Fclose(file_);
    file_ = -1;
  }
  // Frame `index` with n points at `offset`.
  static hdf5::FrameRow Row(uint32_t index, uint64_t n, uint64_t offset = 0) {
    hdf5::FrameRow r;
    r.index = index;
    r.points = n;
    r.point_offset = offset;
    return r;
  }
  // Every column of /frames, from `rows` (contiguous).
  void Rows(const std::vector<hdf5::FrameRow>& rows) {
    for (const hdf5::RowColumn& rc : hdf5::RowColumns()) {
      const int rank = rc.width > 1 ? 2 : 1;
      const hsize_t dims[2] = {rows.size(), static_cast<hsize_t>(rc.width)};
      hid_t space = H5Screate_simple(rank, dims, nullptr);
      const hid_t file_type = rc.type == FieldType::kFloat64  ? H5T_IEEE_F64LE
                              : rc.type == FieldType::kUInt8  ? H5T_STD_U8LE
                              : rc.type == FieldType::kUInt32 ? H5T_STD_U32LE
                                                              : H5T_STD_U64LE;
      const hid_t memory_type = rc.type == FieldType::kFloat64  ? H5T_NATIVE_DOUBLE
                                : rc.type == FieldType::kUInt8  ? H5T_NATIVE_UINT8
                                : rc.type == FieldType::kUInt32 ? H5T_NATIVE_UINT32
                                                                : H5T_NATIVE_UINT64;
      const std::string path = std::string("/frames/") + rc.name;
      hid_t ds =
          H5Dcreate2(file_, path.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      const size_t row_bytes = FieldTypeBytes(rc.type) * rc.width;
      std::string bytes(rows.size() * row_bytes, '\0');
      for (size_t r = 0; r < rows.size(); ++r)
        rc.pack(rows[r], &bytes[r * row_bytes]);
      if (!rows.empty()) H5Dwrite(ds, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
      H5Dclose(ds);
      H5Sclose(space);
    }
  }
  // A float column of n values; `write` fills it (chunked, unfilled when false).
  // The positions x, y and z, n values each (Field).
  void Positions(hsize_t n, bool write) {
    for (const char* name : {"x", "y", "z"})
      Field(name, n, write);
  }
  void Field(const char* name, hsize_t n, bool write) {
    hid_t space = H5Screate_simple(1, &n, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    const hsize_t chunk = std::max<hsize_t>(1, std::min<hsize_t>(n, 4096));
    H5Pset_chunk(dcpl, 1, &chunk);
    const std::string path = std::string("/points/") + name;
    hid_t ds =
        H5Dcreate2(file_, path.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (write) {
      std::vector<float> v(n, 1.0f);
      H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    }
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
  }
  void DoubleAttr(hid_t obj, const char* name, double v) {
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(a);
    H5Sclose(space);
  }
  void StringAttr(hid_t obj, const char* name, const std::string& v) {
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, v.size());
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, v.data());
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
  }
  hid_t file() const { return file_; }
  // A variable-length UTF-8 string attribute, as h5py writes a Python str.
  void VariableStringAttr(hid_t obj, const char* name, const char* v) {
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t space = H5Screate(H5S_SCALAR);
    H5Adelete(obj, name);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, &v);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
  }

 private:
  hid_t file_;
};

// Issue 11 finding 6: a few kB that declare 2^34 or 2^28 points are refused before anything is
// allocated, naming the dataset and the limit or the bytes really stored.
TEST(Hdf5Frames, OversizedDeclarationsAreRefusedBeforeAllocating) {
  test::TempDir dir;
  {
    HandMadeFile f(dir / "huge.h5");
    f.Rows({HandMadeFile::Row(0, hsize_t{1} << 34)});
    f.Positions(hsize_t{1} << 34, false);
  }
  ASSERT_LT(std::filesystem::file_size(dir / "huge.h5"), 20000u);
  auto huge = ReadHdf5Summary(dir / "huge.h5");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.message().find("/frames row 0 (frame 0): declares 17179869184 points; this "
                                "reader accepts at most 67108864 per frame"),
            std::string::npos)
      << huge.message();
  {
    HandMadeFile f(dir / "hollow.h5");
    f.Rows({HandMadeFile::Row(0, hsize_t{1} << 26)});
    f.Positions(hsize_t{1} << 26, false);
  }
  for (const Status& read :
       {ReadHdf5Summary(dir / "hollow.h5").status(), ReadHdf5Frames(dir / "hollow.h5").status()}) {
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.message().find("but stores only 0 bytes (corrupt file)"), std::string::npos)
        << read.message();
  }
}

// Issue 11 finding 16: x, y and z are all required (a file with x alone is not a point cloud),
// and every field has as many values as x.
TEST(Hdf5Frames, PositionsAreRequiredAndFieldsAgreeInLength) {
  test::TempDir dir;
  {
    HandMadeFile f(dir / "x_only.h5");
    f.Rows({HandMadeFile::Row(0, 10)});
    f.Field("x", 10, true);
  }
  auto x_only = ReadHdf5Frames(dir / "x_only.h5");
  ASSERT_FALSE(x_only.ok());
  EXPECT_NE(x_only.message().find("/points/y missing (x, y, z are required)"), std::string::npos)
      << x_only.message();
  {
    HandMadeFile f(dir / "ragged.h5");
    f.Rows({HandMadeFile::Row(0, 10)});
    f.Field("x", 10, true);
    f.Field("y", 10, true);
    f.Field("z", 9, true);
  }
  auto ragged = ReadHdf5Frames(dir / "ragged.h5");
  ASSERT_FALSE(ragged.ok());
  EXPECT_NE(ragged.message().find("/points/z has 9 values; the frames' rows add up to 10"),
            std::string::npos)
      << ragged.message();
}

// Issue 11 finding 14: an attribute that is there but cannot be read is reported, not silently
// turned into an empty string.
TEST(Hdf5Frames, UnreadableAttributesAreWarnedAbout) {
  test::TempDir dir;
  {
    HandMadeFile f(dir / "odd.h5");
    f.Rows({HandMadeFile::Row(0, 4)});
    f.Positions(4, true);
    f.DoubleAttr(f.file(), "scene", 3.5);  // a number where the scene's YAML belongs
  }
  auto s = ReadHdf5Summary(dir / "odd.h5");
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_NE(s->warnings[0].find("attribute 'scene' is present but unreadable"), std::string::npos)
      << s->warnings[0];
  EXPECT_EQ(s->frames.at(0).points, 4u);
}

// Issue 11 review: a frames file written with h5py (variable-length strings) was refused as
// "not a lidartwin frames file".
TEST(Hdf5Frames, VariableLengthStringAttributesAreRead) {
  test::TempDir dir;
  {
    HandMadeFile f(dir / "h5py.h5");
    f.Rows({HandMadeFile::Row(0, 2)});
    f.Positions(2, true);
    f.VariableStringAttr(f.file(), "schema", kFramesSchemaName);
    f.VariableStringAttr(f.file(), "sensor_name", "written_by_h5py");
  }
  auto s = ReadHdf5Summary(dir / "h5py.h5");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->info.sensor_name, "written_by_h5py");
  EXPECT_TRUE(s->warnings.empty());
}

// Issue 11 review: a field that is a soft link (y -> x) or a link to another file (which could
// be a FIFO) was followed.
TEST(Hdf5Frames, FieldsThatAreLinksAreRefused) {
  test::TempDir dir;
  {
    HandMadeFile f(dir / "soft.h5");
    f.Rows({HandMadeFile::Row(0, 3)});
    f.Field("x", 3, true);
    f.Field("z", 3, true);
    H5Lcreate_soft("/points/x", f.file(), "/points/y", H5P_DEFAULT, H5P_DEFAULT);
  }
  auto soft = ReadHdf5Summary(dir / "soft.h5");
  ASSERT_FALSE(soft.ok());
  EXPECT_NE(soft.message().find("/points/y: is a soft link"), std::string::npos) << soft.message();
  {
    HandMadeFile f(dir / "external.h5");
    f.Rows({HandMadeFile::Row(0, 3)});
    f.Field("y", 3, true);
    f.Field("z", 3, true);
    H5Lcreate_external("elsewhere.h5", "/x", f.file(), "/points/x", H5P_DEFAULT, H5P_DEFAULT);
  }
  auto external = ReadHdf5Summary(dir / "external.h5");
  ASSERT_FALSE(external.ok());
  EXPECT_NE(external.message().find("/points/x: is a link to another file"), std::string::npos)
      << external.message();
}

// Issue 36: the lab folder's arrays (calibrate) followed soft and external links and external
// storage, so the fitted data could come from any file while the lab's SHA-256 stayed the same.
TEST(Hdf5Arrays, LinksAndDataInOtherFilesAreRefused) {
  test::TempDir dir;
  const auto file = dir / "lab.h5";
  ASSERT_TRUE(WriteHdf5Arrays(file, {{"a", Hdf5Array{{3}, {1, 2, 3}}}}).ok());
  std::ofstream(dir / "raw.bin", std::ios::binary) << std::string(12, '\0');
  {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    H5Lcreate_soft("/a", f, "/soft", H5P_DEFAULT, H5P_DEFAULT);
    H5Lcreate_external("other.h5", "/a", f, "/external", H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t n = 3;
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_external(dcpl, (dir / "raw.bin").c_str(), 0, 12);
    const hid_t d =
        H5Dcreate2(f, "stored", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_GE(d, 0);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
  }
  ASSERT_TRUE(ReadHdf5Arrays(file, {{"a", 1}}).ok());
  for (const auto& [name, expect] :
       {std::pair<std::string, std::string>{"soft", "/soft: is a soft link; lab files hold"},
        {"external", "/external: is a link to another file"},
        {"stored", "'stored' stores its data in other files"}}) {
    auto r = ReadHdf5Arrays(file, {{name, 1}});
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_NE(r.message().find(expect), std::string::npos) << r.message();
  }
}

// Issue 11 review: two frames with one index, and non-finite times, were read as they came.
TEST(Hdf5Frames, RepeatedFrameIndicesAndNonFiniteTimesAreRefused) {
  test::TempDir dir;
  {
    HandMadeFile f(dir / "twice.h5");
    f.Rows({HandMadeFile::Row(0, 3), HandMadeFile::Row(0, 3, 3)});
    f.Positions(6, true);
  }
  auto twice = ReadHdf5Summary(dir / "twice.h5");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.message().find("/frames row 1 (frame 0): frame_index 0 is also the index of an "
                                 "earlier"),
            std::string::npos)
      << twice.message();
  {
    HandMadeFile f(dir / "nan.h5");
    hdf5::FrameRow row = HandMadeFile::Row(0, 3);
    row.start_time_s = std::nan("");
    f.Rows({row});
    f.Positions(3, true);
  }
  auto nan = ReadHdf5Summary(dir / "nan.h5");
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.message().find("start_time_s or end_time_s is not a finite number"),
            std::string::npos)
      << nan.message();
}

// The isolation behind the reader: a crash or a hang in the child is an error here, naming
// the file; an error the child finds is left for the caller to find again.
TEST(IsolatedCall, ACrashOrHangInTheChildBecomesAnError) {
  auto crash = RunIsolated("c.h5", [] {
    ::raise(SIGSEGV);
    return true;
  });
  ASSERT_FALSE(crash.ok());
  EXPECT_NE(crash.message().find("c.h5: corrupt file: the library reading it failed (signal 11"),
            std::string::npos)
      << crash.message();
  auto hang = RunIsolated(
      "h.h5",
      [] {
        for (;;)
          ::pause();
        return true;
      },
      1);
  ASSERT_FALSE(hang.ok());
  EXPECT_NE(hang.message().find("h.h5: reading it did not finish within 1 s"), std::string::npos)
      << hang.message();
  EXPECT_TRUE(RunIsolated("ok.h5", [] { return true; }).ok());
  EXPECT_TRUE(RunIsolated("bad.h5", [] { return false; }).ok());
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

// Voltage records of selected beams (waveform detector, schema "Waveform records"): written
// beside the points and read back bit for bit; inconsistent ones are refused by name, by the
// writer and, in a hand-made file, by the reader.
TEST(Hdf5Frames, WaveformRecordsRoundTripAndInconsistentOnesAreRefused) {
  test::TempDir dir;
  Frame f = SampleFrame(0, 10);
  f.waveform_beams = {3, 70, 4000};
  f.waveform_samples = 64;
  f.waveform_dt_s = 1e-9;
  for (size_t i = 0; i < 3 * 64; ++i)
    f.waveform_volts.push_back(0.1f + 1e-3f * static_cast<float>(i % 17));
  const auto path = dir / "w.h5";
  ASSERT_TRUE(WriteFrames(path, {f, SampleFrame(1, 4)}).ok());
  auto back = ReadHdf5Frames(path);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ((*back)[0].waveform_beams, f.waveform_beams);
  EXPECT_EQ((*back)[0].waveform_volts, f.waveform_volts);
  EXPECT_EQ((*back)[0].waveform_samples, 64u);
  EXPECT_NEAR((*back)[0].waveform_dt_s, 1e-9, 1e-21);
  EXPECT_TRUE((*back)[1].waveform_beams.empty());
  Frame bad = f;
  bad.waveform_volts.pop_back();
  const Status s = WriteFrames(dir / "bad.h5", {bad});
  EXPECT_NE(s.message().find("191 waveform values for 3 records of 64 samples"), std::string::npos)
      << s.message();
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.h5"));
  // A file whose records say they have no samples, or hold a beam twice.
  for (const char* change : {"samples", "order"}) {
    const auto hand = dir / (std::string(change) + ".h5");
    std::filesystem::copy_file(path, hand);
    const hid_t file = H5Fopen(hand.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    if (std::string(change) == "samples") {
      const hid_t ds = H5Dopen2(file, "/frames/waveform_samples", H5P_DEFAULT);
      const uint32_t none[2] = {0, 0};
      H5Dwrite(ds, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, none);
      H5Dclose(ds);
    } else {
      const hid_t ds = H5Dopen2(file, "/waveforms/beam_id", H5P_DEFAULT);
      const uint32_t twice[3] = {3, 3, 4000};
      H5Dwrite(ds, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, twice);
      H5Dclose(ds);
    }
    H5Fclose(file);
    auto r = ReadHdf5Frames(hand);
    ASSERT_FALSE(r.ok()) << change;
    EXPECT_NE(r.message().find(std::string(change) == "samples"
                                   ? "waveform_samples must be in 1..16384"
                                   : "/waveforms/beam_id must rise within a frame"),
              std::string::npos)
        << r.message();
  }
}

// Review: a row declaring 2^31 waveform records passed the open and made ReadFrame allocate
// two 8 GiB arrays; a frame holds at most 4,096 records (the simulator's limit).
TEST(Hdf5Frames, AFrameOfMoreWaveformRecordsThanASimulatorKeepsIsRefused) {
  test::TempDir dir;
  {
    HandMadeFile f(dir / "records.h5");
    hdf5::FrameRow row = HandMadeFile::Row(0, 3);
    row.waveform_records = uint32_t{1} << 31;
    row.waveform_samples = 1;
    row.waveform_sample_interval_ns = 1;
    f.Rows({row});
    f.Positions(3, true);
  }
  auto r = ReadHdf5Summary(dir / "records.h5");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("2147483648 waveform records; a frame holds at most 4096"),
            std::string::npos)
      << r.message();
}

// A compressed chunk whose filter mask says its filters were skipped: libhdf5 1.10.8 would
// copy the chunk's raw size out of the smaller stored chunk (found by fuzz_hdf5); the reader
// refuses it by name before reading.
TEST(Hdf5Frames, AChunkWithSkippedFiltersAndTooFewBytesIsRefused) {
  test::TempDir dir;
  const auto path = dir / "f.h5";
  ASSERT_TRUE(WriteFrames(path, {SampleFrame(0, 100)}).ok());
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t ds = H5Dopen2(file, "/points/y", H5P_DEFAULT);
  ASSERT_GE(ds, 0);
  const hsize_t origin[1] = {0};
  const char few[8] = {};
  ASSERT_GE(H5Dwrite_chunk(ds, H5P_DEFAULT, 0xffffffffu, origin, sizeof few, few), 0);
  H5Dclose(ds);
  H5Fclose(file);
  auto r = ReadHdf5Frames(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("/points/y: a chunk stored with its filters skipped holds 8 bytes"),
            std::string::npos)
      << r.message();
}

}  // namespace
}  // namespace lt
