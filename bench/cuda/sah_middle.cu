// The GPU binned-SAH builder's middle phase: nodes of kSahWarpMax + 1 to kSahBlockMax
// primitives, a block each (binned_sah_build.cu describes the builder).
#include "sah_middle.h"

#include <cub/block/block_scan.cuh>

#include "cuda_check.h"  // sim/cuda: LT_CUDA_TRY

namespace lt::bench::sah {
namespace {

// 512 threads at two blocks an SM (64 registers): some 256 middle tasks at 1 M triangles fill
// one wave, so the threads a task are the phase's parallelism. The first form, 256 threads with
// a barrier every round of the partition, took 300 us.
constexpr int kMiddleThreads = 512;

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

}  // namespace

Status LaunchSahMiddle(const SahTask* tasks, uint32_t count, BvhBox* const* boxes,
                       uint32_t* const* ids, uint32_t* counters, const SubtreeTasks& subtrees,
                       BvhNode* nodes, uint32_t* order, cudaStream_t stream) {
  SahMiddleKernel<<<count, kMiddleThreads, 0, stream>>>(tasks, boxes, ids, counters, subtrees,
                                                        nodes, order);
  LT_CUDA_TRY(cudaGetLastError());
  return {};
}

}  // namespace lt::bench::sah
