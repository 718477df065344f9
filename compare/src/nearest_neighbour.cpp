#include "lidartwin/compare/nearest_neighbour.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace lt::compare {
namespace {

constexpr uint32_t kLeafSize = 8;

using Vec3 = std::array<double, 3>;

bool IsFinite(const Vec3& p) {
  return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]);
}

}  // namespace

CoincidentGroups GroupCoincident(const std::vector<Vec3>& points) {
  // Sort the finite points by position (then index), cut the runs of equal positions, then
  // renumber the groups by their lowest member. O(N log N) whatever the duplicates.
  std::vector<uint32_t> by_position;
  by_position.reserve(points.size());
  for (uint32_t i = 0; i < points.size(); ++i)
    if (IsFinite(points[i])) by_position.push_back(i);
  std::sort(by_position.begin(), by_position.end(), [&](uint32_t a, uint32_t b) {
    return points[a] < points[b] || (points[a] == points[b] && a < b);
  });
  std::vector<std::pair<uint32_t, uint32_t>> runs;  // [begin, end) in by_position
  for (uint32_t i = 0; i < by_position.size();) {
    uint32_t j = i + 1;
    while (j < by_position.size() && points[by_position[j]] == points[by_position[i]])
      ++j;
    runs.emplace_back(i, j);
    i = j;
  }
  // Each run starts with its lowest member; order the runs by it.
  std::sort(runs.begin(), runs.end(), [&](const auto& a, const auto& b) {
    return by_position[a.first] < by_position[b.first];
  });
  CoincidentGroups g;
  g.positions.reserve(runs.size());
  g.begin.reserve(runs.size() + 1);
  g.members.reserve(by_position.size());
  for (const auto& [b, e] : runs) {
    g.positions.push_back(points[by_position[b]]);
    g.begin.push_back(static_cast<uint32_t>(g.members.size()));
    g.members.insert(g.members.end(), by_position.begin() + b, by_position.begin() + e);
  }
  g.begin.push_back(static_cast<uint32_t>(g.members.size()));
  return g;
}

NearestNeighbourIndex::NearestNeighbourIndex(const std::vector<Vec3>& points)
    : NearestNeighbourIndex(GroupsTag{}, GroupCoincident(points)) {}

NearestNeighbourIndex NearestNeighbourIndex::OfGroups(CoincidentGroups groups) {
  return NearestNeighbourIndex(GroupsTag{}, std::move(groups));
}

NearestNeighbourIndex::NearestNeighbourIndex(GroupsTag, CoincidentGroups groups)
    : groups_(std::move(groups)), order_(groups_.size()) {
  std::iota(order_.begin(), order_.end(), 0u);
  if (!order_.empty()) {
    nodes_.reserve(2 * order_.size() / kLeafSize + 2);
    Build(0, static_cast<uint32_t>(order_.size()));
  }
}

int32_t NearestNeighbourIndex::Build(uint32_t begin, uint32_t end) {
  const auto& pos = groups_.positions;
  const auto id = static_cast<int32_t>(nodes_.size());
  nodes_.push_back({});
  nodes_[id].begin = begin;
  nodes_[id].end = end;
  if (end - begin <= kLeafSize) return id;
  Vec3 lo = pos[order_[begin]], hi = lo;
  for (uint32_t i = begin; i < end; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], pos[order_[i]][k]);
      hi[k] = std::max(hi[k], pos[order_[i]][k]);
    }
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
  // Distinct positions differ on some axis, so a node of more than one group always splits
  // and the depth stays log2(groups / kLeafSize).
  const uint32_t mid = begin + (end - begin) / 2;
  std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                   [&](uint32_t a, uint32_t b) {
                     return pos[a][axis] < pos[b][axis] || (pos[a][axis] == pos[b][axis] && a < b);
                   });
  const double split = pos[order_[mid]][axis];
  const int32_t left = Build(begin, mid);
  const int32_t right = Build(mid, end);
  nodes_[id].axis = static_cast<uint8_t>(axis);
  nodes_[id].split = split;
  nodes_[id].left = left;
  nodes_[id].right = right;
  return id;
}

int NearestNeighbourIndex::NearestGroup(const Vec3& q, double* distance2) const {
  if (order_.empty()) return -1;
  const auto& pos = groups_.positions;
  double best = INFINITY;
  uint32_t best_group = UINT32_MAX;
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
        const uint32_t g = order_[i];
        const double dx = pos[g][0] - q[0], dy = pos[g][1] - q[1], dz = pos[g][2] - q[2];
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < best || (d2 == best && g < best_group)) {
          best = d2;
          best_group = g;
        }
      }
      continue;
    }
    const double d = q[n.axis] - n.split;
    const int32_t near = d < 0 ? n.left : n.right, far = d < 0 ? n.right : n.left;
    stack[top++] = {far, std::max(item.plane2, d * d)};
    stack[top++] = {near, item.plane2};
  }
  if (best_group == UINT32_MAX) return -1;  // a query with a NaN coordinate
  if (distance2) *distance2 = best;
  return static_cast<int>(best_group);
}

int NearestNeighbourIndex::Nearest(const Vec3& q, double* distance2) const {
  const int g = NearestGroup(q, distance2);
  return g < 0 ? -1 : static_cast<int>(groups_.Lowest(static_cast<size_t>(g)));
}

}  // namespace lt::compare
