// The k-d tree against brute force on random, clustered and duplicate-laden point sets.
#include <gtest/gtest.h>

#include <random>

#include "lidartwin/compare/nearest_neighbour.h"

namespace lt::compare {
namespace {

using P = std::array<double, 3>;

int BruteForce(const std::vector<P>& pts, const P& q, double* d2) {
  int best = -1;
  double bd = INFINITY;
  for (size_t i = 0; i < pts.size(); ++i) {
    const double dx = pts[i][0] - q[0], dy = pts[i][1] - q[1], dz = pts[i][2] - q[2];
    const double d = dx * dx + dy * dy + dz * dz;
    if (d < bd) bd = d, best = static_cast<int>(i);  // first (lowest) index wins ties
  }
  *d2 = bd;
  return best;
}

TEST(NearestNeighbour, AgreesWithBruteForce) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(-50, 50);
  for (size_t n : {1u, 7u, 9u, 1000u, 30000u}) {
    std::vector<P> pts(n);
    for (auto& p : pts)
      p = {u(rng), u(rng), 0.01 * u(rng)};  // flat, like a LiDAR ground
    // Duplicates and a pile of identical points stress the median split.
    for (size_t i = 0; i < n / 10; ++i)
      pts[i] = pts[n - 1 - i];
    for (size_t i = n / 2; i < n / 2 + n / 20; ++i)
      pts[i] = {1, 1, 0};
    const NearestNeighbourIndex index(pts);
    for (int k = 0; k < 500; ++k) {
      const P q = {u(rng), u(rng), u(rng)};
      double d_tree = 0, d_brute = 0;
      const int i_tree = index.Nearest(q, &d_tree);
      const int i_brute = BruteForce(pts, q, &d_brute);
      ASSERT_EQ(d_tree, d_brute) << "n=" << n;
      ASSERT_EQ(i_tree, i_brute) << "n=" << n;
    }
  }
  EXPECT_EQ(NearestNeighbourIndex({}).Nearest({0, 0, 0}, nullptr), -1);
}

TEST(NearestNeighbour, CoincidentPointsFormOneGroupInOrderOfTheirLowestIndex) {
  const std::vector<P> pts = {{1, 0, 0}, {2, 0, 0}, {1, 0, 0}, {NAN, 0, 0}, {2, 0, 0}, {0, 0, 0}};
  const CoincidentGroups g = GroupCoincident(pts);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g.positions[0], (P{1, 0, 0}));
  EXPECT_EQ(g.positions[1], (P{2, 0, 0}));
  EXPECT_EQ(g.positions[2], (P{0, 0, 0}));
  EXPECT_EQ(g.members, (std::vector<uint32_t>{0, 2, 1, 4, 5}));  // the NaN point in none
  EXPECT_EQ(g.Count(0), 2u);
  EXPECT_EQ(g.Lowest(1), 1u);
}

TEST(NearestNeighbour, AMillionCopiesOfAPointAreOneLeaf) {
  // Issue 36: a tree over N copies kept them in one leaf that every query scanned (N^2 in all).
  // Grouped, a query visits one point however many copies there are: 10^6 queries over 10^6
  // copies would take hours scanned, and take well under a second here.
  const std::vector<P> pts(1000000, P{3, 4, 5});
  const NearestNeighbourIndex index(pts);
  EXPECT_EQ(index.groups().size(), 1u);
  EXPECT_EQ(index.size(), pts.size());
  uint64_t sum = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    double d2 = 1;
    sum += static_cast<uint64_t>(index.Nearest({3, 4, 5.5}, &d2));
    ASSERT_DOUBLE_EQ(d2, 0.25);
  }
  EXPECT_EQ(sum, 0u);  // the lowest index, every time
}

}  // namespace
}  // namespace lt::compare
