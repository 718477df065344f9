// The nearest points within a radius, from a grid of cells one radius wide: a query visits
// its own cell and the 26 around it, which hold every point within the radius. For the plane
// fits of frame registration (frame_registration.cpp), whose clouds are thinned to one point
// per voxel, a few voxels across: there a grid finds the neighbours several times faster than
// a k-d tree (issue 41's fold time).
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Eigen/Core>

namespace lt {

class RadiusNeighbours {
 public:
  // `points` must outlive this; radius > 0. One object serves one thread (Nearest keeps its
  // cells and candidates between calls, so that a query allocates nothing).
  RadiusNeighbours(const std::vector<Eigen::Vector3d>& points, double radius);

  // The indices of at most `max_count` points nearest `query` with squared distance below
  // radius^2 (the query itself included when it is one of the points), nearest first, ties
  // by index: what Open3D's KDTreeFlann::SearchHybrid returns, in a deterministic order.
  void Nearest(const Eigen::Vector3d& query, size_t max_count, std::vector<uint32_t>& out) const;

  // visit(n, neighbours) for every point n, with what Nearest(points[n], max_count) gives, the
  // points taken cell by cell: a cell's 27 neighbour cells are looked up once for all of its
  // points (the lookups were most of the plane fits' time on an OS-1-128 fold's ICP).
  void ForEachPoint(size_t max_count,
                    const std::function<void(uint32_t, const std::vector<uint32_t>&)>& visit) const;

 private:
  using Key = uint64_t;
  using Range = std::pair<uint32_t, uint32_t>;  // [begin, end) in order_
  Key KeyOf(int64_t i, int64_t j, int64_t k) const;
  int64_t CellOf(double v) const;
  // The ranges of p's cell and the 26 around it that hold points.
  void CellsAround(const Eigen::Vector3d& p, std::vector<Range>& around) const;
  // Nearest among the points of `around`.
  void NearestAmong(const Eigen::Vector3d& query, size_t max_count,
                    const std::vector<Range>& around, std::vector<uint32_t>& out) const;

  const std::vector<Eigen::Vector3d>& points_;
  double radius_;
  std::vector<uint32_t> order_;  // point indices sorted by cell
  std::unordered_map<Key, Range> cells_;
  std::vector<Range> cell_ranges_;  // every cell's, in order_'s order
  mutable std::vector<std::pair<double, uint32_t>> candidates_;
  mutable std::vector<Range> around_;
};

}  // namespace lt
