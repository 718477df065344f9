// Tree quality of the GPU builders (issue 14): the SAH cost of a binary BVH in the GPU's layout
// (physics/bvh.h: count - 1 internal nodes, each holding its two children's boxes, leaves of
// one triangle), and a binned-SAH tree built on the host in the same layout as the reference
// the issue measures against ("SAH cost within 10 % of binned SAH").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lidartwin/physics/bvh.h"
#include "lidartwin/physics/wide_bvh.h"

namespace lt::bench {

// SAH cost (Goldsmith & Salmon 1987, MacDonald & Booth 1990) with unit costs for a node visit
// and a triangle test: the sum over internal nodes of their surface area, plus the sum over
// leaves of their area times their triangle count (1), all over the root's area. The expected
// number of node visits plus triangle tests of a ray that crosses the root's box, for rays
// uniformly distributed in direction and position. 0 for an empty tree.
double SahCost(const std::vector<physics::BvhNode>& nodes);

// The reference: top-down binned SAH (Wald, "On fast construction of SAH-based bounding
// volume hierarchies", 2007) with 32 bins on each axis of the centroid bounds, splitting to
// single triangles, in the GPU layout. soup: 9 floats a triangle, at least 2.
std::vector<physics::BvhNode> BuildBinnedSahBvh(const std::vector<float>& soup);

// The triangles in a tree's leaf order: `order[k]` is the input triangle at sorted position k
// (a GPU tree), or the input order when `order` is null (the host reference's leaves hold
// input indices).
std::vector<physics::BvhTriangle> TrianglesInLeafOrder(const std::vector<float>& soup,
                                                       const std::vector<uint32_t>* order);

// Node fetches (four box tests, 64 bytes each) and triangle tests per ray, over every
// `stride`-th ray, counted on the host by the GPU's own closest-hit traversal of a wide tree
// (physics/wide_bvh.h).
struct TraversalCosts {
  double nodes_per_ray = 0, triangles_per_ray = 0;
  uint64_t rays = 0;
};
// Box tests and bytes fetched per ray from those counts: a wide node fetch tests its
// kWideArity child boxes and reads sizeof(WideNode) bytes, a triangle test sizeof(WideTriangle).
inline double BoxTestsPerRay(double nodes_per_ray) {
  return physics::kWideArity * nodes_per_ray;
}
inline double BytesPerRay(double nodes_per_ray, double triangles_per_ray) {
  return sizeof(physics::WideNode) * nodes_per_ray +
         sizeof(physics::WideTriangle) * triangles_per_ray;
}
TraversalCosts CountTraversal(const physics::WideBvhView& bvh, const std::vector<float>& origins,
                              const std::vector<float>& directions, size_t stride);

}  // namespace lt::bench
