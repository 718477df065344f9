// Nearest-neighbour queries in 3-D over a fixed point set: a static k-d tree (median splits
// on the widest axis, leaves of up to 8 points). Our own rather than Open3D's KDTreeFlann,
// which crashes in Debian 12's Open3D 0.16 build on sets above ~10^4 points
// (docs/adr/0005-own-kd-tree-for-compare.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lt::compare {

class NearestNeighbourIndex {
 public:
  explicit NearestNeighbourIndex(std::vector<std::array<double, 3>> points);

  // Index of the nearest point and its squared distance; -1 when the set is empty. Ties go
  // to the lower index, so results do not depend on the build order.
  int Nearest(const std::array<double, 3>& q, double* distance2) const;
  size_t size() const { return points_.size(); }

 private:
  struct Node {
    double split = 0;
    uint32_t begin = 0, end = 0;  // range in order_ (leaves)
    int32_t left = -1, right = -1;
    uint8_t axis = 0;
    bool leaf() const { return left < 0; }
  };
  int32_t Build(uint32_t begin, uint32_t end);

  std::vector<std::array<double, 3>> points_;
  std::vector<uint32_t> order_;
  std::vector<Node> nodes_;
};

}  // namespace lt::compare
