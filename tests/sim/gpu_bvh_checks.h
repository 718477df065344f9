// GPU BVH checks shared by the tests of the simulator's builders (tests/sim/cuda_backend_test.cpp)
// and of the bench's binned-SAH builder (tests/bench/gpu_binned_sah_test.cpp). Each builds with
// the builder it is given; the callers skip without a GPU (LT_REQUIRE_GPU).
#pragma once

#include <cstddef>
#include <random>
#include <vector>

#include "lidartwin/physics/vec3.h"
#include "lidartwin/sim/cuda_backend.h"

namespace lt::test {

// Random soup with huge, tiny and zero-area triangles (9 floats each).
std::vector<float> RandomSoup(std::mt19937_64& rng, int n);
// n rays from random origins in [-40, 40]^3 in random directions (3 floats each).
void RandomRays(std::mt19937_64& rng, int n, std::vector<float>& o, std::vector<float>& d);
// The nearest triangle hit beyond t_min in double (-1: none), its distance in `best`.
int BruteForce(const std::vector<float>& soup, const physics::Vec3<double>& o,
               const physics::Vec3<double>& d, double t_min, double& best);

// The GPU's closest hits equal brute force's but for float-vs-double decisions at edges.
void ExpectBvhMatchesBruteForce(const std::vector<float>& soup, const std::vector<float>& origins,
                                const std::vector<float>& dirs, const char* what,
                                const GpuBvhChoice& builder = GpuBvhBuilder::kLbvh);
// The tree copied to the host is whole: every triangle in exactly one leaf, each internal node
// reached once from the root, every child box holding its whole subtree; and the wide tree
// within its stack.
void ExpectWholeTree(const std::vector<float>& soup, const GpuBvhChoice& builder, const char* what);
// The GPU's collapse takes the host's decisions: the same wide tree, node for node.
void ExpectWideTreeEqualsTheHostCollapse(const GpuBvhChoice& builder);
// The same on one soup; widest_level (if given): the most wide nodes at one depth.
void ExpectWideTreeEqualsTheHostCollapseOf(const std::vector<float>& soup,
                                           const GpuBvhChoice& builder, const char* what,
                                           size_t* widest_level = nullptr);
// The same on 4 M triangles, whose widest collapse levels hold more items than the collapse
// launches threads.
void ExpectWideTreeEqualsTheHostCollapseAtScale(const GpuBvhChoice& builder);
// 20,000 copies of one triangle build, and the hits go to the smallest index.
void ExpectIdenticalTrianglesToHitTheSmallestIndex(const GpuBvhChoice& builder);
// Any hit within a window equals "brute force finds a hit inside the window".
void ExpectAnyHitsEqualBruteForce(const GpuBvhChoice& builder);
// A tree refitted after a third of its triangles moved finds brute force's hits.
void ExpectRefitAfterMotionMatchesBruteForce(const GpuBvhChoice& builder);
// Scenes of one and two triangles.
void ExpectSingleAndTwoTriangleScenes(const GpuBvhChoice& builder);

}  // namespace lt::test
