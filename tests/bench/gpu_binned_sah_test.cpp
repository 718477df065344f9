// The bench's GPU binned-SAH builder (bench/cuda/binned_sah_build.cu), the quality reference of
// the simulator's GPU builders: the same hit and tree checks as theirs (tests/sim/
// gpu_bvh_checks.h), its phases and degenerate inputs, and its SAH cost against the host's
// binned-SAH reference. Label gpu: CI has no GPU and excludes it; each test also skips without
// one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "lidartwin/bench/bvh_quality.h"
#include "lidartwin/bench/city_scene.h"
#include "lidartwin/bench/gpu_binned_sah.h"
#include "sim/gpu_bvh_checks.h"
#include "sim/require_gpu.h"

namespace lt::bench {
namespace {

// Two builds of `soup` give the same tree: nodes with the same children and the same boxes, bit
// for bit, and the same triangle order.
void ExpectTheSameTree(const std::vector<float>& soup, const GpuBvhChoice& a, const GpuBvhChoice& b,
                       const char* what) {
  auto first = CudaBvhTree(soup, a);
  auto second = CudaBvhTree(soup, b);
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_EQ(first->nodes.size(), second->nodes.size());
  size_t differ = 0;
  for (size_t k = 0; k < first->nodes.size(); ++k) {
    const physics::BvhNode& x = first->nodes[k];
    const physics::BvhNode& y = second->nodes[k];
    bool same = x.child[0] == y.child[0] && x.child[1] == y.child[1];
    for (int s = 0; s < 2; ++s) {
      for (int c = 0; c < 3; ++c)
        same = same && x.box[s].lo[c] == y.box[s].lo[c] && x.box[s].hi[c] == y.box[s].hi[c];
    }
    differ += same ? 0 : 1;
  }
  EXPECT_EQ(differ, 0u) << "nodes that differ " << what;
  EXPECT_EQ(first->order, second->order) << what;
}

// Inputs of `count` triangles where binned splits tie or fail: point triangles on a geometric
// sequence (every split costs 0; the lowest bin would peel one a level, deeper than the wide
// tree's stack), identical triangles (one bin on every axis: positional splits), and triangles
// on a line.
struct Degenerate {
  std::vector<float> points, same, line;
};
Degenerate DegenerateSoups(int count) {
  Degenerate d;
  for (int k = 0; k < count; ++k) {
    const auto x = static_cast<float>(-std::pow(0.9, k % 200) - 0.001 * (k / 200));
    d.points.insert(d.points.end(), {x, 0, 0, x, 0, 0, x, 0, 0});
    d.same.insert(d.same.end(), {0, 0, 0, 1, 0, 0, 0, 1, 0});
    const auto u = static_cast<float>(k);
    d.line.insert(d.line.end(), {u, 0, 0, u + 0.5f, 0, 0, u, 0.5f, 0});
  }
  return d;
}

TEST(GpuBinnedSah, ClosestHitsEqualBruteForce) {
  LT_REQUIRE_GPU();
  std::mt19937_64 rng(2024);
  const auto soup = test::RandomSoup(rng, 20000);
  std::vector<float> o, d;
  test::RandomRays(rng, 20000, o, d);
  test::ExpectBvhMatchesBruteForce(soup, o, d, "random rays, binned-SAH tree", GpuBinnedSahBuild());
}

TEST(GpuBinnedSah, TreeOnTheHostIsWhole) {
  LT_REQUIRE_GPU();
  const GpuBvhChoice sah = GpuBinnedSahBuild();
  const GpuBvhChoice by_levels = GpuBinnedSahBuild({.block_per_middle_node = false});
  const GpuBvhChoice subtree_depthwise = GpuBinnedSahBuild({.subtree_by_levels = true});
  std::mt19937_64 rng(7);
  // The binned-SAH builder's phases: a lane's node (<= 8), a warp's (<= 256), a block's (257 to
  // 4,096: the root, and children of large nodes), and the tiles of large nodes over one and
  // several levels; the middle nodes split by levels as well.
  // The collapse costs the builder writes are the collapse's own: the wide tree is the host's
  // collapse of the binary tree (leaf decisions included) in each of them too.
  for (const int count : {2, 8, 9, 65, 256, 257, 3000, 4096, 4097, 5000, 300000}) {
    const auto soup = test::RandomSoup(rng, count);
    test::ExpectWholeTree(soup, sah, "random soup");
    test::ExpectWholeTree(soup, by_levels, "random soup, middle nodes by levels");
    test::ExpectWideTreeEqualsTheHostCollapseOf(soup, sah, "random soup");
    test::ExpectWideTreeEqualsTheHostCollapseOf(soup, by_levels, "random soup, by levels");
    test::ExpectWholeTree(soup, subtree_depthwise, "random soup, subtrees a depth at a time");
    test::ExpectWideTreeEqualsTheHostCollapseOf(soup, subtree_depthwise,
                                                "random soup, subtrees a depth at a time");
  }
  // Degenerate inputs where binned splits tie or fail (DegenerateSoups), in each phase.
  for (const int count : {8, 200, 256, 3000, 20000}) {
    const auto [points, same, line] = DegenerateSoups(count);
    test::ExpectWholeTree(points, sah, "points");
    test::ExpectWholeTree(same, sah, "identical triangles");
    test::ExpectWholeTree(line, sah, "triangles on a line");
    test::ExpectWideTreeEqualsTheHostCollapseOf(points, sah, "points");
    test::ExpectWideTreeEqualsTheHostCollapseOf(same, sah, "identical triangles");
    test::ExpectWideTreeEqualsTheHostCollapseOf(line, sah, "triangles on a line");
    // The same with the subtrees split a depth at a time (points tie every split at cost 0,
    // the case the forced middle split at depth 40 is for).
    test::ExpectWholeTree(points, subtree_depthwise, "points, subtrees a depth at a time");
    test::ExpectWholeTree(same, subtree_depthwise, "identical triangles, a depth at a time");
    test::ExpectWholeTree(line, subtree_depthwise, "triangles on a line, a depth at a time");
    test::ExpectWideTreeEqualsTheHostCollapseOf(points, subtree_depthwise,
                                                "points, a depth at a time");
  }
}

// The middle phase (a block a node of 257 to 4,096 triangles) takes the large phase's splits:
// the same bins, the same choice. Where bins decide every split (the city, as in
// TheSameTreeEveryBuild) the trees are the same node for node.
TEST(GpuBinnedSah, ABlockANodeMakesTheTreeTheLevelsMake) {
  LT_REQUIRE_GPU();
  ExpectTheSameTree(TriangleSoup(MakeCityScene(200000, 42)), GpuBinnedSahBuild(),
                    GpuBinnedSahBuild({.block_per_middle_node = false}),
                    "between the middle phase and the levels");
}

// A warp's subtree split a depth at a time or a node at a time (the default) takes the same
// splits in the same stable partitions, so the trees are the same node for node: on the city
// (where bins decide every split), on random soups of one subtree task and of one middle task
// (4,000: its partitions are stable, so the order is the same in both builds), and on one
// task's degenerate inputs, where positional splits cut by the order the task was given in.
TEST(GpuBinnedSah, ASubtreeByLevelsMakesTheTreeANodeAtATimeMakes) {
  LT_REQUIRE_GPU();
  const GpuBvhChoice by_levels = GpuBinnedSahBuild({.subtree_by_levels = true});
  const GpuBvhChoice by_nodes = GpuBinnedSahBuild({.subtree_by_levels = false});
  ExpectTheSameTree(TriangleSoup(MakeCityScene(200000, 42)), by_levels, by_nodes, "on the city");
  std::mt19937_64 rng(11);
  for (const int count : {9, 17, 33, 65, 100, 129, 256, 4000}) {
    ExpectTheSameTree(test::RandomSoup(rng, count), by_levels, by_nodes,
                      ("random soup of " + std::to_string(count)).c_str());
  }
  for (const int count : {40, 200, 256}) {
    const auto [points, same, line] = DegenerateSoups(count);
    ExpectTheSameTree(points, by_levels, by_nodes, "points");
    ExpectTheSameTree(same, by_levels, by_nodes, "identical triangles");
    ExpectTheSameTree(line, by_levels, by_nodes, "triangles on a line");
  }
}

// Issue 14: the GPU's binned-SAH tree is at SAH quality: within 5 % of the host's binned-SAH
// reference (bench/bvh_quality.cpp: 32 bins on every axis, against the GPU's 16 on the node's
// longest axis, and 8 on the longest axis at 65 to 256 triangles and on every axis at 64 and below)
// on the benchmark city, where PLOC is 19-21 % above it.
TEST(GpuBinnedSah, TreeIsAtTheReferenceQuality) {
  LT_REQUIRE_GPU();
  const std::vector<float> soup = TriangleSoup(MakeCityScene(200000, 42));
  auto tree = CudaBvhTree(soup, GpuBinnedSahBuild());
  ASSERT_TRUE(tree.ok()) << tree.message();
  const double gpu = SahCost(tree->nodes);
  const double reference = SahCost(BuildBinnedSahBvh(soup));
  std::printf(
      "[bvh] city of %zu triangles: SAH cost %.2f on the GPU's binned-SAH tree, %.2f on "
      "the host reference\n",
      soup.size() / 9, gpu, reference);
  EXPECT_LT(gpu, 1.05 * reference);
}

// Blocks place a large node's triangles in whatever order they reach its atomic cursors, but the
// bins are the same in any order and a lane's sweeps order triangles by (centre, index), so where
// bins decide every split two builds make the same tree. The city is such a scene. (A positional
// split, where all of a node's triangles share one bin on every axis or the node is 40 deep,
// cuts by position, and positions follow the cursors: there the tree may differ between builds
// but not the triangle a ray hits, IdenticalTrianglesBuildAndTheSmallestIndexWins.)
TEST(GpuBinnedSah, TheSameTreeEveryBuild) {
  LT_REQUIRE_GPU();
  const GpuBvhChoice sah = GpuBinnedSahBuild();
  ExpectTheSameTree(TriangleSoup(MakeCityScene(200000, 42)), sah, sah, "between two builds");
}

// Triangles some 1e20 m across: box areas overflow to infinity, so every split of a lane's range
// costs the same (infinite) and none is cheaper than the last. The lanes' ranges must still be
// split into their triangles, each once (a host emulation of the lanes had found the range
// rewritten with one triangle repeated).
TEST(GpuBinnedSah, TrianglesWhoseAreasOverflowStillMakeAWholeTree) {
  LT_REQUIRE_GPU();
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<float> u(-1e20f, 1e20f);
  for (const int count : {3, 8, 200}) {
    std::vector<float> soup(9 * static_cast<size_t>(count));
    for (float& v : soup)
      v = u(rng);
    test::ExpectWholeTree(soup, GpuBinnedSahBuild(), "areas past FLT_MAX");
    test::ExpectWholeTree(soup, GpuBinnedSahBuild({.subtree_by_levels = true}),
                          "areas past FLT_MAX, subtrees a depth at a time");
  }
}

TEST(GpuBinnedSah, WideTreeEqualsTheHostCollapseOfItsBinaryTree) {
  LT_REQUIRE_GPU();
  test::ExpectWideTreeEqualsTheHostCollapse(GpuBinnedSahBuild());
}

// Also the triangles' placement beside the levels (a side stream) at a size where it overlaps
// them.
TEST(GpuBinnedSah, CollapseLevelsWiderThanItsGridEqualTheHostCollapse) {
  LT_REQUIRE_GPU();
  test::ExpectWideTreeEqualsTheHostCollapseAtScale(GpuBinnedSahBuild());
}

TEST(GpuBinnedSah, IdenticalTrianglesBuildAndTheSmallestIndexWins) {
  LT_REQUIRE_GPU();
  test::ExpectIdenticalTrianglesToHitTheSmallestIndex(GpuBinnedSahBuild());
}

TEST(GpuBinnedSah, AnyHitsEqualBruteForce) {
  LT_REQUIRE_GPU();
  test::ExpectAnyHitsEqualBruteForce(GpuBinnedSahBuild());
}

TEST(GpuBinnedSah, RefitAfterMotionMatchesBruteForce) {
  LT_REQUIRE_GPU();
  test::ExpectRefitAfterMotionMatchesBruteForce(GpuBinnedSahBuild());
}

TEST(GpuBinnedSah, SingleAndTwoTriangleScenes) {
  LT_REQUIRE_GPU();
  test::ExpectSingleAndTwoTriangleScenes(GpuBinnedSahBuild());
}

}  // namespace
}  // namespace lt::bench
