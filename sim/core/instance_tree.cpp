#include "internal/instance_tree.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <limits>

namespace lt {

using physics::BvhBox;
using physics::BvhNode;

namespace {

BvhBox EmptyBox() {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  return {{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}};
}

void Grow(BvhBox& b, const BvhBox& o) {
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = std::min(b.lo[a], o.lo[a]);
    b.hi[a] = std::max(b.hi[a], o.hi[a]);
  }
}

double HalfArea(const BvhBox& b) {
  const double x = b.hi[0] - b.lo[0], y = b.hi[1] - b.lo[1], z = b.hi[2] - b.lo[2];
  return x * y + y * z + z * x;
}

float Centre(const BvhBox& b, int a) {
  return 0.5f * (b.lo[a] + b.hi[a]);
}

// Binary tree of Karras' layout (count - 1 internal nodes, root 0, leaves ~sorted position).
class BoxTreeBuilder {
 public:
  explicit BoxTreeBuilder(const std::vector<BvhBox>& boxes) : boxes_(boxes) {
    order.resize(boxes.size());
    for (uint32_t i = 0; i < order.size(); ++i)
      order[i] = i;
    nodes.reserve(boxes.size());
  }

  // The child word of the subtree over sorted positions [b, e), its box in `bounds`.
  int32_t Build(uint32_t b, uint32_t e, int depth, BvhBox& bounds) {
    if (e - b == 1) {
      bounds = boxes_[order[b]];
      return ~static_cast<int32_t>(b);
    }
    const auto node = static_cast<int32_t>(nodes.size());
    nodes.emplace_back();
    const uint32_t m = Split(b, e, depth);
    BvhBox left, right;
    const int32_t l = Build(b, m, depth + 1, left);
    const int32_t r = Build(m, e, depth + 1, right);
    nodes[node].box[0] = left;
    nodes[node].box[1] = right;
    nodes[node].child[0] = l;
    nodes[node].child[1] = r;
    bounds = left;
    Grow(bounds, right);
    return node;
  }

  std::vector<BvhNode> nodes;
  std::vector<uint32_t> order;  // sorted position -> box index

 private:
  // Where [b, e) splits, its items partitioned.
  uint32_t Split(uint32_t b, uint32_t e, int depth) {
    BvhBox centres = EmptyBox();
    for (uint32_t i = b; i < e; ++i) {
      const BvhBox& x = boxes_[order[i]];
      const BvhBox c{{Centre(x, 0), Centre(x, 1), Centre(x, 2)},
                     {Centre(x, 0), Centre(x, 1), Centre(x, 2)}};
      Grow(centres, c);
    }
    int axis = 0;
    for (int a = 1; a < 3; ++a) {
      if (centres.hi[a] - centres.lo[a] > centres.hi[axis] - centres.lo[axis]) axis = a;
    }
    const float lo = centres.lo[axis], extent = centres.hi[axis] - lo;
    auto* first = order.data() + b;
    auto* last = order.data() + e;
    const uint32_t median = b + (e - b) / 2;
    auto by_centre = [&](uint32_t x, uint32_t y) {
      return Centre(boxes_[x], axis) < Centre(boxes_[y], axis) ||
             (Centre(boxes_[x], axis) == Centre(boxes_[y], axis) && x < y);
    };
    if (!(extent > 0) || depth >= kMedianDepth) {
      std::nth_element(first, order.data() + median, last, by_centre);
      return median;
    }
    constexpr int kBins = 16;
    std::array<BvhBox, kBins> bin;
    std::array<uint32_t, kBins> count{};
    bin.fill(EmptyBox());
    auto bin_of = [&](uint32_t i) {
      const int k = static_cast<int>(kBins * ((Centre(boxes_[i], axis) - lo) / extent));
      return std::clamp(k, 0, kBins - 1);
    };
    for (uint32_t i = b; i < e; ++i) {
      const int k = bin_of(order[i]);
      Grow(bin[k], boxes_[order[i]]);
      ++count[k];
    }
    // SAH: the split after bin k costing A(left) N(left) + A(right) N(right).
    std::array<double, kBins> right_cost{};
    BvhBox acc = EmptyBox();
    uint32_t n = 0;
    for (int k = kBins - 1; k > 0; --k) {
      Grow(acc, bin[k]);
      n += count[k];
      right_cost[k] = n ? HalfArea(acc) * n : 0;
    }
    acc = EmptyBox();
    n = 0;
    double best = std::numeric_limits<double>::infinity();
    int split = -1;
    for (int k = 0; k + 1 < kBins; ++k) {
      Grow(acc, bin[k]);
      n += count[k];
      if (n == 0 || n == e - b) continue;
      const double cost = HalfArea(acc) * n + right_cost[k + 1];
      if (cost < best) {
        best = cost;
        split = k;
      }
    }
    if (split < 0) {
      std::nth_element(first, order.data() + median, last, by_centre);
      return median;
    }
    auto* mid = std::partition(first, last, [&](uint32_t i) { return bin_of(i) <= split; });
    return static_cast<uint32_t>(mid - order.data());
  }

  // Past this depth the median keeps the tree within the collapse's kWideMaxDepth.
  static constexpr int kMedianDepth = 32;
  const std::vector<BvhBox>& boxes_;
};

}  // namespace

BvhBox ModelBox(const std::vector<std::array<double, 3>>& vertices) {
  BvhBox b = EmptyBox();
  for (const auto& v : vertices) {
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = std::min(b.lo[a], std::nextafter(static_cast<float>(v[a]), -INFINITY));
      b.hi[a] = std::max(b.hi[a], std::nextafter(static_cast<float>(v[a]), INFINITY));
    }
  }
  return b;
}

BvhBox PlacedBox(const BvhBox& model_box, const physics::RigidTransform& x) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int corner = 0; corner < 8; ++corner) {
    const physics::Vec3<double> c{(corner & 1) ? model_box.hi[0] : model_box.lo[0],
                                  (corner & 2) ? model_box.hi[1] : model_box.lo[1],
                                  (corner & 4) ? model_box.hi[2] : model_box.lo[2]};
    const physics::Vec3<double> w = physics::PlacePoint(x, c);
    const double p[3] = {w.x, w.y, w.z};
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], p[a]);
      hi[a] = std::max(hi[a], p[a]);
    }
  }
  BvhBox out;
  for (int a = 0; a < 3; ++a) {
    // A ray moved into the model's frame in float is off by a few float spacings of the
    // world coordinates it crosses: 8 of them at the box's largest magnitude (1 mm at 1e4 m).
    const double magnitude = std::max(std::fabs(lo[a]), std::fabs(hi[a]));
    const double pad = 1e-6 * (hi[a] - lo[a]) + 1e-3 + 8 * FLT_EPSILON * magnitude;
    out.lo[a] = std::nextafter(static_cast<float>(lo[a] - pad), -INFINITY);
    out.hi[a] = std::nextafter(static_cast<float>(hi[a] + pad), INFINITY);
  }
  return out;
}

namespace {

// The tree over items whose boxes are given, its leaves holding leaf_items[i] for item i.
physics::WideBvhTree BuildTree(const std::vector<BvhBox>& boxes,
                               const std::vector<physics::BvhTriangle>& leaf_items) {
  if (boxes.empty()) return {};
  BoxTreeBuilder builder(boxes);
  BvhBox all;
  builder.Build(0, static_cast<uint32_t>(boxes.size()), 0, all);
  std::vector<physics::BvhTriangle> sorted(boxes.size());
  for (size_t i = 0; i < boxes.size(); ++i)
    sorted[i] = leaf_items[builder.order[i]];
  return physics::CollapseToWideOnHost(builder.nodes, sorted, &builder.order);
}

}  // namespace

physics::WideBvhTree BuildBoxTree(const std::vector<BvhBox>& boxes) {
  // Each box as a triangle spanning it (lo, hi, lo): its bounds are the box, which is all the
  // collapse and the traversal's box tests see; the leaf test reads only the id.
  std::vector<physics::BvhTriangle> spans(boxes.size());
  for (size_t i = 0; i < boxes.size(); ++i) {
    const BvhBox& b = boxes[i];
    spans[i] = {
        {b.lo[0], b.lo[1], b.lo[2]}, {b.hi[0], b.hi[1], b.hi[2]}, {b.lo[0], b.lo[1], b.lo[2]}};
  }
  return BuildTree(boxes, spans);
}

physics::WideBvhTree BuildTriangleTree(const std::vector<physics::BvhTriangle>& triangles) {
  std::vector<BvhBox> boxes(triangles.size());
  for (size_t i = 0; i < triangles.size(); ++i)
    boxes[i] = physics::TriangleBounds(triangles[i]);
  return BuildTree(boxes, triangles);
}

}  // namespace lt
