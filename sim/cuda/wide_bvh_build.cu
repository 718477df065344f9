// The collapse of the GPU's binary tree into the four-wide tree the rays traverse
// (lidartwin/physics/bvh_collapse.h: the same decisions as the host's CollapseToWideOnHost).
#include <algorithm>
#include <string>
#include <vector>

#include "lbvh.h"
#include "lidartwin/physics/bvh_collapse.h"
#include "warp_allocate.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace lt::cuda {

namespace {

using physics::BvhNode;
using physics::BvhTriangle;
using physics::CollapseCost;
using physics::CollapseItem;
using physics::kWideArity;
using physics::kWideLeafMax;
using physics::WideNode;
using physics::WideTriangle;

// Pass 1: one thread per triangle climbs towards the root; at each node the second child to
// arrive combines both children's costs (the first one leaves), as BoxesKernel does for boxes.
__global__ void CollapseCostKernel(const BvhNode* nodes, uint32_t n, const int32_t* parent,
                                   uint32_t* arrivals, CollapseCost* costs, uint8_t* leaf) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int32_t p = parent[(n - 1) + i];
  volatile CollapseCost* shared = costs;
  while (p >= 0) {
    __threadfence();  // this thread's cost of the child below, before its arrival
    if (atomicAdd(&arrivals[p], 1u) == 0) return;
    __threadfence();
    const BvhNode node = nodes[p];
    CollapseCost c[2];
    for (int s = 0; s < 2; ++s) {
      const int32_t x = node.child[s];
      if (x < 0) {
        c[s] = physics::ChildCollapseCost(node, s, nullptr);
      } else {
        c[s].count = shared[x].count;
        c[s].cost = shared[x].cost;
      }
    }
    bool as_leaf = false;
    const CollapseCost mine = physics::CombineCollapseCost(node, c[0], c[1], as_leaf);
    shared[p].count = mine.count;
    shared[p].cost = mine.cost;
    leaf[p] = as_leaf ? 1 : 0;
    p = parent[p];
  }
}

// Pass 2 goes level by level (CollapseLevelKernel, a thread an item) down to the subtrees of
// at most kCollapseWarpMax triangles, which one launch then collapses a warp each
// (CollapseEntryKernel): a deep tree's last levels, each a launch of few items, become one.
// The wide tree is the same either way: each wide node depends on its binary node alone.
// counters_: [kMadeNodes] wide nodes so far, [kPlacedTriangles] leaf triangles so far,
// [kEntryCount] subtrees for the warps, [kDeepestEntry] the deepest level an entry warp
// reached, [kQueueOverflow] set if a warp's subtree was larger than its count said,
// [kNextEntry] entries taken by the warps so far, [kLevelCounts + d] the items of level d.
constexpr int kMadeNodes = 0;
constexpr int kPlacedTriangles = 1;
constexpr int kEntryCount = 2;
constexpr int kDeepestEntry = 3;
constexpr int kQueueOverflow = 4;
constexpr int kNextEntry = 5;
constexpr int kLevelCounts = 6;
constexpr int kCollapseCounters = kLevelCounts + physics::kWideMaxDepth + 1;
// A subtree of n triangles makes fewer than 2n/3 wide nodes (the bound in Collapse): its
// queue never holds more (the most 256 triangles can make is 169, found by a search over every
// opening). Four warps a block: 8 KB of queues.
constexpr uint32_t kCollapseWarpMax = 256;
constexpr int kEntryQueue = 2 * kCollapseWarpMax / 3 + 1;
constexpr int kEntryWarps = 4;

// A wide node's binary children as opened, and what they need: wide nodes for the inner ones
// and leaf triangle slots for the others.
struct OpenedNode {
  int32_t child[kWideArity];
  physics::BvhBox box[kWideArity];
  int count = 0;
  uint32_t inner = 0, small = 0, leaf_triangles = 0;  // small: inner, for the entry warps
};

__device__ inline bool IsLeafChild(int32_t c, const uint8_t* leaf) {
  return c < 0 || leaf[c];
}

__device__ inline OpenedNode Open(const BvhNode* nodes, const uint8_t* leaf,
                                  const CollapseCost* costs, int32_t binary) {
  OpenedNode o;
  o.count = physics::OpenWideNode(nodes, leaf, binary, o.child, o.box);
  for (int k = 0; k < o.count; ++k) {
    if (o.child[k] < 0) {
      ++o.leaf_triangles;
    } else if (leaf[o.child[k]]) {
      o.leaf_triangles += costs[o.child[k]].count;
    } else {
      ++o.inner;
      if (costs[o.child[k]].count <= kCollapseWarpMax) ++o.small;
    }
  }
  return o;
}

// The leaves' triangles (read from the sorted copy, or from the input through the order) and
// the wide node at `wide`; each inner child gets the next node from node_at and goes to
// push(child index, its wide node).
template <typename Push>
__device__ inline void WriteWideNode(const OpenedNode& o, int32_t wide, const BvhNode* nodes,
                                     const BvhTriangle* sorted, const float* unsorted,
                                     const uint32_t* order, uint32_t node_at, uint32_t triangle_at,
                                     WideNode* wide_nodes, WideTriangle* triangles,
                                     const uint8_t* leaf, Push push) {
  int32_t word[kWideArity];
  for (int k = 0; k < o.count; ++k) {
    if (IsLeafChild(o.child[k], leaf)) {
      uint32_t at[kWideLeafMax];
      const int m = physics::LeafTriangles(nodes, o.child[k], at);
      for (int j = 0; j < m; ++j) {
        const uint32_t id = order[at[j]];
        const BvhTriangle t = unsorted ? ReadTriangle(unsorted, id) : sorted[at[j]];
        triangles[triangle_at + j] = physics::MakeWideTriangle(t, id);
      }
      word[k] = physics::WideLeaf(triangle_at, static_cast<uint32_t>(m));
      triangle_at += static_cast<uint32_t>(m);
    } else {
      const auto w = static_cast<int32_t>(node_at++);
      push(k, w);
      word[k] = w;
    }
  }
  wide_nodes[wide] = physics::EncodeWideNode(o.box, word, o.count);
}

// Pass 2, one level: each item fills its wide node; its internal children become the items of
// the next level (*next_count of them), or entries for the warps where their subtrees are
// small; its leaves take their triangles' slots. A node's internal children get adjacent
// nodes and its leaves adjacent triangles, so a ray that visits several of them reads memory
// that is close together.
__global__ void CollapseLevelKernel(const BvhNode* nodes, const uint8_t* leaf,
                                    const CollapseCost* costs, const BvhTriangle* sorted,
                                    const float* unsorted, const uint32_t* order,
                                    const CollapseItem* items, int level, WideNode* wide,
                                    WideTriangle* triangles, uint32_t* counters, CollapseItem* next,
                                    CollapseEntry* entries) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= counters[kLevelCounts + level]) return;
  const CollapseItem item = items[i];
  const OpenedNode o = Open(nodes, leaf, costs, item.binary);
  uint32_t triangle_at = WarpAllocate(&counters[kPlacedTriangles], o.leaf_triangles);
  uint32_t node_at = WarpAllocate(&counters[kMadeNodes], o.inner);
  uint32_t item_at = WarpAllocate(&counters[kLevelCounts + level + 1], o.inner - o.small);
  uint32_t entry_at = WarpAllocate(&counters[kEntryCount], o.small);
  WriteWideNode(o, item.wide, nodes, sorted, unsorted, order, node_at, triangle_at, wide, triangles,
                leaf, [&](int k, int32_t w) {
                  if (costs[o.child[k]].count <= kCollapseWarpMax)
                    entries[entry_at++] = {{w, o.child[k]}, level + 1};
                  else
                    next[item_at++] = {w, o.child[k]};
                });
}

// The subtrees of at most kCollapseWarpMax triangles, a warp each, breadth first: the warp
// takes up to 32 pending wide nodes from its queue in shared memory, a lane each, and appends
// their inner children. One atomic a round for the warp's nodes and one for its triangles,
// their slots in lane order (full-warp scans). Entries are taken from a counter until none
// are left.
__global__ void __launch_bounds__(32 * kEntryWarps)
    CollapseEntryKernel(const BvhNode* nodes, const uint8_t* leaf, const CollapseCost* costs,
                        const BvhTriangle* sorted, const float* unsorted, const uint32_t* order,
                        const CollapseEntry* entries, WideNode* wide, WideTriangle* triangles,
                        uint32_t* counters, uint32_t* next_entry) {
  namespace cg = cooperative_groups;
  __shared__ CollapseEntry queues[kEntryWarps][kEntryQueue];  // wide nodes and their levels
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  CollapseEntry* queue = queues[threadIdx.x / 32];
  const int lane = static_cast<int>(warp.thread_rank());
  const uint32_t entry_count = counters[kEntryCount];
  int deepest = 0;  // the deepest level this lane filled a node of
  for (;;) {
    uint32_t e = 0;
    if (lane == 0) e = atomicAdd(next_entry, 1u);
    e = warp.shfl(e, 0);
    if (e >= entry_count) break;
    if (lane == 0) queue[0] = entries[e];
    int head = 0, tail = 1;
    warp.sync();
    while (head < tail) {
      const int taken = min(32, tail - head);
      const bool mine = lane < taken;
      CollapseEntry item{};
      OpenedNode o;
      if (mine) {
        item = queue[head + lane];
        o = Open(nodes, leaf, costs, item.item.binary);
        deepest = max(deepest, item.level);
      }
      const uint32_t node_offset = cg::exclusive_scan(warp, o.inner);
      const uint32_t triangle_offset = cg::exclusive_scan(warp, o.leaf_triangles);
      uint32_t node_base = 0, triangle_base = 0;
      if (lane == 31 && node_offset + o.inner > 0)
        node_base = atomicAdd(&counters[kMadeNodes], node_offset + o.inner);
      if (lane == 31 && triangle_offset + o.leaf_triangles > 0)
        triangle_base = atomicAdd(&counters[kPlacedTriangles], triangle_offset + o.leaf_triangles);
      node_base = warp.shfl(node_base, 31);
      triangle_base = warp.shfl(triangle_base, 31);
      const int pushed = static_cast<int>(warp.shfl(node_offset + o.inner, 31));
      const bool fits = tail + pushed <= kEntryQueue;
      if (mine && fits) {
        int at = tail + static_cast<int>(node_offset);
        WriteWideNode(o, item.item.wide, nodes, sorted, unsorted, order, node_base + node_offset,
                      triangle_base + triangle_offset, wide, triangles, leaf,
                      [&](int k, int32_t w) {
                        queue[at++] = {{w, o.child[k]}, item.level + 1};
                      });
      }
      if (!fits) {  // a subtree larger than its count said: the builder's counts are wrong
        if (lane == 0) atomicExch(&counters[kQueueOverflow], 1u);
        return;
      }
      warp.sync();
      head += taken;
      tail += pushed;
    }
  }
  deepest = cg::reduce(warp, deepest, cg::greater<int>());
  if (lane == 0) atomicMax(&counters[kDeepestEntry], static_cast<uint32_t>(deepest));
}

// A tree of one triangle: a root with one leaf.
__global__ void SingleTriangleKernel(const BvhTriangle* sorted, const uint32_t* order,
                                     WideNode* wide, WideTriangle* triangles) {
  physics::SingleTriangleTree(sorted[0], order[0], wide[0], triangles[0]);
}

Status TooDeep(uint32_t n) {
  return Error{"the BVH is deeper than " + std::to_string(physics::kWideMaxDepth) +
               " wide levels (the traversal stack's limit); its " + std::to_string(n) +
               " triangles are too unevenly spread for this builder"};
}

}  // namespace

Status DeviceBvh::Collapse(cudaStream_t stream, bool costs_ready, const float* unsorted) {
  const uint32_t n = count_;
  if (n >= physics::kWideMaxTriangles) {
    return Error{"BVH of " + std::to_string(n) + " triangles: a wide tree holds at most " +
                 std::to_string(physics::kWideMaxTriangles) +
                 " (lower the GPU's triangles per BVH)"};
  }
  // Fewer than 2n/3 wide nodes: a node of fewer than four children stopped opening because all
  // of them are leaves, so W_s such nodes hold 2 W_s <= n triangles; counting child slots,
  // 4 W_4 + 2 W_s <= (W - 1) + n, so W = W_4 + W_s <= (n - 1) / 3 + 2 W_s / 3 < 2n / 3.
  if (Status s = wide_nodes_.Reserve(2 * static_cast<size_t>(n) / 3 + 1); !s.ok()) return s;
  if (Status s = wide_triangles_.Reserve(n); !s.ok()) return s;
  if (n == 1) {
    SingleTriangleKernel<<<1, 1, 0, stream>>>(sorted_.get(), order_.get(), wide_nodes_.get(),
                                              wide_triangles_.get());
    LT_CUDA_TRY(cudaGetLastError());
    wide_depth_ = 1;
    wide_nodes_count_ = 1;
    return {};
  }
  // A level's items, and the entries, root disjoint subtrees of two triangles or more: n / 2
  // at most.
  const uint32_t max_items = n / 2 + 1;
  for (Status s : {costs_.Reserve(n - 1), leaf_.Reserve(n - 1), flags_.Reserve(n - 1),
                   items_[0].Reserve(max_items), items_[1].Reserve(max_items),
                   entries_.Reserve(max_items), counters_.Reserve(kCollapseCounters)}) {
    if (!s.ok()) return s;
  }
  if (!costs_ready) {
    LT_CUDA_TRY(cudaMemsetAsync(flags_.get(), 0, (n - 1) * sizeof(uint32_t), stream));
    CollapseCostKernel<<<BuildBlocks(n), kBuildBlock, 0, stream>>>(
        nodes_.get(), n, parent_.get(), flags_.get(), costs_.get(), leaf_.get());
    LT_CUDA_TRY(cudaGetLastError());
  }
  // The root is wide node 0: a level's item, or the one entry of a small tree.
  uint32_t seen[kCollapseCounters] = {};  // the counters as last read back
  seen[kMadeNodes] = 1;
  const bool root_is_entry = n <= kCollapseWarpMax;
  seen[root_is_entry ? kEntryCount : kLevelCounts] = 1;
  LT_CUDA_TRY(cudaMemcpyAsync(counters_.get(), seen, sizeof(seen), cudaMemcpyHostToDevice, stream));
  if (root_is_entry) {
    const CollapseEntry root{{0, 0}, 0};
    LT_CUDA_TRY(
        cudaMemcpyAsync(entries_.get(), &root, sizeof(root), cudaMemcpyHostToDevice, stream));
  } else {
    const CollapseItem root{0, 0};
    LT_CUDA_TRY(
        cudaMemcpyAsync(items_[0].get(), &root, sizeof(root), cudaMemcpyHostToDevice, stream));
  }
  // Levels go in batches of kLevelsPerCheck launches with no host round trip between them:
  // each reads its item count on the device, and a level past the last one has none. The host
  // checks after each batch whether the levels have ended.
  constexpr int kLevelsPerCheck = 8;
  int launched = 0;
  while (!root_is_entry) {
    for (int k = 0; k < kLevelsPerCheck && launched < physics::kWideMaxDepth; ++k, ++launched) {
      const int d = launched;
      // At most 4^d items at level d, and never more than max_items.
      const uint32_t bound = d < 16 ? std::min<uint32_t>(max_items, 1u << (2 * d)) : max_items;
      CollapseLevelKernel<<<BuildBlocks(bound), kBuildBlock, 0, stream>>>(
          nodes_.get(), leaf_.get(), costs_.get(), sorted_.get(), unsorted, order_.get(),
          items_[d & 1].get(), d, wide_nodes_.get(), wide_triangles_.get(), counters_.get(),
          items_[(d + 1) & 1].get(), entries_.get());
      LT_CUDA_TRY(cudaGetLastError());
    }
    LT_CUDA_TRY(
        cudaMemcpyAsync(seen, counters_.get(), sizeof(seen), cudaMemcpyDeviceToHost, stream));
    LT_CUDA_TRY(cudaStreamSynchronize(stream));
    if (seen[kLevelCounts + launched] == 0) break;
    if (launched >= physics::kWideMaxDepth) return TooDeep(n);
  }
  // The small subtrees: as many blocks as stay resident, fewer where there are fewer entries.
  if (seen[kEntryCount] > 0) {
    if (entry_blocks_ == 0) {
      int device = 0, sms = 0, per_sm = 0;
      LT_CUDA_TRY(cudaGetDevice(&device));
      LT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      LT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, CollapseEntryKernel,
                                                                32 * kEntryWarps, 0));
      entry_blocks_ = static_cast<uint32_t>(std::max(1, sms * per_sm));
    }
    const uint32_t blocks =
        std::min(entry_blocks_, (seen[kEntryCount] + kEntryWarps - 1) / kEntryWarps);
    CollapseEntryKernel<<<blocks, 32 * kEntryWarps, 0, stream>>>(
        nodes_.get(), leaf_.get(), costs_.get(), sorted_.get(), unsorted, order_.get(),
        entries_.get(), wide_nodes_.get(), wide_triangles_.get(), counters_.get(),
        counters_.get() + kNextEntry);
    LT_CUDA_TRY(cudaGetLastError());
  }
  LT_CUDA_TRY(cudaMemcpyAsync(seen, counters_.get(), sizeof(seen), cudaMemcpyDeviceToHost, stream));
  LT_CUDA_TRY(cudaStreamSynchronize(stream));
  if (seen[kQueueOverflow] != 0) {
    return Error{"BVH collapse: a subtree held more triangles than its builder counted (a bug)"};
  }
  if (seen[kPlacedTriangles] != n) {
    return Error{"BVH collapse placed " + std::to_string(seen[kPlacedTriangles]) + " of " +
                 std::to_string(n) + " triangles (a bug)"};
  }
  // Levels d = 0 .. launched - 1 hold items until the last; entries reach kDeepestEntry.
  int depth = static_cast<int>(std::count_if(seen + kLevelCounts, seen + kLevelCounts + launched,
                                             [](uint32_t c) { return c > 0; }));
  if (seen[kEntryCount] > 0) depth = std::max(depth, static_cast<int>(seen[kDeepestEntry]) + 1);
  if (depth > physics::kWideMaxDepth) return TooDeep(n);
  wide_nodes_count_ = seen[kMadeNodes];
  wide_depth_ = depth;
  return {};
}

}  // namespace lt::cuda
