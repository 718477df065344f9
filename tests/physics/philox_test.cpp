#include "lidartwin/physics/philox.h"

#include <gtest/gtest.h>

#include <cmath>

namespace lt::physics {
namespace {

// Known-answer vectors of Random123 (tests/kat_vectors, "philox4x32 10" lines):
// counter (4 words), key (2 words) -> output (4 words).
TEST(Philox, MatchesRandom123KnownAnswerVectors) {
  struct Kat {
    Philox4x32 ctr;
    uint32_t k0, k1;
    Philox4x32 expected;
  };
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       0xffffffff,
       0xffffffff,
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       0xa4093822,
       0x299f31d0,
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const Kat& k : kats) {
    const Philox4x32 out = Philox4x32_10(k.ctr, k.k0, k.k1);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(out.v[i], k.expected.v[i]) << "word " << i;
  }
}

TEST(Philox, KeyWordsComeFromTheSeedHalves) {
  const RandomKey key{0x299f31d0a4093822ull, 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
  const Philox4x32 out = RandomWords(key);
  EXPECT_EQ(out.v[0], 0xd16cfe09u);
  EXPECT_EQ(out.v[3], 0x24126ea1u);
}

TEST(Philox, DifferentStreamsGiveDifferentWords) {
  const Philox4x32 a = RandomWords({7, 1, 2, 0, 1});
  const Philox4x32 b = RandomWords({7, 1, 2, 0, 2});
  EXPECT_NE(a.v[0], b.v[0]);
}

TEST(Uniform, StaysInsideTheOpenInterval) {
  EXPECT_GT(UniformOpen01<double>(0), 0.0);
  EXPECT_LT(UniformOpen01<double>(0xffffffffu), 1.0);
  EXPECT_DOUBLE_EQ(UniformOpen01<double>(0x80000000u), (2147483648.0 + 0.5) / 4294967296.0);
}

// Box-Muller over 200,000 Philox draws: sample mean and variance within 5 standard errors of
// 0 and 1 (the draws are fixed by their counters, so this cannot flake).
TEST(StandardNormal, HasZeroMeanAndUnitVariance) {
  const int n = 200000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    const Philox4x32 w = RandomWords({42, 0, static_cast<uint32_t>(i), 0, kStreamRangeNoise});
    const double z = StandardNormal<double>(w.v[0], w.v[1]);
    sum += z;
    sum2 += z * z;
  }
  const double mean = sum / n;
  const double var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.0, 5.0 / std::sqrt(n));
  EXPECT_NEAR(var, 1.0, 5.0 * std::sqrt(2.0 / n));
}

}  // namespace
}  // namespace lt::physics
