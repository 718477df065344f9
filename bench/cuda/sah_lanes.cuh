// The GPU binned-SAH builder's lanes (sah_subtree.cu): each lane of a subtree warp builds one
// range of 2 to kSahSmallMax primitives left by the warp's splits, by a full SAH sweep, and
// writes its nodes' collapse costs and leaf marks. Device code for sah_subtree.cu.
#pragma once

#include <cstdint>

#include "lidartwin/physics/bvh_collapse.h"
#include "sah_device.cuh"

namespace lt::bench::sah {

// A 4-bit field of a packed word (permutations and depths of up to 8 items).
__device__ inline uint32_t Nibble(uint32_t v, int k) {
  return (v >> (4 * k)) & 15u;
}
__device__ inline uint32_t WithNibble(uint32_t v, int k, uint32_t x) {
  return (v & ~(15u << (4 * k))) | (x << (4 * k));
}

// A lane's subtree of 2..kSahSmallMax primitives, by the full SAH sweep: every split position of
// the primitives sorted by centre on each axis (ties by triangle index). box: the warp's boxes;
// slots: the range's slots into them (a byte each, in position order); base: the global
// position of the range's first primitive. The state lives in registers: perm (position ->
// slot index) and depth (of the node made at each gap, 0 while unsplit). A range's parent is
// the node of its deeper boundary gap (the later split). root: this range is the whole tree's
// root, which sets root_gap. The primitives are sorted on each axis once; a range's order on
// an axis is that order with the others left out ((centre, index) orders every subset as it
// orders the whole). Sorting each range anew had drawn about a sixth of the subtree kernel's
// warp-state samples (ncu on the H200, bench/RESULTS.md).
__device__ inline void SmallSubtree(const BvhBox* box, uint64_t slots, int n, uint32_t base,
                                    int32_t parent, uint32_t side, bool root, uint32_t root_gap,
                                    const uint32_t* task_ids, uint32_t* root_gap_out,
                                    BvhNode* nodes, uint32_t* order, physics::CollapseCost* costs,
                                    uint8_t* leaf) {
  auto slot = [&](uint32_t k) { return static_cast<uint32_t>((slots >> (8 * k)) & 0xffu); };
  uint32_t sorted[3];  // slot indices by (centre, triangle index) on each axis
  for (int a = 0; a < 3; ++a) {
    uint32_t o = 0;
    for (int k = 0; k < n; ++k) {
      const float cx = Centre(box[slot(k)], a);
      const uint32_t ix = task_ids[slot(k)];
      int j = k;
      while (j > 0) {
        const uint32_t y = Nibble(o, j - 1);
        const float cy = Centre(box[slot(y)], a);
        if (cy < cx || (cy == cx && task_ids[slot(y)] < ix)) break;
        o = WithNibble(o, j, y);
        --j;
      }
      o = WithNibble(o, j, static_cast<uint32_t>(k));
    }
    sorted[a] = o;
  }
  uint32_t perm = 0x76543210u, depth = 0;
  uint32_t made_gaps = 0;  // the gap (less base) of each node, in the order they were made
  for (int made = 0; made < n - 1; ++made) {
    int b = 0, e = 1;  // the first range of two or more with no split inside
    for (;;) {
      e = b + 1;
      while (e < n && Nibble(depth, e - 1) == 0)
        ++e;
      if (e - b >= 2) break;
      b = e;
    }
    const uint32_t dl = b > 0 ? Nibble(depth, b - 1) : 0, dr = e < n ? Nibble(depth, e - 1) : 0;
    const uint32_t d = max(dl, dr);
    int32_t up = parent;
    uint32_t up_side = side;
    if (d > 0) {
      up = NodeIndex(base + static_cast<uint32_t>(dl > dr ? b - 1 : e - 1), root_gap);
      up_side = dl > dr ? 1 : 0;
    }
    const int m = e - b;
    // Until a split is taken: the middle of the first axis's order, which is what is left where
    // every cost is infinite or NaN (box areas past FLT_MAX, about 1.8e19 m across); an order
    // of 0 would repeat slot 0 and lose the others.
    float best = __builtin_huge_valf();
    int best_at = m / 2;
    uint32_t best_order = 0;
    uint32_t members = 0;  // the range's slot indices, a bit each
    for (int k = b; k < e; ++k)
      members |= 1u << Nibble(perm, k);
    for (int a = 0; a < 3; ++a) {
      uint32_t o = 0;  // the range's slot indices sorted by (centre, triangle index)
      for (int k = 0, j = 0; k < n; ++k) {
        const uint32_t x = Nibble(sorted[a], k);
        if ((members >> x) & 1u) o = WithNibble(o, j++, x);
      }
      // Two primitives have one split, of the same cost on every axis (a sum of the same two
      // areas), so the sweeps' ties would keep the first axis's order: taken without them.
      // About half of a lane's splits are of two.
      if (a == 0) best_order = o;
      if (m == 2) break;
      // Right areas by a backward sweep, then the forward sweep picks the split (loops
      // unrolled to the bound so the areas stay in registers).
      float right_area[kSahSmallMax];
      BvhBox acc{};
#pragma unroll
      for (int k = kSahSmallMax - 1; k >= 1; --k) {
        if (k >= m) continue;
        const BvhBox& x = box[slot(Nibble(o, k))];
        acc = k == m - 1 ? x : physics::BoxUnion(acc, x);
        right_area[k] = HalfAreaOf(acc.lo, acc.hi);
      }
      acc = box[slot(Nibble(o, 0))];
#pragma unroll
      for (int k = 1; k < kSahSmallMax; ++k) {
        if (k >= m) break;
        // Rounded as nvcc had contracted it (HalfAreaOf).
        const float cost = __fmaf_rn(right_area[k], static_cast<float>(m - k),
                                     __fmul_rn(HalfAreaOf(acc.lo, acc.hi), static_cast<float>(k)));
        // Ties to the more even split (zero-area triangles tie at cost 0), then the first.
        if (cost < best || (cost == best && abs(2 * k - m) < abs(2 * best_at - m))) {
          best = cost;
          best_at = k;
          best_order = o;
        }
        acc = physics::BoxUnion(acc, box[slot(Nibble(o, k))]);
      }
    }
    for (int k = 0; k < m; ++k)
      perm = WithNibble(perm, b + k, Nibble(best_order, k));
    const int mid = b + best_at;
    const uint32_t gap = base + static_cast<uint32_t>(mid) - 1;
    int32_t me = 0;
    if (root && d == 0) {
      root_gap = gap;
      *root_gap_out = gap;
    } else {
      me = NodeIndex(gap, root_gap);
      if (up >= 0) nodes[up].child[up_side] = me;
    }
    depth = WithNibble(depth, mid - 1, d + 1);
    made_gaps = WithNibble(made_gaps, made, static_cast<uint32_t>(mid - 1));
    const int lo[2] = {b, mid}, hi[2] = {mid, e};
    BvhBox side_box[2];
    int32_t code[2];
    for (int s = 0; s < 2; ++s) {
      side_box[s] = box[slot(Nibble(perm, lo[s]))];
      for (int k = lo[s] + 1; k < hi[s]; ++k)
        side_box[s] = physics::BoxUnion(side_box[s], box[slot(Nibble(perm, k))]);
      code[s] = 0;  // a child of two or more writes its index when it splits
      if (hi[s] - lo[s] == 1) {
        code[s] = ~static_cast<int32_t>(base + static_cast<uint32_t>(lo[s]));
        order[base + lo[s]] = task_ids[slot(Nibble(perm, lo[s]))];
      }
    }
    WriteNode(nodes, me, side_box, code);
  }
  // The collapse's costs and leaf marks (lidartwin/physics/bvh_collapse.h, CombineCollapseCost)
  // of this range's nodes, children before parents: a node is made before the nodes below it,
  // so the reverse order of making is bottom up. The collapse reads the leaf marks and the
  // triangle counts of the nodes marked, and only a node of at most kWideLeafMax (4) triangles
  // can be a leaf; every such node is made here, in some lane's
  // range (the warp's and the larger phases' nodes have more than kSahSmallMax). The nodes are read
  // back from memory, where this thread wrote them.
  for (int made = n - 2; made >= 0; --made) {
    const int32_t me = NodeIndex(base + Nibble(made_gaps, made), root_gap);
    const BvhNode node = nodes[me];
    physics::CollapseCost c[2];
    for (int s = 0; s < 2; ++s)
      c[s] = physics::ChildCollapseCost(node, s, costs);
    bool as_leaf = false;
    costs[me] = physics::CombineCollapseCost(node, c[0], c[1], as_leaf);
    leaf[me] = as_leaf ? 1 : 0;
  }
}

// A range left to one lane (its bounds are not needed).
struct SmallRange {
  uint16_t begin, end;
  uint8_t side, buffer;
  int32_t parent;
};

// The small ranges a warp's splits left (count of them, the same in every lane), a lane each.
// A round of the warp takes as long as its largest range, so where there are more than 32 the
// largest go first and the later rounds take the small ones: the build 2.5-4 % faster on the
// H200 (bench/RESULTS.md). root: the task is the tree's root and still unsplit (a task of
// kSahSmallMax primitives or fewer).
__device__ inline void SmallRanges(const SmallRange* ranges, uint8_t* by_size, int count,
                                   const uint8_t (*slot)[kSahWarpMax], const BvhBox* box,
                                   const SahTask& t, bool root, uint32_t root_gap,
                                   const uint32_t* task_ids, uint32_t* counters, BvhNode* nodes,
                                   uint32_t* order, physics::CollapseCost* costs, uint8_t* leaf) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (count > 32) {
    int placed = 0;
    for (int size = static_cast<int>(kSahSmallMax); size >= 2; --size) {
      for (int k0 = 0; k0 < count; k0 += 32) {
        const int k = k0 + lane;
        const bool match = k < count && ranges[k].end - ranges[k].begin == size;
        const unsigned m = __ballot_sync(0xffffffffu, match);
        if (match) by_size[placed + __popc(m & ((1u << lane) - 1))] = static_cast<uint8_t>(k);
        placed += __popc(m);
      }
    }
    __syncwarp();
  }
  for (int k = lane; k < count; k += 32) {
    const SmallRange r = ranges[count > 32 ? by_size[k] : k];
    uint64_t slots = 0;
    for (int i = r.end - 1; i >= r.begin; --i)
      slots = (slots << 8) | slot[r.buffer][i];
    SmallSubtree(box, slots, r.end - r.begin, t.begin + r.begin, r.parent, r.side,
                 root && r.parent < 0, root_gap, task_ids, &counters[kRootGap], nodes, order, costs,
                 leaf);
  }
}

}  // namespace lt::bench::sah
