// DEFLATE blocks written directly (datasets/hdf5/deflate_blocks.h) against zlib's inflate, an
// independent decoder: any mix of stored blocks, runs, alignment and another encoder's blocks
// inflates to the bytes given, in order.
#include "../../datasets/hdf5/deflate_blocks.h"

#include <gtest/gtest.h>
#include <libdeflate.h>
#include <zlib.h>

#include <random>
#include <string>
#include <vector>

namespace lt::hdf5 {
namespace {

// Raw DEFLATE (no zlib header) inflated by zlib; "" when zlib refuses it or it does not end.
std::string Inflate(const char* data, size_t n, size_t expected) {
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) return "";
  std::string out(expected + 16, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
  z.avail_in = static_cast<uInt>(n);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int status = inflate(&z, Z_FINISH);
  const size_t produced = z.total_out;
  const bool consumed_all = z.avail_in == 0;
  inflateEnd(&z);
  if (status != Z_STREAM_END || !consumed_all) return "";
  out.resize(produced);
  return out;
}

// A plane of `n` bytes: runs of a byte with a change where `change` of a uniform draw says so.
std::vector<unsigned char> RunsPlane(std::mt19937& rng, size_t n, double change) {
  std::vector<unsigned char> p(n);
  unsigned char b = static_cast<unsigned char>(rng());
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& v : p) {
    if (u(rng) < change) b = static_cast<unsigned char>(rng());
    v = b;
  }
  return p;
}

TEST(DeflateBlocks, AnyMixOfBlocksInflatesToItsBytes) {
  std::mt19937 rng(11);
  auto* compressor = libdeflate_alloc_compressor(1);
  ASSERT_NE(compressor, nullptr);
  for (int trial = 0; trial < 200; ++trial) {
    std::string expected;
    std::vector<char> out(1 << 20);
    DeflateWriter w(out.data(), out.size());
    const int pieces = 1 + static_cast<int>(rng() % 5);
    for (int k = 0; k < pieces; ++k) {
      // Sizes from 0 over a stored block's 65,535 and a match's 258 boundaries.
      const size_t n =
          std::vector<size_t>{0, 1, 2, 3, 257, 258, 259, 65535, 65536, 70001}[rng() % 10];
      std::vector<unsigned char> bytes;
      const int kind = static_cast<int>(rng() % 3);
      if (kind == 0) {
        bytes.resize(n);
        for (auto& b : bytes)
          b = static_cast<unsigned char>(rng());
        w.Stored(bytes.data(), n);
      } else {
        bytes = RunsPlane(rng, n, kind == 1 ? 0.001 : 0.3);
        w.Runs(bytes.data(), n);
      }
      expected.append(bytes.begin(), bytes.end());
      if (rng() % 4 == 0) w.Align();  // a sync point mid-stream
    }
    const bool tail = rng() % 2 == 0;  // libdeflate ends the stream, or Finish does
    if (tail) {
      std::vector<unsigned char> rest(1000 + rng() % 5000);
      for (size_t i = 0; i < rest.size(); ++i)
        rest[i] = static_cast<unsigned char>(i % 17 + (rng() % 3));
      w.Align();
      ASSERT_FALSE(w.overflowed());
      const size_t m = libdeflate_deflate_compress(compressor, rest.data(), rest.size(),
                                                   out.data() + w.size(), out.size() - w.size());
      ASSERT_GT(m, 0u);
      expected.append(rest.begin(), rest.end());
      ASSERT_EQ(Inflate(out.data(), w.size() + m, expected.size()), expected) << trial;
    } else {
      w.Finish();
      ASSERT_FALSE(w.overflowed());
      ASSERT_EQ(Inflate(out.data(), w.size(), expected.size()), expected) << trial;
    }
  }
  libdeflate_free_compressor(compressor);
}

// A constant plane of 64 KiB: one literal, 254 matches of 258 bytes (length code 285, 8 bits,
// and distance code 0, 5 bits) and one of 3 (code 257, 7 bits, and 5): 418 bytes.
TEST(DeflateBlocks, RunsOfOneByteCostThirteenBitsPer258Bytes) {
  const std::vector<unsigned char> plane(65536, 7);
  std::vector<char> out(2048);
  DeflateWriter w(out.data(), out.size());
  w.Runs(plane.data(), plane.size());
  w.Finish();
  ASSERT_FALSE(w.overflowed());
  // The block's 3 header bits, the literal (8), the matches, its end (7), then the final
  // block's 3 header bits and end (7), padded to a byte.
  constexpr size_t kBits = 3 + 8 + 254 * 13 + 12 + 7 + 3 + 7;
  EXPECT_EQ(w.size(), (kBits + 7) / 8);
  EXPECT_EQ(Inflate(out.data(), w.size(), plane.size()), std::string(plane.begin(), plane.end()));
}

TEST(DeflateBlocks, TooLittleRoomIsReportedNotOverrun) {
  std::mt19937 rng(3);
  std::vector<unsigned char> bytes(5000);
  for (auto& b : bytes)
    b = static_cast<unsigned char>(rng());
  for (size_t room : {0u, 1u, 4u, 5u, 100u, 4999u, 5004u}) {
    std::vector<char> out(room + 64, '\x5a');
    DeflateWriter w(out.data(), room);
    w.Stored(bytes.data(), bytes.size());
    w.Runs(bytes.data(), bytes.size());
    w.Finish();
    EXPECT_TRUE(w.overflowed()) << room;
    EXPECT_LE(w.size(), room);
    for (size_t i = room; i < out.size(); ++i)
      ASSERT_EQ(out[i], '\x5a') << "written past the room at " << i;
  }
}

}  // namespace
}  // namespace lt::hdf5
