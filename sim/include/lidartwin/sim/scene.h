// Scene: triangles with per-object material, semantic class and instance id.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lidartwin/physics/pose.h"
#include "lidartwin/sim/material_library.h"
#include "lidartwin/sim/status.h"

namespace lt {

struct TriangleMesh {
  std::vector<std::array<double, 3>> vertices;
  std::vector<std::array<uint32_t, 3>> triangles;
};

struct SceneObject {
  std::string name;
  std::string type;  // plane, box, disc, plate, mesh
  uint32_t material_id = 0;
  uint16_t semantic_class = 0;
  uint32_t instance_id = 0;
  physics::Pose<double> pose{{1, 0, 0, 0}, {0, 0, 0}};
  std::array<double, 3> size_m{0, 0, 0};  // plate/plane: width, height; box: x y z; disc: r
  TriangleMesh mesh;                      // world coordinates
  size_t degenerate_triangles_dropped = 0;
};

struct Scene {
  std::vector<SceneObject> objects;
  MaterialLibrary materials;
  std::string source_text;  // the scene YAML as read
  size_t TriangleCount() const;
};

// Loads a mesh file (PLY, OBJ) into local coordinates. Supplied by an adapter outside the
// simulator core (datasets/ uses Open3D), so the core builds without Open3D.
using MeshLoader = std::function<Expected<TriangleMesh>(const std::filesystem::path&)>;

// Procedural primitives in local coordinates (see configs/README.md for their frames).
TriangleMesh MakePlate(double width_m, double height_m);   // in local y-z, normal +x
TriangleMesh MakePlane(double size_x_m, double size_y_m);  // in local x-y, normal +z
TriangleMesh MakeBox(double size_x_m, double size_y_m, double size_z_m);
TriangleMesh MakeDisc(double radius_m, int segments);  // in local y-z, normal +x

// Checks a mesh: NaN/inf vertices and out-of-range indices are errors (named by `what`);
// degenerate triangles (zero area) are removed and counted.
Status CleanMesh(TriangleMesh& mesh, const std::string& what, size_t* degenerate_dropped);

// Loads a scene YAML. mesh_loader may be empty: scenes with meshes then fail with a message.
Expected<Scene> LoadScene(const std::filesystem::path& file, const MeshLoader& mesh_loader);

}  // namespace lt
