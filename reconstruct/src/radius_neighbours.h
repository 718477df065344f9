// The nearest points within a radius, from a grid of cells one radius wide: a query visits
// its own cell and the 26 around it, which hold every point within the radius. For the plane
// fits of frame registration (frame_registration.cpp), whose clouds are thinned to one point
// per voxel, a few voxels across: there a grid finds the neighbours several times faster than
// a k-d tree (issue 41's fold time).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Eigen/Core>

namespace lt {

class RadiusNeighbours {
 public:
  // `points` must outlive this; radius > 0. One object serves one thread (Nearest keeps its
  // candidates between calls, so that a query allocates nothing).
  RadiusNeighbours(const std::vector<Eigen::Vector3d>& points, double radius);

  // The indices of at most `max_count` points nearest `query` with squared distance below
  // radius^2 (the query itself included when it is one of the points), nearest first, ties
  // by index: what Open3D's KDTreeFlann::SearchHybrid returns, in a deterministic order.
  void Nearest(const Eigen::Vector3d& query, size_t max_count, std::vector<uint32_t>& out) const;

 private:
  using Key = uint64_t;
  Key KeyOf(int64_t i, int64_t j, int64_t k) const;
  int64_t CellOf(double v) const;

  const std::vector<Eigen::Vector3d>& points_;
  double radius_;
  std::vector<uint32_t> order_;                                   // point indices sorted by cell
  std::unordered_map<Key, std::pair<uint32_t, uint32_t>> cells_;  // [begin, end) in order_
  mutable std::vector<std::pair<double, uint32_t>> candidates_;
};

}  // namespace lt
