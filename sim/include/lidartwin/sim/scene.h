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

// Rigid motion of an object from scene time 0 (where its pose puts it): translation at a
// constant velocity and a constant yaw rate about the world z axis through its position.
struct ObjectMotion {
  std::array<double, 3> velocity_m_s{0, 0, 0};
  double yaw_rate_rad_s = 0;
  bool moving() const {
    return velocity_m_s[0] != 0 || velocity_m_s[1] != 0 || velocity_m_s[2] != 0 ||
           yaw_rate_rad_s != 0;
  }
};

struct SceneObject {
  std::string name;
  std::string type;  // plane, box, disc, plate, mesh
  uint32_t material_id = 0;
  uint16_t semantic_class = 0;
  uint32_t instance_id = 0;
  physics::Pose<double> pose{{1, 0, 0, 0}, {0, 0, 0}};
  std::array<double, 3> size_m{0, 0, 0};  // plate/plane: width, height; box: x y z; disc: r
  TriangleMesh mesh;                      // world coordinates at scene time 0
  ObjectMotion motion;
  size_t degenerate_triangles_dropped = 0;
};

struct Scene {
  std::vector<SceneObject> objects;
  MaterialLibrary materials;
  std::string source_text;  // the scene YAML as read
  size_t TriangleCount() const;
  bool HasMovingObjects() const;
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

// World vertices of an object at scene time t_s (its mesh holds them at t = 0):
// p(t) = c + Rz(w t) (p(0) - c) + v t, c the object's position, w its yaw rate, v its velocity.
std::vector<std::array<double, 3>> VerticesAt(const SceneObject& object, double t_s);

// Loads a scene YAML. mesh_loader may be empty: scenes with meshes then fail with a message.
Expected<Scene> LoadScene(const std::filesystem::path& file, const MeshLoader& mesh_loader);

}  // namespace lt
