// What the GPU binned-SAH builder's phases share: their sizes and device counters, the subtree
// task list, bins and the maps into them, the best binned split, node records and indices.
// binned_sah_build.cu holds the primitives, the large phase and the driver; sah_middle.cu the
// middle phase; sah_subtree.cu the subtree phase. Device code for .cu files only; kept inline
// here, since separate translation units could not inline it without relocatable device code.
#pragma once

#include <cstdint>

#include "lidartwin/physics/bvh.h"
#include "sah_work.h"

namespace lt::bench::sah {

using physics::BvhBox;
using physics::BvhNode;

constexpr uint32_t kSahWarpMax = 256;  // largest subtree a warp takes
// Largest node a block of the middle phase takes: its slots (two bytes each, twice) and the bins
// of its pending ranges fit 43 KB of shared memory. On the H200, with three axes binned, the
// middle kernel took 290 us at 1 M triangles where the large phase's levels had taken some 370 us
// for the same splits (2.4 against 2.6 ms at 10 M): a primitive's binning costs what it costs in
// the large phase, so the saving was the launches and the levels' tails. With one axis binned
// it takes 182 us and 1.6 ms (bench/RESULTS.md).
constexpr uint32_t kSahBlockMax = 4096;
constexpr uint32_t kSahSmallMax = 8;  // largest subtree a lane takes
// Bins an axis in the subtree phase (nodes of up to kSahWarpMax primitives): where it bins three
// axes, their bins fit one warp, so a split takes one pass of three-step scans, not two passes
// of four steps. On the H200 the build went from 2.40 to 2.31 ms (1 M triangles) and from 19.1
// to 18.5 ms (10 M); the trees' SAH costs rose by 0.1-0.2 % and 10 bins were no better
// (bench/RESULTS.md).
constexpr int kSubtreeBins = 8;
// The warp's splits of nodes of more than this many primitives bin the longest axis of the
// node's box only, as the large and middle phases do. On the H200 (bench/RESULTS.md, "One axis
// in the warp's splits too"), against three axes at every warp split:
//   above 128: builds 1.89 ms (1 M triangles) and 15.3 ms (10 M) against 1.92-1.95 and 15.4;
//              SAH 59.92 and 64.17 against 59.88 and 64.12;
//   above 64:  1.86 and 14.97 ms, SAH 59.99 and 64.80 (1.019x and 1.028x the host reference);
//   above 32:  1.79 and 14.6 ms, SAH 61.47 and 66.59, and random rays 9 % slower at 10 M.
constexpr int kSubtreeOneAxisAbove = 64;
// Nodes this deep split at their middle position, so the tree's depth stays bounded (the
// large phase ends within kSahLevels levels, the wide tree within its stack) however binned
// splits peel primitives off (zero-area triangles tie every split at cost 0).
constexpr int kSahForceMedianLevel = 40;
constexpr int kSahLevels = 64;

// Counters (uint32) on the device.
constexpr int kRootGap = 0;            // the root's split position (NodeIndex)
constexpr int kSubtreeCount = 1;       // subtree tasks of more than kSubtreeFirstAbove
constexpr int kSmallSubtreeCount = 2;  // the others (SubtreeTasks)
constexpr int kMiddleCount = 3;        // middle tasks
constexpr int kLargeCounts = 4;        // [level], tasks of the large phase
constexpr int kTileCounts = kLargeCounts + kSahLevels + 1;  // [level], their tiles
constexpr int kSubtreeNext = kTileCounts + kSahLevels + 1;  // subtree tasks taken so far
constexpr int kCounterCount = kSubtreeNext + 1;

// The subtree phase's task list, the larger tasks first (longest processing time first): a
// warp's task of 256 primitives takes several times as long as one of 16, and one left to
// the last wave of warps (about three waves at 1 M triangles) sets the kernel's end. Tasks of
// more than kSubtreeFirstAbove primitives fill the list from the front, the others from the
// back; task i of the phase is the front's i-th, then the back's, so no sort is needed.
constexpr uint32_t kSubtreeFirstAbove = 128;
struct SubtreeTasks {
  SahTask* tasks;
  uint32_t capacity;  // the list's length: fronts and backs never meet
  __device__ void Add(const SahTask& t, uint32_t* counters) const {
    if (t.count > kSubtreeFirstAbove)
      tasks[atomicAdd(&counters[kSubtreeCount], 1u)] = t;
    else
      tasks[capacity - 1 - atomicAdd(&counters[kSmallSubtreeCount], 1u)] = t;
  }
  // Task i of `first` larger ones and the smaller after them.
  __device__ SahTask Get(uint32_t i, uint32_t first) const {
    return i < first ? tasks[i] : tasks[capacity - 1 - (i - first)];
  }
};

__device__ inline uint32_t Ordered(float f) {
  const uint32_t b = __float_as_uint(f);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ inline float Unordered(uint32_t u) {
  return __uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}

// Where a node's primitives bin: lo and bins per metre on each axis (0 for a flat axis), and
// the one axis nodes of more than kSubtreeOneAxisAbove primitives bin on.
struct BinMap {
  float lo[3];
  float scale[3];
  int axis;
};

// The longest axis of a box, ties to the lower: the one the large and middle phases bin on.
// Binning the three axes there and choosing the best split of the three gave the benchmark city
// the same SAH cost within 0.03 % (59.86 and 59.88 at 1 M triangles, 64.12 at 10 M, on the
// host emulation of this builder), at a third of the shared atomics a primitive and level,
// which are those phases' cost (bench/RESULTS.md). Binning one axis at every node would cost
// 13 %; the subtree phase bins one axis above kSubtreeOneAxisAbove primitives and all three
// below. A node whose centres share one bin on its longest axis splits at the middle position,
// as one whose centres share a bin on every axis does. The extents are compared by name: a box
// indexed by a run-time axis had given the middle kernel a 160-byte stack frame in local memory
// (0 bytes now).
__device__ inline int LongestAxis(const BvhBox& b) {
  const float dx = b.hi[0] - b.lo[0], dy = b.hi[1] - b.lo[1], dz = b.hi[2] - b.lo[2];
  if (dy > dx) return dz > dy ? 2 : 1;
  return dz > dx ? 2 : 0;
}

template <int kBins = kSahBins>
__device__ inline BinMap MapOf(const BvhBox& b) {
  BinMap m;
  for (int a = 0; a < 3; ++a) {
    const float extent = b.hi[a] - b.lo[a];
    m.lo[a] = b.lo[a];
    m.scale[a] = extent > 0 ? kBins / extent : 0.0f;
  }
  m.axis = LongestAxis(b);
  return m;
}

// v[a] by selects: an axis known only at run time would otherwise put v in local memory.
__device__ inline float Pick(const float v[3], int a) {
  return a == 0 ? v[0] : (a == 1 ? v[1] : v[2]);
}

// The centre of a primitive's box on one axis, the point the bins sort by.
__device__ inline float Centre(const BvhBox& b, int a) {
  return __fmul_rn(__fadd_rn(Pick(b.lo, a), Pick(b.hi, a)), 0.5f);
}

template <int kBins = kSahBins>
__device__ inline int BinOf(const BvhBox& b, const BinMap& m, int a) {
  const float u = __fmul_rn(__fsub_rn(Centre(b, a), Pick(m.lo, a)), Pick(m.scale, a));
  return min(kBins - 1, max(0, static_cast<int>(u)));
}

// Empties `bins` cooperatively (`lane` of `lanes` threads).
template <typename Bins>
__device__ inline void ClearBins(Bins* bins, int lane, int lanes) {
  auto* words = reinterpret_cast<uint32_t*>(bins);
  constexpr int kBoundWords = 2 * 3 * Bins::kCount * 3;
  constexpr int kWords = sizeof(Bins) / sizeof(uint32_t);
  for (int i = lane; i < kWords; i += lanes)
    words[i] = i < kBoundWords / 2 ? 0xffffffffu : 0u;  // lo: +inf as ordered; hi and counts: 0
}

// Adds the warp's primitives (valid lanes) to bins[slot] on `axis` (each lane its own slot
// and axis). Where all of them fall in one bin (neighbours in a large node) the warp reduces
// first and one lane updates the bin: 7 atomics, not 32 on each address. Otherwise every lane
// updates its own bin: looping over the distinct bins instead costs some 40 instructions a bin,
// and the primitives of a small node spread over most of its bins; reducing each bin's lanes
// together (a labelled partition: a match and six reductions with the bin's lanes as the mask)
// made the subtree kernel 1.6 times slower on the H200, although it took most of the
// shared-memory conflicts away (bench/RESULTS.md). Every lane of the warp calls it.
template <int kBins = kSahBins>
__device__ inline void WarpAddToBinsOnAxis(BinsOf<kBins>* bins, int slot, bool valid,
                                           const BvhBox& box, const BinMap& map, int axis) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const unsigned active = __ballot_sync(0xffffffffu, valid);
  if (active == 0) return;
  const int first = __ffs(active) - 1;
  uint32_t value[6];
  for (int k = 0; k < 3; ++k) {
    value[k] = Ordered(box.lo[k]);
    value[3 + k] = Ordered(box.hi[k]);
  }
  const int key = valid ? (slot * 3 + axis) * kBins + BinOf<kBins>(box, map, axis) : -1;
  const int first_key = __shfl_sync(0xffffffffu, key, first);
  if (__all_sync(0xffffffffu, !valid || key == first_key)) {
    uint32_t r[6];
    for (int k = 0; k < 3; ++k) {
      r[k] = __reduce_min_sync(0xffffffffu, valid ? value[k] : 0xffffffffu);
      r[3 + k] = __reduce_max_sync(0xffffffffu, valid ? value[3 + k] : 0u);
    }
    if (lane == first) {
      BinsOf<kBins>& b = bins[first_key / (3 * kBins)];
      const int a = first_key / kBins % 3, bin = first_key % kBins;
      for (int k = 0; k < 3; ++k) {
        atomicMin(&b.lo[a][bin][k], r[k]);
        atomicMax(&b.hi[a][bin][k], r[3 + k]);
      }
      atomicAdd(&b.count[a][bin], static_cast<uint32_t>(__popc(active)));
    }
  } else if (valid) {
    BinsOf<kBins>& b = bins[slot];
    const int bin = key % kBins;
    for (int k = 0; k < 3; ++k) {
      atomicMin(&b.lo[axis][bin][k], value[k]);
      atomicMax(&b.hi[axis][bin][k], value[3 + k]);
    }
    atomicAdd(&b.count[axis][bin], 1u);
  }
}

// The same on every axis (the subtree phase's nodes of up to kSubtreeOneAxisAbove primitives).
template <int kBins = kSahBins>
__device__ inline void WarpAddToBins(BinsOf<kBins>* bins, int slot, bool valid, const BvhBox& box,
                                     const BinMap& map) {
#pragma unroll
  for (int a = 0; a < 3; ++a)
    WarpAddToBinsOnAxis<kBins>(bins, slot, valid, box, map, a);
}

// Half the surface area of a box given as ordered bounds; 0 for an empty one. The roundings
// are spelled out, so that the warp's scans (WarpBestSplit) and a lane's sweeps
// (LaneBestSplitOnAxis) get the same cost from the same bounds whatever the compiler would
// contract into fused multiply-adds in each; they are the ones nvcc had chosen for
// dx * dy + dy * dz + dz * dx (the PTX of b673e6f), so the trees are those measured before.
__device__ inline float HalfAreaOf(const float lo[3], const float hi[3]) {
  const float dx = __fsub_rn(hi[0], lo[0]), dy = __fsub_rn(hi[1], lo[1]),
              dz = __fsub_rn(hi[2], lo[2]);
  return __fmaf_rn(dx, dz, __fmaf_rn(dx, dy, __fmul_rn(dy, dz)));
}

// The SAH cost of a split, A_L N_L + A_R N_R (Wald 2007), rounded as spelled out (HalfAreaOf;
// nvcc's choice before, too).
__device__ inline float SplitCost(float left_area, uint32_t left, float right_area,
                                  uint32_t right) {
  return __fmaf_rn(left_area, static_cast<float>(left),
                   __fmul_rn(right_area, static_cast<float>(right)));
}

// Whether split candidate (cost, uneven, key) goes before (best, best_uneven, best_key): the
// lower cost, then the more even split, then the lower axis and bin (WarpBestSplit).
__device__ inline bool BetterSplit(float cost, uint32_t uneven, int key, float best,
                                   uint32_t best_uneven, int best_key) {
  return cost < best ||
         (cost == best && (uneven < best_uneven || (uneven == best_uneven && key < best_key)));
}

// The least split candidate (BetterSplit's order) over each aligned group of `width` lanes (a
// power of two up to 32), in every lane of the group. Every lane of the warp calls it.
__device__ inline void LeastSplitAcrossLanes(int width, float& best, uint32_t& best_uneven,
                                             int& best_key) {
  for (int d = 1; d < width; d *= 2) {
    const float oc = __shfl_xor_sync(0xffffffffu, best, d);
    const uint32_t ou = __shfl_xor_sync(0xffffffffu, best_uneven, d);
    const int ok = __shfl_xor_sync(0xffffffffu, best_key, d);
    if (BetterSplit(oc, ou, ok, best, best_uneven, best_key)) {
      best = oc;
      best_uneven = ou;
      best_key = ok;
    }
  }
}

struct SahChoice {
  int axis = -1, bin = 0;
  uint32_t left = 0;
  BvhBox box[2];
};

// The best binned split of a node from its bins (one warp, every lane gets the answer). Each
// axis's kBins lanes hold its bins, a lane each, and scan them in both directions: with 16
// bins, axes 0 and 1 in the first pass and axis 2 in the second; with 10 or fewer, all three
// in one pass (lanes past them idle). Ties go to the more even split (a flat or point-like
// node ties every split at cost 0, and the lowest bin would peel one primitive a level), then
// the lower axis, then the lower bin. axis -1: no split leaves both sides non-empty.
// only_axis >= 0: the bins hold that axis alone (LongestAxis), scanned in one pass.
template <int kBins = kSahBins>
__device__ inline SahChoice WarpBestSplit(const BinsOf<kBins>& bins, int only_axis = -1) {
  constexpr int kAxesAPass = 32 / kBins;
  constexpr int kPasses = (3 + kAxesAPass - 1) / kAxesAPass;
  static_assert(kAxesAPass >= 1, "an axis's bins in a warp");
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int bin = lane % kBins;
  float best = __builtin_huge_valf();
  int best_key = 1 << 30;
  uint32_t best_uneven = 0xffffffffu;
  const int passes = only_axis >= 0 ? 1 : kPasses;
  for (int pass = 0; pass < passes; ++pass) {
    const int axis = only_axis >= 0 ? (lane < kBins ? only_axis : 3)
                                    : kAxesAPass * pass + lane / kBins;  // 3 or more: idle lanes
    const int a = axis < 3 ? axis : 0;
    float lo[3], hi[3], rlo[3], rhi[3];
    for (int k = 0; k < 3; ++k) {
      lo[k] = rlo[k] = Unordered(bins.lo[a][bin][k]);
      hi[k] = rhi[k] = Unordered(bins.hi[a][bin][k]);
    }
    uint32_t n = bins.count[a][bin], rn = n;
    // Inclusive scans within each axis's lanes: left over bins [0, bin], right over
    // [bin, kBins - 1] (a value shuffled from outside them, another axis's lane or the lane's
    // own at the warp's edge, is not used).
    for (int d = 1; d < kBins; d *= 2) {
      float t[12];
      for (int k = 0; k < 3; ++k) {
        t[k] = __shfl_up_sync(0xffffffffu, lo[k], d);
        t[3 + k] = __shfl_up_sync(0xffffffffu, hi[k], d);
        t[6 + k] = __shfl_down_sync(0xffffffffu, rlo[k], d);
        t[9 + k] = __shfl_down_sync(0xffffffffu, rhi[k], d);
      }
      const uint32_t tn = __shfl_up_sync(0xffffffffu, n, d);
      const uint32_t trn = __shfl_down_sync(0xffffffffu, rn, d);
      if (bin >= d) {
        for (int k = 0; k < 3; ++k) {
          lo[k] = fminf(lo[k], t[k]);
          hi[k] = fmaxf(hi[k], t[3 + k]);
        }
        n += tn;
      }
      if (bin + d < kBins) {
        for (int k = 0; k < 3; ++k) {
          rlo[k] = fminf(rlo[k], t[6 + k]);
          rhi[k] = fmaxf(rhi[k], t[9 + k]);
        }
        rn += trn;
      }
    }
    // The right side of a split after bin b is the right scan of bin b + 1.
    float nlo[3], nhi[3];
    for (int k = 0; k < 3; ++k) {
      nlo[k] = __shfl_down_sync(0xffffffffu, rlo[k], 1);
      nhi[k] = __shfl_down_sync(0xffffffffu, rhi[k], 1);
    }
    const uint32_t nrn = __shfl_down_sync(0xffffffffu, rn, 1);
    if (axis < 3 && bin < kBins - 1 && n > 0 && nrn > 0) {
      const float cost = SplitCost(HalfAreaOf(lo, hi), n, HalfAreaOf(nlo, nhi), nrn);
      const int key = a * kBins + bin;
      const uint32_t uneven = n > nrn ? n - nrn : nrn - n;
      if (cost < best || (cost == best && uneven < best_uneven)) {
        best = cost;
        best_key = key;
        best_uneven = uneven;
      }
    }
  }
  LeastSplitAcrossLanes(32, best, best_uneven, best_key);
  SahChoice c;
  if (best_key >= (1 << 30)) return c;
  c.axis = best_key / kBins;
  c.bin = best_key % kBins;
  // The chosen split's sides, from the bins directly: lanes 0 to kBins - 1 take bin `lane`.
  const int a = c.axis;
  const bool left_side = bin <= c.bin;
  for (int s = 0; s < 2; ++s) {
    const bool in = (s == 0) == left_side && lane < kBins;
    for (int k = 0; k < 3; ++k) {
      c.box[s].lo[k] =
          Unordered(__reduce_min_sync(0xffffffffu, in ? bins.lo[a][bin][k] : 0xffffffffu));
      c.box[s].hi[k] = Unordered(__reduce_max_sync(0xffffffffu, in ? bins.hi[a][bin][k] : 0u));
    }
  }
  c.left = __reduce_add_sync(0xffffffffu, lane < kBins && left_side ? bins.count[a][bin] : 0u);
  return c;
}

// The node's record once its children are known; child codes: node index or ~position.
__device__ inline void WriteNode(BvhNode* nodes, int32_t node, const BvhBox box[2],
                                 const int32_t child[2]) {
  BvhNode m;
  m.box[0] = box[0];
  m.box[1] = box[1];
  m.child[0] = child[0];
  m.child[1] = child[1];
  m.pad[0] = m.pad[1] = 0;
  nodes[node] = m;
}

// Node indices without a counter: the n - 1 internal nodes of a binary tree over n ordered
// leaves split the n - 1 gaps between neighbours one each, so gap g (between positions g and
// g + 1) names a node. The root, whose gap is root_gap, takes index 0 instead, and the node of
// gap 0 takes root_gap. (A counter handed out with atomics on one address serialised the
// middle and small phases: some 10^5 atomics a level.)
__device__ inline int32_t NodeIndex(uint32_t gap, uint32_t root_gap) {
  if (gap == root_gap) return 0;
  return static_cast<int32_t>(gap == 0 ? root_gap : gap);
}

// The node a range of a middle or subtree task makes where it splits at `gap`: the tree's root
// (index 0; its gap becomes root_gap) if the task is the root and the range has no parent, else
// NodeIndex. root: the task's root is still to split (cleared here once it has); is_root: this
// is it.
__device__ inline int32_t RangeSplitNode(uint32_t gap, int32_t parent, bool& root,
                                         uint32_t& root_gap, bool& is_root) {
  is_root = root && parent < 0;
  if (!is_root) return NodeIndex(gap, root_gap);
  root_gap = gap;
  root = false;
  return 0;
}

// A range of a middle or subtree task still to split: positions [begin, end) of the task, its
// slots in the phase's slot[buffer], its depth, its bounds, and where its index goes.
struct TaskRange {
  uint16_t begin, end;
  uint8_t side, buffer;
  uint16_t depth;
  int32_t parent;
  BvhBox box;
};

}  // namespace lt::bench::sah
