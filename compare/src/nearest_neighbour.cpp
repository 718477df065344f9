#include "lidartwin/compare/nearest_neighbour.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace lt::compare {
namespace {

constexpr uint32_t kLeafSize = 8;

}  // namespace

NearestNeighbourIndex::NearestNeighbourIndex(std::vector<std::array<double, 3>> points)
    : points_(std::move(points)), order_(points_.size()) {
  std::iota(order_.begin(), order_.end(), 0u);
  if (!points_.empty()) {
    nodes_.reserve(2 * points_.size() / kLeafSize + 2);
    Build(0, static_cast<uint32_t>(points_.size()));
  }
}

int32_t NearestNeighbourIndex::Build(uint32_t begin, uint32_t end) {
  const auto id = static_cast<int32_t>(nodes_.size());
  nodes_.push_back({});
  nodes_[id].begin = begin;
  nodes_[id].end = end;
  if (end - begin <= kLeafSize) return id;
  std::array<double, 3> lo = points_[order_[begin]], hi = lo;
  for (uint32_t i = begin; i < end; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], points_[order_[i]][k]);
      hi[k] = std::max(hi[k], points_[order_[i]][k]);
    }
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
  if (!(hi[axis] > lo[axis])) return id;  // all points equal: one leaf, however many
  const uint32_t mid = begin + (end - begin) / 2;
  std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                   [&](uint32_t a, uint32_t b) {
                     return points_[a][axis] < points_[b][axis] ||
                            (points_[a][axis] == points_[b][axis] && a < b);
                   });
  const double split = points_[order_[mid]][axis];
  const int32_t left = Build(begin, mid);
  const int32_t right = Build(mid, end);
  nodes_[id].axis = static_cast<uint8_t>(axis);
  nodes_[id].split = split;
  nodes_[id].left = left;
  nodes_[id].right = right;
  return id;
}

int NearestNeighbourIndex::Nearest(const std::array<double, 3>& q, double* distance2) const {
  if (points_.empty()) return -1;
  double best = INFINITY;
  uint32_t best_index = UINT32_MAX;
  // Depth-first, near side first; a far side is visited only if the splitting plane is
  // nearer than the best distance so far.
  struct Item {
    int32_t node;
    double plane2;  // squared distance from q to the region (lower bound)
  };
  Item stack[128];
  int top = 0;
  stack[top++] = {0, 0.0};
  while (top > 0) {
    const Item item = stack[--top];
    if (item.plane2 > best) continue;
    const Node& n = nodes_[item.node];
    if (n.leaf()) {
      for (uint32_t i = n.begin; i < n.end; ++i) {
        const uint32_t p = order_[i];
        const double dx = points_[p][0] - q[0], dy = points_[p][1] - q[1],
                     dz = points_[p][2] - q[2];
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < best || (d2 == best && p < best_index)) {
          best = d2;
          best_index = p;
        }
      }
      continue;
    }
    const double d = q[n.axis] - n.split;
    const int32_t near = d < 0 ? n.left : n.right, far = d < 0 ? n.right : n.left;
    stack[top++] = {far, std::max(item.plane2, d * d)};
    stack[top++] = {near, item.plane2};
  }
  if (distance2) *distance2 = best;
  return static_cast<int>(best_index);
}

}  // namespace lt::compare
