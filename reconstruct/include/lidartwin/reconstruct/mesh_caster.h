// A ray caster over one triangle mesh that owns the scene it casts into (the caster refers to
// its scene, so the two live and move together): the reconstruction casts onto a surface in
// several places (the frames' alignment, carving, the held-out frame's placement).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "lidartwin/sim/ray_caster.h"
#include "lidartwin/sim/scene.h"

namespace lt {

struct MeshCaster {
  std::unique_ptr<Scene> scene;
  std::unique_ptr<RayCaster> caster;  // null: Embree could not hold the mesh (out of memory)
};

// The mesh as one object of its own scene, and a caster over it.
MeshCaster CasterOfMesh(std::vector<std::array<double, 3>> vertices,
                        std::vector<std::array<uint32_t, 3>> triangles);

}  // namespace lt
