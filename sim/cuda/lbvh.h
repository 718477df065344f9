// BVHs built on the GPU: Morton codes of triangle centroids and a CUB radix sort, then a
// binary tree by LBVH (Karras, "Maximizing parallelism in the construction of BVHs, octrees,
// and k-d trees", HPG 2012) or PLOC (Meister & Bittner 2018), collapsed into the four-wide
// tree with quantised boxes that the rays traverse (lidartwin/physics/wide_bvh.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "lidartwin/physics/bvh.h"
#include "lidartwin/physics/bvh_collapse.h"
#include "lidartwin/physics/wide_bvh.h"
#include "lidartwin/sim/cuda_backend.h"
#include "side_stream.h"

namespace lt::cuda {

// Threads a block and blocks for n threads, for the build's one-thread-per-item kernels.
inline constexpr int kBuildBlock = 256;
inline unsigned BuildBlocks(uint32_t n) {
  return (n + kBuildBlock - 1) / kBuildBlock;
}

// Triangle i of a soup of 9 floats a triangle, as the tree's leaves hold it.
__device__ inline physics::BvhTriangle ReadTriangle(const float* soup, uint32_t i) {
  const float* t = soup + 9 * static_cast<size_t>(i);
  physics::BvhTriangle out;
  for (int a = 0; a < 3; ++a) {
    out.v0[a] = t[a];
    out.v1[a] = t[3 + a];
    out.v2[a] = t[6 + a];
  }
  return out;
}

// Every coordinate of a triangle soup (9 floats a triangle) finite and within
// +-kMaxBvhCoordinate, or an error naming the first triangle that is not.
inline Status CheckBvhCoordinates(const std::vector<float>& soup) {
  for (size_t i = 0; i < soup.size(); ++i) {
    if (!(std::fabs(soup[i]) <= physics::kMaxBvhCoordinate)) {
      return Error{"triangle " + std::to_string(i / 9) + " has a vertex coordinate of " +
                   std::to_string(soup[i]) + " m; the GPU BVH takes coordinates within +-" +
                   std::to_string(static_cast<double>(physics::kMaxBvhCoordinate)) + " m"};
    }
  }
  return {};
}

enum class BvhBuilder {
  kLbvh,  // Karras 2012: one pass over the sorted codes
  kPloc,  // Meister & Bittner 2018: greedy nearest-neighbour merging of the sorted leaves
};

class DeviceBvh {
 public:
  // triangles: device array of 9 floats per triangle (v0, v1, v2), within
  // +-kMaxBvhCoordinate (CheckBvhCoordinates on the host). On `stream`; PLOC makes no host round
  // trip, the collapse reads its item count back once per batch of eight levels.
  Status Build(const float* triangles, uint32_t count, cudaStream_t stream = nullptr,
               BvhBuilder builder = BvhBuilder::kLbvh);
  // The same from a binary tree built outside (bench/'s binned SAH, lidartwin/sim/cuda_backend.h)
  // with its collapse leaf marks, then collapsed as the Morton builders' trees, its leaves
  // (runs of sorted positions) pointing at the triangles written from the input in sorted
  // order (no sorted copy); Refit works on it too.
  Status BuildWith(const float* triangles, uint32_t count, cudaStream_t stream,
                   const ExternalGpuBvhBuild& build);
  // Refit for moved geometry: the same triangles (same count and order) at new positions;
  // the binary tree keeps its topology, its boxes are recomputed bottom-up and it is
  // collapsed again. Fast, but the tree degrades as the geometry drifts from where it was
  // built: rebuild for large motions.
  Status Refit(const float* triangles, cudaStream_t stream = nullptr);
  // Frees what only the build needs (Morton codes, sort and PLOC buffers), keeping the tree
  // and what Refit needs; a later Build allocates them again.
  void ReleaseBuildMemory();
  // The wide tree; its leaves give input triangle indices.
  physics::WideBvhView View() const { return {wide_nodes_.get(), wide_triangles_.get(), count_}; }
  uint32_t wide_node_count() const { return wide_nodes_count_; }
  int wide_depth() const { return wide_depth_; }
  // The binary tree it was collapsed from (count - 1 nodes, leaves ~sorted position), and
  // sorted position -> input triangle index.
  const physics::BvhNode* BinaryNodes() const { return nodes_.get(); }
  const uint32_t* Order() const { return order_.get(); }
  uint32_t count() const { return count_; }

 private:
  uint32_t count_ = 0;
  DeviceBuffer<physics::BvhNode> nodes_;
  DeviceBuffer<physics::BvhTriangle> sorted_;
  DeviceBuffer<uint32_t> order_;
  DeviceBuffer<uint32_t> codes_, codes_sorted_, index_;
  DeviceBuffer<int32_t> parent_;  // internal nodes then leaves (count - 1 + count)
  DeviceBuffer<uint32_t> flags_;
  DeviceBuffer<float> bounds_;  // scene centroid bounds: lo[3], hi[3]
  DeviceBuffer<unsigned char> temp_;
  // PLOC: clusters (node or ~leaf) and their boxes, double-buffered; their count, the
  // survivors of each chunk, and the nodes made so far (node index n - 2 - k).
  DeviceBuffer<int32_t> clusters_[2];
  DeviceBuffer<physics::BvhBox> cluster_boxes_[2];
  DeviceBuffer<int32_t> cluster_count_, chunk_counts_;
  DeviceBuffer<uint32_t> merged_;
  // The wide tree, and the collapse's costs, leaf marks, level items and counters.
  DeviceBuffer<physics::WideNode> wide_nodes_;
  DeviceBuffer<physics::WideTriangle> wide_triangles_;
  uint32_t wide_nodes_count_ = 0;
  int wide_depth_ = 0;
  DeviceBuffer<physics::CollapseCost> costs_;
  DeviceBuffer<uint8_t> leaf_;
  DeviceBuffer<physics::CollapseItem> items_[2];
  DeviceBuffer<uint32_t> counters_;
  uint32_t level_blocks_ = 0;  // the collapse levels' grid cap, once known
  SideStream side_;            // the triangles' placement, beside the collapse's levels
  Status BuildPloc(uint32_t n, cudaStream_t stream);
  // The build's start: the size checked, the tree emptied, the order's room.
  Status Start(uint32_t count);
  // sorted_[i] = triangle index[i] and order_[i] = index[i] (index may be order_ itself);
  // reserves sorted_.
  Status GatherInOrder(const float* triangles, const uint32_t* index, cudaStream_t stream);
  // Parents of the binary tree's nodes and leaves, from its child links.
  Status Parents(cudaStream_t stream);
  // The binary tree into the wide one (wide_bvh_build.cu). costs_ready: the builder has filled
  // costs_ and leaf_ (PLOC as it merges, an outside builder through ExternalGpuBvhOutput);
  // otherwise they are computed by climbing parent_. unsorted: the input triangles, read through
  // order_ (sorted_ is not filled); null: the leaves read sorted_. runs_in_order (needs
  // unsorted): every leaf of the tree holds a run of consecutive sorted positions (a top-down
  // builder's partition gives this); the triangles are then written once in sorted order, a
  // thread each, and a wide leaf points at its run (a leaf that is not one is an error).
  Status Collapse(cudaStream_t stream, bool costs_ready = false, const float* unsorted = nullptr,
                  bool runs_in_order = false);
};

}  // namespace lt::cuda
