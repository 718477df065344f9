// A binned-SAH BVH built top-down on the GPU (Wald, "On fast construction of SAH-based bounding
// volume hierarchies", IEEE RT 2007: 16 bins an axis over the node's bounds, the split of least
// A_L N_L + A_R N_R), in three phases by node size, every one level-synchronous with its work
// lists on the device:
//   - large nodes (> kSahWarpMax primitives): tiles of kSahTile primitives, a block each,
//     partition the primitives and bin them into their child's bins in one pass (shared-memory
//     bins, then one global atomic per bin value and block); a warp per node picks the split;
//   - middle nodes (<= kSahWarpMax): a warp per node bins, picks and partitions;
//   - small nodes (<= kSahSmallMax): a thread per node builds the subtree by a full SAH sweep
//     over the primitives sorted on each axis.
// Agglomerative builders (PLOC) reach 1.19x the binned-SAH cost on the benchmark city and
// exact agglomerative clustering is worse still (bench/RESULTS.md): greedy pairing by merged
// area does not find the tree SAH describes there, so this builder is the one at SAH quality.
//
// Results do not depend on the order primitives reach a node in (blocks partition with atomic
// cursors): bins hold float min/max and counts, which are the same in any order, and the
// positional split used when no binned split exists changes only the tree, not which
// triangle a ray hits (ties go to the smaller triangle index).
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <string>

#include "lbvh.h"

namespace lt::cuda {

namespace {

using physics::BvhBox;
using physics::BvhNode;
using physics::BvhTriangle;

constexpr int kSahTile = 4096;         // primitives a block partitions in the large phase
constexpr int kSahTileThreads = 512;   // 8 primitives a thread
constexpr uint32_t kSahWarpMax = 256;  // largest node a warp takes
constexpr uint32_t kSahSmallMax = 8;   // largest node a thread takes
constexpr int kSahMidWarps = 8;        // warps a block in the middle phase
// After this many levels of a phase, nodes split at their middle position: depth stays bounded
// (kSahLevels levels a phase at most) however the binned splits peel primitives off.
constexpr int kSahForceMedianLevel = 40;
constexpr int kSahLevels = 64;
constexpr int kSahLevelsPerCheck = 8;

// Counters (uint32) on the device.
constexpr int kNodeCounter = 0;
constexpr int kSmallCount = 1;
constexpr int kLargeCounts = 2;                             // [level], tasks of the large phase
constexpr int kTileCounts = kLargeCounts + kSahLevels + 1;  // [level], their tiles
constexpr int kMidCounts = kTileCounts + kSahLevels + 1;    // [level], middle-phase tasks
constexpr int kCounterCount = kMidCounts + kSahLevels + 1;

__device__ inline uint32_t Ordered(float f) {
  const uint32_t b = __float_as_uint(f);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ inline float Unordered(uint32_t u) {
  return __uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}

// Where a node's primitives bin: lo and bins per metre on each axis (0 for a flat axis).
struct BinMap {
  float lo[3];
  float scale[3];
};

__device__ inline BinMap MapOf(const BvhBox& b) {
  BinMap m;
  for (int a = 0; a < 3; ++a) {
    const float extent = b.hi[a] - b.lo[a];
    m.lo[a] = b.lo[a];
    m.scale[a] = extent > 0 ? kSahBins / extent : 0.0f;
  }
  return m;
}

// The centre of a primitive's box on one axis, the point the bins sort by.
__device__ inline float Centre(const BvhBox& b, int a) {
  return __fmul_rn(__fadd_rn(b.lo[a], b.hi[a]), 0.5f);
}

__device__ inline int BinOf(const BvhBox& b, const BinMap& m, int a) {
  const float u = __fmul_rn(__fsub_rn(Centre(b, a), m.lo[a]), m.scale[a]);
  return min(kSahBins - 1, max(0, static_cast<int>(u)));
}

// Empties `bins` cooperatively (`lane` of `lanes` threads).
__device__ inline void ClearBins(SahBins* bins, int lane, int lanes) {
  auto* words = reinterpret_cast<uint32_t*>(bins);
  constexpr int kBoundWords = 2 * 3 * kSahBins * 3;
  constexpr int kWords = sizeof(SahBins) / sizeof(uint32_t);
  for (int i = lane; i < kWords; i += lanes)
    words[i] = i < kBoundWords / 2 ? 0xffffffffu : 0u;  // lo: +inf as ordered; hi and counts: 0
}

// Adds the warp's primitives (valid lanes) to bins[slot] on every axis: lanes with the same
// (slot, bin) reduce together and one of them updates the bins, so a warp of neighbours costs
// a few atomics, not 32 on one address. Every lane of the warp calls it.
__device__ inline void WarpAddToBins(SahBins* bins, int slot, bool valid, const BvhBox& box,
                                     const BinMap& map) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  uint32_t value[6];
  for (int k = 0; k < 3; ++k) {
    value[k] = Ordered(box.lo[k]);
    value[3 + k] = Ordered(box.hi[k]);
  }
  for (int a = 0; a < 3; ++a) {
    const int key = valid ? slot * kSahBins + BinOf(box, map, a) : -1;
    unsigned todo = __ballot_sync(0xffffffffu, valid);
    while (todo) {
      const int leader = __ffs(todo) - 1;
      const int leader_key = __shfl_sync(0xffffffffu, key, leader);
      const bool mine = valid && key == leader_key;
      const unsigned group = __ballot_sync(0xffffffffu, mine);
      todo &= ~group;
      uint32_t r[6];
      for (int k = 0; k < 3; ++k) {
        r[k] = __reduce_min_sync(0xffffffffu, mine ? value[k] : 0xffffffffu);
        r[3 + k] = __reduce_max_sync(0xffffffffu, mine ? value[3 + k] : 0u);
      }
      if (lane == leader) {
        SahBins& b = bins[leader_key / kSahBins];
        const int bin = leader_key % kSahBins;
        for (int k = 0; k < 3; ++k) {
          atomicMin(&b.lo[a][bin][k], r[k]);
          atomicMax(&b.hi[a][bin][k], r[3 + k]);
        }
        atomicAdd(&b.count[a][bin], static_cast<uint32_t>(__popc(group)));
      }
    }
  }
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

// The best binned split of a node from its bins (one warp, every lane gets the answer). Lanes
// 0-15 hold one bin each and scan them in both directions; ties go to the lower axis, then the
// lower bin. axis -1: no split leaves both sides non-empty.
__device__ inline SahChoice WarpBestSplit(const SahBins& bins) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int bin = lane & (kSahBins - 1);
  float best = __builtin_huge_valf();
  int best_key = 1 << 30;
  for (int a = 0; a < 3; ++a) {
    float lo[3], hi[3], rlo[3], rhi[3];
    for (int k = 0; k < 3; ++k) {
      lo[k] = rlo[k] = Unordered(bins.lo[a][bin][k]);
      hi[k] = rhi[k] = Unordered(bins.hi[a][bin][k]);
    }
    uint32_t n = bins.count[a][bin], rn = n;
    // Inclusive scans within each half-warp: left over bins [0, bin], right over [bin, 15].
    for (int d = 1; d < kSahBins; d *= 2) {
      float t[12];
      for (int k = 0; k < 3; ++k) {
        t[k] = __shfl_up_sync(0xffffffffu, lo[k], d, kSahBins);
        t[3 + k] = __shfl_up_sync(0xffffffffu, hi[k], d, kSahBins);
        t[6 + k] = __shfl_down_sync(0xffffffffu, rlo[k], d, kSahBins);
        t[9 + k] = __shfl_down_sync(0xffffffffu, rhi[k], d, kSahBins);
      }
      const uint32_t tn = __shfl_up_sync(0xffffffffu, n, d, kSahBins);
      const uint32_t trn = __shfl_down_sync(0xffffffffu, rn, d, kSahBins);
      if (bin >= d) {
        for (int k = 0; k < 3; ++k) {
          lo[k] = fminf(lo[k], t[k]);
          hi[k] = fmaxf(hi[k], t[3 + k]);
        }
        n += tn;
      }
      if (bin + d < kSahBins) {
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
      nlo[k] = __shfl_down_sync(0xffffffffu, rlo[k], 1, kSahBins);
      nhi[k] = __shfl_down_sync(0xffffffffu, rhi[k], 1, kSahBins);
    }
    const uint32_t nrn = __shfl_down_sync(0xffffffffu, rn, 1, kSahBins);
    if (lane < kSahBins - 1 && n > 0 && nrn > 0) {
      const float cost = HalfAreaOf(lo, hi) * static_cast<float>(n) +
                         HalfAreaOf(nlo, nhi) * static_cast<float>(nrn);
      const int key = a * kSahBins + bin;
      if (cost < best) {
        best = cost;
        best_key = key;
      }
    }
  }
  // The least (cost, key) over the warp.
  for (int d = 16; d >= 1; d /= 2) {
    const float oc = __shfl_xor_sync(0xffffffffu, best, d);
    const int ok = __shfl_xor_sync(0xffffffffu, best_key, d);
    if (oc < best || (oc == best && ok < best_key)) {
      best = oc;
      best_key = ok;
    }
  }
  SahChoice c;
  if (best_key >= (1 << 30)) return c;
  c.axis = best_key / kSahBins;
  c.bin = best_key % kSahBins;
  // The chosen split's sides, from the bins directly: lanes 0-15 take bin `lane`.
  const int a = c.axis;
  const bool left_side = bin <= c.bin;
  for (int s = 0; s < 2; ++s) {
    const bool in = (s == 0) == left_side && lane < kSahBins;
    for (int k = 0; k < 3; ++k) {
      c.box[s].lo[k] =
          Unordered(__reduce_min_sync(0xffffffffu, in ? bins.lo[a][bin][k] : 0xffffffffu));
      c.box[s].hi[k] = Unordered(__reduce_max_sync(0xffffffffu, in ? bins.hi[a][bin][k] : 0u));
    }
  }
  c.left = __reduce_add_sync(0xffffffffu, lane < kSahBins && left_side ? bins.count[a][bin] : 0u);
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

// Boxes of the triangles, into buffer 0 with their indices, and the scene's bounds.
__global__ void SahPrimitivesKernel(const float* tri, uint32_t n, BvhBox* boxes, uint32_t* ids,
                                    uint32_t* root_bounds) {
  using Reduce = cub::BlockReduce<uint32_t, kBuildBlock>;
  __shared__ typename Reduce::TempStorage storage;
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  BvhBox b;
  for (int k = 0; k < 3; ++k) {
    b.lo[k] = __builtin_huge_valf();
    b.hi[k] = -__builtin_huge_valf();
  }
  if (i < n) {
    BvhTriangle t;
    const float* p = tri + 9 * static_cast<size_t>(i);
    for (int k = 0; k < 3; ++k) {
      t.v0[k] = p[k];
      t.v1[k] = p[3 + k];
      t.v2[k] = p[6 + k];
    }
    b = physics::TriangleBounds(t);
    boxes[i] = b;
    ids[i] = i;
  }
  for (int k = 0; k < 3; ++k) {
    const uint32_t lo = Reduce(storage).Reduce(Ordered(b.lo[k]), MinOp{});
    __syncthreads();
    const uint32_t hi = Reduce(storage).Reduce(Ordered(b.hi[k]), MaxOp{});
    __syncthreads();
    if (threadIdx.x == 0) {
      atomicMin(&root_bounds[k], lo);
      atomicMax(&root_bounds[3 + k], hi);
    }
  }
}

// The root's task: a large one with its tiles, a middle one or a small one by its size.
__global__ void SahRootKernel(uint32_t n, const uint32_t* root_bounds, SahTask* large, uint2* tiles,
                              SahBins* bins, SahTask* mid, SahTask* small, uint32_t* counters) {
  SahTask t;
  t.node = 0;
  t.begin = 0;
  t.count = n;
  t.buffer = 0;
  for (int k = 0; k < 3; ++k) {
    t.box.lo[k] = Unordered(root_bounds[k]);
    t.box.hi[k] = Unordered(root_bounds[3 + k]);
  }
  if (n > kSahWarpMax) {
    if (threadIdx.x == 0) {
      large[0] = t;
      counters[kLargeCounts] = 1;
      counters[kTileCounts] = (n + kSahTile - 1) / kSahTile;
    }
    for (uint32_t k = threadIdx.x; k < (n + kSahTile - 1) / kSahTile; k += blockDim.x)
      tiles[k] = make_uint2(0, k * kSahTile);
    ClearBins(&bins[0], static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
  } else if (threadIdx.x == 0) {
    if (n > kSahSmallMax) {
      mid[0] = t;
      counters[kMidCounts] = 1;
    } else {
      small[0] = t;
      counters[kSmallCount] = 1;
    }
  }
}

// Bins the root's primitives (a large task's first binning; later levels bin as they
// partition). One block a tile.
__global__ void __launch_bounds__(kSahTileThreads)
    SahBinRootKernel(const BvhBox* boxes, uint32_t n, const SahTask* large, SahBins* bins) {
  __shared__ SahBins s_bins;
  ClearBins(&s_bins, static_cast<int>(threadIdx.x), kSahTileThreads);
  __syncthreads();
  const BinMap map = MapOf(large[0].box);
  const uint32_t begin = blockIdx.x * kSahTile;
  for (uint32_t i = begin + threadIdx.x; i < begin + kSahTile; i += kSahTileThreads) {
    const bool valid = i < n;
    const BvhBox b = valid ? boxes[i] : BvhBox{};
    WarpAddToBins(&s_bins, 0, valid, b, map);
  }
  __syncthreads();
  const auto* from = reinterpret_cast<const uint32_t*>(&s_bins);
  auto* to = reinterpret_cast<uint32_t*>(&bins[0]);
  constexpr int kBoundWords = 3 * kSahBins * 3;
  for (int w = static_cast<int>(threadIdx.x); w < static_cast<int>(sizeof(SahBins) / 4);
       w += kSahTileThreads) {
    if (w < kBoundWords)
      atomicMin(&to[w], from[w]);
    else if (w < 2 * kBoundWords)
      atomicMax(&to[w], from[w]);
    else
      atomicAdd(&to[w], from[w]);
  }
}

// Where a child goes: a large task of the next level (with its tiles and empty bins), a middle
// or a small one. Returns its next-level large task or -1. One lane calls it.
__device__ inline int32_t PlaceChild(const SahTask& child, int level, SahTask* next_large,
                                     uint2* next_tiles, SahBins* next_bins, SahTask* mid,
                                     SahTask* small, uint32_t* counters, int mid_level) {
  if (child.count <= kSahSmallMax) {
    small[atomicAdd(&counters[kSmallCount], 1u)] = child;
    return -1;
  }
  if (child.count <= kSahWarpMax) {
    mid[atomicAdd(&counters[kMidCounts + mid_level], 1u)] = child;
    return -1;
  }
  const uint32_t task = atomicAdd(&counters[kLargeCounts + level + 1], 1u);
  next_large[task] = child;
  const uint32_t tiles = (child.count + kSahTile - 1) / kSahTile;
  const uint32_t first = atomicAdd(&counters[kTileCounts + level + 1], tiles);
  for (uint32_t k = 0; k < tiles; ++k)
    next_tiles[first + k] = make_uint2(task, k * kSahTile);
  ClearBins(&next_bins[task], 0, 1);
  return static_cast<int32_t>(task);
}

// The two children of a split node: node indices for those of two primitives or more, ~position
// for single ones; their tasks in `child`.
__device__ inline void MakeChildren(const SahTask& t, uint32_t left, const BvhBox box[2],
                                    uint32_t buffer, uint32_t* counters, BvhNode* nodes,
                                    SahTask child[2]) {
  const uint32_t count[2] = {left, t.count - left};
  const uint32_t inner = (count[0] > 1) + (count[1] > 1);
  uint32_t at = inner ? atomicAdd(&counters[kNodeCounter], inner) : 0;
  int32_t code[2];
  for (int s = 0; s < 2; ++s) {
    child[s].begin = t.begin + (s == 0 ? 0 : left);
    child[s].count = count[s];
    child[s].buffer = buffer;
    child[s].box = box[s];
    child[s].node = count[s] > 1 ? static_cast<int32_t>(at++) : -1;
    code[s] = count[s] > 1 ? child[s].node : ~static_cast<int32_t>(child[s].begin);
  }
  WriteNode(nodes, t.node, box, code);
}

// Large phase, one warp a task of this level: the split from its bins, its children placed.
__global__ void SahSplitKernel(const SahTask* large, const SahBins* bins, int level,
                               SahSplit* splits, SahTask* next_large, uint2* next_tiles,
                               SahBins* next_bins, SahTask* mid, SahTask* small, uint32_t* counters,
                               BvhNode* nodes) {
  const uint32_t task = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (task >= counters[kLargeCounts + level]) return;
  const SahTask t = large[task];
  SahChoice c;
  if (level < kSahForceMedianLevel) c = WarpBestSplit(bins[task]);
  SahSplit split;
  split.axis = c.axis;
  split.bin = c.bin;
  split.left = c.axis >= 0 ? c.left : t.count / 2;
  split.cursor[0] = split.cursor[1] = 0;
  split.child_task[0] = split.child_task[1] = -1;
  if (lane == 0) {
    if (c.axis < 0) c.box[0] = c.box[1] = t.box;  // a positional split: the parent's bounds
    SahTask child[2];
    MakeChildren(t, split.left, c.box, 1 - t.buffer, counters, nodes, child);
    for (int s = 0; s < 2; ++s)
      split.child_task[s] =
          PlaceChild(child[s], level, next_large, next_tiles, next_bins, mid, small, counters, 0);
    splits[task] = split;
  }
}

// Large phase, one block a tile: each primitive to its side, and into its child's bins when
// that child is a large task of the next level. The partition keeps the tile's order (ranks
// from one ballot a warp and round, scanned over the block), so neighbours in the input stay
// neighbours in the node and a warp's primitives fall in few bins; tiles take their places on
// each side by an atomic cursor. Two passes over the tile (count, then place) keep no
// primitive in registers: more blocks an SM.
constexpr int kSahRounds = kSahTile / kSahTileThreads;
constexpr int kSahTileWarps = kSahTileThreads / 32;
__global__ void __launch_bounds__(kSahTileThreads)
    SahPartitionKernel(const SahTask* large, const uint2* tiles, int level, SahSplit* splits,
                       const SahTask* next_large, SahBins* next_bins, const BvhBox* boxes_in,
                       const uint32_t* ids_in, BvhBox* boxes_out, uint32_t* ids_out,
                       const uint32_t* counters) {
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
    }
    const bool binned = valid && child_task[s] >= 0;
    if (__any_sync(0xffffffffu, binned)) WarpAddToBins(s_bins, s, binned, b, child_map[s]);
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

// Middle phase, one warp a task: bins in shared memory, the split, a stable partition into the
// other buffer, the children placed.
__global__ void __launch_bounds__(32 * kSahMidWarps)
    SahMidKernel(const SahTask* tasks, int level, SahTask* next, SahTask* small,
                 BvhBox* const* boxes, uint32_t* const* ids, uint32_t* counters, BvhNode* nodes) {
  __shared__ SahBins s_bins[kSahMidWarps];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const uint32_t task = blockIdx.x * kSahMidWarps + warp;
  if (task >= counters[kMidCounts + level]) return;
  const SahTask t = tasks[task];
  const BvhBox* in_boxes = boxes[t.buffer];
  const uint32_t* in_ids = ids[t.buffer];
  BvhBox* out_boxes = boxes[1 - t.buffer];
  uint32_t* out_ids = ids[1 - t.buffer];
  SahBins* bins = &s_bins[warp];
  const BinMap map = MapOf(t.box);
  SahChoice c;
  if (level < kSahForceMedianLevel) {
    ClearBins(bins, lane, 32);
    __syncwarp();
    for (uint32_t i0 = 0; i0 < t.count; i0 += 32) {
      const uint32_t i = i0 + lane;
      const bool valid = i < t.count;
      const BvhBox b = valid ? in_boxes[t.begin + i] : BvhBox{};
      WarpAddToBins(bins, 0, valid, b, map);
    }
    __syncwarp();
    c = WarpBestSplit(*bins);
  }
  const uint32_t left = c.axis >= 0 ? c.left : t.count / 2;
  if (c.axis < 0) c.box[0] = c.box[1] = t.box;
  // Stable partition: a ballot a round gives each lane its place on its side.
  uint32_t placed[2] = {0, 0};
  for (uint32_t i0 = 0; i0 < t.count; i0 += 32) {
    const uint32_t i = i0 + lane;
    const bool valid = i < t.count;
    BvhBox b{};
    uint32_t id = 0;
    if (valid) {
      b = in_boxes[t.begin + i];
      id = in_ids[t.begin + i];
    }
    const bool right = valid && (c.axis >= 0 ? BinOf(b, map, c.axis) > c.bin : i >= left);
    const unsigned right_mask = __ballot_sync(0xffffffffu, right);
    const unsigned left_mask = __ballot_sync(0xffffffffu, valid && !right);
    const unsigned below = (1u << lane) - 1;
    if (valid) {
      const uint32_t at = right ? left + placed[1] + __popc(right_mask & below)
                                : placed[0] + __popc(left_mask & below);
      out_boxes[t.begin + at] = b;
      out_ids[t.begin + at] = id;
    }
    placed[0] += __popc(left_mask);
    placed[1] += __popc(right_mask);
  }
  if (lane == 0) {
    SahTask child[2];
    MakeChildren(t, left, c.box, 1 - t.buffer, counters, nodes, child);
    for (int s = 0; s < 2; ++s) {
      if (child[s].count <= kSahSmallMax)
        small[atomicAdd(&counters[kSmallCount], 1u)] = child[s];
      else
        next[atomicAdd(&counters[kMidCounts + level + 1], 1u)] = child[s];
    }
  }
}

// Small phase, one thread a task of at most kSahSmallMax primitives: the full SAH sweep
// (every split position of the primitives sorted by centre on each axis, ties by triangle
// index), recursively; writes the subtree's nodes and the final triangle order.
__global__ void SahSmallKernel(const SahTask* tasks, BvhBox* const* boxes, uint32_t* const* ids,
                               uint32_t* counters, BvhNode* nodes, uint32_t* order) {
  const uint32_t task = blockIdx.x * blockDim.x + threadIdx.x;
  if (task >= counters[kSmallCount]) return;
  const SahTask t = tasks[task];
  const uint32_t m = t.count;
  BvhBox box[kSahSmallMax];
  uint32_t id[kSahSmallMax];
  for (uint32_t k = 0; k < m; ++k) {
    box[k] = boxes[t.buffer][t.begin + k];
    id[k] = ids[t.buffer][t.begin + k];
  }
  if (m >= 2) {
    uint32_t next_node = m > 2 ? atomicAdd(&counters[kNodeCounter], m - 2) : 0;
    struct Range {
      uint8_t begin, end;
      int32_t node;
    };
    Range stack[kSahSmallMax];
    int top = 0;
    stack[top++] = {0, static_cast<uint8_t>(m), t.node};
    while (top > 0) {
      const Range r = stack[--top];
      const int n = r.end - r.begin;
      float best = __builtin_huge_valf();
      int best_axis = 0, best_at = 1;
      uint8_t order_on[3][kSahSmallMax];
      for (int a = 0; a < 3; ++a) {
        uint8_t* o = order_on[a];
        for (int k = 0; k < n; ++k) {  // insertion sort by (centre, triangle index)
          const uint8_t x = static_cast<uint8_t>(r.begin + k);
          const float cx = Centre(box[x], a);
          int j = k;
          while (j > 0) {
            const uint8_t y = o[j - 1];
            const float cy = Centre(box[y], a);
            if (cy < cx || (cy == cx && id[y] < id[x])) break;
            o[j] = y;
            --j;
          }
          o[j] = x;
        }
        // Right areas by a backward sweep, then the forward sweep picks the split.
        float right_area[kSahSmallMax];
        BvhBox acc = box[o[n - 1]];
        for (int k = n - 1; k >= 1; --k) {
          acc = physics::BoxUnion(acc, box[o[k]]);
          right_area[k] = HalfAreaOf(acc.lo, acc.hi);
        }
        acc = box[o[0]];
        for (int k = 1; k < n; ++k) {  // split: [0, k) left, [k, n) right
          const float cost = HalfAreaOf(acc.lo, acc.hi) * static_cast<float>(k) +
                             right_area[k] * static_cast<float>(n - k);
          if (cost < best) {
            best = cost;
            best_axis = a;
            best_at = k;
          }
          acc = physics::BoxUnion(acc, box[o[k]]);
        }
      }
      // Reorder the range by the chosen axis.
      BvhBox tmp_box[kSahSmallMax];
      uint32_t tmp_id[kSahSmallMax];
      for (int k = 0; k < n; ++k) {
        tmp_box[k] = box[order_on[best_axis][k]];
        tmp_id[k] = id[order_on[best_axis][k]];
      }
      for (int k = 0; k < n; ++k) {
        box[r.begin + k] = tmp_box[k];
        id[r.begin + k] = tmp_id[k];
      }
      const int mid = r.begin + best_at;
      const int lo_end[2] = {r.begin, mid}, hi_end[2] = {mid, r.end};
      BvhBox side_box[2];
      int32_t code[2];
      for (int s = 0; s < 2; ++s) {
        side_box[s] = box[lo_end[s]];
        for (int k = lo_end[s] + 1; k < hi_end[s]; ++k)
          side_box[s] = physics::BoxUnion(side_box[s], box[k]);
        if (hi_end[s] - lo_end[s] == 1) {
          code[s] = ~static_cast<int32_t>(t.begin + lo_end[s]);
        } else {
          code[s] = static_cast<int32_t>(next_node++);
          stack[top++] = {static_cast<uint8_t>(lo_end[s]), static_cast<uint8_t>(hi_end[s]),
                          code[s]};
        }
      }
      WriteNode(nodes, r.node, side_box, code);
    }
  }
  for (uint32_t k = 0; k < m; ++k)
    order[t.begin + k] = id[k];
}

__global__ void GatherByOrderKernel(const float* tri, uint32_t n, const uint32_t* order,
                                    BvhTriangle* sorted) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* t = tri + 9 * static_cast<size_t>(order[i]);
  BvhTriangle out;
  for (int a = 0; a < 3; ++a) {
    out.v0[a] = t[a];
    out.v1[a] = t[3 + a];
    out.v2[a] = t[6 + a];
  }
  sorted[i] = out;
}

}  // namespace

Status DeviceBvh::BuildBinnedSah(const float* triangles, uint32_t n, cudaStream_t stream) {
  // Capacities: large tasks have more than kSahWarpMax primitives, so fewer than
  // n / kSahWarpMax of them at a level; their tiles fewer than n / kSahTile + that; middle
  // tasks more than kSahSmallMax, small ones at least one.
  const uint32_t large_max = n / kSahWarpMax + 1;
  const uint32_t tile_max = n / kSahTile + large_max + 1;
  const uint32_t mid_max = n / (kSahSmallMax + 1) + 1;
  for (int k = 0; k < 2; ++k) {
    for (Status s : {cluster_boxes_[k].Reserve(n), sah_ids_[k].Reserve(n),
                     sah_large_[k].Reserve(large_max), sah_tiles_[k].Reserve(tile_max),
                     sah_bins_[k].Reserve(large_max), sah_mid_[k].Reserve(mid_max)}) {
      if (!s.ok()) return s;
    }
  }
  for (Status s :
       {sah_splits_.Reserve(large_max), sah_small_.Reserve(n), sah_counters_.Reserve(kCounterCount),
        bounds_.Reserve(6), nodes_.Reserve(n - 1), sah_buffers_.Reserve(4)}) {
    if (!s.ok()) return s;
  }
  auto* counters = sah_counters_.get();
  auto* root_bounds = reinterpret_cast<uint32_t*>(bounds_.get());
  const uint32_t start_bounds[6] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0, 0, 0};
  LT_CUDA_TRY(cudaMemcpyAsync(root_bounds, start_bounds, sizeof(start_bounds),
                              cudaMemcpyHostToDevice, stream));
  LT_CUDA_TRY(cudaMemsetAsync(counters, 0, kCounterCount * sizeof(uint32_t), stream));
  const uint32_t one = 1;  // the root is node 0
  LT_CUDA_TRY(
      cudaMemcpyAsync(counters + kNodeCounter, &one, sizeof(one), cudaMemcpyHostToDevice, stream));
  // Both buffers' addresses on the device, for the phases whose tasks say which to read.
  void* buffers[4] = {cluster_boxes_[0].get(), cluster_boxes_[1].get(), sah_ids_[0].get(),
                      sah_ids_[1].get()};
  LT_CUDA_TRY(cudaMemcpyAsync(sah_buffers_.get(), buffers, sizeof(buffers), cudaMemcpyHostToDevice,
                              stream));
  auto* const* boxes = reinterpret_cast<BvhBox* const*>(sah_buffers_.get());
  auto* const* ids = reinterpret_cast<uint32_t* const*>(sah_buffers_.get() + 2);
  SahPrimitivesKernel<<<BuildBlocks(n), kBuildBlock, 0, stream>>>(
      triangles, n, cluster_boxes_[0].get(), sah_ids_[0].get(), root_bounds);
  SahRootKernel<<<1, 256, 0, stream>>>(n, root_bounds, sah_large_[0].get(), sah_tiles_[0].get(),
                                       sah_bins_[0].get(), sah_mid_[0].get(), sah_small_.get(),
                                       counters);
  LT_CUDA_TRY(cudaGetLastError());
  auto read_counter = [&](int at, uint32_t& value) -> Status {
    LT_CUDA_TRY(
        cudaMemcpyAsync(&value, counters + at, sizeof(value), cudaMemcpyDeviceToHost, stream));
    LT_CUDA_TRY(cudaStreamSynchronize(stream));
    return {};
  };
  if (n > kSahWarpMax) {
    SahBinRootKernel<<<(n + kSahTile - 1) / kSahTile, kSahTileThreads, 0, stream>>>(
        cluster_boxes_[0].get(), n, sah_large_[0].get(), sah_bins_[0].get());
    LT_CUDA_TRY(cudaGetLastError());
    int level = 0;
    for (;;) {
      for (int k = 0; k < kSahLevelsPerCheck && level < kSahLevels; ++k, ++level) {
        const int p = level & 1;
        const uint32_t tasks = level < 31 ? std::min(large_max, 1u << level) : large_max;
        const uint32_t tiles = std::min(tile_max, n / kSahTile + tasks + 1);
        SahSplitKernel<<<(tasks * 32 + kBuildBlock - 1) / kBuildBlock, kBuildBlock, 0, stream>>>(
            sah_large_[p].get(), sah_bins_[p].get(), level, sah_splits_.get(),
            sah_large_[1 - p].get(), sah_tiles_[1 - p].get(), sah_bins_[1 - p].get(),
            sah_mid_[0].get(), sah_small_.get(), counters, nodes_.get());
        SahPartitionKernel<<<tiles, kSahTileThreads, 0, stream>>>(
            sah_large_[p].get(), sah_tiles_[p].get(), level, sah_splits_.get(),
            sah_large_[1 - p].get(), sah_bins_[1 - p].get(), cluster_boxes_[p].get(),
            sah_ids_[p].get(), cluster_boxes_[1 - p].get(), sah_ids_[1 - p].get(), counters);
        LT_CUDA_TRY(cudaGetLastError());
      }
      uint32_t remaining = 0;
      if (Status s = read_counter(kLargeCounts + level, remaining); !s.ok()) return s;
      if (remaining == 0) break;
      if (level >= kSahLevels) return Error{"binned-SAH BVH: large phase did not end (a bug)"};
    }
  }
  // Middle phase; its first level's tasks came from the root or the large phase.
  int level = 0;
  for (;;) {
    uint32_t tasks = 0;
    if (Status s = read_counter(kMidCounts + level, tasks); !s.ok()) return s;
    if (tasks == 0) break;
    for (int k = 0; k < kSahLevelsPerCheck && level < kSahLevels; ++k, ++level) {
      // Tasks at least double each level but never exceed mid_max.
      const uint64_t bound = std::min<uint64_t>(mid_max, uint64_t{tasks} << std::min(k, 20));
      const auto blocks = static_cast<unsigned>((bound + kSahMidWarps - 1) / kSahMidWarps);
      SahMidKernel<<<blocks, 32 * kSahMidWarps, 0, stream>>>(
          sah_mid_[level & 1].get(), level, sah_mid_[1 - (level & 1)].get(), sah_small_.get(),
          boxes, ids, counters, nodes_.get());
      LT_CUDA_TRY(cudaGetLastError());
    }
    if (level >= kSahLevels) return Error{"binned-SAH BVH: middle phase did not end (a bug)"};
  }
  uint32_t small = 0;
  if (Status s = read_counter(kSmallCount, small); !s.ok()) return s;
  SahSmallKernel<<<BuildBlocks(small), kBuildBlock, 0, stream>>>(
      sah_small_.get(), boxes, ids, counters, nodes_.get(), order_.get());
  LT_CUDA_TRY(cudaGetLastError());
  uint32_t made = 0;
  if (Status s = read_counter(kNodeCounter, made); !s.ok()) return s;
  if (made != n - 1) {
    return Error{"binned-SAH BVH made " + std::to_string(made) + " nodes for " + std::to_string(n) +
                 " triangles (a bug)"};
  }
  GatherByOrderKernel<<<BuildBlocks(n), kBuildBlock, 0, stream>>>(triangles, n, order_.get(),
                                                                  sorted_.get());
  LT_CUDA_TRY(cudaGetLastError());
  if (Status s = Parents(stream); !s.ok()) return s;
  return Collapse(stream);
}

}  // namespace lt::cuda
