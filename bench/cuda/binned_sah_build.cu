// A binned-SAH BVH built top-down on the GPU (Wald, "On fast construction of SAH-based bounding
// volume hierarchies", IEEE RT 2007: 16 bins an axis over the node's bounds, the split of least
// A_L N_L + A_R N_R; above kSubtreeOneAxisAbove primitives on the node's longest axis only,
// LongestAxis), in three phases by node size:
//   - large nodes (> kSahBlockMax primitives), level by level with the work lists on the device:
//     tiles of kSahTile primitives, a block each, partition the primitives and bin them into
//     their child's bins in one pass (shared-memory bins, then one global atomic per bin value
//     and block); a warp per node picks the split;
//   - middle nodes (kSahWarpMax + 1 to kSahBlockMax primitives), a block each (sah_middle.cu),
//     split down to kSahWarpMax with their positions in shared memory and the large phase's
//     bins and split choice, so they take the splits the large phase would, without a launch
//     a level;
//   - subtrees (<= kSahWarpMax primitives), a warp each, in shared memory (sah_subtree.cu): the
//     warp splits the nodes of more than kSahSmallMax primitives by bins (kSubtreeBins an
//     axis), then each lane builds one of the small ones left by a full SAH sweep over its
//     primitives sorted on each axis (sah_lanes.cuh). The primitives are read once and their
//     order written once.
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
// This file holds the primitives' boxes, the large phase and the driver; the middle phase is in
// sah_middle.cu, the subtree phase in sah_subtree.cu, and the helpers the phases share in
// sah_device.cuh.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <memory>
#include <string>

#include "lbvh.h"  // sim/cuda: DeviceBuffer, BuildBlocks
#include "lidartwin/bench/gpu_binned_sah.h"
#include "sah_device.cuh"
#include "sah_middle.h"
#include "sah_subtree.h"
#include "sah_work.h"

namespace lt::bench {

namespace {

using namespace sah;  // NOLINT: the phases' shared helpers (sah_device.cuh)
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
constexpr int kSahTile = 1024;        // primitives a block partitions in the large phase
constexpr int kSahTileThreads = 256;  // 4 primitives a thread
// Large-phase levels launched between reads of the counters (a host round trip each).
constexpr int kSahLevelsPerCheck = 8;

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
      const Status s = LaunchSahMiddle(b.middle.get(), middle, boxes, ids, counters, subtree_tasks,
                                       nodes, order, stream);
      if (!s.ok()) return s;
    }
  }
  // The subtrees, with no task count read back.
  return LaunchSahSubtrees(options.subtree_by_levels, subtree_tasks, subtree_max, boxes, ids,
                           counters, nodes, order, out.costs, out.leaf, b.subtree_blocks, stream);
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
