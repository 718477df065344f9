// The frame journal (frame_journal.h): what makes export survive kill -9. Round trips are
// bit-exact; a record torn at any byte is cut off; damage that is not a torn tail is refused
// with its offset; a second writer is locked out.
#include "lidartwin/datasets/frame_journal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "cli_support.h"
#include "lidartwin/datasets/export_run.h"
#include "test_support.h"

namespace lt {
namespace {

Frame MakeFrame(uint32_t index, size_t points, bool waveforms, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-50, 50);
  Frame f;
  f.index = index;
  f.start_time_s = index * 0.1;
  f.end_time_s = f.start_time_s + 0.1;
  f.pose_start.translation = {1.5, -2.0, 0.25 * index};
  f.pose_end.rotation = {0.5, 0.5, 0.5, 0.5};
  f.motion_corrected = index % 2 == 1;
  for (size_t i = 0; i < points; ++i) {
    FramePoint p;
    p.x_m = u(rng);
    p.y_m = u(rng);
    p.z_m = u(rng);
    p.range_m = std::abs(u(rng));
    p.intensity = u(rng);
    p.reflectance = 0.5f;
    p.channel = static_cast<uint16_t>(i % 128);
    p.column = static_cast<uint32_t>(i / 128);
    p.timestamp_s = f.start_time_s + i * 1e-6;
    p.return_index = static_cast<uint8_t>(i % 2);
    p.material_id = 3;
    p.instance_id = static_cast<uint32_t>(rng());
    p.semantic_class = 7;
    p.beam_id = static_cast<uint32_t>(i);
    f.Append(p);
  }
  if (waveforms) {
    f.waveform_beams = {2, 9, 40};
    f.waveform_samples = 16;
    f.waveform_dt_s = 1e-9;
    for (size_t i = 0; i < 48; ++i)
      f.waveform_volts.push_back(u(rng));
  }
  return f;
}

void ExpectSameFrame(const Frame& a, const Frame& b) {
  EXPECT_EQ(EncodeFrame(a), EncodeFrame(b));  // every field, bit for bit
  EXPECT_EQ(a.size(), b.size());
  EXPECT_EQ(a.index, b.index);
}

TEST(FrameJournal, FramesRoundTripBitExact) {
  test::TempDir dir;
  const auto path = dir.path() / "s.journal";
  std::vector<Frame> frames = {MakeFrame(10, 500, true, 1), MakeFrame(11, 0, false, 2),
                               MakeFrame(12, 1000, false, 3)};
  frames[2].echo_pulse_width_ns.assign(1000, 3.5f);  // an optional field, present
  {
    auto j = FrameJournal::Create(path, "{\"run\": 1}");
    ASSERT_TRUE(j.ok()) << j.message();
    for (const auto& f : frames)
      ASSERT_TRUE(j->Append(f).ok());
  }
  auto j = FrameJournal::Open(path);
  ASSERT_TRUE(j.ok()) << j.message();
  EXPECT_EQ(j->header(), "{\"run\": 1}");
  EXPECT_EQ(j->frames(), 3u);
  EXPECT_EQ(j->next_index(), 13u);
  EXPECT_EQ(j->truncated_bytes(), 0u);
  size_t k = 0;
  ASSERT_TRUE(j->Replay([&](Frame&& f) -> Status {
                 ExpectSameFrame(f, frames.at(k++));
                 return {};
               }).ok());
  EXPECT_EQ(k, 3u);
  EXPECT_EQ(frames[2].echo_pulse_width_ns.size(), 1000u);
}

// A kill can stop a write anywhere: cutting the file at every byte of the last record leaves
// the complete records, and appending afterwards works.
TEST(FrameJournal, TornLastRecordIsCutOffAtEveryByte) {
  test::TempDir dir;
  const auto path = dir.path() / "s.journal";
  uint64_t two_frames = 0, full = 0;
  {
    auto j = FrameJournal::Create(path, "h");
    ASSERT_TRUE(j.ok());
    ASSERT_TRUE(j->Append(MakeFrame(0, 20, true, 1)).ok());
    ASSERT_TRUE(j->Append(MakeFrame(1, 20, false, 2)).ok());
    two_frames = std::filesystem::file_size(path);
    ASSERT_TRUE(j->Append(MakeFrame(2, 20, false, 3)).ok());
    full = std::filesystem::file_size(path);
  }
  const std::string bytes = test::ReadAll(path);
  for (uint64_t cut = two_frames; cut < full; ++cut) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), cut);
    auto j = FrameJournal::Open(path);
    ASSERT_TRUE(j.ok()) << cut << ": " << j.message();
    EXPECT_EQ(j->frames(), 2u) << cut;
    EXPECT_EQ(j->truncated_bytes(), cut - two_frames);
    EXPECT_EQ(std::filesystem::file_size(path), two_frames);
  }
  auto j = FrameJournal::Open(path);
  ASSERT_TRUE(j.ok());
  ASSERT_TRUE(j->Append(MakeFrame(2, 20, false, 3)).ok());
  EXPECT_EQ(std::filesystem::file_size(path), full);
}

TEST(FrameJournal, DamageIsRefusedWithItsOffset) {
  test::TempDir dir;
  const auto path = dir.path() / "s.journal";
  uint64_t first_record = 0;
  {
    auto j = FrameJournal::Create(path, "header");
    ASSERT_TRUE(j.ok());
    first_record = std::filesystem::file_size(path);
    ASSERT_TRUE(j->Append(MakeFrame(0, 20, false, 1)).ok());
    ASSERT_TRUE(j->Append(MakeFrame(1, 20, false, 2)).ok());
  }
  std::string bytes = test::ReadAll(path);
  std::string damaged = bytes;
  damaged[first_record] ^= 0x5A;  // the first record's magic
  std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
  auto j = FrameJournal::Open(path);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.message().find("byte " + std::to_string(first_record)), std::string::npos)
      << j.message();
  EXPECT_NE(j.message().find("not a frame record"), std::string::npos);

  damaged = bytes;
  damaged[14] ^= 1;  // inside the header
  std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
  j = FrameJournal::Open(path);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.message().find("header fails its checksum"), std::string::npos) << j.message();

  std::ofstream(path, std::ios::binary | std::ios::trunc) << "not a journal at all";
  j = FrameJournal::Open(path);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.message().find("not a lidartwin frame journal"), std::string::npos);
}

// After a crash some file systems keep the new size but not the data: a zero-filled tail is
// torn, not damage. A journal whose creation was killed (no whole header) starts again.
TEST(FrameJournal, ZeroTailAndTornHeaderAreStartedOver) {
  test::TempDir dir;
  const auto path = dir.path() / "s.journal";
  {
    auto j = FrameJournal::Create(path, "header");
    ASSERT_TRUE(j.ok());
    ASSERT_TRUE(j->Append(MakeFrame(0, 20, false, 1)).ok());
  }
  const uint64_t one = std::filesystem::file_size(path);
  std::ofstream(path, std::ios::binary | std::ios::app) << std::string(4096, '\0');
  auto j = FrameJournal::Open(path);
  ASSERT_TRUE(j.ok()) << j.message();
  EXPECT_EQ(j->frames(), 1u);
  EXPECT_EQ(j->truncated_bytes(), 4096u);
  EXPECT_EQ(std::filesystem::file_size(path), one);
  j = Error{"closed"};  // releases the lock
  const std::string bytes = test::ReadAll(path);
  for (size_t cut : {size_t{0}, size_t{5}, size_t{13}}) {
    std::ofstream(dir.path() / "torn.journal", std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(cut));
    EXPECT_FALSE(FrameJournal::Open(dir.path() / "torn.journal").ok()) << cut;
    auto again = FrameJournal::OpenOrCreate(dir.path() / "torn.journal", "header");
    ASSERT_TRUE(again.ok()) << cut << ": " << again.message();
    EXPECT_EQ(again->frames(), 0u);
    EXPECT_EQ(again->header(), "header");
  }
}

// The join counts a running shard's frames without its lock and without changing the file.
TEST(FrameJournal, CountFramesNeitherLocksNorCuts) {
  test::TempDir dir;
  const auto path = dir.path() / "s.journal";
  auto j = FrameJournal::Create(path, "h");
  ASSERT_TRUE(j.ok());
  ASSERT_TRUE(j->Append(MakeFrame(0, 20, false, 1)).ok());
  ASSERT_TRUE(j->Append(MakeFrame(1, 20, false, 2)).ok());
  std::ofstream(path, std::ios::binary | std::ios::app) << "torn";
  const uint64_t size = std::filesystem::file_size(path);
  auto n = FrameJournal::CountFrames(path);  // while the writer holds its lock
  ASSERT_TRUE(n.ok()) << n.message();
  EXPECT_EQ(*n, 2u);
  EXPECT_EQ(std::filesystem::file_size(path), size);
}

// A record whose waveform volts are missing is refused, not filled with zeros; so is a record
// whose head names another frame than its payload.
TEST(FrameJournal, RecordsMustHoldWhatTheyDeclare) {
  Frame f = MakeFrame(3, 4, true, 5);
  std::string payload = EncodeFrame(f);
  const std::string without_volts = payload.substr(0, payload.size() - 4 * 48);
  EXPECT_FALSE(DecodeFrame(without_volts).ok());
  f.waveform_samples = 1;  // 3 records of 1 sample: 45 of the 48 values too many, so cut
  f.waveform_volts.resize(3);
  EXPECT_TRUE(DecodeFrame(EncodeFrame(f)).ok());
  test::TempDir dir;
  const auto path = dir.path() / "s.journal";
  {
    auto j = FrameJournal::Create(path, "h");
    ASSERT_TRUE(j.ok());
    std::string record = FrameJournal::EncodeRecord(MakeFrame(0, 3, false, 1)).Bytes();
    record[4] = 7;  // the head says frame 7
    ASSERT_TRUE(j->AppendRecord(7, record).ok());
  }
  auto j = FrameJournal::Open(path);
  ASSERT_TRUE(j.ok()) << j.message();
  const Status s = j->Replay([](Frame&&) -> Status { return {}; });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is headed frame 7 but holds frame 0"), std::string::npos)
      << s.message();
}

TEST(FrameJournal, FramesMustFollowEachOther) {
  test::TempDir dir;
  auto j = FrameJournal::Create(dir.path() / "s.journal", "h");
  ASSERT_TRUE(j.ok());
  ASSERT_TRUE(j->Append(MakeFrame(5, 3, false, 1)).ok());
  const Status s = j->Append(MakeFrame(7, 3, false, 1));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("frame 6 is next"), std::string::npos) << s.message();
}

TEST(FrameJournal, SecondWriterIsLockedOut) {
  test::TempDir dir;
  const auto path = dir.path() / "s.journal";
  auto first = FrameJournal::Create(path, "h");
  ASSERT_TRUE(first.ok());
  auto second = FrameJournal::Open(path);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.message().find("another process is writing this shard"), std::string::npos)
      << second.message();
  auto third = FrameJournal::Create(path, "other");
  ASSERT_FALSE(third.ok());
  ASSERT_TRUE(first->Append(MakeFrame(0, 3, false, 1)).ok());  // the first still works
}

// Hostile payloads: every truncation and every single-byte change of a record's payload either
// decodes or is an error; nothing crashes or allocates beyond the payload's size.
TEST(FrameJournal, DecodeSurvivesDamagedPayloads) {
  const std::string payload = EncodeFrame(MakeFrame(3, 16, true, 9));
  for (size_t cut = 0; cut < payload.size(); ++cut) {
    EXPECT_FALSE(DecodeFrame(payload.substr(0, cut)).ok()) << cut;
  }
  std::mt19937 rng(4);
  for (size_t i = 0; i < 3000; ++i) {
    std::string p = payload;
    p[rng() % p.size()] = static_cast<char>(rng());
    auto f = DecodeFrame(p);
    if (f.ok()) EXPECT_LE(f->size(), 16u * 256);
  }
  auto f = DecodeFrame(payload);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(EncodeFrame(*f), payload);
}

TEST(ExportShards, RangesPartitionTheFrames) {
  for (uint32_t frames : {1u, 2u, 7u, 100u, 1000000u}) {
    for (uint32_t shards : {1u, 2u, 3u, 7u, 64u}) {
      if (shards > frames) continue;
      uint32_t next = 0;
      for (uint32_t i = 0; i < shards; ++i) {
        const FrameRange r = ShardFrames(frames, i, shards);
        EXPECT_EQ(r.begin, next);
        EXPECT_GE(r.size(), frames / shards);
        EXPECT_LE(r.size(), frames / shards + 1);
        next = r.end;
      }
      EXPECT_EQ(next, frames) << frames << " " << shards;
    }
  }
  EXPECT_EQ(ShardStem(3, 8), "shard-00003-of-00008");
}

}  // namespace
}  // namespace lt
