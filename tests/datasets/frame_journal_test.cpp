// The frame journal (frame_journal.h): what makes export survive kill -9. Round trips are
// bit-exact; a record torn at any byte is cut off; damage that is not a torn tail is refused
// with its offset; a second writer is locked out.
#include "lidartwin/datasets/frame_journal.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "cli_support.h"
#include "lidartwin/datasets/export_run.h"
#include "test_support.h"

namespace lt {
namespace {

// A record's payload: `bytes` bytes from `seed` (the journal does not look inside).
std::string Payload(size_t bytes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string p(bytes, '\0');
  for (auto& c : p)
    c = static_cast<char>(rng());
  return p;
}

// Frame `index`'s record holding `payload`, half copied and half borrowed.
Status Append(FrameJournal& j, uint32_t index, const std::string& payload) {
  auto r = FrameJournal::Record::Start(index);
  r.Copy(payload.data(), payload.size() / 2);
  r.Borrow(payload.data() + payload.size() / 2, payload.size() - payload.size() / 2);
  r.Finish();
  return j.AppendRecord(r);
}

TEST(FrameJournal, RecordsRoundTripBitExact) {
  test::TempDir dir;
  const auto path = dir.path() / "s.journal";
  const std::vector<std::string> payloads = {Payload(5000, 1), Payload(0, 2), Payload(70001, 3)};
  {
    auto j = FrameJournal::Create(path, "{\"run\": 1}");
    ASSERT_TRUE(j.ok()) << j.message();
    for (uint32_t k = 0; k < 3; ++k)
      ASSERT_TRUE(Append(*j, 10 + k, payloads[k]).ok());
  }
  auto j = FrameJournal::Open(path);
  ASSERT_TRUE(j.ok()) << j.message();
  EXPECT_EQ(j->header(), "{\"run\": 1}");
  EXPECT_EQ(j->frames(), 3u);
  EXPECT_EQ(j->next_index(), 13u);
  EXPECT_EQ(j->truncated_bytes(), 0u);
  size_t k = 0;
  ASSERT_TRUE(j->Replay([&](uint32_t index, std::string&& payload) -> Status {
                 EXPECT_EQ(index, 10 + k);
                 EXPECT_TRUE(payload == payloads.at(k)) << "record " << k;
                 ++k;
                 return {};
               }).ok());
  EXPECT_EQ(k, 3u);
}

// The file's layout as frame_journal.h gives it, its CRC-32s recomputed by zlib (the journal
// computes them with libdeflate): the header's, then the record's over its payload.
TEST(FrameJournal, LayoutAndChecksumsAreTheDocumentedOnes) {
  test::TempDir dir;
  const auto path = dir.path() / "s.journal";
  const std::string header = "{\"run\": 7}";
  const std::string payload = Payload(70001, 4);
  {
    auto j = FrameJournal::Create(path, header);
    ASSERT_TRUE(j.ok()) << j.message();
    ASSERT_TRUE(Append(*j, 42, payload).ok());
  }
  const std::string bytes = test::ReadAll(path);
  auto u32 = [&](size_t at) {
    uint32_t v = 0;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  };
  auto crc = [](const std::string& s) {
    return static_cast<uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size())));
  };
  ASSERT_EQ(bytes.size(), 8 + 4 + header.size() + 4 + 16 + payload.size() + 4);
  EXPECT_EQ(bytes.substr(0, 8), std::string("LTJRNL2\n"));
  EXPECT_EQ(u32(8), header.size());
  EXPECT_EQ(bytes.substr(12, header.size()), header);
  EXPECT_EQ(u32(12 + header.size()), crc(header));
  const size_t record = 16 + header.size();
  EXPECT_EQ(u32(record), 0x5246544Cu);
  EXPECT_EQ(u32(record + 4), 42u);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data() + record + 8, 8);
  EXPECT_EQ(n, payload.size());
  EXPECT_EQ(bytes.substr(record + 16, payload.size()), payload);
  EXPECT_EQ(u32(record + 16 + payload.size()), crc(payload));
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
    ASSERT_TRUE(Append(*j, 0, Payload(1000, 1)).ok());
    ASSERT_TRUE(Append(*j, 1, Payload(1000, 2)).ok());
    two_frames = std::filesystem::file_size(path);
    ASSERT_TRUE(Append(*j, 2, Payload(1000, 3)).ok());
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
  ASSERT_TRUE(Append(*j, 2, Payload(1000, 3)).ok());
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
    ASSERT_TRUE(Append(*j, 0, Payload(1000, 1)).ok());
    ASSERT_TRUE(Append(*j, 1, Payload(1000, 2)).ok());
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
    ASSERT_TRUE(Append(*j, 0, Payload(1000, 1)).ok());
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

// A journal created over a file with bytes in it is emptied first (a new, empty file is not
// truncated at all: frame_journal.cpp, ext4's auto_da_alloc); longer and shorter files than the
// new header, the same bytes as a fresh one's.
TEST(FrameJournal, CreatedOverAnOldFileHoldsOnlyItsHeader) {
  test::TempDir dir;
  const auto fresh = dir.path() / "fresh.journal";
  ASSERT_TRUE(FrameJournal::Create(fresh, "header").ok());
  const std::string header_only = test::ReadAll(fresh);
  ASSERT_FALSE(header_only.empty());
  for (size_t old_bytes :
       {size_t{1}, header_only.size() - 1, header_only.size() + 1, size_t{100000}}) {
    const auto path = dir.path() / ("old-" + std::to_string(old_bytes) + ".journal");
    std::ofstream(path, std::ios::binary) << std::string(old_bytes, 'x');
    {
      auto j = FrameJournal::Create(path, "header");
      ASSERT_TRUE(j.ok()) << j.message();
      EXPECT_EQ(j->frames(), 0u);
    }
    EXPECT_EQ(test::ReadAll(path), header_only) << old_bytes;
  }
  // And one whose records a run wrote.
  const auto used = dir.path() / "used.journal";
  {
    auto j = FrameJournal::Create(used, "header");
    ASSERT_TRUE(j.ok());
    ASSERT_TRUE(Append(*j, 0, Payload(5000, 3)).ok());
  }
  ASSERT_GT(std::filesystem::file_size(used), header_only.size());
  ASSERT_TRUE(FrameJournal::Create(used, "header").ok());
  EXPECT_EQ(test::ReadAll(used), header_only);
}

// The join counts a running shard's frames without its lock and without changing the file.
TEST(FrameJournal, CountFramesNeitherLocksNorCuts) {
  test::TempDir dir;
  const auto path = dir.path() / "s.journal";
  auto j = FrameJournal::Create(path, "h");
  ASSERT_TRUE(j.ok());
  ASSERT_TRUE(Append(*j, 0, Payload(1000, 1)).ok());
  ASSERT_TRUE(Append(*j, 1, Payload(1000, 2)).ok());
  std::ofstream(path, std::ios::binary | std::ios::app) << "torn";
  const uint64_t size = std::filesystem::file_size(path);
  auto n = FrameJournal::CountFrames(path);  // while the writer holds its lock
  ASSERT_TRUE(n.ok()) << n.message();
  EXPECT_EQ(*n, 2u);
  EXPECT_EQ(std::filesystem::file_size(path), size);
}

// A record whose head names another frame than the one appended is refused as it is written;
// the sink's error is reported with the record's offset and frame.
TEST(FrameJournal, ReplayNamesTheRecordASinkRefuses) {
  test::TempDir dir;
  const auto path = dir.path() / "s.journal";
  {
    auto j = FrameJournal::Create(path, "h");
    ASSERT_TRUE(j.ok());
    ASSERT_TRUE(Append(*j, 0, Payload(10, 1)).ok());
    ASSERT_TRUE(Append(*j, 1, Payload(10, 2)).ok());
  }
  auto j = FrameJournal::Open(path);
  ASSERT_TRUE(j.ok()) << j.message();
  const Status s = j->Replay([](uint32_t index, std::string&&) -> Status {
    return index == 1 ? Status{Error{"not a frame I know"}} : Status{};
  });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("(frame 1): not a frame I know"), std::string::npos) << s.message();
}

TEST(FrameJournal, FramesMustFollowEachOther) {
  test::TempDir dir;
  auto j = FrameJournal::Create(dir.path() / "s.journal", "h");
  ASSERT_TRUE(j.ok());
  ASSERT_TRUE(Append(*j, 5, Payload(150, 1)).ok());
  const Status s = Append(*j, 7, Payload(150, 1));
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
  ASSERT_TRUE(Append(*first, 0, Payload(150, 1)).ok());  // the first still works
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

TEST(ExportShards, ThreadsFollowTheCoresGiven) {
  // Two cores are left to the simulators and the writer; at least 2 encoders, at most 16.
  const std::pair<uint32_t, uint32_t> encoders[] = {{1, 2}, {2, 2},   {3, 2},   {4, 2},  {5, 3},
                                                    {8, 6}, {16, 14}, {18, 16}, {64, 16}};
  for (const auto& [cores, expected] : encoders)
    EXPECT_EQ(ExportEncoderThreads(cores), expected) << cores;
  // Workers on one host share its cores, each at least one.
  EXPECT_EQ(CoresPerWorker(32, 2), 16u);
  EXPECT_EQ(CoresPerWorker(33, 2), 16u);
  EXPECT_EQ(CoresPerWorker(2, 3), 1u);
  EXPECT_EQ(CoresPerWorker(16, 0), 16u);
}

}  // namespace
}  // namespace lt
