// The edge table of range-image meshing (reconstruct/src/edge_table.h) against std::map: the
// same values for edges named either way round, through many growths of the table.
#include "edge_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>

namespace lt {
namespace {

TEST(EdgeTable, KeepsWhatAMapKeepsThroughItsGrowth) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    std::mt19937 rng(seed);
    // Few vertices, so that edges repeat; some near the top of the index range.
    std::uniform_int_distribution<uint32_t> vertex(0, 300);
    EdgeTable table(1);  // from its smallest size
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> truth;
    size_t repeats = 0;
    for (uint32_t n = 0; n < 20000; ++n) {
      uint32_t a = vertex(rng), b = vertex(rng);
      if (a == b) continue;
      if (n % 7 == 0) a = 0xFFFFFFFEu - a;
      const auto key = std::make_pair(std::min(a, b), std::max(a, b));
      const auto [value, added] = table.TryEmplace(a, b, n);
      const auto [it, truly_added] = truth.try_emplace(key, n);
      ASSERT_EQ(added, truly_added) << "seed " << seed << " edge " << a << "-" << b;
      ASSERT_EQ(value, it->second);
      repeats += !added;
      if (n % 3 == 0) ++table.TryEmplace(b, a, 0).first, ++it->second;  // counted the other way
    }
    for (const auto& [edge, value] : truth) {
      EXPECT_EQ(table.At(edge.first, edge.second), value);
      EXPECT_EQ(table.At(edge.second, edge.first), value);
    }
    EXPECT_GT(repeats, 1000u);  // edges were met again, not only inserted
  }
}

}  // namespace
}  // namespace lt
