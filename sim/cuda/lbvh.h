// LBVH built on the GPU (Karras, "Maximizing parallelism in the construction of BVHs,
// octrees, and k-d trees", HPG 2012): Morton codes of triangle centroids, a CUB radix sort,
// the hierarchy from the sorted codes in one parallel pass, then boxes bottom-up.
#pragma once

#include <cstdint>

#include "device_buffer.h"
#include "lidartwin/physics/bvh.h"

namespace lt::cuda {

enum class BvhBuilder {
  kLbvh,  // Karras 2012: one pass over the sorted codes
  kPloc,  // Meister & Bittner 2018: greedy nearest-neighbour merging of the sorted leaves
};

class DeviceBvh {
 public:
  // triangles: device array of 9 floats per triangle (v0, v1, v2). Asynchronous on `stream`
  // for the LBVH; the PLOC loop reads the cluster count back once per iteration.
  Status Build(const float* triangles, uint32_t count, cudaStream_t stream = nullptr,
               BvhBuilder builder = BvhBuilder::kLbvh);
  // Refit for moved geometry: the same triangles (same count and order) at new positions;
  // the tree keeps its topology and its boxes are recomputed bottom-up. Fast, but the tree
  // degrades as the geometry drifts from where it was built: rebuild for large motions.
  Status Refit(const float* triangles, cudaStream_t stream = nullptr);
  // Frees what only the build needs (Morton codes, sort and PLOC buffers), keeping the tree
  // and what Refit needs; a later Build allocates them again.
  void ReleaseBuildMemory();
  physics::BvhView View() const { return {nodes_.get(), sorted_.get(), count_}; }
  // Sorted position -> input triangle index.
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
  // PLOC: clusters (node or ~leaf) and their boxes, double-buffered, nearest neighbours.
  DeviceBuffer<int32_t> clusters_[2];
  DeviceBuffer<physics::BvhBox> cluster_boxes_[2];
  DeviceBuffer<int32_t> neighbour_;
  DeviceBuffer<unsigned char> keep_;
  DeviceBuffer<int32_t> next_node_, cluster_count_;
  Status BuildPloc(uint32_t n, cudaStream_t stream);
};

}  // namespace lt::cuda
