// The export's checksums (sha256.h): SHA-256 against the standard's test vectors, and a file's
// pieces hashed on threads against each piece hashed alone.
#include "lidartwin/datasets/sha256.h"

#include <gtest/gtest.h>

#include <random>

#include "../test_support.h"

namespace lt {
namespace {

// FIPS 180-2 appendix B.1 and B.2, and the empty message.
TEST(Sha256, MeetsTheStandardsVectors) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, PiecesOfAFileAreEachPiecesOwnDigest) {
  test::TempDir dir;
  std::mt19937 rng(5);
  std::string bytes(3500, '\0');
  for (char& c : bytes)
    c = static_cast<char>(rng());
  const auto file = dir.Write("f.bin", bytes);
  for (unsigned threads : {1u, 3u, 8u}) {
    auto h = HashFilePieces(file, 1000, threads);
    ASSERT_TRUE(h.ok()) << h.message();
    EXPECT_EQ(h->bytes, 3500u);
    EXPECT_EQ(h->piece_bytes, 1000u);
    ASSERT_EQ(h->sha256.size(), 4u) << threads;
    for (size_t i = 0; i < 4; ++i)
      EXPECT_EQ(h->sha256[i], Sha256Hex(bytes.substr(i * 1000, 1000))) << i;
  }
  // A piece size the file fits in, exactly or with room: one digest, the file's own.
  for (uint64_t piece : {uint64_t{3500}, kHashPieceBytes}) {
    auto whole = HashFilePieces(file, piece);
    ASSERT_TRUE(whole.ok()) << whole.message();
    ASSERT_EQ(whole->sha256.size(), 1u);
    EXPECT_EQ(whole->sha256[0], *Sha256OfFile(file));
  }
  auto empty = HashFilePieces(dir.Write("empty", ""), 1000);
  ASSERT_TRUE(empty.ok()) << empty.message();
  EXPECT_EQ(empty->sha256, std::vector<std::string>{Sha256Hex("")});
}

TEST(Sha256, FilesThatCannotBeHashedAreNamed) {
  test::TempDir dir;
  const auto missing = dir.path() / "missing.h5";
  auto a = HashFilePieces(missing);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.message().find(missing.string() + ": No such file"), std::string::npos)
      << a.message();
  auto b = HashFilePieces(dir.path());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.message().find(dir.path().string()), std::string::npos) << b.message();
  auto c = HashFilePieces(dir.Write("f", "x"), 0);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.message().find("pieces of 0 bytes"), std::string::npos) << c.message();
}

}  // namespace
}  // namespace lt
