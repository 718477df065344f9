// Collapsing a binary BVH into the four-wide one of wide_bvh.h, in two passes that the GPU
// runs in parallel (sim/cuda/wide_bvh_build.cu) and the host runs in loops
// (CollapseToWideOnHost, for reference trees and tests), through the same functions here.
//
// 1. Bottom-up, each binary node's SAH cost and whether its subtree is better as one leaf of
//    at most kWideLeafMax triangles (the leaf collapse of Karras & Aila, "Fast parallel
//    construction of high-quality bounding volume hierarchies", HPG 2013, sec. 5: cost of a
//    leaf Ct * n * A against Ci * A plus the children's costs).
// 2. Top-down, level by level, each wide node takes its binary node's children and keeps
//    opening the one of largest surface area until it has four (Ylitie et al. 2017, sec. 4
//    take the same greedy path for their eight-wide nodes); a child that is a triangle or a
//    subtree marked as a leaf becomes a leaf.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/physics/bvh.h"
#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/wide_bvh.h"

namespace lt::physics {

// SAH weights of the leaf collapse: a binary node visit (half a wide node's four box tests)
// and a triangle test cost about the same on the GPU (both a 48-64 byte fetch and some
// 50 instructions).
inline constexpr float kCollapseNodeCost = 1.0f;
inline constexpr float kCollapseTriangleCost = 1.0f;

// Half the surface area, its products rounded on their own so that the GPU (which would fuse
// them into FMAs) and the host take the same leaf decisions.
LT_HD inline float CollapseHalfArea(const BvhBox& b) {
  const float dx = b.hi[0] - b.lo[0], dy = b.hi[1] - b.lo[1], dz = b.hi[2] - b.lo[2];
  return MulRn(dx, dy) + MulRn(dy, dz) + MulRn(dz, dx);
}

LT_HD inline BvhBox BoxUnion(const BvhBox& a, const BvhBox& b) {
  BvhBox u;
  for (int k = 0; k < 3; ++k) {
    u.lo[k] = fminf(a.lo[k], b.lo[k]);
    u.hi[k] = fmaxf(a.hi[k], b.hi[k]);
  }
  return u;
}

// A binary subtree's triangle count and SAH cost (the lower of leaf and inner node).
struct CollapseCost {
  uint32_t count;
  float cost;
};

// The cost of child slot s of node n, given the costs of the internal nodes below it.
LT_HD inline CollapseCost ChildCollapseCost(const BvhNode& n, int s, const CollapseCost* costs) {
  if (n.child[s] < 0) return {1, MulRn(kCollapseTriangleCost, CollapseHalfArea(n.box[s]))};
  return costs[n.child[s]];
}

// A node's cost from its children's and its own half area (CollapseHalfArea of the union of
// its children's boxes); `leaf` tells whether its subtree becomes one leaf.
LT_HD inline CollapseCost CombineCollapseCostOfArea(float area, CollapseCost c0, CollapseCost c1,
                                                    bool& leaf) {
  // Products rounded on their own (MulRn): nvcc would fuse them with the sums, and the GPU and
  // host collapses must take the same decisions for any weights.
  const float inner = MulRn(kCollapseNodeCost, area) + c0.cost + c1.cost;
  const uint32_t count = c0.count + c1.count;
  const float as_leaf = MulRn(MulRn(kCollapseTriangleCost, static_cast<float>(count)), area);
  leaf = count <= kWideLeafMax && as_leaf <= inner;
  return {count, leaf ? as_leaf : inner};
}

// Node n's cost from its children's.
LT_HD inline CollapseCost CombineCollapseCost(const BvhNode& n, CollapseCost c0, CollapseCost c1,
                                              bool& leaf) {
  return CombineCollapseCostOfArea(CollapseHalfArea(BoxUnion(n.box[0], n.box[1])), c0, c1, leaf);
}

// The children of the wide node made from binary node b: up to four binary children (node
// index or ~sorted triangle) and their boxes. Returns how many.
LT_HD inline int OpenWideNode(const BvhNode* nodes, const uint8_t* leaf, int32_t b,
                              int32_t child[kWideArity], BvhBox box[kWideArity]) {
  const BvhNode root = nodes[b];
  child[0] = root.child[0];
  child[1] = root.child[1];
  box[0] = root.box[0];
  box[1] = root.box[1];
  int count = 2;
  while (count < kWideArity) {
    int widest = -1;
    float widest_area = -1;
    for (int k = 0; k < count; ++k) {
      if (child[k] < 0 || leaf[child[k]]) continue;  // a triangle or a leaf-to-be
      // The first internal child is taken whatever its area: a box with a NaN bound compares
      // false, and stopping there would leave a node of fewer than four children with an
      // internal one, beyond the bound the collapse sizes its wide nodes by (fewer than 2n/3).
      // The uploads refuse non-finite coordinates, but DeviceBvh::Build and BuildWith take
      // device arrays as they are.
      const float a = CollapseHalfArea(box[k]);
      if (a > widest_area || widest < 0) {
        widest_area = a;
        widest = k;
      }
    }
    if (widest < 0) break;
    const BvhNode open = nodes[child[widest]];
    child[widest] = open.child[0];
    box[widest] = open.box[0];
    child[count] = open.child[1];
    box[count] = open.box[1];
    ++count;
  }
  return count;
}

// Sorted triangle positions of the subtree at c (a triangle ~index, or a node marked as a leaf,
// so at most kWideLeafMax). Returns how many.
LT_HD inline int LeafTriangles(const BvhNode* nodes, int32_t c, uint32_t out[kWideLeafMax]) {
  int32_t stack[kWideLeafMax];
  int sp = 0, count = 0;
  stack[sp++] = c;
  while (sp > 0) {
    const int32_t x = stack[--sp];
    if (x < 0) {
      if (count < kWideLeafMax) out[count++] = static_cast<uint32_t>(~x);
      continue;
    }
    const BvhNode n = nodes[x];
    if (sp + 2 <= kWideLeafMax) {  // always so: the subtree has at most kWideLeafMax leaves
      stack[sp++] = n.child[1];
      stack[sp++] = n.child[0];
    }
  }
  return count;
}

LT_HD inline WideTriangle MakeWideTriangle(const BvhTriangle& t, uint32_t id) {
  WideTriangle w;
  for (int a = 0; a < 3; ++a) {
    w.v0[a] = t.v0[a];
    w.v1[a] = t.v1[a];
    w.v2[a] = t.v2[a];
  }
  w.id = id;
  w.pad1 = w.pad2 = 0;
  return w;
}

// A wide node to fill from a binary node: the work item of one level of pass 2.
struct CollapseItem {
  int32_t wide, binary;
};

// The wide tree of one triangle: a root with one leaf.
LT_HD inline void SingleTriangleTree(const BvhTriangle& t, uint32_t id, WideNode& root,
                                     WideTriangle& leaf_triangle) {
  const BvhBox b = TriangleBounds(t);
  const int32_t word = WideLeaf(0, 1);
  root = EncodeWideNode(&b, &word, 1);
  leaf_triangle = MakeWideTriangle(t, id);
}

struct WideBvhTree {
  std::vector<WideNode> nodes;
  std::vector<WideTriangle> triangles;
  int depth = 0;  // levels of wide nodes
  WideBvhView View() const {
    return {nodes.data(), triangles.data(), static_cast<uint32_t>(triangles.size())};
  }
};

// The host collapse of a binary tree (count - 1 nodes, root at 0, leaves ~sorted position):
// triangles in sorted order and `order` (sorted position -> input index, or null for the
// identity). Empty when the tree would be deeper than kWideMaxDepth.
inline WideBvhTree CollapseToWideOnHost(const std::vector<BvhNode>& nodes,
                                        const std::vector<BvhTriangle>& triangles,
                                        const std::vector<uint32_t>* order) {
  WideBvhTree wide;
  const auto n = static_cast<uint32_t>(triangles.size());
  auto id = [&](uint32_t sorted) { return order ? (*order)[sorted] : sorted; };
  if (n == 0) return wide;
  if (n == 1) {
    wide.nodes.resize(1);
    wide.triangles.resize(1);
    SingleTriangleTree(triangles[0], id(0), wide.nodes[0], wide.triangles[0]);
    wide.depth = 1;
    return wide;
  }
  // Pass 1, children before parents (LBVH numbers nodes in no such order): a post-order.
  std::vector<CollapseCost> costs(n - 1);
  std::vector<uint8_t> leaf(n - 1, 0);
  {
    std::vector<int32_t> pre;
    pre.reserve(n - 1);
    std::vector<int32_t> stack{0};
    while (!stack.empty()) {
      const int32_t x = stack.back();
      stack.pop_back();
      pre.push_back(x);
      for (int32_t c : nodes[x].child)
        if (c >= 0) stack.push_back(c);
    }
    for (auto it = pre.rbegin(); it != pre.rend(); ++it) {
      const BvhNode& node = nodes[*it];
      bool as_leaf = false;
      costs[*it] = CombineCollapseCost(node, ChildCollapseCost(node, 0, costs.data()),
                                       ChildCollapseCost(node, 1, costs.data()), as_leaf);
      leaf[*it] = as_leaf ? 1 : 0;
    }
  }
  // Pass 2, breadth first as on the GPU.
  std::vector<CollapseItem> level{{0, 0}}, next;
  wide.nodes.resize(1);
  wide.triangles.reserve(n);
  while (!level.empty()) {
    if (++wide.depth > kWideMaxDepth) return {};
    next.clear();
    for (const CollapseItem& item : level) {
      int32_t child[kWideArity];
      BvhBox box[kWideArity];
      const int count = OpenWideNode(nodes.data(), leaf.data(), item.binary, child, box);
      int32_t word[kWideArity];
      for (int k = 0; k < count; ++k) {
        if (child[k] < 0 || leaf[child[k]]) {
          uint32_t sorted[kWideLeafMax];
          const int m = LeafTriangles(nodes.data(), child[k], sorted);
          const auto first = static_cast<uint32_t>(wide.triangles.size());
          for (int i = 0; i < m; ++i)
            wide.triangles.push_back(MakeWideTriangle(triangles[sorted[i]], id(sorted[i])));
          word[k] = WideLeaf(first, static_cast<uint32_t>(m));
        } else {
          word[k] = static_cast<int32_t>(wide.nodes.size());
          wide.nodes.emplace_back();
          next.push_back({word[k], child[k]});
        }
      }
      wide.nodes[item.wide] = EncodeWideNode(box, word, count);
    }
    level.swap(next);
  }
  return wide;
}

}  // namespace lt::physics
