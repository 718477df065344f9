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
  std::string type;  // plane, box, disc, plate, mesh, forest
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

// Procedural forest (seed 001 sec. 3 and Fig. 3: canopies that let part of the pulses through
// to the ground). Trees stand on the local x-y plane (z up) of the forest, one per cell of a
// grid over the area, at a random place in their cell; each has a trunk, a prism of
// kForestTrunkSides sides from the ground to the crown centre, and a crown, a sphere
// holding leaves_per_tree leaves: equilateral triangles of side leaf_size_m with centres
// uniform in the sphere and orientations uniform on the sphere. The gaps between them let
// rays through: a vertical ray crossing a crown along a chord of length L gets through with
// probability exp(-G a n L / V) (G = 1/2 for isotropic leaves, a the leaf area, n the leaves,
// V the crown volume). Every draw is Philox4x32-10 keyed by `seed`, so the same seed gives the
// same triangles on every machine. Keys and defaults: configs/README.md.
struct ForestParams {
  double area_x_m = 0;  // the stems stand in this rectangle, centred on the origin
  double area_y_m = 0;
  uint32_t tree_count = 0;
  double trunk_height_m = 8;  // ground to the crown centre
  double trunk_radius_m = 0.2;
  double crown_radius_m = 3;
  double leaf_size_m = 0.25;  // side of a leaf triangle
  uint32_t leaves_per_tree = 2000;
  double size_variation = 0;  // each tree scaled by a factor uniform in [1 - v, 1 + v]
  uint64_t seed = 0;
};

inline constexpr int kForestTrunkSides = 8;
inline constexpr uint32_t kForestTrunkTriangles = 2 * kForestTrunkSides + kForestTrunkSides - 2;

struct ForestTree {
  double x_m = 0, y_m = 0;  // stem position on the forest's ground
  double scale = 1;         // trunk height and radius, crown radius x scale
};

// The grid of cells: columns x rows >= tree_count, cells as square as the area allows.
struct ForestGrid {
  uint32_t columns = 0, rows = 0;
  double cell_x_m = 0, cell_y_m = 0;
};
ForestGrid ForestCells(const ForestParams& p);

// Where the trees stand: tree_count distinct cells drawn at random, each stem at a uniform
// place in its cell at least its trunk radius from the cell's edges (stems never touch).
std::vector<ForestTree> PlaceForestTrees(const ForestParams& p);

struct ForestTreeMesh {
  TriangleMesh trunk;    // kForestTrunkTriangles triangles: the sides and the top
  TriangleMesh foliage;  // leaves_per_tree triangles
};
// Tree `index` (its own random stream) in the forest's local coordinates.
ForestTreeMesh MakeForestTree(const ForestParams& p, uint32_t index, const ForestTree& tree);

// Checks a mesh: NaN/inf vertices and out-of-range indices are errors (named by `what`);
// degenerate triangles (zero area) are removed and counted.
Status CleanMesh(TriangleMesh& mesh, const std::string& what, size_t* degenerate_dropped);

// World vertices of an object at scene time t_s (its mesh holds them at t = 0):
// p(t) = c + Rz(w t) (p(0) - c) + v t, c the object's position, w its yaw rate, v its velocity.
std::vector<std::array<double, 3>> VerticesAt(const SceneObject& object, double t_s);

// Loads a scene YAML. mesh_loader may be empty: scenes with meshes then fail with a message.
Expected<Scene> LoadScene(const std::filesystem::path& file, const MeshLoader& mesh_loader);

}  // namespace lt
