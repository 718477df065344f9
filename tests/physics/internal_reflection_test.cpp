// The internal reflection's tabulated photon draws (physics/internal_reflection.h): a table's
// draw from a word is the inversion's draw from that word, and the probabilities it gives each
// count are the Poisson probabilities to within a word's share, 2^-32.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lidartwin/physics/internal_reflection.h"
#include "lidartwin/physics/photon_counting.h"

namespace lt::physics {
namespace {

constexpr double kWord = 1.0 / 4294967296.0;  // 2^-32, one word's share

// Means below kPoissonRejectionMean are drawn by inversion elsewhere: the table must give the
// same count for every word, here random words and the words on each side of every step, at
// chosen means and 3,000 random ones (a table summed otherwise than inversion sums it differed
// at 3 in 200,000 random means, a review found: by one count at a step's word).
TEST(InternalReflectionTable, TabledDrawsAreTheInversionsDraws) {
  std::vector<double> means = {
      1e-12, 1e-6, 0.02, 0.7, 4.0, 9.99, 3.9808692110872368, 9.357005354831925};
  for (uint32_t j = 0; j < 3000; ++j)
    means.push_back(10 * UniformOpen01<double>(RandomWords({98, 0, j, 0, 0}).v[0]));
  for (size_t m = 0; m < means.size(); ++m) {
    const double mean = means[m];
    const std::vector<uint32_t> t = PoissonThresholds(mean);
    EXPECT_EQ(t.empty(), mean < 1e-10) << mean;
    std::vector<uint32_t> words;
    for (uint32_t k : t) {
      words.push_back(k);
      if (k > 0) words.push_back(k - 1);
    }
    const uint32_t random_calls = m < 8 ? 50000 : 50;  // chosen means: many random words
    for (uint32_t j = 0; j < random_calls; ++j) {
      const Philox4x32 r = RandomWords({99, 0, j, 0, 0});
      words.insert(words.end(), r.v, r.v + 4);
    }
    words.push_back(0);
    words.push_back(4294967295u);
    for (uint32_t w : words) {
      ASSERT_EQ(PoissonByTable(t.data(), static_cast<uint32_t>(t.size()), w),
                PoissonByInversion(mean, UniformOpen01<double>(w)))
          << "mean " << mean << ", word " << w;
    }
  }
}

// Each count k takes the words [t_{k-1}, t_k): its probability is (t_k - t_{k-1}) 2^-32. Held
// against the Poisson probability computed apart, in long double, at means drawn by inversion
// and by rejection elsewhere, up to the largest tabulated one.
TEST(InternalReflectionTable, TabledProbabilitiesAreThePoissonProbabilities) {
  for (double mean : {0.02, 3.0, 57.0, 400.0, kTabledPoissonMaxMean}) {
    const std::vector<uint32_t> t = PoissonThresholds(mean);
    ASSERT_FALSE(t.empty()) << mean;
    // The table ends where the distribution has passed every word: about 7 sd past the mean.
    EXPECT_LT(t.size(), mean + 8 * std::sqrt(mean) + 12) << mean;
    EXPECT_GT(t.size(), mean + 5 * std::sqrt(mean)) << mean;
    long double covered = 0;
    for (size_t k = 0; k <= t.size(); ++k) {
      const double lo = k == 0 ? 0.0 : t[k - 1];
      const double hi = k < t.size() ? t[k] : 4294967296.0;
      ASSERT_GE(hi, lo) << mean << " " << k;
      const long double lk = static_cast<long double>(k);
      const long double pmf =
          std::exp(lk * std::log(static_cast<long double>(mean)) - mean - std::lgamma(lk + 1));
      // A step's word is within half a word of F(k) 2^32 (F's rounding is far below a word), so
      // a count's share of the words within one word of its probability.
      EXPECT_NEAR((hi - lo) * kWord, static_cast<double>(pmf), 1.01 * kWord) << mean << " " << k;
      covered += pmf;
    }
    // What lies past the last count is below a word's share.
    EXPECT_LT(static_cast<double>(1 - covered), kWord) << mean;
  }
}

TEST(InternalReflectionTable, NoTableForMeansOutsideItsRange) {
  EXPECT_TRUE(PoissonThresholds(0).empty());
  EXPECT_TRUE(PoissonThresholds(-1).empty());
  EXPECT_TRUE(PoissonThresholds(std::nan("")).empty());
  EXPECT_TRUE(PoissonThresholds(kTabledPoissonMaxMean * 1.01).empty());
}

TEST(InternalReflectionTable, BinsOutsideTheSpanHaveNoEntry) {
  const InternalBin bins[3] = {{1.0f, 0, 0}, {2.0f, 0, 0}, {3.0f, kUntabulated, 0}};
  const InternalReflectionTable t{100, 3, bins, nullptr};
  EXPECT_EQ(InternalBinAt(t, 99), nullptr);
  EXPECT_EQ(InternalBinAt(t, 100), &bins[0]);
  EXPECT_EQ(InternalBinAt(t, 102), &bins[2]);
  EXPECT_EQ(InternalBinAt(t, 103), nullptr);
  EXPECT_EQ(InternalBinAt(InternalReflectionTable{}, 0), nullptr);
}

}  // namespace
}  // namespace lt::physics
