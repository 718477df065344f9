// Procedural city blocks for benchmarks: a ground plane and a grid of box buildings with
// seeded random footprints and heights, sized to a triangle budget. Generated, never shipped.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/physics/vec3.h"
#include "lidartwin/sim/scene.h"

namespace lt::bench {

// About target_triangles triangles: blocks of a building (12) on a ground tile (2).
Scene MakeCityScene(uint64_t target_triangles, uint64_t seed);
// The scene as a triangle soup, 9 floats per triangle (what the GPU BVH builder takes).
std::vector<float> TriangleSoup(const Scene& scene);
// The x-y extent of the ground (object 0).
void CityGroundBounds(const Scene& scene, double lo[2], double hi[2]);
// A street-level sensor position in the middle of the city (1.8 m up, between blocks).
physics::Vec3<double> CitySensorPosition(const Scene& scene);

}  // namespace lt::bench
