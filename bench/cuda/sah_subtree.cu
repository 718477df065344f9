// The GPU binned-SAH builder's subtree phase: tasks of up to kSahWarpMax primitives, a warp
// each, in shared memory (binned_sah_build.cu describes the builder). The warp splits the nodes
// of more than kSahSmallMax primitives by bins, either one at a time (BuildSubtree) or a depth
// at a time (BuildSubtreeByLevels); each lane then builds one of the small ranges left by a
// full SAH sweep (SmallSubtree).
#include "sah_subtree.h"

#include <algorithm>
#include <type_traits>

#include "cuda_check.h"  // sim/cuda: LT_CUDA_TRY
#include "sah_lanes.cuh"

namespace lt::bench::sah {
namespace {

using physics::CollapseCost;

// A warp a block: a block's shared memory is free for the next subtree as soon as its one is
// built, not when the largest of four is.
constexpr int kSubtreeWarps = 1;  // warps a block in the subtree phase

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

// A task's boxes into the warp's shared memory and its slots in load order (box: kSahWarpMax
// boxes; slot: as many bytes), and its whole range listed: the first range to split (`split`)
// if it has more than kSahSmallMax primitives, else the lanes' one small range (`small`).
// Returns how many ranges went to `split` (1 or 0), the same in every lane. The boxes are
// copied word by word: a lane a box would read 24-byte strides, 24 sectors an instruction
// where a word a lane reads four.
__device__ inline int LoadTask(const SahTask& t, BvhBox* const* boxes, BvhBox* box, uint8_t* slot,
                               TaskRange* split, SmallRange* small) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int n = static_cast<int>(t.count);
  static_assert(sizeof(BvhBox) == 6 * sizeof(uint32_t), "a box is six words");
  const auto* from = reinterpret_cast<const uint32_t*>(boxes[t.buffer] + t.begin);
  auto* to = reinterpret_cast<uint32_t*>(box);
  for (int i = lane; i < 6 * n; i += 32)
    to[i] = from[i];
  for (int i = lane; i < n; i += 32)
    slot[i] = static_cast<uint8_t>(i);
  const bool splits = n > static_cast<int>(kSahSmallMax);
  if (lane == 0) {
    const TaskRange whole{0,    static_cast<uint16_t>(n),       static_cast<uint8_t>(t.side),
                          0,    static_cast<uint16_t>(t.depth), t.parent,
                          t.box};
    if (splits)
      *split = whole;
    else
      *small = {whole.begin, whole.end, whole.side, whole.buffer, whole.parent};
  }
  __syncwarp();
  return splits ? 1 : 0;
}

// The exact bounds of a node's two halves by position (m primitives from `begin` of the slot
// order `in`, the first `left` on the left), where no binned split exists: so that the halves'
// bins spread again. The whole warp; every lane gets them.
__device__ inline void PositionalSides(const BvhBox* box, const uint8_t* in, int begin, int m,
                                       int left, BvhBox side_box[2]) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  for (int side = 0; side < 2; ++side) {
    uint32_t lo[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu}, hi[3] = {0, 0, 0};
    const int from = side == 0 ? 0 : left, to = side == 0 ? left : m;
    for (int i = from + lane; i < to; i += 32) {
      const BvhBox& b = box[in[begin + i]];
      for (int k = 0; k < 3; ++k) {
        lo[k] = min(lo[k], Ordered(b.lo[k]));
        hi[k] = max(hi[k], Ordered(b.hi[k]));
      }
    }
    for (int k = 0; k < 3; ++k) {
      side_box[side].lo[k] = Unordered(__reduce_min_sync(0xffffffffu, lo[k]));
      side_box[side].hi[k] = Unordered(__reduce_max_sync(0xffffffffu, hi[k]));
    }
  }
}

// Range r of task t split at `left` into the slot order `out`, as node `me` of gap `gap`
// (is_root: the tree's root, whose gap goes to counters[kRootGap]): the node written with its
// children's boxes and, for single primitives, their leaf codes (~position) and places in the
// order; its index written into its parent's slot; child: its two children's ranges, a depth
// down in the other slot buffer (a child of two or more writes its index when it splits).
// One lane calls it.
__device__ inline void WriteRangeSplit(const TaskRange& r, int left, int32_t me, uint32_t gap,
                                       bool is_root, const BvhBox box[2], const SahTask& t,
                                       const uint8_t* out, const uint32_t* task_ids,
                                       uint32_t* counters, BvhNode* nodes, uint32_t* order,
                                       TaskRange child[2]) {
  if (is_root) counters[kRootGap] = gap;
  if (r.parent >= 0) nodes[r.parent].child[r.side] = me;
  const int count[2] = {left, r.end - r.begin - left};
  int32_t code[2];
  for (int s = 0; s < 2; ++s) {
    const int begin = r.begin + (s == 0 ? 0 : left);
    code[s] = 0;
    if (count[s] == 1) {
      code[s] = ~static_cast<int32_t>(t.begin + static_cast<uint32_t>(begin));
      order[t.begin + begin] = task_ids[out[begin]];
    }
    child[s] = {static_cast<uint16_t>(begin),
                static_cast<uint16_t>(begin + count[s]),
                static_cast<uint8_t>(s),
                static_cast<uint8_t>(1 - r.buffer),
                static_cast<uint16_t>(r.depth + 1),
                me,
                box[s]};
  }
  WriteNode(nodes, me, box, code);
}

// One warp a subtree task: its primitives loaded once into shared memory, its nodes split by
// bins (the warp) down to kSahSmallMax primitives and then by full SAH sweeps (a lane each);
// writes the nodes, their indices into their parents, and the primitives' final order; the
// lanes also write their nodes' collapse costs and leaf marks.
__device__ inline void BuildSubtree(const SahTask& t, SubtreeSpace& w, BvhBox* const* boxes,
                                    uint32_t* const* ids, uint32_t* counters, BvhNode* nodes,
                                    uint32_t* order, CollapseCost* costs, uint8_t* leaf) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const uint32_t* task_ids = ids[t.buffer] + t.begin;
  constexpr int kSmall = static_cast<int>(kSahSmallMax);
  int top = LoadTask(t, boxes, w.box, w.slot[0], &w.stack[0], &w.small[0]);
  int small = 1 - top;  // the same in every lane
  bool root = t.parent < 0;
  uint32_t root_gap = root ? 0 : counters[kRootGap];
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
    if (c.axis < 0) PositionalSides(w.box, in, r.begin, m, left, c.box);
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
      TaskRange child[2];
      WriteRangeSplit(r, left, me, gap, is_root, c.box, t, out, task_ids, counters, nodes, order,
                      child);
      int pushed = 0, listed = 0;
      for (int s = 0; s < 2; ++s) {
        if (count[s] > kSmall)
          w.stack[top + pushed++] = child[s];
        else if (count[s] >= 2)
          w.small[small + listed++] = {child[s].begin, child[s].end, child[s].side, child[s].buffer,
                                       me};
      }
    }
    for (int s = 0; s < 2; ++s) {
      top += count[s] > kSmall ? 1 : 0;
      small += count[s] >= 2 && count[s] <= kSmall ? 1 : 0;
    }
    __syncwarp();
  }
  SmallRanges(w.small, w.by_size, small, w.slot, w.box, t, root, root_gap, task_ids, counters,
              nodes, order, costs, leaf);
}

// The subtree phase by levels: the warp splits the nodes of one depth of its task together,
// up to kLevelChunk at a time, where the stack above splits one node a pass. A node of 9 to 32
// primitives fills at most one round of the warp's binning and partition, but each of its
// passes also cleared bins, scanned them (WarpBestSplit: 22 % of the kernel's instructions and
// 16 % of its stall samples at 1 M triangles on the H200, before the warp's splits above 64
// binned one axis: device-runs/2026-12-04-h200-ncu-build-and-coherent-tail.txt) and wrote
// the node from one lane; a task of 256 makes some
// 30 such nodes in five depths. Here the rounds run over the chunk's primitives together, each
// node's bins are swept by lanes of its own (LaneBestSplitOnAxis), and the nodes are written a
// lane each. The splits are the stack's (the same bins, the same choice, the same stable
// partition), so the trees are the same node for node (GpuBinnedSahOptions::subtree_by_levels).
constexpr int kLevelChunk = 8;  // nodes split together: four lanes each sweep their bins
constexpr int kLanesANode = 32 / kLevelChunk;
static_assert(kLanesANode >= 3, "a lane for each axis of a node");
static_assert((kLanesANode & (kLanesANode - 1)) == 0,
              "aligned lane groups (LeastSplitAcrossLanes)");

// The best split of one axis's bins by one lane: every split after bin b (0 to kBins - 2) by a
// backward sweep (right sides) and a forward one (left sides), kept where it goes before
// (best, best_uneven, best_key) as BetterSplit orders them. The sides' bounds are unions of the
// same bins' bounds as WarpBestSplit's scans take, and min and max do not depend on order, so
// the costs are the same floats.
template <int kBins>
__device__ inline void LaneBestSplitOnAxis(const BinsOf<kBins>& bins, int a, float& best,
                                           uint32_t& best_uneven, int& best_key) {
  float right_area[kBins];
  uint32_t right_count[kBins];
  float lo[3], hi[3];
  uint32_t n = 0;
#pragma unroll
  for (int b = kBins - 1; b >= 1; --b) {
    for (int k = 0; k < 3; ++k) {
      const float l = Unordered(bins.lo[a][b][k]), h = Unordered(bins.hi[a][b][k]);
      lo[k] = b == kBins - 1 ? l : fminf(lo[k], l);
      hi[k] = b == kBins - 1 ? h : fmaxf(hi[k], h);
    }
    n += bins.count[a][b];
    right_area[b] = HalfAreaOf(lo, hi);
    right_count[b] = n;
  }
  n = 0;
#pragma unroll
  for (int b = 0; b < kBins - 1; ++b) {
    for (int k = 0; k < 3; ++k) {
      const float l = Unordered(bins.lo[a][b][k]), h = Unordered(bins.hi[a][b][k]);
      lo[k] = b == 0 ? l : fminf(lo[k], l);
      hi[k] = b == 0 ? h : fmaxf(hi[k], h);
    }
    n += bins.count[a][b];
    const uint32_t rn = right_count[b + 1];
    if (n > 0 && rn > 0) {
      const float cost = SplitCost(HalfAreaOf(lo, hi), n, right_area[b + 1], rn);
      const uint32_t uneven = n > rn ? n - rn : rn - n;
      const int key = a * kBins + b;
      if (BetterSplit(cost, uneven, key, best, best_uneven, best_key)) {
        best = cost;
        best_uneven = uneven;
        best_key = key;
      }
    }
  }
}

// A chunk node's split, for the partition: axis -1 splits at position `left`.
struct LevelSplit {
  int8_t axis, bin;
  uint16_t left;
};

struct LevelSpace {
  BvhBox box[kSahWarpMax];  // the task's primitives, in load order (their slots)
  uint8_t slot[2][kSahWarpMax];
  BinsOf<kSubtreeBins> bins[kLevelChunk];
  BinMap map[kLevelChunk];  // the chunk's nodes' bins; axis -1: all three binned
  LevelSplit split[kLevelChunk];
  uint16_t first[kLevelChunk + 1];    // where each chunk node starts among the chunk's primitives
  uint16_t placed[kLevelChunk][2];    // primitives partitioned to each side so far
  TaskRange level[2][kSubtreeStack];  // this depth's nodes of more than kSahSmallMax, the next's
  SmallRange small[kSahWarpMax / 2];
  uint8_t by_size[kSahWarpMax / 2];
};

// Which chunk node the chunk's i-th primitive belongs to, and its position in the task.
__device__ inline int ChunkNodeOf(const LevelSpace& w, const TaskRange* nodes, int nodes_n, int i,
                                  int& position) {
  int k = 0;
#pragma unroll
  for (int j = 1; j < kLevelChunk; ++j)
    k += j < nodes_n && i >= w.first[j] ? 1 : 0;
  position = nodes[k].begin + (i - w.first[k]);
  return k;
}

// One warp a subtree task, a depth at a time (see kLevelChunk); the small ranges then go to the
// lanes as in BuildSubtree.
__device__ inline void BuildSubtreeByLevels(const SahTask& t, LevelSpace& w, BvhBox* const* boxes,
                                            uint32_t* const* ids, uint32_t* counters,
                                            BvhNode* nodes, uint32_t* order, CollapseCost* costs,
                                            uint8_t* leaf) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const unsigned below = (1u << lane) - 1;
  const uint32_t* task_ids = ids[t.buffer] + t.begin;
  constexpr int kSmall = static_cast<int>(kSahSmallMax);
  int count = LoadTask(t, boxes, w.box, w.slot[0], &w.level[0][0], &w.small[0]);
  int small = 1 - count;  // the same in every lane
  bool root = t.parent < 0;
  uint32_t root_gap = root ? 0 : counters[kRootGap];
  for (int depth = 0; count > 0; ++depth) {
    const int cur = depth & 1;
    const uint8_t* in = w.slot[cur];  // a depth's nodes all read the same buffer
    uint8_t* out = w.slot[1 - cur];
    int next = 0;
    for (int c0 = 0; c0 < count; c0 += kLevelChunk) {
      const TaskRange* chunk = &w.level[cur][c0];
      const int chunk_n = min(kLevelChunk, count - c0);
      // The chunk's maps and starts, empty bins.
      if (lane < chunk_n) {
        const TaskRange& r = chunk[lane];
        BinMap map = MapOf<kSubtreeBins>(r.box);
        if (r.end - r.begin <= kSubtreeOneAxisAbove) map.axis = -1;
        w.map[lane] = map;
        w.placed[lane][0] = w.placed[lane][1] = 0;
      }
      if (lane == 0) {
        int at = 0;
        for (int k = 0; k < chunk_n; ++k) {
          w.first[k] = static_cast<uint16_t>(at);
          at += chunk[k].end - chunk[k].begin;
        }
        w.first[chunk_n] = static_cast<uint16_t>(at);
      }
      for (int k = 0; k < chunk_n; ++k)
        ClearBins(&w.bins[k], lane, 32);
      __syncwarp();
      const int total = w.first[chunk_n];
      for (int i0 = 0; i0 < total; i0 += 32) {
        const int i = i0 + lane;
        const bool valid = i < total;
        int position = 0;
        const int k = valid ? ChunkNodeOf(w, chunk, chunk_n, i, position) : 0;
        const BvhBox b = valid ? w.box[in[position]] : BvhBox{};
        const BinMap& map = w.map[k];
#pragma unroll
        for (int a = 0; a < 3; ++a) {
          WarpAddToBinsOnAxis<kSubtreeBins>(w.bins, k, valid && (map.axis < 0 || map.axis == a), b,
                                            map, a);
        }
      }
      __syncwarp();
      // Each node's axes by lanes of its own, then the least over them.
      const int g = lane / kLanesANode, a = lane % kLanesANode;
      float best = __builtin_huge_valf();
      uint32_t best_uneven = 0xffffffffu;
      int best_key = 1 << 30;
      if (g < chunk_n && a < 3 && chunk[g].depth < kSahForceMedianLevel &&
          (w.map[g].axis < 0 || w.map[g].axis == a))
        LaneBestSplitOnAxis<kSubtreeBins>(w.bins[g], a, best, best_uneven, best_key);
      LeastSplitAcrossLanes(kLanesANode, best, best_uneven, best_key);
      // The node's first lane takes its sides from the chosen axis's bins.
      const bool leads = a == 0 && g < chunk_n;
      BvhBox side_box[2];
      int left = 0;
      if (leads) {
        const TaskRange& r = chunk[g];
        const int m = r.end - r.begin;
        LevelSplit s{-1, 0, static_cast<uint16_t>(m / 2)};
        if (best_key < (1 << 30)) {
          s.axis = static_cast<int8_t>(best_key / kSubtreeBins);
          s.bin = static_cast<int8_t>(best_key % kSubtreeBins);
          const BinsOf<kSubtreeBins>& bins = w.bins[g];
          // Left and right accumulated by selects (an array indexed by the side would live
          // in local memory).
          uint32_t llo[3], lhi[3], rlo[3], rhi[3], left_count = 0;
          for (int k = 0; k < 3; ++k) {
            llo[k] = rlo[k] = 0xffffffffu;
            lhi[k] = rhi[k] = 0;
          }
#pragma unroll
          for (int bin = 0; bin < kSubtreeBins; ++bin) {
            const bool on_left = bin <= s.bin;
            for (int k = 0; k < 3; ++k) {
              const uint32_t l = bins.lo[s.axis][bin][k], h = bins.hi[s.axis][bin][k];
              llo[k] = on_left ? min(llo[k], l) : llo[k];
              lhi[k] = on_left ? max(lhi[k], h) : lhi[k];
              rlo[k] = on_left ? rlo[k] : min(rlo[k], l);
              rhi[k] = on_left ? rhi[k] : max(rhi[k], h);
            }
            left_count += on_left ? bins.count[s.axis][bin] : 0u;
          }
          for (int k = 0; k < 3; ++k) {
            side_box[0].lo[k] = Unordered(llo[k]);
            side_box[0].hi[k] = Unordered(lhi[k]);
            side_box[1].lo[k] = Unordered(rlo[k]);
            side_box[1].hi[k] = Unordered(rhi[k]);
          }
          s.left = static_cast<uint16_t>(left_count);
        }
        w.split[g] = s;
        left = s.left;
      }
      __syncwarp();
      // Nodes with no binned split: their halves' exact bounds, a node at a time (rare).
      for (unsigned p = __ballot_sync(0xffffffffu, leads && w.split[g].axis < 0); p != 0;
           p &= p - 1) {
        const int leader = __ffs(p) - 1, k = leader / kLanesANode;
        BvhBox halves[2];
        PositionalSides(w.box, in, chunk[k].begin, chunk[k].end - chunk[k].begin, w.split[k].left,
                        halves);
        if (lane == leader) {
          side_box[0] = halves[0];
          side_box[1] = halves[1];
        }
      }
      // The stable partition: each primitive's place among its node's side so far, by ballots
      // over the round's lanes of its node (a run of lanes) and the counts of earlier rounds.
      for (int i0 = 0; i0 < total; i0 += 32) {
        const int i = i0 + lane;
        const bool valid = i < total;
        int position = 0;
        const int k = valid ? ChunkNodeOf(w, chunk, chunk_n, i, position) : 0;
        const uint8_t sl = valid ? in[position] : 0;
        const LevelSplit s = w.split[k];
        const int within = i - w.first[k];
        const bool right =
            valid && (s.axis >= 0 ? BinOf<kSubtreeBins>(w.box[sl], w.map[k], s.axis) > s.bin
                                  : within >= s.left);
        const unsigned rm = __ballot_sync(0xffffffffu, right);
        const unsigned lm = __ballot_sync(0xffffffffu, valid && !right);
        const int run_start = max(0, w.first[k] - i0);
        const unsigned run = valid ? ~((1u << run_start) - 1) : 0;  // lanes from the run's first
        const int at = right ? s.left + w.placed[k][1] + __popc(rm & run & below)
                             : w.placed[k][0] + __popc(lm & run & below);
        const int run_end = min(32, w.first[k + 1] - i0);  // one past the run's last lane
        __syncwarp();
        if (valid) {
          out[chunk[k].begin + at] = sl;
          if (lane == run_end - 1) {
            const unsigned mine = run & (run_end == 32 ? 0xffffffffu : (1u << run_end) - 1);
            w.placed[k][0] += static_cast<uint16_t>(__popc(lm & mine));
            w.placed[k][1] += static_cast<uint16_t>(__popc(rm & mine));
          }
        }
        __syncwarp();
      }
      // Each node written by its first lane; its children listed for the next depth or the lanes.
      int32_t me = 0;
      int pushed = 0, listed = 0;
      TaskRange child[2];
      int count_of[2] = {0, 0};
      if (leads) {
        const TaskRange& r = chunk[g];
        const int m = r.end - r.begin;
        const uint32_t gap = t.begin + r.begin + static_cast<uint32_t>(left) - 1;
        bool is_root = false;
        me = RangeSplitNode(gap, r.parent, root, root_gap, is_root);
        WriteRangeSplit(r, left, me, gap, is_root, side_box, t, out, task_ids, counters, nodes,
                        order, child);
        count_of[0] = left;
        count_of[1] = m - left;
        for (int s = 0; s < 2; ++s) {
          pushed += count_of[s] > kSmall ? 1 : 0;
          listed += count_of[s] >= 2 && count_of[s] <= kSmall ? 1 : 0;
        }
      }
      // Places in the lists: pushed and listed are 0 to 2, a ballot for each bit.
      const unsigned p0 = __ballot_sync(0xffffffffu, pushed & 1),
                     p1 = __ballot_sync(0xffffffffu, pushed & 2);
      const unsigned l0 = __ballot_sync(0xffffffffu, listed & 1),
                     l1 = __ballot_sync(0xffffffffu, listed & 2);
      if (leads) {
        int np = next + __popc(p0 & below) + 2 * __popc(p1 & below);
        int nl = small + __popc(l0 & below) + 2 * __popc(l1 & below);
        for (int s = 0; s < 2; ++s) {
          if (count_of[s] > kSmall)
            w.level[1 - cur][np++] = child[s];
          else if (count_of[s] >= 2)
            w.small[nl++] = {child[s].begin, child[s].end, child[s].side, child[s].buffer, me};
        }
      }
      next += __popc(p0) + 2 * __popc(p1);
      small += __popc(l0) + 2 * __popc(l1);
      // The task's root splits first and alone; every lane takes its gap.
      root_gap = __shfl_sync(0xffffffffu, root_gap, 0);
      root = __shfl_sync(0xffffffffu, root, 0);
      __syncwarp();
    }
    count = next;
  }
  SmallRanges(w.small, w.by_size, small, w.slot, w.box, t, root, root_gap, task_ids, counters,
              nodes, order, costs, leaf);
}

// As many blocks as stay resident, each warp taking tasks in list order (the larger first)
// until none are left: the launch needs no task count from the host, which would wait for the
// phases before it (a round trip a build), and starts no blocks that find no task.
// kByLevels: BuildSubtreeByLevels, else BuildSubtree.
template <bool kByLevels>
__global__ void __launch_bounds__(32 * kSubtreeWarps)
    SahSubtreeKernel(SubtreeTasks tasks, BvhBox* const* boxes, uint32_t* const* ids,
                     uint32_t* counters, BvhNode* nodes, uint32_t* order, CollapseCost* costs,
                     uint8_t* leaf) {
  using Space = std::conditional_t<kByLevels, LevelSpace, SubtreeSpace>;
  __shared__ Space space[kSubtreeWarps];
  Space& w = space[threadIdx.x / 32];
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const uint32_t first = counters[kSubtreeCount];
  const uint32_t total = first + counters[kSmallSubtreeCount];
  for (;;) {  // warps never wait on each other here
    uint32_t task = 0;
    if (lane == 0) task = atomicAdd(&counters[kSubtreeNext], 1u);
    task = __shfl_sync(0xffffffffu, task, 0);
    if (task >= total) return;
    if constexpr (kByLevels)
      BuildSubtreeByLevels(tasks.Get(task, first), w, boxes, ids, counters, nodes, order, costs,
                           leaf);
    else
      BuildSubtree(tasks.Get(task, first), w, boxes, ids, counters, nodes, order, costs, leaf);
    __syncwarp();  // every lane done with this task's shared memory
  }
}

}  // namespace

Status LaunchSahSubtrees(bool by_levels, const SubtreeTasks& tasks, uint32_t task_max,
                         BvhBox* const* boxes, uint32_t* const* ids, uint32_t* counters,
                         BvhNode* nodes, uint32_t* order, CollapseCost* costs, uint8_t* leaf,
                         uint32_t& resident_blocks, cudaStream_t stream) {
  auto* const kernel = by_levels ? SahSubtreeKernel<true> : SahSubtreeKernel<false>;
  if (resident_blocks == 0) {
    int device = 0, sms = 0, per_sm = 0;
    LT_CUDA_TRY(cudaGetDevice(&device));
    LT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    LT_CUDA_TRY(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * kSubtreeWarps, 0));
    resident_blocks = static_cast<uint32_t>(std::max(1, sms * per_sm));
  }
  // Fewer blocks where there cannot be that many tasks.
  const uint32_t blocks = std::min(resident_blocks, (task_max + kSubtreeWarps - 1) / kSubtreeWarps);
  kernel<<<blocks, 32 * kSubtreeWarps, 0, stream>>>(tasks, boxes, ids, counters, nodes, order,
                                                    costs, leaf);
  LT_CUDA_TRY(cudaGetLastError());
  return {};
}

}  // namespace lt::bench::sah
