// The collapse of the GPU's binary tree into the four-wide tree the rays traverse
// (lidartwin/physics/bvh_collapse.h: the same decisions as the host's CollapseToWideOnHost).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "lbvh.h"
#include "lidartwin/physics/bvh_collapse.h"
#include "warp_allocate.cuh"

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

// Pass 2, one level: each item fills its wide node; its internal children become the items of
// the next level (*next_count of them), its leaves take their triangles' slots. counters:
// [0] wide nodes so far, [1] leaf triangles so far. A node's internal children get adjacent
// nodes and its leaves adjacent triangles, so a ray that visits several of them reads memory
// that is close together. kRunsInOrder (Collapse's runs_in_order): the triangles are at their
// sorted positions already (PlaceInOrderKernel) and a leaf points at its run of them; a leaf
// that is not a run is left out of the triangle count, which the host checks. A template, so
// the Morton builders' collapse is the same code as before it.
template <bool kRunsInOrder>
__device__ inline void CollapseOne(const CollapseItem item, const BvhNode* nodes,
                                   const uint8_t* leaf, const CollapseCost* costs,
                                   const BvhTriangle* sorted, const float* unsorted,
                                   const uint32_t* order, WideNode* wide, WideTriangle* triangles,
                                   uint32_t* counters, CollapseItem* next, uint32_t* next_count) {
  int32_t child[kWideArity];
  physics::BvhBox box[kWideArity];
  const int count = physics::OpenWideNode(nodes, leaf, item.binary, child, box);
  uint32_t inner = 0, leaf_triangles = 0;
  for (int k = 0; k < count; ++k) {
    if (child[k] < 0)
      ++leaf_triangles;
    else if (leaf[child[k]])
      leaf_triangles += costs[child[k]].count;
    else
      ++inner;
  }
  uint32_t triangle_at = WarpAllocate(&counters[1], leaf_triangles);
  uint32_t node_at = WarpAllocate(&counters[0], inner);
  uint32_t item_at = WarpAllocate(next_count, inner);
  int32_t word[kWideArity];
  for (int k = 0; k < count; ++k) {
    if (child[k] < 0 || leaf[child[k]]) {
      uint32_t at[kWideLeafMax];
      const int m = physics::LeafTriangles(nodes, child[k], at);
      if constexpr (kRunsInOrder) {
        bool run = true;
        for (int j = 1; j < m; ++j)
          run = run && at[j] == at[0] + static_cast<uint32_t>(j);
        if (!run) atomicSub(&counters[1], static_cast<uint32_t>(m));
        word[k] = physics::WideLeaf(at[0], static_cast<uint32_t>(m));
      } else {
        for (int j = 0; j < m; ++j) {
          const uint32_t id = order[at[j]];
          const BvhTriangle t = unsorted ? ReadTriangle(unsorted, id) : sorted[at[j]];
          triangles[triangle_at + j] = physics::MakeWideTriangle(t, id);
        }
        word[k] = physics::WideLeaf(triangle_at, static_cast<uint32_t>(m));
        triangle_at += static_cast<uint32_t>(m);
      }
    } else {
      const auto w = static_cast<int32_t>(node_at++);
      next[item_at++] = {w, child[k]};
      word[k] = w;
    }
  }
  wide[item.wide] = physics::EncodeWideNode(box, word, count);
}

// Threads stride over the level's items: the grid is sized by the level's bound (4^d items,
// at most n / 2), not by its count, which only the device knows, and is capped at
// kCollapseBlocksPerSm blocks an SM, so a level that the tree does not reach, or barely, is
// not a launch of thousands of blocks that find nothing (at 10 M triangles, 19,500 blocks and
// 14 us a level).
constexpr int kCollapseBlocksPerSm = 8;
template <bool kRunsInOrder>
__global__ void CollapseLevelKernel(const BvhNode* nodes, const uint8_t* leaf,
                                    const CollapseCost* costs, const BvhTriangle* sorted,
                                    const float* unsorted, const uint32_t* order,
                                    const CollapseItem* items, const uint32_t* item_count,
                                    WideNode* wide, WideTriangle* triangles, uint32_t* counters,
                                    CollapseItem* next, uint32_t* next_count) {
  const uint32_t count = *item_count;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    CollapseOne<kRunsInOrder>(items[i], nodes, leaf, costs, sorted, unsorted, order, wide,
                              triangles, counters, next, next_count);
  }
}

// The leaves' triangles in sorted order, a thread each (Collapse's runs_in_order): the order
// read and the wide triangles written in sequence, each input triangle read once. It takes
// the triangles' reads out of the collapse's levels, where each was the end of a chain of
// dependent reads (the item, its nodes, the leaf's nodes, the order). On the H200 the binned-SAH
// build went from 1.56 to 1.50 ms (1 M triangles) and from 13.1 to 12.6 ms (10 M)
// (bench/RESULTS.md, "Triangles in sorted order"). It runs beside the levels (Collapse).
__global__ void PlaceInOrderKernel(const float* unsorted, const uint32_t* order, uint32_t n,
                                   WideTriangle* triangles) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t id = order[i];
  triangles[i] = physics::MakeWideTriangle(ReadTriangle(unsorted, id), id);
}

// A tree of one triangle: a root with one leaf.
__global__ void SingleTriangleKernel(const BvhTriangle* sorted, const uint32_t* order,
                                     WideNode* wide, WideTriangle* triangles) {
  physics::SingleTriangleTree(sorted[0], order[0], wide[0], triangles[0]);
}

}  // namespace

Status DeviceBvh::Collapse(cudaStream_t stream, bool costs_ready, const float* unsorted,
                           bool runs_in_order) {
  const uint32_t n = count_;
  if (runs_in_order && unsorted == nullptr) {
    return Error{"BVH collapse: leaves in runs of sorted positions need the input triangles"};
  }
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
  // A level's items root disjoint subtrees of two triangles or more: n / 2 at most.
  const uint32_t max_items = n / 2 + 1;
  for (Status s : {costs_.Reserve(n - 1), leaf_.Reserve(n - 1), flags_.Reserve(n - 1),
                   items_[0].Reserve(max_items), items_[1].Reserve(max_items),
                   counters_.Reserve(2 + physics::kWideMaxDepth + 1)}) {
    if (!s.ok()) return s;
  }
  if (!costs_ready) {
    LT_CUDA_TRY(cudaMemsetAsync(flags_.get(), 0, (n - 1) * sizeof(uint32_t), stream));
    CollapseCostKernel<<<BuildBlocks(n), kBuildBlock, 0, stream>>>(
        nodes_.get(), n, parent_.get(), flags_.get(), costs_.get(), leaf_.get());
    LT_CUDA_TRY(cudaGetLastError());
  }
  // Levels go in batches of kLevelsPerCheck launches with no host round trip between them:
  // each reads its item count on the device (level_counts[d]), and a level past the last one
  // has none. The host checks after each batch whether the tree has ended.
  constexpr int kLevelsPerCheck = 8;
  const uint32_t start[2] = {1, 0};
  const CollapseItem root{0, 0};
  uint32_t* level_counts = counters_.get() + 2;  // kWideMaxDepth + 1 of them
  LT_CUDA_TRY(
      cudaMemcpyAsync(counters_.get(), start, sizeof(start), cudaMemcpyHostToDevice, stream));
  LT_CUDA_TRY(
      cudaMemsetAsync(level_counts, 0, (physics::kWideMaxDepth + 1) * sizeof(uint32_t), stream));
  LT_CUDA_TRY(
      cudaMemcpyAsync(level_counts, &start[0], sizeof(uint32_t), cudaMemcpyHostToDevice, stream));
  LT_CUDA_TRY(
      cudaMemcpyAsync(items_[0].get(), &root, sizeof(root), cudaMemcpyHostToDevice, stream));
  // Twice the blocks that stay resident at the level kernels' 58-64 registers (4 blocks of
  // kBuildBlock threads an SM; ptxas), so a second wave is queued as the first ends.
  if (level_blocks_ == 0) {
    int device = 0, sms = 0;
    LT_CUDA_TRY(cudaGetDevice(&device));
    LT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    level_blocks_ = static_cast<uint32_t>(std::max(1, sms * kCollapseBlocksPerSm));
  }
  // The triangles' placement reads only the order, and the levels only the tree: it runs on
  // the side stream beside them, filling the GPU while the top levels' few items leave it
  // idle. Every return after the fork, an error's too, leaves it done: the stream waits for it
  // and so does the host (it is done by then: the levels take longer), so nothing reads the
  // input or the order after the build returns, as before it ran beside.
  struct PlacementDone {
    SideStream* side = nullptr;  // null: nothing forked
    cudaStream_t stream = nullptr;
    Status Finish() {
      SideStream* s = std::exchange(side, nullptr);
      if (!s) return {};
      if (Status joined = s->Join(stream); !joined.ok()) return joined;
      return s->Wait();
    }
    ~PlacementDone() { (void)Finish(); }  // an error return's own error is the one reported
  } placement{nullptr, stream};
  if (runs_in_order) {
    if (Status s = side_.Fork(stream); !s.ok()) return s;
    placement.side = &side_;
    PlaceInOrderKernel<<<BuildBlocks(n), kBuildBlock, 0, side_.get()>>>(unsorted, order_.get(), n,
                                                                        wide_triangles_.get());
    LT_CUDA_TRY(cudaGetLastError());
  }
  const auto level_kernel = runs_in_order ? CollapseLevelKernel<true> : CollapseLevelKernel<false>;
  int launched = 0;
  std::vector<uint32_t> seen(2 + physics::kWideMaxDepth + 1);  // counters_ as last read
  for (;;) {
    for (int k = 0; k < kLevelsPerCheck && launched < physics::kWideMaxDepth; ++k, ++launched) {
      const int d = launched;
      // At most 4^d items at level d, and never more than max_items.
      const uint32_t bound = d < 16 ? std::min<uint32_t>(max_items, 1u << (2 * d)) : max_items;
      level_kernel<<<std::min(BuildBlocks(bound), level_blocks_), kBuildBlock, 0, stream>>>(
          nodes_.get(), leaf_.get(), costs_.get(), sorted_.get(), unsorted, order_.get(),
          items_[d & 1].get(), level_counts + d, wide_nodes_.get(), wide_triangles_.get(),
          counters_.get(), items_[(d + 1) & 1].get(), level_counts + d + 1);
      LT_CUDA_TRY(cudaGetLastError());
    }
    // The counters and every level's item count so far in one read: the last read is the
    // tree's (nodes, triangles placed, items a level), with no further round trip.
    LT_CUDA_TRY(cudaMemcpyAsync(seen.data(), counters_.get(), (2 + launched + 1) * sizeof(uint32_t),
                                cudaMemcpyDeviceToHost, stream));
    LT_CUDA_TRY(cudaStreamSynchronize(stream));
    if (seen[2 + launched] == 0) break;
    if (launched >= physics::kWideMaxDepth) {
      return Error{"the BVH is deeper than " + std::to_string(physics::kWideMaxDepth) +
                   " wide levels (the traversal stack's limit); its " + std::to_string(n) +
                   " triangles are too unevenly spread for this builder"};
    }
  }
  if (Status s = placement.Finish(); !s.ok()) return s;
  const uint32_t done[2] = {seen[0], seen[1]};
  const auto per_level = seen.begin() + 2;
  if (done[1] != n) {
    return Error{"BVH collapse placed " + std::to_string(done[1]) + " of " + std::to_string(n) +
                 " triangles (a bug" +
                 (runs_in_order
                      ? ": the outside builder's leaves must hold runs of sorted positions, "
                        "and their counts must be theirs)"
                      : ")")};
  }
  wide_nodes_count_ = done[0];
  wide_depth_ = static_cast<int>(
      std::count_if(per_level, per_level + launched, [](uint32_t c) { return c > 0; }));
  return {};
}

}  // namespace lt::cuda
