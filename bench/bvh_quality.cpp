#include "lidartwin/bench/bvh_quality.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>

#include "lidartwin/base/status.h"

namespace lt::bench {
namespace {

using physics::BvhBox;
using physics::BvhNode;

BvhBox Empty() {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  return {{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}};
}

void Grow(BvhBox& b, const BvhBox& o) {
  for (int k = 0; k < 3; ++k) {
    b.lo[k] = std::min(b.lo[k], o.lo[k]);
    b.hi[k] = std::max(b.hi[k], o.hi[k]);
  }
}

double Area(const BvhBox& b) {
  if (b.hi[0] < b.lo[0]) return 0;  // empty
  const double x = b.hi[0] - b.lo[0], y = b.hi[1] - b.lo[1], z = b.hi[2] - b.lo[2];
  return 2 * (x * y + y * z + z * x);
}

constexpr int kBins = 32;

struct Builder {
  std::vector<BvhBox> boxes;                   // per triangle
  std::vector<std::array<float, 3>> centroid;  // per triangle
  std::vector<uint32_t> index;                 // permuted as the tree splits
  std::vector<BvhNode> nodes;

  BvhBox BoundsOf(uint32_t begin, uint32_t end) const {
    BvhBox b = Empty();
    for (uint32_t i = begin; i < end; ++i)
      Grow(b, boxes[index[i]]);
    return b;
  }

  // Splits [begin, end) (at least 2 triangles) at the best binned SAH plane; returns the
  // split position (both sides non-empty).
  uint32_t Split(uint32_t begin, uint32_t end) {
    BvhBox cb = Empty();
    for (uint32_t i = begin; i < end; ++i) {
      const auto& c = centroid[index[i]];
      Grow(cb, {{c[0], c[1], c[2]}, {c[0], c[1], c[2]}});
    }
    double best_cost = std::numeric_limits<double>::infinity();
    int best_axis = -1, best_bin = 0;
    for (int axis = 0; axis < 3; ++axis) {
      const float lo = cb.lo[axis], extent = cb.hi[axis] - cb.lo[axis];
      if (!(extent > 0)) continue;
      std::array<BvhBox, kBins> bin_box;
      std::array<uint32_t, kBins> bin_count{};
      bin_box.fill(Empty());
      const float scale = kBins / extent;
      auto bin_of = [&](uint32_t t) {
        return std::min(kBins - 1, static_cast<int>((centroid[t][axis] - lo) * scale));
      };
      for (uint32_t i = begin; i < end; ++i) {
        const int b = bin_of(index[i]);
        Grow(bin_box[b], boxes[index[i]]);
        ++bin_count[b];
      }
      // Sweep: areas and counts of everything left of each plane, then right of it.
      std::array<double, kBins> left_area{};
      std::array<uint32_t, kBins> left_count{};
      BvhBox acc = Empty();
      uint32_t n = 0;
      for (int b = 0; b < kBins - 1; ++b) {
        Grow(acc, bin_box[b]);
        n += bin_count[b];
        left_area[b] = Area(acc);
        left_count[b] = n;
      }
      acc = Empty();
      n = 0;
      for (int b = kBins - 1; b > 0; --b) {
        Grow(acc, bin_box[b]);
        n += bin_count[b];
        const uint32_t nl = left_count[b - 1];
        if (nl == 0 || n == 0) continue;
        const double cost = left_area[b - 1] * nl + Area(acc) * n;
        if (cost < best_cost) {
          best_cost = cost;
          best_axis = axis;
          best_bin = b;
        }
      }
    }
    if (best_axis < 0) return begin + (end - begin) / 2;  // every centroid in one point
    const float lo = cb.lo[best_axis];
    const float scale = kBins / (cb.hi[best_axis] - cb.lo[best_axis]);
    auto* mid = std::partition(index.data() + begin, index.data() + end, [&](uint32_t t) {
      return std::min(kBins - 1, static_cast<int>((centroid[t][best_axis] - lo) * scale)) <
             best_bin;
    });
    const auto at = static_cast<uint32_t>(mid - index.data());
    return at == begin || at == end ? begin + (end - begin) / 2 : at;
  }

  // The child slot for [begin, end): a leaf (~triangle) or a new internal node.
  int32_t Child(uint32_t begin, uint32_t end) {
    if (end - begin == 1) return ~static_cast<int32_t>(index[begin]);
    const auto id = static_cast<int32_t>(nodes.size());
    nodes.emplace_back();
    const uint32_t mid = Split(begin, end);
    const int32_t left = Child(begin, mid);
    const int32_t right = Child(mid, end);
    BvhNode& n = nodes[id];
    n.box[0] = BoundsOf(begin, mid);
    n.box[1] = BoundsOf(mid, end);
    n.child[0] = left;
    n.child[1] = right;
    return id;
  }
};

}  // namespace

double SahCost(const std::vector<BvhNode>& nodes) {
  if (nodes.empty()) return 0;
  BvhBox root = nodes[0].box[0];
  Grow(root, nodes[0].box[1]);
  const double root_area = Area(root);
  if (!(root_area > 0)) return 0;
  double cost = 0;
  for (const BvhNode& n : nodes) {
    BvhBox own = n.box[0];
    Grow(own, n.box[1]);
    cost += Area(own);  // visiting this node
    for (int c = 0; c < 2; ++c)
      if (n.child[c] < 0) cost += Area(n.box[c]);  // testing the leaf's one triangle
  }
  return cost / root_area;
}

std::vector<BvhNode> BuildBinnedSahBvh(const std::vector<float>& soup) {
  const size_t count = soup.size() / 9;
  LT_CHECK(soup.size() % 9 == 0 && count >= 2);
  Builder b;
  b.boxes.resize(count);
  b.centroid.resize(count);
  b.index.resize(count);
  std::iota(b.index.begin(), b.index.end(), 0u);
  for (size_t t = 0; t < count; ++t) {
    BvhBox box = Empty();
    for (int v = 0; v < 3; ++v) {
      const float* p = &soup[9 * t + 3 * v];
      Grow(box, {{p[0], p[1], p[2]}, {p[0], p[1], p[2]}});
    }
    b.boxes[t] = box;
    for (int k = 0; k < 3; ++k)
      b.centroid[t][k] = 0.5f * (box.lo[k] + box.hi[k]);
  }
  b.nodes.reserve(count - 1);
  b.Child(0, static_cast<uint32_t>(count));
  return std::move(b.nodes);
}

std::vector<physics::BvhTriangle> TrianglesInLeafOrder(const std::vector<float>& soup,
                                                       const std::vector<uint32_t>* order) {
  const size_t count = soup.size() / 9;
  std::vector<physics::BvhTriangle> out(count);
  for (size_t k = 0; k < count; ++k) {
    const size_t t = order ? (*order)[k] : k;
    for (int i = 0; i < 3; ++i) {
      out[k].v0[i] = soup[9 * t + i];
      out[k].v1[i] = soup[9 * t + 3 + i];
      out[k].v2[i] = soup[9 * t + 6 + i];
    }
  }
  return out;
}

TraversalCosts CountTraversal(const physics::WideBvhView& bvh, const std::vector<float>& origins,
                              const std::vector<float>& directions, size_t stride) {
  physics::TraversalCount count;
  TraversalCosts out;
  for (size_t i = 0; 3 * i < origins.size(); i += std::max<size_t>(1, stride)) {
    float t = 0;
    physics::WideBvhTraverse<false>(bvh, &origins[3 * i], &directions[3 * i], 1e-4f, 1e30f, t,
                                    &count);
    ++out.rays;
  }
  if (out.rays > 0) {
    out.nodes_per_ray = static_cast<double>(count.nodes) / out.rays;
    out.triangles_per_ray = static_cast<double>(count.triangles) / out.rays;
  }
  return out;
}

}  // namespace lt::bench
