// Nearest-neighbour queries in 3-D over a fixed point set: a static k-d tree (median splits
// on the widest axis, leaves of up to 8 points). Our own rather than Open3D's KDTreeFlann,
// which crashes in Debian 12's Open3D 0.16 build on sets above ~10^4 points
// (docs/adr/0005-own-kd-tree-for-compare.md).
//
// Coincident points (organised clouds store "no return" as (0,0,0); repeated captures repeat
// whole frames) enter the tree once, as one group: a tree over N copies of one point would be a
// single leaf that every query scans, N^2 work in all (issue 36).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lt::compare {

// Points grouped by exact position. Groups are numbered in the order of their lowest member,
// members are ascending within a group, and non-finite points belong to no group (no
// distance to them is defined).
struct CoincidentGroups {
  std::vector<std::array<double, 3>> positions;  // one per group
  std::vector<uint32_t> begin;                   // group g's members: [begin[g], begin[g + 1])
  std::vector<uint32_t> members;                 // indices into the input points

  size_t size() const { return positions.size(); }
  uint32_t Count(size_t g) const { return begin[g + 1] - begin[g]; }
  uint32_t Lowest(size_t g) const { return members[begin[g]]; }
};
CoincidentGroups GroupCoincident(const std::vector<std::array<double, 3>>& points);

class NearestNeighbourIndex {
 public:
  explicit NearestNeighbourIndex(const std::vector<std::array<double, 3>>& points);
  static NearestNeighbourIndex OfGroups(CoincidentGroups groups);

  // Index of the nearest point and its squared distance; -1 when the set is empty. Ties go
  // to the lower index, so results do not depend on the build order.
  int Nearest(const std::array<double, 3>& q, double* distance2) const;
  // The nearest group (ties to the lower group number, which is the lower lowest member).
  int NearestGroup(const std::array<double, 3>& q, double* distance2) const;
  const CoincidentGroups& groups() const { return groups_; }
  // Points in the set, coincident ones counted once each.
  size_t size() const { return groups_.members.size(); }

 private:
  struct Node {
    double split = 0;
    uint32_t begin = 0, end = 0;  // range in order_ (leaves)
    int32_t left = -1, right = -1;
    uint8_t axis = 0;
    bool leaf() const { return left < 0; }
  };
  struct GroupsTag {};  // (a tag, so that NearestNeighbourIndex({}) stays the empty point list)
  NearestNeighbourIndex(GroupsTag, CoincidentGroups groups);
  int32_t Build(uint32_t begin, uint32_t end);

  CoincidentGroups groups_;
  std::vector<uint32_t> order_;  // group numbers, in tree order
  std::vector<Node> nodes_;
};

}  // namespace lt::compare
