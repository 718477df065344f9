// bench/bvh_quality (issue 14): the SAH cost against a hand-worked tree, and the binned-SAH
// reference: a valid tree of every triangle once, cheaper than an object-median split.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "lidartwin/bench/bvh_quality.h"
#include "lidartwin/physics/bvh_collapse.h"

namespace lt::bench {
namespace {

using physics::BvhBox;
using physics::BvhNode;
using physics::CollapseToWideOnHost;

std::vector<float> RandomSoup(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> centre(-50, 50), edge(-0.5f, 0.5f);
  std::vector<float> soup;
  for (size_t t = 0; t < n; ++t) {
    const float cx = centre(rng), cy = centre(rng), cz = 0.1f * centre(rng);
    for (int v = 0; v < 3; ++v)
      soup.insert(soup.end(), {cx + edge(rng), cy + edge(rng), cz + edge(rng)});
  }
  return soup;
}

// Object-median split along the longest axis of the centroids: the tree the reference must
// beat (same layout, leaves of one triangle).
int32_t MedianChild(const std::vector<float>& soup, std::vector<uint32_t>& idx, size_t b, size_t e,
                    std::vector<BvhNode>& nodes) {
  auto box_of = [&](size_t lo, size_t hi) {
    BvhBox box{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
    for (size_t i = lo; i < hi; ++i)
      for (int v = 0; v < 3; ++v)
        for (int k = 0; k < 3; ++k) {
          box.lo[k] = std::min(box.lo[k], soup[9 * idx[i] + 3 * v + k]);
          box.hi[k] = std::max(box.hi[k], soup[9 * idx[i] + 3 * v + k]);
        }
    return box;
  };
  if (e - b == 1) return ~static_cast<int32_t>(idx[b]);
  const BvhBox all = box_of(b, e);
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (all.hi[k] - all.lo[k] > all.hi[axis] - all.lo[axis]) axis = k;
  const size_t m = (b + e) / 2;
  std::nth_element(idx.begin() + b, idx.begin() + m, idx.begin() + e, [&](uint32_t a, uint32_t c) {
    return soup[9 * a + axis] + soup[9 * a + 3 + axis] + soup[9 * a + 6 + axis] <
           soup[9 * c + axis] + soup[9 * c + 3 + axis] + soup[9 * c + 6 + axis];
  });
  const auto id = static_cast<int32_t>(nodes.size());
  nodes.emplace_back();
  const int32_t l = MedianChild(soup, idx, b, m, nodes), r = MedianChild(soup, idx, m, e, nodes);
  nodes[id].box[0] = box_of(b, m);
  nodes[id].box[1] = box_of(m, e);
  nodes[id].child[0] = l;
  nodes[id].child[1] = r;
  return id;
}

TEST(SahCost, AgainstAHandWorkedTree) {
  // Root with two leaves: unit cubes at x in [0, 1] and [2, 3] (area 6 each); the root's box
  // [0, 3] x [0, 1] x [0, 1] has area 2 (3 + 1 + 3) = 14. Cost: (14 + 6 + 6) / 14.
  BvhNode root{};
  root.box[0] = {{0, 0, 0}, {1, 1, 1}};
  root.box[1] = {{2, 0, 0}, {3, 1, 1}};
  root.child[0] = ~0;
  root.child[1] = ~1;
  EXPECT_DOUBLE_EQ(SahCost({root}), 26.0 / 14.0);
  // A second level under the right child: its node's own box counts once more.
  std::vector<BvhNode> two{root, BvhNode{}};
  two[0].child[1] = 1;
  two[1].box[0] = {{2, 0, 0}, {2.5f, 1, 1}};  // area 2 (0.5 + 1 + 0.5) = 4
  two[1].box[1] = {{2.5f, 0, 0}, {3, 1, 1}};
  two[1].child[0] = ~1;
  two[1].child[1] = ~2;
  EXPECT_DOUBLE_EQ(SahCost(two), (14.0 + 6.0 + 6.0 + 4.0 + 4.0) / 14.0);
  EXPECT_EQ(SahCost({}), 0.0);
}

TEST(BinnedSah, EveryTriangleOnceInBoxesThatHoldItAndCheaperThanAMedianSplit) {
  const auto soup = RandomSoup(3000, 9);
  const auto nodes = BuildBinnedSahBvh(soup);
  ASSERT_EQ(nodes.size(), 2999u);
  std::vector<int> seen(3000, 0);
  for (const BvhNode& n : nodes)
    for (int c = 0; c < 2; ++c) {
      if (n.child[c] >= 0) continue;
      const int t = ~n.child[c];
      ++seen[t];
      for (int v = 0; v < 3; ++v)
        for (int k = 0; k < 3; ++k) {
          EXPECT_GE(soup[9 * t + 3 * v + k], n.box[c].lo[k]);
          EXPECT_LE(soup[9 * t + 3 * v + k], n.box[c].hi[k]);
        }
    }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
  std::vector<uint32_t> idx(3000);
  std::iota(idx.begin(), idx.end(), 0u);
  std::vector<BvhNode> median;
  MedianChild(soup, idx, 0, 3000, median);
  const double sah = SahCost(nodes), med = SahCost(median);
  EXPECT_LT(sah, med) << "binned SAH " << sah << ", median split " << med;
  // Identical triangles (every centroid in one point) still build, by halving.
  std::vector<float> same;
  for (int t = 0; t < 9; ++t)
    same.insert(same.end(), {0, 0, 0, 1, 0, 0, 0, 1, 0});
  EXPECT_EQ(BuildBinnedSahBvh(same).size(), 8u);
}

TEST(CountTraversal, NodeFetchesAndTriangleTestsOfHandPlacedRays) {
  // Two triangles far apart: x in [0, 1] and x in [10, 11], both in the plane z = 0.
  const std::vector<float> soup = {0, 0, 0, 1, 0, 0, 0, 1, 0, 10, 0, 0, 11, 0, 0, 10, 1, 0};
  const auto nodes = BuildBinnedSahBvh(soup);
  ASSERT_EQ(nodes.size(), 1u);
  // Far apart, they stay two leaves of the wide root.
  const auto wide = CollapseToWideOnHost(nodes, TrianglesInLeafOrder(soup, nullptr), nullptr);
  ASSERT_EQ(wide.nodes.size(), 1u);
  const physics::WideBvhView view = wide.View();
  // Down onto the first triangle: the root fetched, the first leaf's box hit, one test.
  TraversalCosts c = CountTraversal(view, {0.2f, 0.2f, 5}, {0, 0, -1}, 1);
  EXPECT_EQ(c.rays, 1u);
  EXPECT_DOUBLE_EQ(c.nodes_per_ray, 1);
  EXPECT_DOUBLE_EQ(c.triangles_per_ray, 1);
  // Beside both: the root fetched, no box hit, no test.
  c = CountTraversal(view, {5, 5, 5}, {0, 0, -1}, 1);
  EXPECT_DOUBLE_EQ(c.nodes_per_ray, 1);
  EXPECT_DOUBLE_EQ(c.triangles_per_ray, 0);
  // Along x through both boxes at y = 0.1, z = 0: both leaves tested; a stride of 2 over two
  // rays counts the first only.
  c = CountTraversal(view, {-5, 0.1f, 0, 5, 5, 5}, {1, 0, 0, 0, 0, -1}, 2);
  EXPECT_EQ(c.rays, 1u);
  EXPECT_DOUBLE_EQ(c.triangles_per_ray, 2);
}

TEST(CountTraversal, ABetterTreeFetchesFewerNodes) {
  const auto soup = RandomSoup(4000, 3);
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-50, 50), w(-1, 1);
  std::vector<float> o, d;
  for (int r = 0; r < 2000; ++r) {
    o.insert(o.end(), {u(rng), u(rng), 20});
    const float dx = 0.3f * w(rng), dy = 0.3f * w(rng);
    const float n = std::sqrt(dx * dx + dy * dy + 1);
    d.insert(d.end(), {dx / n, dy / n, -1 / n});
  }
  std::vector<uint32_t> idx(4000);
  std::iota(idx.begin(), idx.end(), 0u);
  std::vector<BvhNode> median;
  MedianChild(soup, idx, 0, 4000, median);
  const auto triangles = TrianglesInLeafOrder(soup, nullptr);
  const auto sah_wide = CollapseToWideOnHost(BuildBinnedSahBvh(soup), triangles, nullptr);
  const auto med_wide = CollapseToWideOnHost(median, triangles, nullptr);
  const TraversalCosts sah = CountTraversal(sah_wide.View(), o, d, 1);
  const TraversalCosts med = CountTraversal(med_wide.View(), o, d, 1);
  EXPECT_LE(sah.nodes_per_ray, med.nodes_per_ray);
  EXPECT_GT(sah.nodes_per_ray, 1);
}

}  // namespace
}  // namespace lt::bench
