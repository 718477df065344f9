#include "radius_neighbours.h"

#include <algorithm>
#include <cmath>

namespace lt {

// Cells are packed 21 bits per axis: +-2^20 cells of at least kMinVoxelM-sized radii span
// kilometres, beyond any lidar's range; coordinates beyond wrap into other cells, which only
// costs distance checks, never a wrong answer (every candidate's distance is tested).
RadiusNeighbours::Key RadiusNeighbours::KeyOf(int64_t i, int64_t j, int64_t k) const {
  constexpr uint64_t kMask = (uint64_t{1} << 21) - 1;
  return (static_cast<uint64_t>(i) & kMask) | ((static_cast<uint64_t>(j) & kMask) << 21) |
         ((static_cast<uint64_t>(k) & kMask) << 42);
}

int64_t RadiusNeighbours::CellOf(double v) const {
  return static_cast<int64_t>(std::floor(v / radius_));
}

RadiusNeighbours::RadiusNeighbours(const std::vector<Eigen::Vector3d>& points, double radius)
    : points_(points), radius_(radius) {
  std::vector<std::pair<Key, uint32_t>> keyed(points.size());
  for (size_t n = 0; n < points.size(); ++n) {
    const Eigen::Vector3d& p = points[n];
    keyed[n] = {KeyOf(CellOf(p.x()), CellOf(p.y()), CellOf(p.z())), static_cast<uint32_t>(n)};
  }
  std::sort(keyed.begin(), keyed.end());
  order_.resize(keyed.size());
  cells_.reserve(keyed.size());
  for (size_t n = 0; n < keyed.size();) {
    size_t end = n;
    while (end < keyed.size() && keyed[end].first == keyed[n].first) {
      order_[end] = keyed[end].second;
      ++end;
    }
    const auto range = std::make_pair(static_cast<uint32_t>(n), static_cast<uint32_t>(end));
    cells_.emplace(keyed[n].first, range);
    cell_ranges_.push_back(range);
    n = end;
  }
}

void RadiusNeighbours::CellsAround(const Eigen::Vector3d& p, std::vector<Range>& around) const {
  around.clear();
  const int64_t ci = CellOf(p.x()), cj = CellOf(p.y()), ck = CellOf(p.z());
  for (int64_t i = ci - 1; i <= ci + 1; ++i)
    for (int64_t j = cj - 1; j <= cj + 1; ++j)
      for (int64_t k = ck - 1; k <= ck + 1; ++k)
        if (const auto cell = cells_.find(KeyOf(i, j, k)); cell != cells_.end())
          around.push_back(cell->second);
  // Three consecutive cells stay distinct modulo 2^21, so no cell is visited twice.
}

void RadiusNeighbours::NearestAmong(const Eigen::Vector3d& query, size_t max_count,
                                    const std::vector<Range>& around,
                                    std::vector<uint32_t>& out) const {
  out.clear();
  candidates_.clear();
  const double radius2 = radius_ * radius_;
  for (const auto& [begin, end] : around)
    for (uint32_t n = begin; n < end; ++n) {
      const double d2 = (points_[order_[n]] - query).squaredNorm();
      if (d2 < radius2) candidates_.emplace_back(d2, order_[n]);
    }
  const size_t count = std::min(max_count, candidates_.size());
  std::partial_sort(candidates_.begin(), candidates_.begin() + static_cast<ptrdiff_t>(count),
                    candidates_.end());
  for (size_t n = 0; n < count; ++n)
    out.push_back(candidates_[n].second);
}

void RadiusNeighbours::Nearest(const Eigen::Vector3d& query, size_t max_count,
                               std::vector<uint32_t>& out) const {
  CellsAround(query, around_);
  NearestAmong(query, max_count, around_, out);
}

void RadiusNeighbours::ForEachPoint(
    size_t max_count,
    const std::function<void(uint32_t, const std::vector<uint32_t>&)>& visit) const {
  std::vector<uint32_t> found;
  std::vector<Range> around;
  for (const auto& [begin, end] : cell_ranges_) {
    // Every point of a cell has the same cells around it.
    CellsAround(points_[order_[begin]], around);
    for (uint32_t n = begin; n < end; ++n) {
      NearestAmong(points_[order_[n]], max_count, around, found);
      visit(order_[n], found);
    }
  }
}

}  // namespace lt
