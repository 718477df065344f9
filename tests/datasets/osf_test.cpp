// Ouster OSF v2 (lidartwin/datasets/osf.h) on the shared recording against an independent
// decoder written from the format's published structure (a Python prototype, not kept; its
// figures in docs/formats/ouster-osf.md), against our pcap reader on the same scans as lidar
// packets, and on the file damaged as a copy or a crash would damage it.
#include "lidartwin/datasets/osf.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "capture_files.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/recording.h"
#include "osf_reseal.h"
#include "test_support.h"

namespace lt {
namespace {

std::filesystem::path SharedOsf() {
  return test::RealDataDir() / "ouster-sdk" / "osf" / "OS-0-128_v3.0.1_1024x10_20241017_141645.osf";
}

std::vector<Frame> Frames(const OsfFile& osf) {
  auto frames = CollectFrames(
      [&](const FrameSink& sink) { return ForEachOsfFrame(osf, osf.streams.at(0), sink); });
  EXPECT_TRUE(frames.ok()) << frames.message();
  return frames.ok() ? std::move(frames.value()) : std::vector<Frame>{};
}

TEST(Osf, TheSharedRecordingDecodesAsAnIndependentDecoderDoes) {
  LT_REQUIRE_REAL_DATA();
  auto osf = OpenOsf(SharedOsf());
  ASSERT_TRUE(osf.ok()) << osf.message();
  EXPECT_EQ(osf->version, 21u);  // OSF 2.1
  ASSERT_EQ(osf->streams.size(), 1u);
  EXPECT_EQ(osf->streams[0].id, 2u);
  EXPECT_EQ(osf->streams[0].sensor_id, 1u);
  EXPECT_EQ(osf->streams[0].sensor.product, "OS-0-128");
  EXPECT_EQ(osf->streams[0].sensor.columns_per_frame, 1024u);
  const auto frames = Frames(*osf);
  ASSERT_EQ(frames.size(), 3u);
  // Points with range > 0 in the valid columns: the first scan is partial (columns 640-1023).
  EXPECT_EQ(frames[0].size(), 18348u);
  EXPECT_EQ(frames[1].size(), 33659u);
  EXPECT_EQ(frames[2].size(), 33623u);
  // The independent decoder's first points of scan 0 (row, measurement column, range mm,
  // signal, reflectivity, xyz m), and its sum of xyz over the scan.
  struct Expected {
    uint16_t row;
    uint32_t column;
    double range_mm, signal, reflectivity, x, y, z;
  };
  const Expected first[] = {{16, 957, 2008, 944, 5, -1.631053, -0.410850, 1.126323},
                            {16, 958, 2009, 925, 5, -1.634355, -0.401031, 1.126873}};
  const Frame& f = frames[0];
  for (const Expected& e : first) {
    size_t i = 0;
    while (i < f.size() && !(f.channel[i] == e.row && f.column[i] == e.column))
      ++i;
    ASSERT_LT(i, f.size()) << e.row << " " << e.column;
    EXPECT_NEAR(f.range_m[i], e.range_mm * 1e-3, 1e-6);  // float32
    EXPECT_EQ(f.intensity[i], e.signal);
    EXPECT_NEAR(f.reflectance[i], e.reflectivity / 100, 1e-7);
    EXPECT_NEAR(f.x_m[i], e.x, 1e-6);
    EXPECT_NEAR(f.y_m[i], e.y, 1e-6);
    EXPECT_NEAR(f.z_m[i], e.z, 1e-6);
  }
  double sx = 0, sy = 0, sz = 0;
  for (size_t i = 0; i < f.size(); ++i)
    sx += f.x_m[i], sy += f.y_m[i], sz += f.z_m[i];
  // float32 coordinates summed over 18,348 points: within 1e-6 m x 18,348.
  EXPECT_NEAR(sx, -9266.990056, 0.02);
  EXPECT_NEAR(sy, -15568.226378, 0.02);
  EXPECT_NEAR(sz, -1575.941068, 0.02);
  // Column times are the sensor's clock (ns); a frame spans a revolution from its first column.
  EXPECT_NEAR(frames[1].start_time_s, 1651329893.594944768, 1e-6);
  EXPECT_NEAR(frames[1].end_time_s - frames[1].start_time_s, 0.1, 1e-6);  // doubles near 1.65e9 s
}

// The same scans sent as the sensor sends them (RNG19_RFL8_SIG16_NIR16 lidar packets, the
// Ouster manual's "Lidar data format") give the same frames through our pcap reader.
std::vector<std::vector<uint8_t>> AsPackets(const OusterMetadata& m,
                                            const std::vector<Frame>& frames) {
  std::vector<std::vector<uint8_t>> packets;
  const size_t column_bytes = m.ColumnBytes(), pixel_bytes = m.ChannelBytes();
  const uint64_t serial = std::stoull(m.serial);
  for (const Frame& f : frames) {
    // The frame's points by (column, row); columns with a point are the valid ones here.
    std::vector<int64_t> at(size_t{m.columns_per_frame} * m.pixels_per_column, -1);
    std::vector<double> column_time(m.columns_per_frame, -1);
    for (size_t i = 0; i < f.size(); ++i) {
      at[size_t{f.column[i]} * m.pixels_per_column + f.channel[i]] = static_cast<int64_t>(i);
      column_time[f.column[i]] = f.timestamp_s[i];
    }
    for (uint32_t first = 0; first < m.columns_per_frame; first += m.columns_per_packet) {
      std::vector<uint8_t> p(m.PacketBytes(), 0);
      p[0] = 1;  // packet type
      p[2] = static_cast<uint8_t>(f.index), p[3] = static_cast<uint8_t>(f.index >> 8);
      for (int k = 0; k < 5; ++k)
        p[7 + k] = static_cast<uint8_t>(serial >> (8 * k));
      bool any = false;
      for (uint32_t c = 0; c < m.columns_per_packet; ++c) {
        const uint32_t v = first + c;
        uint8_t* col = p.data() + 32 + c * column_bytes;
        if (column_time[v] < 0) continue;  // status 0: not sent
        any = true;
        const auto ns = static_cast<uint64_t>(std::llround(column_time[v] * 1e9));
        std::memcpy(col, &ns, 8);
        col[8] = static_cast<uint8_t>(v), col[9] = static_cast<uint8_t>(v >> 8);
        col[10] = 1;
        for (uint32_t u = 0; u < m.pixels_per_column; ++u) {
          const int64_t i = at[size_t{v} * m.pixels_per_column + u];
          if (i < 0) continue;
          uint8_t* px = col + 12 + u * pixel_bytes;
          const auto mm = static_cast<uint32_t>(std::lround(f.range_m[i] * 1e3));
          const auto signal = static_cast<uint16_t>(f.intensity[i]);
          px[0] = static_cast<uint8_t>(mm), px[1] = static_cast<uint8_t>(mm >> 8);
          px[2] = static_cast<uint8_t>(mm >> 16);
          px[4] = static_cast<uint8_t>(std::lround(f.reflectance[i] * 100));
          px[6] = static_cast<uint8_t>(signal), px[7] = static_cast<uint8_t>(signal >> 8);
        }
      }
      if (any) packets.push_back(std::move(p));
    }
  }
  return packets;
}

TEST(Osf, TheScansAsLidarPacketsGiveTheSameFramesThroughThePcapReader) {
  LT_REQUIRE_REAL_DATA();
  auto osf = OpenOsf(SharedOsf());
  ASSERT_TRUE(osf.ok()) << osf.message();
  const OusterMetadata& m = osf->streams[0].sensor;
  ASSERT_EQ(m.profile, OusterProfile::kRng19Rfl8Sig16Nir16);
  const auto frames = Frames(*osf);
  std::vector<Frame> from_packets;
  Status s = ForEachOusterFrame(test::Datagrams(m.lidar_port, AsPackets(m, frames)), m,
                                [&](Frame&& f) -> Status {
                                  from_packets.push_back(std::move(f));
                                  return {};
                                });
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(from_packets.size(), frames.size());
  for (size_t k = 0; k < frames.size(); ++k) {
    const Frame &a = frames[k], &b = from_packets[k];
    ASSERT_EQ(a.size(), b.size()) << k;
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a.channel[i], b.channel[i]) << k << " " << i;
      ASSERT_EQ(a.column[i], b.column[i]);
      ASSERT_EQ(a.x_m[i], b.x_m[i]);
      ASSERT_EQ(a.y_m[i], b.y_m[i]);
      ASSERT_EQ(a.z_m[i], b.z_m[i]);
      ASSERT_EQ(a.range_m[i], b.range_m[i]);
      ASSERT_EQ(a.intensity[i], b.intensity[i]);
      ASSERT_EQ(a.reflectance[i], b.reflectance[i]);
      ASSERT_NEAR(a.timestamp_s[i], b.timestamp_s[i], 1e-6);
    }
    EXPECT_NEAR(a.start_time_s, b.start_time_s, 1e-6);
  }
}

// The shared file's bytes, changed.
std::vector<uint8_t> SharedBytes() {
  auto text = ReadTextFile(SharedOsf(), "");
  EXPECT_TRUE(text.ok()) << text.message();
  return std::vector<uint8_t>(text->begin(), text->end());
}

std::string OpenError(const test::TempDir& dir, const std::vector<uint8_t>& bytes) {
  auto opened = OpenOsf(test::WriteBytes(dir, "bad.osf", bytes));
  return opened.ok() ? std::string("(opened)") : opened.message();
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Osf, DamagedFilesAreRefusedWithTheBlockAndTheProblem) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const std::vector<uint8_t> good = SharedBytes();
  ASSERT_EQ(good.size(), 1081148u);
  // Cut short by a copy: the header's length says so.
  auto cut = good;
  cut.resize(1000000);
  EXPECT_TRUE(Has(OpenError(dir, cut),
                  "the file is 1000000 bytes where its header says 1081148 "
                  "(cut short"))
      << OpenError(dir, cut);
  // A recording its writer never closed: status 1, no metadata.
  auto unfinished = good;
  unfinished[31] = 1;  // Header.status (docs/formats/ouster-osf.md)
  test::ResealOsfBlocks(unfinished);
  EXPECT_TRUE(Has(OpenError(dir, unfinished), "status 1 (invalid: its writer never closed it"))
      << OpenError(dir, unfinished);
  // An OSF v1 version number.
  auto v1 = good;
  v1[32] = 10;  // Header.version
  test::ResealOsfBlocks(v1);
  EXPECT_TRUE(Has(OpenError(dir, v1), "OSF version 1.0 (OSF v1, an older format)"))
      << OpenError(dir, v1);
  // A bit flipped in the metadata: its CRC.
  auto flipped = good;
  flipped[1075000] ^= 0x10;
  EXPECT_TRUE(Has(OpenError(dir, flipped), "the metadata at byte 1070072: CRC-32"))
      << OpenError(dir, flipped);
  // Not an OSF file at all, and a header CRC that lies.
  EXPECT_TRUE(Has(OpenError(dir, std::vector<uint8_t>(100, 7)), "not an Ouster OSF v2 file"));
  auto header_crc = good;
  header_crc[57] ^= 1;
  EXPECT_TRUE(Has(OpenError(dir, header_crc), "the header at byte 0: CRC-32"));
  // A bit flipped in the chunk: it opens, and its scans are skipped and named.
  auto chunk = good;
  chunk[500000] ^= 0x01;
  auto osf = OpenOsf(test::WriteBytes(dir, "chunk.osf", chunk));
  ASSERT_TRUE(osf.ok()) << osf.message();
  Status s = ForEachOsfFrame(*osf, osf->streams[0], [](Frame&&) -> Status { return {}; });
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Has(s.message(), "no scan of lidar stream 2 could be read; first problem: "));
  EXPECT_TRUE(Has(s.message(), "chunk at byte 60: its CRC-32 does not match")) << s.message();
  // One scan listed twice (the chunk's messages vector, docs/formats/ouster-osf.md: its slots
  // at bytes 96 and 100 point at the first and second message): refused, not decoded twice.
  auto twice = good;
  uint32_t first = 0;
  std::memcpy(&first, &twice[96], 4);
  const uint32_t again = first + 96 - 100;  // the second slot pointing where the first does
  std::memcpy(&twice[100], &again, 4);
  test::ResealOsfBlocks(twice);
  osf = OpenOsf(test::WriteBytes(dir, "twice.osf", twice));
  ASSERT_TRUE(osf.ok()) << osf.message();
  s = ForEachOsfFrame(*osf, osf->streams[0], [](Frame&&) -> Status { return {}; });
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Has(s.message(), "two of its messages share bytes")) << s.message();
  // Bytes after the metadata: not a file its writer closed.
  auto trailing = good;
  trailing.push_back(0);
  uint64_t length = trailing.size();
  std::memcpy(&trailing[48], &length, 8);  // Header.file_length
  test::ResealOsfBlocks(trailing);
  EXPECT_TRUE(Has(OpenError(dir, trailing), "it ends at byte 1081148 but the file goes on"))
      << OpenError(dir, trailing);
  // A chunk size that runs past the metadata: the walk cannot go on.
  auto size_lies = good;
  size_lies[62] = 0x7F;  // chunk 0's size, bytes 60..63
  osf = OpenOsf(test::WriteBytes(dir, "size.osf", size_lies));
  ASSERT_TRUE(osf.ok()) << osf.message();
  s = ForEachOsfFrame(*osf, osf->streams[0], [](Frame&&) -> Status { return {}; });
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Has(s.message(), "chunk at byte 60: a block of")) << s.message();
  EXPECT_TRUE(Has(s.message(), "past the end of its section at byte 1070072")) << s.message();
}

TEST(Osf, ARecordingOpensByItsExtensionAndItsStreamIsNamedByTopic) {
  LT_REQUIRE_REAL_DATA();
  auto r = ReadRecording(SharedOsf(), "", {"", "2"});
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->reader, "ouster-osf");
  EXPECT_EQ(r->frames.size(), 3u);
  auto none = ReadRecording(SharedOsf(), "", {"", "7"});
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(Has(none.message(),
                  "no lidar stream '7'; name one by its id, the sensor's serial "
                  "number or product line: 2 (OS-0-128 122247000785)"))
      << none.message();
  auto sidecar = ReadRecording(SharedOsf(), "x.json", {});
  ASSERT_FALSE(sidecar.ok());
  EXPECT_TRUE(Has(sidecar.message(), "an OSF file carries its sensor's metadata"));
}

}  // namespace
}  // namespace lt
