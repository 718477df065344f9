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

}  // namespace
}  // namespace lt::compare
