// Procedural forest (seed 001 sec. 3 and Fig. 3): trunks and leaf triangles, deterministic
// from a seed through Philox4x32-10 (physics/philox.h). See ForestParams in scene.h.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "forest_reader.h"
#include "lidartwin/physics/philox.h"
#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/physics/vec3.h"
#include "whole_number.h"

namespace lt {

namespace {

using physics::kPi;
using V3 = physics::Vec3<double>;

// Counter word 3 of the forest's draws, one per kind of draw. The simulator's own streams
// (physics::RandomKey::stream) are small numbers, so a scene seed equal to a simulation seed
// never replays the simulator's noise as geometry. Append only: a new value per new draw.
constexpr uint32_t kStreamCells = 0x466F7201u;   // "For" 1: which cells hold trees
constexpr uint32_t kStreamTrees = 0x466F7202u;   // position and size of tree k
constexpr uint32_t kStreamLeaves = 0x466F7203u;  // leaf j of tree k (two draws)

physics::Philox4x32 Draw(uint64_t seed, uint32_t a, uint32_t b, uint32_t c, uint32_t stream) {
  return physics::Philox4x32_10({{a, b, c, stream}}, static_cast<uint32_t>(seed),
                                static_cast<uint32_t>(seed >> 32));
}

double Uniform(uint32_t word) {
  return physics::UniformOpen01<double>(word);
}

// A unit vector uniform on the sphere from two uniforms: z uniform in (-1, 1) (Archimedes).
V3 UnitVector(double u_z, double u_phi) {
  const double z = 2 * u_z - 1;
  const double s = std::sqrt(std::max(0.0, 1 - z * z));
  const double phi = 2 * kPi * u_phi;
  return {s * std::cos(phi), s * std::sin(phi), z};
}

}  // namespace

ForestGrid ForestCells(const ForestParams& p) {
  ForestGrid g;
  if (p.tree_count == 0 || !(p.area_x_m > 0) || !(p.area_y_m > 0)) return g;
  const double n = p.tree_count;
  // columns / rows ~ area_x / area_y, so the cells come out about square.
  g.columns =
      static_cast<uint32_t>(std::clamp(std::round(std::sqrt(n * p.area_x_m / p.area_y_m)), 1.0, n));
  g.rows = (p.tree_count + g.columns - 1) / g.columns;
  g.cell_x_m = p.area_x_m / g.columns;
  g.cell_y_m = p.area_y_m / g.rows;
  return g;
}

std::vector<ForestTree> PlaceForestTrees(const ForestParams& p) {
  const ForestGrid g = ForestCells(p);
  const uint32_t cells = g.columns * g.rows;
  std::vector<uint32_t> order(cells);
  std::iota(order.begin(), order.end(), 0u);
  // A partial Fisher-Yates shuffle: its first tree_count entries are a uniform choice of cells
  // (the index by Lemire's multiply-shift; its bias, below cells / 2^32, is immaterial here).
  for (uint32_t i = 0; i < p.tree_count && i + 1 < cells; ++i) {
    const uint64_t w = Draw(p.seed, i, 0, 0, kStreamCells).v[0];
    const uint32_t j = i + static_cast<uint32_t>((w * (cells - i)) >> 32);
    std::swap(order[i], order[j]);
  }
  order.resize(p.tree_count);
  std::sort(order.begin(), order.end());  // trees numbered row by row
  std::vector<ForestTree> trees;
  trees.reserve(p.tree_count);
  for (uint32_t k = 0; k < p.tree_count; ++k) {
    const physics::Philox4x32 r = Draw(p.seed, k, 0, 0, kStreamTrees);
    ForestTree t;
    t.scale = 1 + p.size_variation * (2 * Uniform(r.v[2]) - 1);
    // The stem stays its radius inside the cell, so no two trunks touch.
    const double margin = p.trunk_radius_m * t.scale;
    const uint32_t column = order[k] % g.columns, row = order[k] / g.columns;
    t.x_m = -p.area_x_m / 2 + column * g.cell_x_m + margin +
            Uniform(r.v[0]) * (g.cell_x_m - 2 * margin);
    t.y_m =
        -p.area_y_m / 2 + row * g.cell_y_m + margin + Uniform(r.v[1]) * (g.cell_y_m - 2 * margin);
    trees.push_back(t);
  }
  return trees;
}

ForestTreeMesh MakeForestTree(const ForestParams& p, uint32_t index, const ForestTree& tree) {
  ForestTreeMesh m;
  const double height = p.trunk_height_m * tree.scale;
  const double radius = p.trunk_radius_m * tree.scale;
  const double crown = p.crown_radius_m * tree.scale;

  // Trunk: a ring of kForestTrunkSides vertices on the ground (0..n-1) and one at the crown
  // centre (n..2n-1); side quads as two triangles facing out, the top as a fan facing up.
  const uint32_t n = kForestTrunkSides;
  for (uint32_t ring = 0; ring < 2; ++ring) {
    for (uint32_t k = 0; k < n; ++k) {
      const double a = 2 * kPi * k / n;
      m.trunk.vertices.push_back(
          {tree.x_m + radius * std::cos(a), tree.y_m + radius * std::sin(a), ring * height});
    }
  }
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t next = (k + 1) % n;
    m.trunk.triangles.push_back({k, next, n + next});
    m.trunk.triangles.push_back({k, n + next, n + k});
  }
  for (uint32_t k = 1; k + 1 < n; ++k)
    m.trunk.triangles.push_back({n, n + k, n + k + 1});

  // Leaves: centre uniform in the crown sphere (radius R u^(1/3), direction uniform), normal
  // uniform on the sphere, turned by a uniform angle about it; an equilateral triangle of
  // side s has its corners s / sqrt(3) from its centre.
  const V3 centre{tree.x_m, tree.y_m, height};
  const double corner = p.leaf_size_m / std::sqrt(3.0);
  m.foliage.vertices.reserve(3 * size_t{p.leaves_per_tree});
  m.foliage.triangles.reserve(p.leaves_per_tree);
  for (uint32_t j = 0; j < p.leaves_per_tree; ++j) {
    const physics::Philox4x32 a = Draw(p.seed, index, j, 0, kStreamLeaves);
    const physics::Philox4x32 b = Draw(p.seed, index, j, 1, kStreamLeaves);
    const V3 c = centre + (crown * std::cbrt(Uniform(a.v[0]))) *
                              UnitVector(Uniform(a.v[1]), Uniform(a.v[2]));
    const V3 normal = UnitVector(Uniform(a.v[3]), Uniform(b.v[0]));
    const V3 helper = std::abs(normal.x) < 0.9 ? V3{1, 0, 0} : V3{0, 1, 0};
    const V3 e1 = physics::Normalized(physics::Cross(normal, helper));
    const V3 e2 = physics::Cross(normal, e1);
    const double turn = 2 * kPi * Uniform(b.v[1]);
    const auto first = static_cast<uint32_t>(m.foliage.vertices.size());
    for (int corner_index = 0; corner_index < 3; ++corner_index) {
      const double a_rad = turn + 2 * kPi * corner_index / 3;
      const V3 v = c + corner * (std::cos(a_rad) * e1 + std::sin(a_rad) * e2);
      m.foliage.vertices.push_back({v.x, v.y, v.z});
    }
    m.foliage.triangles.push_back({first, first + 1, first + 2});
  }
  return m;
}

namespace {}  // namespace

ForestDescription ReadForest(ConfigMap& o) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  ForestDescription f;
  ForestParams& p = f.params;
  const std::vector<double> area = o.Numbers("area_m");
  if (area.size() != 2) {
    o.Fail("area_m", "expected 2 numbers [x, y], got " + std::to_string(area.size()));
  } else {
    p.area_x_m = area[0];
    p.area_y_m = area[1];
  }
  p.tree_count = static_cast<uint32_t>(WholeNumber(o, "tree_count", kNone, 0, kMaxU32));
  p.seed = static_cast<uint64_t>(WholeNumber(o, "seed", 0, 0, kMaxSeed));
  p.trunk_height_m = o.Number("trunk_height_m", p.trunk_height_m);
  p.trunk_radius_m = o.Number("trunk_radius_m", p.trunk_radius_m);
  p.crown_radius_m = o.Number("crown_radius_m", p.crown_radius_m);
  p.leaf_size_m = o.Number("leaf_size_m", p.leaf_size_m);
  p.leaves_per_tree =
      static_cast<uint32_t>(WholeNumber(o, "leaves_per_tree", p.leaves_per_tree, 0, kMaxU32));
  p.size_variation = o.Number("size_variation", p.size_variation);
  f.trunk_material = o.String("trunk_material");
  f.foliage_material = o.String("foliage_material");
  f.trunk_semantic_class = static_cast<uint16_t>(
      WholeNumber(o, "trunk_semantic_class", f.trunk_semantic_class, 0, 65535));
  f.foliage_semantic_class = static_cast<uint16_t>(
      WholeNumber(o, "foliage_semantic_class", f.foliage_semantic_class, 0, 65535));
  f.first_instance_id =
      static_cast<uint32_t>(WholeNumber(o, "first_instance_id", f.first_instance_id, 0, kMaxU32));
  return f;
}

namespace {
constexpr double kLeastTreeLengthM = 1e-4, kMostTreeLengthM = 1e3;
}  // namespace

void ForestDescription::Check(ConfigCheck& check) const {
  const ForestParams& p = params;
  // Trees stand within the scene's position limit (a forest twice kMaxPositionM across) and are
  // at most 1 km tall or wide, leaves at least 0.1 mm: beyond, the trees' triangles degenerate
  // in float and the forest vanished with a warning about triangles (issue 36).
  if (!(p.area_x_m > 0 && p.area_y_m > 0 && p.area_x_m <= 2 * kMaxPositionM &&
        p.area_y_m <= 2 * kMaxPositionM)) {
    check.Fail("area_m", "sizes must be in (0, " + NumberText(2 * kMaxPositionM) + "] m, got [" +
                             NumberText(p.area_x_m) + ", " + NumberText(p.area_y_m) + "]");
  }
  if (!(p.tree_count >= 1 && p.tree_count <= 1000000))
    check.Fail("tree_count", "must be in 1..1000000, got " + std::to_string(p.tree_count));
  if (p.seed > static_cast<uint64_t>(kMaxSeed))
    check.Fail("seed", "must be at most 2^53 (a YAML number), got " + std::to_string(p.seed));
  for (const auto& [key, v] : {std::pair<const char*, double>{"trunk_height_m", p.trunk_height_m},
                               {"trunk_radius_m", p.trunk_radius_m},
                               {"crown_radius_m", p.crown_radius_m},
                               {"leaf_size_m", p.leaf_size_m}}) {
    if (!(v >= kLeastTreeLengthM && v <= kMostTreeLengthM))
      check.Fail(key, "must be in 0.0001..1000 m, got " + NumberText(v));
  }
  if (!(p.leaves_per_tree >= 1 && p.leaves_per_tree <= 1000000)) {
    check.Fail("leaves_per_tree",
               "must be in 1..1000000, got " + std::to_string(p.leaves_per_tree));
  }
  if (!(p.size_variation >= 0 && p.size_variation < 1))
    check.Fail("size_variation", "must be in [0, 1), got " + NumberText(p.size_variation));
  if (trunk_material.empty()) check.Fail("trunk_material", "must name a material");
  if (foliage_material.empty()) check.Fail("foliage_material", "must name a material");
  if (first_instance_id < 1)
    check.Fail("first_instance_id", "must be at least 1 (0 is background)");
  if (static_cast<double>(first_instance_id) + p.tree_count - 1 > kMaxU32) {
    check.Fail("first_instance_id", std::to_string(first_instance_id) + " + " +
                                        std::to_string(p.tree_count) +
                                        " trees runs past the largest instance id, 2^32 - 1");
  }
  if (!check.ok()) return;

  // The geometry as a whole.
  if (!(p.trunk_height_m > p.crown_radius_m)) {
    check.Fail("trunk_height_m", NumberText(p.trunk_height_m) + " m must exceed crown_radius_m, " +
                                     NumberText(p.crown_radius_m) +
                                     " m: the crown is a sphere centred on the top of the trunk "
                                     "and would reach below the ground");
  }
  const ForestGrid grid = ForestCells(p);
  const double stem_m = 2 * p.trunk_radius_m * (1 + p.size_variation);
  if (!(stem_m < std::min(grid.cell_x_m, grid.cell_y_m))) {
    check.Fail("tree_count", NumberText(p.tree_count) + " trees in " + NumberText(p.area_x_m) +
                                 " x " + NumberText(p.area_y_m) + " m leave cells of " +
                                 NumberText(grid.cell_x_m) + " x " + NumberText(grid.cell_y_m) +
                                 " m, too small for stems up to " + NumberText(stem_m) +
                                 " m across (trunk_radius_m, size_variation)");
  }
  const double triangles = ForestTriangles(p);
  if (triangles > kMostForestTriangles) {
    check.Fail("leaves_per_tree",
               "tree_count x (leaves_per_tree + " + std::to_string(kForestTrunkTriangles) +
                   ") = " + NumberText(triangles) + " triangles, more than 2 x 10^7");
  }
}

double ForestTriangles(const ForestParams& p) {
  return static_cast<double>(p.tree_count) *
         (static_cast<double>(p.leaves_per_tree) + kForestTrunkTriangles);
}

std::vector<SceneObject> MakeForest(const ForestDescription& f, const std::string& name,
                                    const physics::Pose<double>& pose, uint32_t trunk_material,
                                    uint32_t foliage_material) {
  const ForestParams& p = f.params;
  std::vector<SceneObject> objects;
  const std::vector<ForestTree> trees = PlaceForestTrees(p);
  for (uint32_t k = 0; k < trees.size(); ++k) {
    ForestTreeMesh mesh = MakeForestTree(p, k, trees[k]);
    const std::string tree_name = name + "/tree_" + std::to_string(k);
    for (int part = 0; part < 2; ++part) {
      SceneObject obj;
      obj.name = tree_name + (part == 0 ? "/trunk" : "/foliage");
      obj.type = "forest";
      obj.material_id = part == 0 ? trunk_material : foliage_material;
      obj.semantic_class = part == 0 ? f.trunk_semantic_class : f.foliage_semantic_class;
      obj.instance_id = f.first_instance_id + k;
      obj.pose = pose;
      obj.mesh = std::move(part == 0 ? mesh.trunk : mesh.foliage);
      objects.push_back(std::move(obj));
    }
  }
  return objects;
}

}  // namespace lt
