#include "lidartwin/reconstruct/mesh_caster.h"

#include <utility>

namespace lt {

MeshCaster CasterOfMesh(std::vector<std::array<double, 3>> vertices,
                        std::vector<std::array<uint32_t, 3>> triangles) {
  MeshCaster out;
  out.scene = std::make_unique<Scene>();
  SceneObject& object = out.scene->objects.emplace_back();
  object.type = "mesh";
  object.mesh.vertices = std::move(vertices);
  object.mesh.triangles = std::move(triangles);
  out.caster = RayCaster::Create(*out.scene);
  return out;
}

}  // namespace lt
