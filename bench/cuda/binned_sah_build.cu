// A binned-SAH BVH built top-down on the GPU (Wald, "On fast construction of SAH-based bounding
// volume hierarchies", IEEE RT 2007: 16 bins an axis over the node's bounds, the split of least
// A_L N_L + A_R N_R; above kSubtreeOneAxisAbove primitives on the node's longest axis only,
// LongestAxis), in three phases by node size:
//   - large nodes (> kSahBlockMax primitives), level by level with the work lists on the device:
//     tiles of kSahTile primitives, a block each, partition the primitives and bin them into
//     their child's bins in one pass (shared-memory bins, then one global atomic per bin value
//     and block); a warp per node picks the split;
//   - middle nodes (kSahWarpMax + 1 to kSahBlockMax primitives), a block each, split down to
//     kSahWarpMax with their positions in shared memory and the large phase's bins and split
//     choice, so they take the splits the large phase would, without a launch a level;
//   - subtrees (<= kSahWarpMax primitives), a warp each, in shared memory: the warp splits the
//     nodes of more than kSahSmallMax primitives by bins (kSubtreeBins an axis), then each
//     lane builds one of the small ones left by a full SAH sweep over its primitives sorted on
//     each axis. The primitives are read once and their order written once.
// Agglomerative builders (PLOC) reach 1.19x the binned-SAH cost on the benchmark city and
// exact agglomerative clustering is worse still (bench/RESULTS.md): greedy pairing by merged
// area does not find the tree SAH describes there, so this builder is the one at SAH quality.
//
// Results do not depend on the order primitives reach a node in (blocks partition with atomic
// cursors): bins hold float min/max and counts, which are the same in any order, and the
// positional split used when no binned split exists changes only the tree, not which
// triangle a ray hits (ties go to the smaller triangle index).
// A benchmark-only builder: the simulator builds its trees with sim/cuda/lbvh_build.cu and
// takes this one's binary tree and collapse leaf marks (SmallSubtree) through DeviceBvh::BuildWith
// (lidartwin/sim/cuda_backend.h).
// Over 700 lines: the three phases' kernels share this file's device helpers, which separate
// translation units could not inline without relocatable device code.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <memory>
#include <string>

#include "lbvh.h"  // sim/cuda: DeviceBuffer, BuildBlocks
#include "lidartwin/bench/gpu_binned_sah.h"
#include "sah_work.h"

namespace lt::bench {

namespace {

using cuda::BuildBlocks;
using cuda::DeviceBuffer;
using cuda::kBuildBlock;
using physics::BvhBox;
using physics::BvhNode;
using physics::BvhTriangle;
using physics::CollapseCost;

// Tiles of 1,024 primitives, 256 threads: four times the blocks of 4,096 and 512, four rounds a
// thread instead of eight. With the subtree phase's one warp a block, the build went from 18.5
// to 17.95 ms at 10 M triangles on the H200, unchanged at 1 M (bench/RESULTS.md; why it is
// faster was not profiled).
constexpr int kSahTile = 1024;         // primitives a block partitions in the large phase
constexpr int kSahTileThreads = 256;   // 4 primitives a thread
constexpr uint32_t kSahWarpMax = 256;  // largest subtree a warp takes
// Largest node a block of the middle phase takes: its slots (two bytes each, twice) and the bins
// of its pending ranges fit 43 KB of shared memory. On the H200, with three axes binned, the
// middle kernel took 290 us at 1 M triangles where the large phase's levels had taken some 370 us
// for the same splits (2.4 against 2.6 ms at 10 M): a primitive's binning costs what it costs in
// the large phase, so the saving was the launches and the levels' tails. With one axis binned
// it takes 182 us and 1.6 ms (bench/RESULTS.md).
constexpr uint32_t kSahBlockMax = 4096;
// 512 threads at two blocks an SM (64 registers): some 256 middle tasks at 1 M triangles fill
// one wave, so the threads a task are the phase's parallelism. The first form, 256 threads with
// a barrier every round of the partition, took 300 us.
constexpr int kMiddleThreads = 512;
constexpr uint32_t kSahSmallMax = 8;  // largest subtree a lane takes
// A warp a block: a block's shared memory is free for the next subtree as soon as its one is
// built, not when the largest of four is.
constexpr int kSubtreeWarps = 1;  // warps a block in the subtree phase
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
constexpr int kSahLevelsPerCheck = 8;

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

// Half the surface area of a box given as ordered bounds; 0 for an empty one.
__device__ inline float HalfAreaOf(const float lo[3], const float hi[3]) {
  const float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
  return dx * dy + dy * dz + dz * dx;
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
      const float cost = HalfAreaOf(lo, hi) * static_cast<float>(n) +
                         HalfAreaOf(nlo, nhi) * static_cast<float>(nrn);
      const int key = a * kBins + bin;
      const uint32_t uneven = n > nrn ? n - nrn : nrn - n;
      if (cost < best || (cost == best && uneven < best_uneven)) {
        best = cost;
        best_key = key;
        best_uneven = uneven;
      }
    }
  }
  // The least (cost, unevenness, key) over the warp.
  for (int d = 16; d >= 1; d /= 2) {
    const float oc = __shfl_xor_sync(0xffffffffu, best, d);
    const int ok = __shfl_xor_sync(0xffffffffu, best_key, d);
    const uint32_t ou = __shfl_xor_sync(0xffffffffu, best_uneven, d);
    if (oc < best || (oc == best && (ou < best_uneven || (ou == best_uneven && ok < best_key)))) {
      best = oc;
      best_key = ok;
      best_uneven = ou;
    }
  }
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

struct MinOp {
  __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a < b ? a : b; }
};
struct MaxOp {
  __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

// Boxes of the triangles, into buffer 0 with their indices, and the scene's bounds. A block
// takes kPrimitiveRounds tiles of kBuildBlock triangles in turn, each read and its boxes written
// word by word through shared memory: a thread a triangle would read 36-byte strides (nine
// loads, each touching 36 sectors) and write 24-byte ones. The bounds go to memory once a
// block (six atomics), not once a tile.
constexpr int kPrimitiveRounds = 4;
__global__ void __launch_bounds__(kBuildBlock)
    SahPrimitivesKernel(const float* tri, uint32_t n, BvhBox* boxes, uint32_t* ids,
                        uint32_t* root_bounds) {
  using Reduce = cub::BlockReduce<uint32_t, kBuildBlock>;
  __shared__ typename Reduce::TempStorage storage;
  __shared__ float s_tri[9 * kBuildBlock];  // stride 9 (odd): a warp's 32 reads, 32 banks
  __shared__ BvhBox s_box[kBuildBlock];
  static_assert(sizeof(BvhBox) == 6 * sizeof(float), "a box is six words");
  const int tid = static_cast<int>(threadIdx.x);
  uint32_t lo[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu}, hi[3] = {0, 0, 0};  // ordered
  for (int round = 0; round < kPrimitiveRounds; ++round) {
    const size_t base = (static_cast<size_t>(blockIdx.x) * kPrimitiveRounds + round) * kBuildBlock;
    if (base >= n) break;  // the same in every thread
    const int count = static_cast<int>(std::min<size_t>(kBuildBlock, n - base));
    for (int j = tid; j < 9 * count; j += kBuildBlock)
      s_tri[j] = tri[9 * base + j];
    __syncthreads();
    if (tid < count) {
      BvhTriangle t;
      for (int k = 0; k < 3; ++k) {
        t.v0[k] = s_tri[9 * tid + k];
        t.v1[k] = s_tri[9 * tid + 3 + k];
        t.v2[k] = s_tri[9 * tid + 6 + k];
      }
      const BvhBox b = physics::TriangleBounds(t);
      s_box[tid] = b;
      for (int k = 0; k < 3; ++k) {
        lo[k] = min(lo[k], Ordered(b.lo[k]));
        hi[k] = max(hi[k], Ordered(b.hi[k]));
      }
      ids[base + tid] = static_cast<uint32_t>(base + tid);
    }
    __syncthreads();
    const auto* from = reinterpret_cast<const float*>(s_box);
    auto* to = reinterpret_cast<float*>(boxes + base);
    for (int j = tid; j < 6 * count; j += kBuildBlock)
      to[j] = from[j];
    __syncthreads();  // s_tri and s_box free for the next tile
  }
  for (int k = 0; k < 3; ++k) {
    const uint32_t block_lo = Reduce(storage).Reduce(lo[k], MinOp{});
    __syncthreads();
    const uint32_t block_hi = Reduce(storage).Reduce(hi[k], MaxOp{});
    __syncthreads();
    if (threadIdx.x == 0) {
      atomicMin(&root_bounds[k], block_lo);
      atomicMax(&root_bounds[3 + k], block_hi);
    }
  }
}

// The root's task: a large one with its tiles, a middle one, or a subtree. block_max: the
// largest node the middle phase takes (kSahWarpMax: none).
__global__ void SahRootKernel(uint32_t n, uint32_t block_max, const uint32_t* root_bounds,
                              SahTask* large, uint2* tiles, SahBins* bins, SahTask* middle,
                              SubtreeTasks subtrees, uint32_t* counters) {
  SahTask t;
  t.parent = -1;
  t.side = 0;
  t.begin = 0;
  t.count = n;
  t.buffer = 0;
  t.depth = 0;
  for (int k = 0; k < 3; ++k) {
    t.box.lo[k] = Unordered(root_bounds[k]);
    t.box.hi[k] = Unordered(root_bounds[3 + k]);
  }
  if (n > block_max) {
    if (threadIdx.x == 0) {
      large[0] = t;
      counters[kLargeCounts] = 1;
      counters[kTileCounts] = (n + kSahTile - 1) / kSahTile;
    }
    for (uint32_t k = threadIdx.x; k < (n + kSahTile - 1) / kSahTile; k += blockDim.x)
      tiles[k] = make_uint2(0, k * kSahTile);
    ClearBins(&bins[0], static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
  } else if (n > kSahWarpMax) {
    if (threadIdx.x == 0) {
      middle[0] = t;
      counters[kMiddleCount] = 1;
    }
  } else if (threadIdx.x == 0) {
    subtrees.Add(t, counters);
  }
}

// Bins the root's primitives (a large task's first binning; later levels bin as they
// partition), on its longest axis. A block takes tiles in turn and adds its bins to memory
// once, that axis's words only: a block a tile, adding all three axes' bins, had made 3.3 M
// atomics on 336 words at 10 M triangles. Launched with at most kRootBinBlocks blocks.
constexpr uint32_t kRootBinBlocks = 1024;  // about what stays resident on an H100 or H200
__global__ void __launch_bounds__(kSahTileThreads)
    SahBinRootKernel(const BvhBox* boxes, uint32_t n, const SahTask* large, SahBins* bins) {
  __shared__ SahBins s_bins;
  ClearBins(&s_bins, static_cast<int>(threadIdx.x), kSahTileThreads);
  __syncthreads();
  const BinMap map = MapOf(large[0].box);
  const uint32_t tiles = (n + kSahTile - 1) / kSahTile;
  for (uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const uint32_t begin = tile * kSahTile;
    for (uint32_t i = begin + threadIdx.x; i < begin + kSahTile; i += kSahTileThreads) {
      const bool valid = i < n;
      const BvhBox b = valid ? boxes[i] : BvhBox{};
      WarpAddToBinsOnAxis(&s_bins, 0, valid, b, map, map.axis);
    }
  }
  __syncthreads();
  // The axis's words: its lows, highs ([axis][bin][k], kSahBins * 3 each) and counts.
  constexpr int kAxisWords = kSahBins * 3, kBoundWords = 3 * kAxisWords;
  const auto* from = reinterpret_cast<const uint32_t*>(&s_bins);
  auto* to = reinterpret_cast<uint32_t*>(&bins[0]);
  const int t = static_cast<int>(threadIdx.x);
  const int lo = map.axis * kAxisWords, hi = kBoundWords + lo;
  const int count = 2 * kBoundWords + map.axis * kSahBins;
  static_assert(2 * kAxisWords + kSahBins <= kSahTileThreads, "a word a thread");
  if (t < kAxisWords) {
    atomicMin(&to[lo + t], from[lo + t]);
  } else if (t < 2 * kAxisWords) {
    atomicMax(&to[hi + t - kAxisWords], from[hi + t - kAxisWords]);
  } else if (t < 2 * kAxisWords + kSahBins) {
    atomicAdd(&to[count + t - 2 * kAxisWords], from[count + t - 2 * kAxisWords]);
  }
}

// Where a child goes: a large task of the next level, a middle task or a subtree; a single
// primitive goes nowhere (the partition writes its place in the order). Returns its next-level
// large task or -1, and in first_tile its tiles' place. One lane calls it; the warp then fills
// the tiles and clears the bins (FillLargeTask).
__device__ inline int32_t PlaceChild(const SahTask& child, int level, uint32_t block_max,
                                     SahTask* next_large, SahTask* middle,
                                     const SubtreeTasks& subtrees, uint32_t* counters,
                                     uint32_t& first_tile) {
  first_tile = 0;
  if (child.count < 2) return -1;
  if (child.count <= kSahWarpMax) {
    subtrees.Add(child, counters);
    return -1;
  }
  if (child.count <= block_max) {
    middle[atomicAdd(&counters[kMiddleCount], 1u)] = child;
    return -1;
  }
  const uint32_t task = atomicAdd(&counters[kLargeCounts + level + 1], 1u);
  next_large[task] = child;
  first_tile =
      atomicAdd(&counters[kTileCounts + level + 1], (child.count + kSahTile - 1) / kSahTile);
  return static_cast<int32_t>(task);
}

// A large task's tiles and empty bins, by the whole warp (a child of 2^29 triangles has 524,288
// tiles).
__device__ inline void FillLargeTask(int32_t task, uint32_t count, uint32_t first_tile,
                                     uint2* next_tiles, SahBins* next_bins, int lane) {
  const uint32_t tiles = (count + kSahTile - 1) / kSahTile;
  for (uint32_t k = static_cast<uint32_t>(lane); k < tiles; k += 32)
    next_tiles[first_tile + k] = make_uint2(static_cast<uint32_t>(task), k * kSahTile);
  ClearBins(&next_bins[task], lane, 32);
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

// A task split at `left`: its node (index from its gap, written into its parent's slot) with
// the children's boxes and, for single primitives, their leaf codes (~position; the others
// write theirs when they split); the children's tasks in `child`. root_gap: for the root,
// which sets it (counters[kRootGap]).
__device__ inline void SplitTask(const SahTask& t, uint32_t left, const BvhBox box[2],
                                 uint32_t buffer, uint32_t* counters, uint32_t root_gap,
                                 BvhNode* nodes, SahTask child[2]) {
  const uint32_t gap = t.begin + left - 1;
  int32_t me = 0;
  if (t.parent < 0) {
    counters[kRootGap] = gap;
  } else {
    me = NodeIndex(gap, root_gap);
    nodes[t.parent].child[t.side] = me;
  }
  const uint32_t count[2] = {left, t.count - left};
  int32_t code[2];
  for (int s = 0; s < 2; ++s) {
    child[s].parent = me;
    child[s].side = static_cast<uint32_t>(s);
    child[s].begin = t.begin + (s == 0 ? 0 : left);
    child[s].count = count[s];
    child[s].buffer = buffer;
    child[s].depth = t.depth + 1;
    child[s].box = box[s];
    code[s] = count[s] > 1 ? 0 : ~static_cast<int32_t>(child[s].begin);
  }
  WriteNode(nodes, me, box, code);
}

// Large phase, one warp a task of this level: the split from its bins, its children placed.
__global__ void SahSplitKernel(const SahTask* large, const SahBins* bins, int level,
                               uint32_t block_max, SahSplit* splits, SahTask* next_large,
                               uint2* next_tiles, SahBins* next_bins, SahTask* middle,
                               SubtreeTasks subtrees, uint32_t* counters, BvhNode* nodes) {
  const uint32_t task = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (task >= counters[kLargeCounts + level]) return;
  const SahTask t = large[task];
  SahChoice c;
  if (level < kSahForceMedianLevel) c = WarpBestSplit(bins[task], LongestAxis(t.box));
  SahSplit split;
  split.axis = c.axis;
  split.bin = c.bin;
  split.left = c.axis >= 0 ? c.left : t.count / 2;
  split.cursor[0] = split.cursor[1] = 0;
  split.child_task[0] = split.child_task[1] = -1;
  uint32_t first_tile[2] = {0, 0}, count[2] = {split.left, t.count - split.left};
  if (lane == 0) {
    // A positional split's children get the parent's bounds (a superset; the subtree phase
    // bounds its own positional splits exactly).
    if (c.axis < 0) c.box[0] = c.box[1] = t.box;
    SahTask child[2];
    SplitTask(t, split.left, c.box, 1 - t.buffer, counters, counters[kRootGap], nodes, child);
    for (int s = 0; s < 2; ++s)
      split.child_task[s] = PlaceChild(child[s], level, block_max, next_large, middle, subtrees,
                                       counters, first_tile[s]);
    splits[task] = split;
  }
  for (int s = 0; s < 2; ++s) {
    const int32_t child_task = __shfl_sync(0xffffffffu, split.child_task[s], 0);
    const uint32_t first = __shfl_sync(0xffffffffu, first_tile[s], 0);
    if (child_task >= 0) FillLargeTask(child_task, count[s], first, next_tiles, next_bins, lane);
  }
}

// Large phase, one block a tile: each primitive to its side, and into its child's bins when
// that child is a large task of the next level. The partition keeps the tile's order (ranks
// from one ballot a warp and round, scanned over the block), so neighbours in the input stay
// neighbours in the node and a warp's primitives fall in few bins; tiles take their places on
// each side by an atomic cursor. Two passes over the tile (count, then place) keep no
// primitive in registers: more blocks an SM. (The tile read once was slower on the H200 at
// 10 M triangles: held in registers, 19.3 against 18.5 ms with tiles of 4,096, 128 registers and
// a 320-byte stack; staged in shared memory, 18.7 against 18.0-18.1 ms.)
constexpr int kSahRounds = kSahTile / kSahTileThreads;
constexpr int kSahTileWarps = kSahTileThreads / 32;
__global__ void __launch_bounds__(kSahTileThreads)
    SahPartitionKernel(const SahTask* large, const uint2* tiles, int level, SahSplit* splits,
                       const SahTask* next_large, SahBins* next_bins, const BvhBox* boxes_in,
                       const uint32_t* ids_in, BvhBox* boxes_out, uint32_t* ids_out,
                       const uint32_t* counters, uint32_t* order) {
  using Scan = cub::BlockScan<uint32_t, kSahTileThreads>;
  constexpr int kHalf = kSahRounds * kSahTileWarps;  // entries a side
  static_assert(2 * kHalf <= kSahTileThreads, "at most one scan entry a thread");
  __shared__ typename Scan::TempStorage scan;
  __shared__ SahBins s_bins[2];
  __shared__ uint32_t s_rank[2 * kSahRounds * kSahTileWarps];  // [side][round][warp]
  __shared__ uint32_t s_base[2];
  if (blockIdx.x >= counters[kTileCounts + level]) return;
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid / 32;
  const uint2 tile = tiles[blockIdx.x];
  const SahTask t = large[tile.x];
  SahSplit* split = &splits[tile.x];
  const int axis = split->axis, split_bin = split->bin;
  const uint32_t left = split->left;
  const int32_t child_task[2] = {split->child_task[0], split->child_task[1]};
  const BinMap map = MapOf(t.box);
  BinMap child_map[2] = {};
  for (int s = 0; s < 2; ++s) {
    if (child_task[s] >= 0) child_map[s] = MapOf(next_large[child_task[s]].box);
    ClearBins(&s_bins[s], tid, kSahTileThreads);
  }
  const uint32_t end = min(t.count, tile.y + kSahTile);
  const int rounds = static_cast<int>((end - tile.y + kSahTileThreads - 1) / kSahTileThreads);
  auto side_of = [&](uint32_t i, const BvhBox& b) {
    return axis >= 0 ? BinOf(b, map, axis) > split_bin : i >= left;
  };
  for (int r = 0; r < kSahRounds; ++r) {
    bool right = false, valid = false;
    if (r < rounds) {
      const uint32_t i = tile.y + r * kSahTileThreads + tid;
      valid = i < end;
      if (valid) right = side_of(i, boxes_in[t.begin + i]);
    }
    const unsigned rm = __ballot_sync(0xffffffffu, valid && right);
    const unsigned lm = __ballot_sync(0xffffffffu, valid && !right);
    if (lane == 0) {
      s_rank[(0 * kSahRounds + r) * kSahTileWarps + warp] = __popc(lm);
      s_rank[(1 * kSahRounds + r) * kSahTileWarps + warp] = __popc(rm);
    }
  }
  __syncthreads();
  // Entry tid: side tid / kHalf; the right side's prefixes start after the left's total,
  // which is taken off again.
  uint32_t before = 0, all = 0;
  const uint32_t mine = tid < 2 * kHalf ? s_rank[tid] : 0;
  Scan(scan).ExclusiveSum(mine, before, all);
  __syncthreads();
  if (tid == kHalf) s_base[1] = before;  // the left side's total, for now
  if (tid < 2 * kHalf) s_rank[tid] = before;
  __syncthreads();
  const uint32_t total[2] = {s_base[1], all - s_base[1]};
  __syncthreads();
  if (tid < 2 && total[tid] > 0) s_base[tid] = atomicAdd(&split->cursor[tid], total[tid]);
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    const uint32_t i = tile.y + r * kSahTileThreads + tid;
    const bool valid = i < end;
    BvhBox b{};
    uint32_t id = 0;
    bool right = false;
    if (valid) {
      b = boxes_in[t.begin + i];
      id = ids_in[t.begin + i];
      right = side_of(i, b);
    }
    const unsigned rm = __ballot_sync(0xffffffffu, valid && right);
    const unsigned lm = __ballot_sync(0xffffffffu, valid && !right);
    const unsigned below = (1u << lane) - 1;
    const int s = right ? 1 : 0;
    if (valid) {
      const uint32_t rank = s_rank[(s * kSahRounds + r) * kSahTileWarps + warp] -
                            (s == 1 ? total[0] : 0) + __popc((right ? rm : lm) & below);
      const uint32_t at = t.begin + (s == 0 ? 0 : left) + s_base[s] + rank;
      boxes_out[at] = b;
      ids_out[at] = id;
      if ((s == 0 ? left : t.count - left) == 1) order[at] = id;  // a leaf: its final place
    }
    const bool binned = valid && child_task[s] >= 0;
    if (__any_sync(0xffffffffu, binned)) {
      const BinMap side_map = s == 0 ? child_map[0] : child_map[1];
      WarpAddToBinsOnAxis(s_bins, s, binned, b, side_map, side_map.axis);
    }
  }
  __syncthreads();
  for (int s = 0; s < 2; ++s) {
    if (child_task[s] < 0) continue;
    const auto* from = reinterpret_cast<const uint32_t*>(&s_bins[s]);
    auto* to = reinterpret_cast<uint32_t*>(&next_bins[child_task[s]]);
    constexpr int kBoundWords = 3 * kSahBins * 3;
    for (int w = tid; w < static_cast<int>(sizeof(SahBins) / 4); w += kSahTileThreads) {
      if (w < kBoundWords) {
        if (from[w] != 0xffffffffu) atomicMin(&to[w], from[w]);
      } else if (w < 2 * kBoundWords) {
        if (from[w] != 0u) atomicMax(&to[w], from[w]);
      } else if (from[w] != 0u) {
        atomicAdd(&to[w], from[w]);
      }
    }
  }
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

// A range's split, as warp 0 chose it, for the block.
struct MiddleSplit {
  int32_t axis, bin;  // axis -1: at the middle position
  uint32_t left;
  BvhBox box[2];
};

// Pending ranges of more than kSahWarpMax primitives are disjoint, so at most
// kSahBlockMax / (kSahWarpMax + 1) of them; each has its bins, filled as its parent partitions.
constexpr int kMiddleStack = kSahBlockMax / (kSahWarpMax + 1) + 1;
constexpr int kMiddleWarps = kMiddleThreads / 32;
constexpr int kMiddleRounds = kSahBlockMax / kMiddleThreads;  // a thread's primitives of a range
constexpr int kMiddleEntries = 2 * kMiddleRounds * kMiddleWarps;
static_assert(kMiddleEntries <= kMiddleThreads, "a scan entry a thread at most");
static_assert(kMiddleRounds <= 32, "a thread's sides as bits of a word");

// One block a middle task: its nodes split depth first down to kSahWarpMax primitives, each by
// the large phase's 16 bins on the longest axis and WarpBestSplit (so the same splits), with
// barriers instead of a launch a level. Only the slots (the task's positions) live in shared
// memory; the boxes are read from global memory each pass (the L1 and L2 hold them: 96 KB a task).
// Each partition bins the children it pushes, as the large phase's does, so a range's primitives
// are read once a level. A child of kSahWarpMax or fewer gets its boxes and ids written, in its
// final order, into the other buffer and becomes a subtree task; a single primitive gets its place
// in the order.
__global__ void __launch_bounds__(kMiddleThreads, 2)
    SahMiddleKernel(const SahTask* tasks, BvhBox* const* boxes, uint32_t* const* ids,
                    uint32_t* counters, SubtreeTasks subtrees, BvhNode* nodes, uint32_t* order) {
  using Scan = cub::BlockScan<uint32_t, kMiddleThreads>;
  __shared__ uint16_t s_slot[2][kSahBlockMax];
  __shared__ SahBins s_bins[kMiddleStack];  // [stack slot]
  __shared__ TaskRange s_stack[kMiddleStack];
  __shared__ MiddleSplit s_split;
  __shared__ uint32_t s_rank[kMiddleEntries];   // [side][round][warp]: primitives
  __shared__ uint32_t s_place[kMiddleEntries];  // the same entries' places in the range
  __shared__ typename Scan::TempStorage s_scan;
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid / 32;
  const SahTask t = tasks[blockIdx.x];
  const BvhBox* in_boxes = boxes[t.buffer] + t.begin;
  const uint32_t* in_ids = ids[t.buffer] + t.begin;
  BvhBox* out_boxes = boxes[1 - t.buffer] + t.begin;
  uint32_t* out_ids = ids[1 - t.buffer] + t.begin;
  const int n = static_cast<int>(t.count);
  bool root = t.parent < 0;
  uint32_t root_gap = root ? 0 : counters[kRootGap];
  // The whole task's bins (the large phase bins only its own next level's tasks).
  ClearBins(&s_bins[0], tid, kMiddleThreads);
  if (tid == 0) {
    s_stack[0] = {0,    static_cast<uint16_t>(n),       static_cast<uint8_t>(t.side),
                  0,    static_cast<uint16_t>(t.depth), t.parent,
                  t.box};
  }
  __syncthreads();
  const BinMap whole_map = MapOf(t.box);
  for (int i0 = 0; i0 < n; i0 += kMiddleThreads) {
    const int i = i0 + tid;
    const bool valid = i < n;
    const BvhBox b = valid ? in_boxes[i] : BvhBox{};
    if (valid) s_slot[0][i] = static_cast<uint16_t>(i);
    WarpAddToBinsOnAxis(s_bins, 0, valid, b, whole_map, whole_map.axis);
  }
  __syncthreads();
  int top = 1;  // the same in every thread
  while (top > 0) {
    --top;
    const TaskRange r = s_stack[top];
    const int m = r.end - r.begin;
    if (warp == 0) {
      SahChoice c;
      if (r.depth < kSahForceMedianLevel) c = WarpBestSplit(s_bins[top], LongestAxis(r.box));
      if (lane == 0) {
        // A positional split's children get the range's bounds, as in the large phase.
        if (c.axis < 0) c.box[0] = c.box[1] = r.box;
        s_split = {c.axis,
                   c.bin,
                   c.axis >= 0 ? c.left : static_cast<uint32_t>(m / 2),
                   {c.box[0], c.box[1]}};
      }
    }
    __syncthreads();
    const int axis = s_split.axis, split_bin = s_split.bin;
    const int left = static_cast<int>(s_split.left);
    const BvhBox side_box[2] = {s_split.box[0], s_split.box[1]};
    const int count[2] = {left, m - left};
    // The children pushed (more than kSahWarpMax primitives) take the stack slots from `top`
    // on: the popped range's bins were read above, so its slot is free.
    int child_slot[2], pushed = top;
    for (int s = 0; s < 2; ++s)
      child_slot[s] = count[s] > static_cast<int>(kSahWarpMax) ? pushed++ : -1;
    for (int s = 0; s < 2; ++s) {
      if (child_slot[s] >= 0) ClearBins(&s_bins[child_slot[s]], tid, kMiddleThreads);
    }
    __syncthreads();
    const BinMap map = MapOf(r.box);
    const BinMap left_map = MapOf(side_box[0]), right_map = MapOf(side_box[1]);
    const uint16_t* in = s_slot[r.buffer];
    uint16_t* out = s_slot[1 - r.buffer];
    // A stable partition in two passes, with two barriers whatever the range's size: the first
    // sides each primitive, bins it into its child's bins where that child is pushed, and counts
    // each warp's and round's sides; a block scan turns the counts into places; the second writes
    // the slots in place order. A thread's sides are kept as bits, its boxes read again only
    // where a child's primitives take their final place.
    const int rounds = (m + kMiddleThreads - 1) / kMiddleThreads;
    uint32_t right_bits = 0;  // a bit a round
    for (int round = 0; round < rounds; ++round) {
      const int i = round * kMiddleThreads + tid;
      const bool valid = i < m;
      const BvhBox b = valid ? in_boxes[in[r.begin + i]] : BvhBox{};
      const bool right = valid && (axis >= 0 ? BinOf(b, map, axis) > split_bin : i >= left);
      right_bits |= right ? 1u << round : 0u;
      const unsigned rm = __ballot_sync(0xffffffffu, right);
      const unsigned lm = __ballot_sync(0xffffffffu, valid && !right);
      if (lane == 0) {
        s_rank[round * kMiddleWarps + warp] = __popc(lm);
        s_rank[(kMiddleRounds + round) * kMiddleWarps + warp] = __popc(rm);
      }
      const int side_slot = right ? child_slot[1] : child_slot[0];
      const bool binned = valid && side_slot >= 0;
      if (__any_sync(0xffffffffu, binned)) {
        const BinMap side_map = right ? right_map : left_map;
        WarpAddToBinsOnAxis(s_bins, binned ? side_slot : 0, binned, b, side_map, side_map.axis);
      }
    }
    if (lane == 0) {
      for (int round = rounds; round < kMiddleRounds; ++round)
        s_rank[round * kMiddleWarps + warp] =
            s_rank[(kMiddleRounds + round) * kMiddleWarps + warp] = 0;
    }
    __syncthreads();
    // Places from the range's start: the right side's entries follow all the left's, so they
    // start at `left` by themselves.
    uint32_t place = 0;
    Scan(s_scan).ExclusiveSum(tid < kMiddleEntries ? s_rank[tid] : 0u, place);
    if (tid < kMiddleEntries) s_place[tid] = place;
    __syncthreads();
    const uint32_t gap = t.begin + r.begin + static_cast<uint32_t>(left) - 1;
    bool is_root = false;
    const int32_t me = RangeSplitNode(gap, r.parent, root, root_gap, is_root);
    if (tid == 0) {
      if (is_root) counters[kRootGap] = gap;
      if (r.parent >= 0) nodes[r.parent].child[r.side] = me;
      int32_t code[2];
      for (int s = 0; s < 2; ++s) {
        const int begin = r.begin + (s == 0 ? 0 : left);
        code[s] = 0;  // a child of two or more writes its index when it splits
        if (count[s] == 1) {
          code[s] = ~static_cast<int32_t>(t.begin + static_cast<uint32_t>(begin));
        } else if (child_slot[s] < 0) {
          SahTask sub;
          sub.parent = me;
          sub.side = static_cast<uint32_t>(s);
          sub.begin = t.begin + static_cast<uint32_t>(begin);
          sub.count = static_cast<uint32_t>(count[s]);
          sub.buffer = 1 - t.buffer;
          sub.depth = r.depth + 1u;
          sub.box = side_box[s];
          subtrees.Add(sub, counters);
        } else {
          s_stack[child_slot[s]] = {static_cast<uint16_t>(begin),
                                    static_cast<uint16_t>(begin + count[s]),
                                    static_cast<uint8_t>(s),
                                    static_cast<uint8_t>(1 - r.buffer),
                                    static_cast<uint16_t>(r.depth + 1),
                                    me,
                                    side_box[s]};
        }
      }
      WriteNode(nodes, me, side_box, code);
    }
    for (int round = 0; round < rounds; ++round) {
      const int i = round * kMiddleThreads + tid;
      const bool valid = i < m;
      const bool right = (right_bits >> round) & 1u;
      const unsigned rm = __ballot_sync(0xffffffffu, right);
      const unsigned lm = __ballot_sync(0xffffffffu, valid && !right);
      if (!valid) continue;
      const int s = right ? 1 : 0;
      const uint32_t slot = in[r.begin + i];
      const int at = static_cast<int>(s_place[(s * kMiddleRounds + round) * kMiddleWarps + warp]) +
                     __popc((right ? rm : lm) & ((1u << lane) - 1));
      out[r.begin + at] = static_cast<uint16_t>(slot);
      const int side_count = right ? count[1] : count[0];
      if (side_count <= static_cast<int>(kSahWarpMax)) {  // its final place
        const uint32_t id = in_ids[slot];
        if (side_count == 1) {
          order[t.begin + r.begin + at] = id;
        } else {
          out_boxes[r.begin + at] = in_boxes[slot];
          out_ids[r.begin + at] = id;
        }
      }
    }
    top = pushed;
    __syncthreads();
  }
}

// Subtree phase. A 4-bit field of a packed word (permutations and depths of up to 8 items).
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
                                    BvhNode* nodes, uint32_t* order, CollapseCost* costs,
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
    float best = __builtin_huge_valf();
    int best_at = 1;
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
      if (m == 2) {
        best_order = o;
        break;
      }
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
        const float cost = HalfAreaOf(acc.lo, acc.hi) * static_cast<float>(k) +
                           right_area[k] * static_cast<float>(m - k);
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
    CollapseCost c[2];
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

// Pending ranges of more than kSahSmallMax primitives are disjoint, so at most
// kSahWarpMax / (kSahSmallMax + 1) of them; small ranges have two primitives or more.
constexpr int kSubtreeStack = kSahWarpMax / (kSahSmallMax + 1) + 1;
struct SubtreeSpace {
  BvhBox box[kSahWarpMax];  // the task's primitives, in load order (their slots)
  uint8_t slot[2][kSahWarpMax];
  BinsOf<kSubtreeBins> bins;  // 8 an axis: half the shared memory and clearing of 16
  TaskRange stack[kSubtreeStack];
  SmallRange small[kSahWarpMax / 2];
  uint8_t by_size[kSahWarpMax / 2];  // the small ranges, largest first
};

// One warp a subtree task: its primitives loaded once into shared memory, its nodes split by
// bins (the warp) down to kSahSmallMax primitives and then by full SAH sweeps (a lane each);
// writes the nodes, their indices into their parents, and the primitives' final order; the
// lanes also write their nodes' collapse costs and leaf marks.
__device__ inline void BuildSubtree(const SahTask& t, SubtreeSpace& w, BvhBox* const* boxes,
                                    uint32_t* const* ids, uint32_t* counters, BvhNode* nodes,
                                    uint32_t* order, CollapseCost* costs, uint8_t* leaf) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const uint32_t* task_ids = ids[t.buffer] + t.begin;
  const int n = static_cast<int>(t.count);
  constexpr int kSmall = static_cast<int>(kSahSmallMax);
  // The boxes copied word by word: a lane a box would read 24-byte strides, 24 sectors an
  // instruction where a word a lane reads four.
  static_assert(sizeof(BvhBox) == 6 * sizeof(uint32_t), "a box is six words");
  const auto* from = reinterpret_cast<const uint32_t*>(boxes[t.buffer] + t.begin);
  auto* to = reinterpret_cast<uint32_t*>(w.box);
  for (int i = lane; i < 6 * n; i += 32)
    to[i] = from[i];
  for (int i = lane; i < n; i += 32)
    w.slot[0][i] = static_cast<uint8_t>(i);
  bool root = t.parent < 0;
  uint32_t root_gap = root ? 0 : counters[kRootGap];
  const TaskRange whole{0,    static_cast<uint16_t>(n),       static_cast<uint8_t>(t.side),
                        0,    static_cast<uint16_t>(t.depth), t.parent,
                        t.box};
  int top = n > kSmall ? 1 : 0, small = n > kSmall ? 0 : 1;  // the same in every lane
  if (lane == 0) {
    if (n > kSmall)
      w.stack[0] = whole;
    else
      w.small[0] = {whole.begin, whole.end, whole.side, whole.buffer, whole.parent};
  }
  __syncwarp();
  while (top > 0) {
    const TaskRange r = w.stack[--top];
    const int m = r.end - r.begin;
    const uint8_t* in = w.slot[r.buffer];
    uint8_t* out = w.slot[1 - r.buffer];
    const BinMap map = MapOf<kSubtreeBins>(r.box);
    ClearBins(&w.bins, lane, 32);
    __syncwarp();
    const int only_axis = m > kSubtreeOneAxisAbove ? map.axis : -1;
    for (int i0 = 0; i0 < m; i0 += 32) {
      const int i = i0 + lane;
      const bool valid = i < m;
      const BvhBox b = valid ? w.box[in[r.begin + i]] : BvhBox{};
      if (only_axis >= 0)
        WarpAddToBinsOnAxis<kSubtreeBins>(&w.bins, 0, valid, b, map, only_axis);
      else
        WarpAddToBins<kSubtreeBins>(&w.bins, 0, valid, b, map);
    }
    __syncwarp();
    SahChoice c;
    if (r.depth < kSahForceMedianLevel) c = WarpBestSplit<kSubtreeBins>(w.bins, only_axis);
    const int left = c.axis >= 0 ? static_cast<int>(c.left) : m / 2;
    if (c.axis < 0) {
      // A positional split: its sides' exact bounds, so that their bins spread again.
      for (int side = 0; side < 2; ++side) {
        uint32_t lo[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu}, hi[3] = {0, 0, 0};
        const int begin = side == 0 ? 0 : left, end = side == 0 ? left : m;
        for (int i = begin + lane; i < end; i += 32) {
          const BvhBox& b = w.box[in[r.begin + i]];
          for (int k = 0; k < 3; ++k) {
            lo[k] = min(lo[k], Ordered(b.lo[k]));
            hi[k] = max(hi[k], Ordered(b.hi[k]));
          }
        }
        for (int k = 0; k < 3; ++k) {
          c.box[side].lo[k] = Unordered(__reduce_min_sync(0xffffffffu, lo[k]));
          c.box[side].hi[k] = Unordered(__reduce_max_sync(0xffffffffu, hi[k]));
        }
      }
    }
    int placed[2] = {0, 0};  // stable partition, a ballot a round
    for (int i0 = 0; i0 < m; i0 += 32) {
      const int i = i0 + lane;
      const bool valid = i < m;
      const uint8_t sl = valid ? in[r.begin + i] : 0;
      const bool right =
          valid && (c.axis >= 0 ? BinOf<kSubtreeBins>(w.box[sl], map, c.axis) > c.bin : i >= left);
      const unsigned rm = __ballot_sync(0xffffffffu, right);
      const unsigned lm = __ballot_sync(0xffffffffu, valid && !right);
      const unsigned below = (1u << lane) - 1;
      if (valid) {
        const int at =
            right ? left + placed[1] + __popc(rm & below) : placed[0] + __popc(lm & below);
        out[r.begin + at] = sl;
      }
      placed[0] += __popc(lm);
      placed[1] += __popc(rm);
    }
    __syncwarp();
    const uint32_t gap = t.begin + r.begin + static_cast<uint32_t>(left) - 1;
    bool is_root = false;
    const int32_t me = RangeSplitNode(gap, r.parent, root, root_gap, is_root);
    const int count[2] = {left, m - left};
    if (lane == 0) {
      if (is_root) counters[kRootGap] = gap;
      if (r.parent >= 0) nodes[r.parent].child[r.side] = me;
      int32_t code[2];
      int pushed = 0, listed = 0;
      for (int s = 0; s < 2; ++s) {
        const int begin = r.begin + (s == 0 ? 0 : left);
        code[s] = 0;
        if (count[s] == 1) {
          code[s] = ~static_cast<int32_t>(t.begin + static_cast<uint32_t>(begin));
          order[t.begin + begin] = task_ids[out[begin]];
        }
        const TaskRange child{static_cast<uint16_t>(begin),
                              static_cast<uint16_t>(begin + count[s]),
                              static_cast<uint8_t>(s),
                              static_cast<uint8_t>(1 - r.buffer),
                              static_cast<uint16_t>(r.depth + 1),
                              me,
                              c.box[s]};
        if (count[s] > kSmall)
          w.stack[top + pushed++] = child;
        else if (count[s] >= 2)
          w.small[small + listed++] = {child.begin, child.end, child.side, child.buffer, me};
      }
      WriteNode(nodes, me, c.box, code);
    }
    for (int s = 0; s < 2; ++s) {
      top += count[s] > kSmall ? 1 : 0;
      small += count[s] >= 2 && count[s] <= kSmall ? 1 : 0;
    }
    __syncwarp();
  }
  // Each lane builds one small range, and a round of the warp takes as long as its largest
  // range. Where there are more than 32, the largest go first, so that the later rounds take
  // the small ones: the build 2.5-4 % faster on the H200 (bench/RESULTS.md).
  if (small > 32) {
    int placed = 0;
    for (int size = kSmall; size >= 2; --size) {
      for (int k0 = 0; k0 < small; k0 += 32) {
        const int k = k0 + lane;
        const bool match = k < small && w.small[k].end - w.small[k].begin == size;
        const unsigned m = __ballot_sync(0xffffffffu, match);
        if (match) w.by_size[placed + __popc(m & ((1u << lane) - 1))] = static_cast<uint8_t>(k);
        placed += __popc(m);
      }
    }
    __syncwarp();
  }
  for (int k = lane; k < small; k += 32) {
    const SmallRange r = w.small[small > 32 ? w.by_size[k] : k];
    uint64_t slots = 0;
    for (int i = r.end - 1; i >= r.begin; --i)
      slots = (slots << 8) | w.slot[r.buffer][i];
    SmallSubtree(w.box, slots, r.end - r.begin, t.begin + r.begin, r.parent, r.side,
                 root && r.parent < 0, root_gap, task_ids, &counters[kRootGap], nodes, order, costs,
                 leaf);
  }
}

// As many blocks as stay resident, each warp taking tasks in list order (the larger first)
// until none are left: the launch needs no task count from the host, which would wait for the
// phases before it (a round trip a build), and starts no blocks that find no task.
__global__ void __launch_bounds__(32 * kSubtreeWarps)
    SahSubtreeKernel(SubtreeTasks tasks, BvhBox* const* boxes, uint32_t* const* ids,
                     uint32_t* counters, BvhNode* nodes, uint32_t* order, CollapseCost* costs,
                     uint8_t* leaf) {
  __shared__ SubtreeSpace space[kSubtreeWarps];
  SubtreeSpace& w = space[threadIdx.x / 32];
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const uint32_t first = counters[kSubtreeCount];
  const uint32_t total = first + counters[kSmallSubtreeCount];
  for (;;) {  // warps never wait on each other here
    uint32_t task = 0;
    if (lane == 0) task = atomicAdd(&counters[kSubtreeNext], 1u);
    task = __shfl_sync(0xffffffffu, task, 0);
    if (task >= total) return;
    BuildSubtree(tasks.Get(task, first), w, boxes, ids, counters, nodes, order, costs, leaf);
    __syncwarp();  // every lane done with this task's shared memory
  }
}

// The builder's work: the primitives' boxes and ids, double-buffered; large tasks, their tiles
// and bins by level parity; splits; middle and subtree tasks; the device addresses of both
// buffers; counters; the root's bounds. Kept between builds, as the simulator keeps its
// builders'.
struct SahBuffers {
  DeviceBuffer<BvhBox> boxes[2];
  DeviceBuffer<uint32_t> ids[2];
  DeviceBuffer<SahTask> large[2], middle, subtrees;
  DeviceBuffer<uint2> tiles[2];
  DeviceBuffer<SahBins> bins[2];
  DeviceBuffer<SahSplit> splits;
  DeviceBuffer<void*> addresses;
  DeviceBuffer<uint32_t> counters;
  DeviceBuffer<uint32_t> bounds;  // lo[3], hi[3] as ordered integers
  uint32_t subtree_blocks = 0;    // SahSubtreeKernel's blocks resident at once, once known
};

Status BuildBinnedSah(SahBuffers& b, const GpuBinnedSahOptions& options, const float* triangles,
                      uint32_t n, const ExternalGpuBvhOutput& out, cudaStream_t stream) {
  BvhNode* nodes = out.nodes;
  uint32_t* order = out.order;
  const uint32_t block_max = options.block_per_middle_node ? kSahBlockMax : kSahWarpMax;
  // Capacities: large and middle tasks have more than kSahWarpMax primitives, so fewer than
  // n / kSahWarpMax of them at a level or in all; their tiles fewer than n / kSahTile + that;
  // subtrees two primitives or more.
  const uint32_t large_max = n / kSahWarpMax + 1;
  const uint32_t tile_max = n / kSahTile + large_max + 1;
  const uint32_t subtree_max = n / 2 + 1;
  for (int k = 0; k < 2; ++k) {
    for (Status s : {b.boxes[k].Reserve(n), b.ids[k].Reserve(n), b.large[k].Reserve(large_max),
                     b.tiles[k].Reserve(tile_max), b.bins[k].Reserve(large_max)}) {
      if (!s.ok()) return s;
    }
  }
  for (Status s :
       {b.splits.Reserve(large_max), b.middle.Reserve(large_max), b.subtrees.Reserve(subtree_max),
        b.counters.Reserve(kCounterCount), b.bounds.Reserve(6), b.addresses.Reserve(4)}) {
    if (!s.ok()) return s;
  }
  auto* counters = b.counters.get();
  const SubtreeTasks subtree_tasks{b.subtrees.get(), subtree_max};
  auto* root_bounds = b.bounds.get();
  const uint32_t start_bounds[6] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0, 0, 0};
  LT_CUDA_TRY(cudaMemcpyAsync(root_bounds, start_bounds, sizeof(start_bounds),
                              cudaMemcpyHostToDevice, stream));
  LT_CUDA_TRY(cudaMemsetAsync(counters, 0, kCounterCount * sizeof(uint32_t), stream));
  // Only the lanes' nodes can be the collapse's leaves, and they mark their own.
  LT_CUDA_TRY(cudaMemsetAsync(out.leaf, 0, n - 1, stream));
  // Both buffers' addresses on the device, for the phases whose tasks say which to read.
  void* buffers[4] = {b.boxes[0].get(), b.boxes[1].get(), b.ids[0].get(), b.ids[1].get()};
  LT_CUDA_TRY(
      cudaMemcpyAsync(b.addresses.get(), buffers, sizeof(buffers), cudaMemcpyHostToDevice, stream));
  auto* const* boxes = reinterpret_cast<BvhBox* const*>(b.addresses.get());
  auto* const* ids = reinterpret_cast<uint32_t* const*>(b.addresses.get() + 2);
  const uint32_t primitive_tiles = kBuildBlock * kPrimitiveRounds;
  SahPrimitivesKernel<<<(n + primitive_tiles - 1) / primitive_tiles, kBuildBlock, 0, stream>>>(
      triangles, n, b.boxes[0].get(), b.ids[0].get(), root_bounds);
  SahRootKernel<<<1, 256, 0, stream>>>(n, block_max, root_bounds, b.large[0].get(),
                                       b.tiles[0].get(), b.bins[0].get(), b.middle.get(),
                                       subtree_tasks, counters);
  LT_CUDA_TRY(cudaGetLastError());
  uint32_t seen[kCounterCount] = {};  // the counters as last read back
  if (n > block_max) {
    SahBinRootKernel<<<std::min(kRootBinBlocks, (n + kSahTile - 1) / kSahTile), kSahTileThreads, 0,
                       stream>>>(b.boxes[0].get(), n, b.large[0].get(), b.bins[0].get());
    LT_CUDA_TRY(cudaGetLastError());
    int level = 0;
    for (;;) {
      for (int k = 0; k < kSahLevelsPerCheck && level < kSahLevels; ++k, ++level) {
        const int p = level & 1;
        const uint32_t tasks = level < 31 ? std::min(large_max, 1u << level) : large_max;
        const uint32_t tiles = std::min(tile_max, n / kSahTile + tasks + 1);
        SahSplitKernel<<<(tasks * 32 + kBuildBlock - 1) / kBuildBlock, kBuildBlock, 0, stream>>>(
            b.large[p].get(), b.bins[p].get(), level, block_max, b.splits.get(),
            b.large[1 - p].get(), b.tiles[1 - p].get(), b.bins[1 - p].get(), b.middle.get(),
            subtree_tasks, counters, nodes);
        SahPartitionKernel<<<tiles, kSahTileThreads, 0, stream>>>(
            b.large[p].get(), b.tiles[p].get(), level, b.splits.get(), b.large[1 - p].get(),
            b.bins[1 - p].get(), b.boxes[p].get(), b.ids[p].get(), b.boxes[1 - p].get(),
            b.ids[1 - p].get(), counters, order);
        LT_CUDA_TRY(cudaGetLastError());
      }
      // All the counters in one read: the last one also gives the middle phase's task count.
      LT_CUDA_TRY(cudaMemcpyAsync(seen, counters, sizeof(seen), cudaMemcpyDeviceToHost, stream));
      LT_CUDA_TRY(cudaStreamSynchronize(stream));
      if (seen[kLargeCounts + level] == 0) break;
      if (level >= kSahLevels) return Error{"binned-SAH BVH: large phase did not end (a bug)"};
    }
  }
  if (n > kSahWarpMax && block_max > kSahWarpMax) {
    // Without a large phase the root is the one middle task.
    const uint32_t middle = n > block_max ? seen[kMiddleCount] : 1;
    if (middle > 0) {
      SahMiddleKernel<<<middle, kMiddleThreads, 0, stream>>>(b.middle.get(), boxes, ids, counters,
                                                             subtree_tasks, nodes, order);
      LT_CUDA_TRY(cudaGetLastError());
    }
  }
  // The subtrees, with no task count read back (SahSubtreeKernel): as many blocks as stay
  // resident, fewer where there cannot be that many tasks.
  if (b.subtree_blocks == 0) {
    int device = 0, sms = 0, per_sm = 0;
    LT_CUDA_TRY(cudaGetDevice(&device));
    LT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    LT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, SahSubtreeKernel,
                                                              32 * kSubtreeWarps, 0));
    b.subtree_blocks = static_cast<uint32_t>(std::max(1, sms * per_sm));
  }
  const uint32_t blocks =
      std::min(b.subtree_blocks, (subtree_max + kSubtreeWarps - 1) / kSubtreeWarps);
  SahSubtreeKernel<<<blocks, 32 * kSubtreeWarps, 0, stream>>>(subtree_tasks, boxes, ids, counters,
                                                              nodes, order, out.costs, out.leaf);
  LT_CUDA_TRY(cudaGetLastError());
  return {};
}

}  // namespace

ExternalGpuBvhBuild GpuBinnedSahBuild(GpuBinnedSahOptions options) {
  auto buffers = std::make_shared<SahBuffers>();
  return [buffers, options](const float* triangles, uint32_t n, const ExternalGpuBvhOutput& out,
                            void* stream) {
    return BuildBinnedSah(*buffers, options, triangles, n, out, static_cast<cudaStream_t>(stream));
  };
}

}  // namespace lt::bench
