// The four-wide BVH (physics/wide_bvh.h) and the collapse into it (physics/bvh_collapse.h) on
// the host: the same LT_HD code the CUDA kernels run. The GPU's own trees are checked against
// brute force by the gpu-labelled tests (tests/sim/cuda_bvh_test.cpp).
#include "lidartwin/physics/wide_bvh.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "lidartwin/physics/bvh_collapse.h"

namespace lt::physics {
namespace {

// A binary tree by object-median splits on the longest centroid axis, leaves of one triangle
// holding ~input index: something to collapse.
struct MedianTree {
  const std::vector<BvhTriangle>& tris;
  std::vector<uint32_t> idx;
  std::vector<BvhNode> nodes;
  BvhBox Bounds(size_t b, size_t e) const {
    BvhBox box = TriangleBounds(tris[idx[b]]);
    for (size_t i = b + 1; i < e; ++i)
      box = BoxUnion(box, TriangleBounds(tris[idx[i]]));
    return box;
  }
  int32_t Child(size_t b, size_t e) {
    if (e - b == 1) return ~static_cast<int32_t>(idx[b]);
    const BvhBox all = Bounds(b, e);
    int axis = 0;
    for (int k = 1; k < 3; ++k)
      if (all.hi[k] - all.lo[k] > all.hi[axis] - all.lo[axis]) axis = k;
    const size_t m = (b + e) / 2;
    std::nth_element(idx.begin() + b, idx.begin() + m, idx.begin() + e,
                     [&](uint32_t x, uint32_t y) {
                       return tris[x].v0[axis] + tris[x].v1[axis] + tris[x].v2[axis] <
                              tris[y].v0[axis] + tris[y].v1[axis] + tris[y].v2[axis];
                     });
    const auto id = static_cast<int32_t>(nodes.size());
    nodes.emplace_back();
    const int32_t l = Child(b, m), r = Child(m, e);
    nodes[id] = {{Bounds(b, m), Bounds(m, e)}, {l, r}, {0, 0}};
    return id;
  }
  explicit MedianTree(const std::vector<BvhTriangle>& t) : tris(t), idx(t.size()) {
    std::iota(idx.begin(), idx.end(), 0u);
    Child(0, t.size());
  }
};

TEST(WideNodeEncoding, DecodedBoxesHoldTheirChildrenExactlyAndTightly) {
  std::mt19937 rng(7);
  // Magnitudes from the lab bench to a 10 km city, extents from millimetres to kilometres.
  for (float magnitude : {0.0f, 1.0f, 37.5f, 4096.0f, 1.0e4f, -8.0e3f}) {
    for (float extent : {1e-3f, 0.05f, 3.0f, 250.0f, 5000.0f}) {
      std::uniform_real_distribution<float> u(0, extent);
      BvhBox box[4];
      int32_t child[4] = {1, 2, ~0, ~5};
      for (auto& b : box)
        for (int a = 0; a < 3; ++a) {
          const float x = magnitude + u(rng), y = magnitude + u(rng);
          b.lo[a] = std::fmin(x, y);
          b.hi[a] = std::fmax(x, y);
        }
      const WideNode n = EncodeWideNode(box, child, 4);
      for (int k = 0; k < 4; ++k) {
        EXPECT_EQ(n.child[k], child[k]);
        const BvhBox d = DecodeWideBox(n, k);
        for (int a = 0; a < 3; ++a) {
          EXPECT_LE(d.lo[a], box[k].lo[a]) << magnitude << " " << extent;
          EXPECT_GE(d.hi[a], box[k].hi[a]) << magnitude << " " << extent;
          // Tight: within two steps, and a step of extent / 127 at most, or a few float
          // spacings where the extent is below the coordinates' resolution.
          EXPECT_LE(box[k].lo[a] - d.lo[a], 2 * n.step[a]);
          EXPECT_LE(d.hi[a] - box[k].hi[a], 2 * n.step[a]);
          const float spacing = std::nextafter(std::fabs(magnitude) + extent, 1e30f) -
                                (std::fabs(magnitude) + extent);
          EXPECT_LE(n.step[a], std::fmax(extent / 127, 4 * spacing)) << magnitude << " " << extent;
          // The grid origin is a multiple of the step (what makes decoding exact), and the
          // traversal's byte-permute decoding gives the same bounds.
          EXPECT_EQ(std::fmod(n.origin[a], n.step[a]), 0.0f);
          uint32_t row[6];
          std::memcpy(row, n.q, sizeof(row));
          const float base = n.origin[a] - 8388608.0f * n.step[a];
          EXPECT_EQ(WideGridValue(row[a], k, n.step[a], base), d.lo[a]);
          EXPECT_EQ(WideGridValue(row[3 + a], k, n.step[a], base), d.hi[a]);
        }
      }
    }
  }
  // A tiny negative bound in a large node: lo / step rounds to -0, whose floor would put the
  // grid's origin at 0, above the bound (found in review).
  {
    const BvhBox boxes[2] = {{{-1.4e-45f, -1e-30f, 0}, {1000, 1, 1}}, {{5, 5, 5}, {6, 6, 6}}};
    const int32_t words[2] = {1, 2};
    const WideNode n = EncodeWideNode(boxes, words, 2);
    for (int k = 0; k < 2; ++k) {
      const BvhBox d = DecodeWideBox(n, k);
      for (int a = 0; a < 3; ++a) {
        EXPECT_LE(d.lo[a], boxes[k].lo[a]);
        EXPECT_GE(d.hi[a], boxes[k].hi[a]);
      }
    }
  }
  // Unused slots are empty boxes with child word 0.
  const BvhBox one{{0, 0, 0}, {1, 1, 1}};
  const int32_t leaf = WideLeaf(3, 2);
  const WideNode n = EncodeWideNode(&one, &leaf, 1);
  EXPECT_EQ(WideLeafFirst(n.child[0]), 3u);
  EXPECT_EQ(WideLeafCount(n.child[0]), 2u);
  for (int k = 1; k < 4; ++k) {
    EXPECT_EQ(n.child[k], 0);
    const BvhBox d = DecodeWideBox(n, k);
    EXPECT_GT(d.lo[0], d.hi[0]);
  }
}

TEST(WideLeafWord, RoundTripsFirstAndCount) {
  for (uint32_t first : {0u, 1u, 12345u, kWideMaxTriangles - 1}) {
    for (uint32_t count = 1; count <= kWideLeafMax; ++count) {
      const int32_t w = WideLeaf(first, count);
      EXPECT_LT(w, 0);
      EXPECT_EQ(WideLeafFirst(w), first);
      EXPECT_EQ(WideLeafCount(w), count);
    }
  }
}

TEST(CollapseCost, AQuadBecomesOneLeafAndFarTrianglesStayApart) {
  // The two halves of a unit square share its box: one leaf of 2 costs 2 A, a node over two
  // leaves A + A + A; the leaf wins. Two triangles 10 apart: the leaf would cost 2 x 11, the
  // node 11 + 1 + 1.
  BvhNode quad{};
  quad.box[0] = quad.box[1] = {{0, 0, 0}, {1, 1, 0}};
  quad.child[0] = ~0;
  quad.child[1] = ~1;
  bool leaf = false;
  CollapseCost c = CombineCollapseCost(quad, ChildCollapseCost(quad, 0, nullptr),
                                       ChildCollapseCost(quad, 1, nullptr), leaf);
  EXPECT_TRUE(leaf);
  EXPECT_EQ(c.count, 2u);
  EXPECT_FLOAT_EQ(c.cost, 2.0f);
  BvhNode apart = quad;
  apart.box[1] = {{10, 0, 0}, {11, 1, 0}};
  c = CombineCollapseCost(apart, ChildCollapseCost(apart, 0, nullptr),
                          ChildCollapseCost(apart, 1, nullptr), leaf);
  EXPECT_FALSE(leaf);
  EXPECT_FLOAT_EQ(c.cost, 13.0f);
  // More than kWideLeafMax triangles never make one leaf, however cheap.
  c = CombineCollapseCost(quad, {3, 0.0f}, {2, 0.0f}, leaf);
  EXPECT_FALSE(leaf);
}

std::vector<BvhTriangle> RandomTriangles(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> centre(-20, 20), edge(-1, 1);
  std::vector<BvhTriangle> t(n);
  for (auto& tri : t) {
    const float c[3] = {centre(rng), centre(rng), centre(rng)};
    for (float* v : {tri.v0, tri.v1, tri.v2})
      for (int a = 0; a < 3; ++a)
        v[a] = c[a] + edge(rng);
  }
  return t;
}

// The closest hit by testing every triangle, with the traversal's rule for equal distances.
int64_t BruteForce(const std::vector<BvhTriangle>& tris, const float o[3], const float d[3],
                   float t_min, float t_max, float& t_hit) {
  const WatertightRay r = MakeWatertightRay(o, d);
  int64_t best = -1;
  t_hit = t_max;
  for (size_t i = 0; i < tris.size(); ++i) {
    const float t = RayBvhTriangle(tris[i], r);
    if (t >= t_min && (best < 0 ? t <= t_hit : t < t_hit)) {
      t_hit = t;
      best = static_cast<int64_t>(i);
    }
  }
  return best;
}

// A wide node opens until it has four children or only leaves, whatever the areas: with a NaN
// bound in every child's box (no area compares) it still opens to four, so the collapse's count
// of wide nodes keeps its bound. Five triangles: root -> (node 1, node 2), node 1 -> (node 3,
// ~0), node 2 -> (~1, ~2), node 3 -> (~3, ~4); no node is marked a leaf.
TEST(OpenWideNode, OpensToFourChildrenEvenWithNanBoxes) {
  const float nan = std::nanf("");
  const BvhBox bad{{0, 0, 0}, {nan, 1, 1}};
  std::vector<BvhNode> nodes(4);
  nodes[0] = {{bad, bad}, {1, 2}, {0, 0}};
  nodes[1] = {{bad, bad}, {3, ~0}, {0, 0}};
  nodes[2] = {{bad, bad}, {~1, ~2}, {0, 0}};
  nodes[3] = {{bad, bad}, {~3, ~4}, {0, 0}};
  const std::vector<uint8_t> leaf(4, 0);
  int32_t child[kWideArity];
  BvhBox box[kWideArity];
  ASSERT_EQ(OpenWideNode(nodes.data(), leaf.data(), 0, child, box), kWideArity);
  std::vector<int32_t> got(child, child + kWideArity);
  std::sort(got.begin(), got.end());
  // Node 1 (the first internal child) opened, then node 3 (the first internal one again).
  EXPECT_EQ(got, (std::vector<int32_t>{~4, ~3, ~0, 2})) << "opened in another order";
}

TEST(WideBvh, EveryTriangleOnceInLeavesOfAtMostFour) {
  const auto tris = RandomTriangles(3000, 1);
  const MedianTree tree(tris);
  const WideBvhTree wide = CollapseToWideOnHost(tree.nodes, tris, nullptr);
  ASSERT_EQ(wide.triangles.size(), tris.size());
  std::vector<int> seen(tris.size(), 0);
  for (const WideTriangle& t : wide.triangles)
    ++seen[t.id];
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
  size_t leaves = 0, children = 0;
  for (const WideNode& n : wide.nodes) {
    int used = 0;
    for (int k = 0; k < kWideArity; ++k) {
      if (n.child[k] == 0) continue;
      ++used;
      if (n.child[k] > 0) {
        ASSERT_LT(static_cast<size_t>(n.child[k]), wide.nodes.size());
        continue;
      }
      ++leaves;
      const uint32_t first = WideLeafFirst(n.child[k]), count = WideLeafCount(n.child[k]);
      ASSERT_LE(first + count, wide.triangles.size());
      // The decoded box holds each of the leaf's triangles.
      const BvhBox box = DecodeWideBox(n, k);
      for (uint32_t i = first; i < first + count; ++i) {
        const BvhBox t = TriangleBounds(tris[wide.triangles[i].id]);
        for (int a = 0; a < 3; ++a) {
          EXPECT_LE(box.lo[a], t.lo[a]);
          EXPECT_GE(box.hi[a], t.hi[a]);
        }
      }
    }
    EXPECT_GE(used, 2);
    children += used;
  }
  // Four-wide: far fewer nodes than the binary tree's n - 1, most of them full.
  EXPECT_LT(wide.nodes.size(), tris.size() / 2);
  EXPECT_GT(static_cast<double>(children) / wide.nodes.size(), 3.0);
  EXPECT_GT(leaves, 0u);
  EXPECT_LE(wide.depth, kWideMaxDepth);
}

TEST(WideBvh, ClosestAndAnyHitsMatchBruteForce) {
  auto tris = RandomTriangles(2000, 2);
  // Exact duplicates with other indices: the smaller index must win, whatever the layout.
  for (uint32_t k : {5u, 700u, 1999u})
    tris.push_back(tris[k]);
  const MedianTree tree(tris);
  const WideBvhTree wide = CollapseToWideOnHost(tree.nodes, tris, nullptr);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-25, 25);
  int hits = 0;
  for (int r = 0; r < 3000; ++r) {
    float o[3] = {u(rng), u(rng), u(rng)};
    float d[3] = {u(rng), u(rng), u(rng)};
    if (r % 3 == 0) {  // aimed at a duplicated triangle's centroid
      const BvhTriangle& t = tris[r % 2 ? 5 : 1999];
      for (int a = 0; a < 3; ++a)
        d[a] = (t.v0[a] + t.v1[a] + t.v2[a]) / 3 - o[a];
    }
    const float len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (float& x : d)
      x /= len;
    float t_ref = 0, t = 0;
    const int64_t ref = BruteForce(tris, o, d, 1e-4f, 1e30f, t_ref);
    const int64_t got = WideClosestHit(wide.View(), o, d, 1e-4f, 1e30f, t);
    ASSERT_EQ(got, ref) << "ray " << r;
    if (ref >= 0) {
      ++hits;
      EXPECT_EQ(t, t_ref);
      // Any hit: within the window up to the closest hit, and not before it.
      EXPECT_TRUE(WideAnyHit(wide.View(), o, d, 1e-4f, t_ref));
      EXPECT_FALSE(WideAnyHit(wide.View(), o, d, 1e-4f, t_ref * 0.999f));
    } else {
      EXPECT_FALSE(WideAnyHit(wide.View(), o, d, 1e-4f, 1e30f));
    }
  }
  EXPECT_GT(hits, 1000);
}

// The hand-built four-triangle case of the old binary traversal: the window [t_min, t_max].
TEST(WideBvh, HonoursTheDistanceWindow) {
  const std::vector<BvhTriangle> tris = {{{3, -1, -1}, {3, 1, -1}, {3, 0, 1}},
                                         {{6, -1, -1}, {6, 1, -1}, {6, 0, 1}},
                                         {{9, -1, -1}, {9, 1, -1}, {9, 0, 1}},
                                         {{-4, -1, -1}, {-4, 1, -1}, {-4, 0, 1}}};
  const MedianTree tree(tris);
  const WideBvhTree wide = CollapseToWideOnHost(tree.nodes, tris, nullptr);
  const WideBvhView bvh = wide.View();
  const float o[3] = {0, 0, 0};
  const float fwd[3] = {1, 0, 0};
  const float back[3] = {-1, 0, 0};
  float t = 0;
  EXPECT_EQ(WideClosestHit(bvh, o, fwd, 0.0f, 100.0f, t), 0);
  EXPECT_FLOAT_EQ(t, 3.0f);
  EXPECT_EQ(WideClosestHit(bvh, o, fwd, 4.0f, 100.0f, t), 1);
  EXPECT_FLOAT_EQ(t, 6.0f);
  EXPECT_EQ(WideClosestHit(bvh, o, fwd, 0.0f, 2.0f, t), -1);
  EXPECT_EQ(WideClosestHit(bvh, o, back, 0.0f, 100.0f, t), 3);
  EXPECT_FLOAT_EQ(t, 4.0f);
  // A hit exactly at t_max counts.
  EXPECT_EQ(WideClosestHit(bvh, o, fwd, 0.0f, 3.0f, t), 0);
  EXPECT_TRUE(WideAnyHit(bvh, o, fwd, 0.0f, 100.0f));
  EXPECT_TRUE(WideAnyHit(bvh, o, fwd, 5.0f, 7.0f));
  EXPECT_FALSE(WideAnyHit(bvh, o, fwd, 6.5f, 8.5f));
  EXPECT_FALSE(WideAnyHit(bvh, o, fwd, 0.0f, 2.9f));
  EXPECT_TRUE(WideAnyHit(bvh, o, back, 0.0f, 4.5f));
  // One triangle: a root with a single leaf.
  const std::vector<BvhTriangle> one(tris.begin(), tris.begin() + 1);
  const WideBvhTree single = CollapseToWideOnHost({}, one, nullptr);
  EXPECT_EQ(WideClosestHit(single.View(), o, fwd, 0.0f, 100.0f, t), 0);
  EXPECT_EQ(WideClosestHit(single.View(), o, back, 0.0f, 100.0f, t), -1);
}

}  // namespace
}  // namespace lt::physics
