// The lines an export worker writes to its parent: progress, its shard's summary, and the hash of
// its finished shard, which the parent's join takes instead of reading the file again. A
// malformed or foreign line is ignored (the join then hashes the file itself).
#include <gtest/gtest.h>

#include "lidartwin/jobs/export_workers.h"

namespace lt::jobs {
namespace {

FreshShardHash SomeHash(uint64_t bytes, size_t pieces) {
  FreshShardHash h;
  h.bytes = bytes;
  h.inode = 1234567;
  h.device = 2049;
  h.mtime_ns = 1764000000123456789;
  h.hashes.bytes = bytes;
  h.hashes.piece_bytes = 1000;
  for (size_t i = 0; i < pieces; ++i)
    h.hashes.sha256.push_back(std::string(63, 'a') + static_cast<char>('0' + i));
  return h;
}

TEST(ExportWorkerLines, HashedLineRoundTrips) {
  const FreshShardHash sent = SomeHash(2500, 3);
  const std::string line = HashedLine(2, sent);
  ASSERT_EQ(line.back(), '\n');
  auto got = ParseHashedLine(line.substr(0, line.size() - 1), "out", 2, 5);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->file, std::filesystem::path("out") / "shard-00002-of-00005.h5");
  EXPECT_EQ(got->bytes, 2500u);
  EXPECT_EQ(got->inode, sent.inode);
  EXPECT_EQ(got->device, sent.device);
  EXPECT_EQ(got->mtime_ns, sent.mtime_ns);
  EXPECT_EQ(got->hashes.piece_bytes, 1000u);
  EXPECT_EQ(got->hashes.bytes, 2500u);
  EXPECT_EQ(got->hashes.sha256, sent.hashes.sha256);
  // An empty file has one piece.
  auto empty = ParseHashedLine(HashedLine(0, SomeHash(0, 1)), "out", 0, 1);
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->hashes.sha256.size(), 1u);
}

TEST(ExportWorkerLines, MalformedOrForeignHashedLinesAreIgnored) {
  const std::string good = HashedLine(2, SomeHash(2500, 3));
  const std::string digest(64, 'b');
  const std::string lines[] = {
      HashedLine(3, SomeHash(2500, 3)),                 // another shard than the worker's
      HashedLine(2, SomeHash(2500, 2)),                 // a piece missing
      HashedLine(2, SomeHash(2500, 4)),                 // a piece too many
      HashedLine(2, SomeHash(3001, 3)),                 // 3001 bytes are four pieces
      "lidartwin-hashed 2 2500 1 2 3 0 " + digest,      // pieces of 0 bytes
      "lidartwin-hashed 2 2500 1 2 3",                  // no piece size
      "lidartwin-hashed 2 -5 1 2 3 1000 " + digest,     // a negative size (a stream takes 2^64 - 5)
      "lidartwin-hashed 2 +900 1 2 3 1000 " + digest,   // a sign
      "lidartwin-hashed 2 900 1 2 3.5 1000 " + digest,  // not a whole number
      "lidartwin-hashed 2 900 1 99999999999999999999 3 1000 " + digest,  // past 64 bits
      "lidartwin-hashed 4294967298 900 1 2 3 1000 " + digest,            // shard 2 + 2^32
      "lidartwin-hashed 2 900 1 2 3 1000 " + std::string(64, 'G'),       // not hexadecimal
      "lidartwin-hashed 2 900 1 2 3 1000 " + std::string(63, 'a'),       // too short
      "lidartwin-hashed 2 900 1 2 3 1000 " + std::string(64, 'A'),       // upper case
      "lidartwin-progress 2 10 10 0",
      "lidartwin-hashed 2 900 1 2 3 1000 " + digest + " x",  // something after the digests
      "",
  };
  for (const std::string& line : lines)
    EXPECT_FALSE(ParseHashedLine(line, "out", 2, 5).has_value()) << line;
  EXPECT_TRUE(ParseHashedLine(good, "out", 2, 5).has_value());
}

TEST(ExportWorkerLines, ProgressLineRoundTrips) {
  uint32_t shard = 0, done = 0, total = 0, resumed = 0;
  ASSERT_TRUE(ParseProgressLine(ProgressLine(4, 17, 250, 3), shard, done, total, resumed));
  EXPECT_EQ(shard, 4u);
  EXPECT_EQ(done, 17u);
  EXPECT_EQ(total, 250u);
  EXPECT_EQ(resumed, 3u);
  EXPECT_FALSE(ParseProgressLine(HashedLine(4, SomeHash(0, 1)), shard, done, total, resumed));
}

TEST(ExportWorkerLines, SummaryLineRoundTripsOnOneLine) {
  const std::string summary = "out/shard-00002-of-00005.h5: 40 frames (1626000 points) in 0.50 s";
  const std::string line = SummaryLine(summary);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(ParseSummaryLine(line.substr(0, line.size() - 1)), summary);
  // A summary never breaks the one-line protocol, and other lines are not summaries.
  EXPECT_EQ(SummaryLine("a\nb"), "lidartwin-summary a b\n");
  EXPECT_FALSE(ParseSummaryLine(ProgressLine(4, 17, 250, 3)).has_value());
  EXPECT_FALSE(ParseSummaryLine("lidartwin-summary").has_value());
}

// A worker's shard: "I/N" with 0 <= I < N, nothing else.
TEST(ExportWorkerLines, ShardOfShardsIsIOfN) {
  EXPECT_EQ(ParseShardOfShards("3/8"), (std::pair<uint32_t, uint32_t>{3, 8}));
  EXPECT_EQ(ParseShardOfShards("0/1"), (std::pair<uint32_t, uint32_t>{0, 1}));
  for (const char* bad :
       {"8/8", "3/0", "0/0", "3", "/8", "3/", "3/8x", "-1/8", " 3/8", "3//8", "3/99999999999", ""})
    EXPECT_FALSE(ParseShardOfShards(bad).has_value()) << bad;
}

// The options that split a run are left out of a worker's arguments, whether their value
// follows or is joined by '='; the worker gets its share of the given cores.
TEST(ExportWorkerLines, AWorkerGetsTheRunsArgumentsAndItsShareOfTheCores) {
  const std::vector<std::string> argv = {
      "--scene",      "s.yaml", "--workers",     "4",     "--shards=16",
      "--host-cores", "32",     "--devices=0,1", "--out", "o"};
  const std::vector<std::string> worker = WorkerArguments(argv, 32, 4);
  EXPECT_EQ(worker, (std::vector<std::string>{"--scene", "s.yaml", "--out", "o", "--host-cores",
                                              std::to_string(CoresPerWorker(32, 4))}));
  EXPECT_EQ(CoresPerWorker(32, 4), 8u);
}

}  // namespace
}  // namespace lt::jobs
