// The procedural forest (sim/scene/forest.cpp): determinism, geometry, and the canopy's gaps
// seen by vertical rays against the Beer-Lambert prediction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/sim/ray_caster.h"
#include "lidartwin/sim/scene.h"
#include "test_support.h"

namespace lt {
namespace {

using physics::kPi;
using V3 = physics::Vec3<double>;

// The forest of configs/scenes/forest.yaml.
ForestParams ShippedForest() {
  ForestParams p;
  p.area_x_m = 50;
  p.area_y_m = 50;
  p.tree_count = 36;
  p.trunk_height_m = 8;
  p.trunk_radius_m = 0.2;
  p.crown_radius_m = 3;
  p.size_variation = 0.2;
  p.leaf_size_m = 0.25;
  p.leaves_per_tree = 2000;
  p.seed = 7;
  return p;
}

Scene LoadShipped() {
  auto scene = LoadScene(test::ConfigDir() / "scenes/forest.yaml", {});
  EXPECT_TRUE(scene.ok()) << scene.message();
  return scene.ok() ? std::move(scene.value()) : Scene{};
}

V3 At(const TriangleMesh& m, uint32_t v) {
  return {m.vertices[v][0], m.vertices[v][1], m.vertices[v][2]};
}

TEST(Forest, ShippedSceneLoadsWithItsPartsAndLabels) {
  const Scene scene = LoadShipped();
  ASSERT_EQ(scene.objects.size(), 1u + 2u * 36u);
  EXPECT_EQ(scene.TriangleCount(), 2u + 36u * (2000u + kForestTrunkTriangles));
  EXPECT_LT(scene.TriangleCount(), 200000u);
  EXPECT_EQ(scene.objects[0].semantic_class, 2);
  const int wood = scene.materials.Find("wood");
  const int deciduous = scene.materials.Find("deciduous");
  for (uint32_t k = 0; k < 36; ++k) {
    const SceneObject& trunk = scene.objects[1 + 2 * k];
    const SceneObject& foliage = scene.objects[2 + 2 * k];
    EXPECT_EQ(trunk.name, "forest/tree_" + std::to_string(k) + "/trunk");
    EXPECT_EQ(foliage.name, "forest/tree_" + std::to_string(k) + "/foliage");
    EXPECT_EQ(trunk.material_id, static_cast<uint32_t>(wood));
    EXPECT_EQ(foliage.material_id, static_cast<uint32_t>(deciduous));
    EXPECT_EQ(trunk.semantic_class, 5);  // LAS 1.4 high vegetation
    EXPECT_EQ(foliage.semantic_class, 5);
    EXPECT_EQ(trunk.instance_id, k + 1);  // one instance per tree, both parts
    EXPECT_EQ(foliage.instance_id, k + 1);
    EXPECT_EQ(trunk.mesh.triangles.size(), kForestTrunkTriangles);
    EXPECT_EQ(foliage.mesh.triangles.size(), 2000u);
    EXPECT_EQ(trunk.degenerate_triangles_dropped + foliage.degenerate_triangles_dropped, 0u);
  }
  // The reader passes every key through: the scene holds exactly the generator's meshes.
  const ForestParams p = ShippedForest();
  const std::vector<ForestTree> trees = PlaceForestTrees(p);
  ASSERT_EQ(trees.size(), 36u);
  for (uint32_t k : {0u, 17u, 35u}) {
    const ForestTreeMesh m = MakeForestTree(p, k, trees[k]);
    EXPECT_EQ(scene.objects[1 + 2 * k].mesh.vertices, m.trunk.vertices);
    EXPECT_EQ(scene.objects[2 + 2 * k].mesh.vertices, m.foliage.vertices);
  }
}

TEST(Forest, SameSeedSameTrianglesOtherSeedDiffers) {
  const Scene a = LoadShipped();
  const Scene b = LoadShipped();
  ASSERT_EQ(a.objects.size(), b.objects.size());
  for (size_t i = 0; i < a.objects.size(); ++i) {
    ASSERT_EQ(a.objects[i].mesh.vertices, b.objects[i].mesh.vertices) << i;
    ASSERT_EQ(a.objects[i].mesh.triangles, b.objects[i].mesh.triangles) << i;
  }
  // Another seed: the same counts, other places.
  test::TempDir dir;
  std::string yaml = a.source_text;
  const auto at = yaml.find("seed: 7");
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at, 7, "seed: 8");
  const auto lib = yaml.find("../materials/library.yaml");
  ASSERT_NE(lib, std::string::npos);
  yaml.replace(lib, 25, (test::ConfigDir() / "materials/library.yaml").string());
  auto c = LoadScene(dir.Write("forest.yaml", yaml), {});
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->TriangleCount(), a.TriangleCount());
  size_t differing = 0;
  for (size_t i = 1; i < a.objects.size(); ++i)
    differing += a.objects[i].mesh.vertices != c->objects[i].mesh.vertices;
  EXPECT_EQ(differing, a.objects.size() - 1);
  EXPECT_EQ(a.objects[0].mesh.vertices, c->objects[0].mesh.vertices);  // the ground
}

TEST(Forest, StemsKeepApartAndLeavesStayInTheirCrowns) {
  const ForestParams p = ShippedForest();
  const ForestGrid g = ForestCells(p);
  EXPECT_EQ(g.columns, 6u);
  EXPECT_EQ(g.rows, 6u);
  const std::vector<ForestTree> trees = PlaceForestTrees(p);
  std::set<std::pair<int, int>> cells;
  for (size_t k = 0; k < trees.size(); ++k) {
    const ForestTree& t = trees[k];
    EXPECT_GE(t.scale, 0.8);
    EXPECT_LE(t.scale, 1.2);
    const double r = p.trunk_radius_m * t.scale;
    EXPECT_GE(t.x_m - r, -25);
    EXPECT_LE(t.x_m + r, 25);
    EXPECT_GE(t.y_m - r, -25);
    EXPECT_LE(t.y_m + r, 25);
    cells.insert({static_cast<int>(std::floor((t.x_m + 25) / g.cell_x_m)),
                  static_cast<int>(std::floor((t.y_m + 25) / g.cell_y_m))});
    for (size_t j = 0; j < k; ++j) {
      const double apart = std::hypot(t.x_m - trees[j].x_m, t.y_m - trees[j].y_m);
      EXPECT_GT(apart, r + p.trunk_radius_m * trees[j].scale) << k << " " << j;
    }
  }
  EXPECT_EQ(cells.size(), trees.size());  // one tree per cell

  for (uint32_t k : {0u, 20u}) {
    const ForestTree& t = trees[k];
    const ForestTreeMesh m = MakeForestTree(p, k, t);
    const V3 centre{t.x_m, t.y_m, p.trunk_height_m * t.scale};
    double top = -1, bottom = 1e9;
    for (const auto& v : m.trunk.vertices) {
      top = std::max(top, v[2]);
      bottom = std::min(bottom, v[2]);
      EXPECT_NEAR(std::hypot(v[0] - t.x_m, v[1] - t.y_m), p.trunk_radius_m * t.scale, 1e-12);
    }
    EXPECT_DOUBLE_EQ(top, centre.z);
    EXPECT_DOUBLE_EQ(bottom, 0);
    for (const auto& tri : m.foliage.triangles) {
      const V3 a = At(m.foliage, tri[0]), b = At(m.foliage, tri[1]), c = At(m.foliage, tri[2]);
      // Equilateral, side leaf_size_m, centred inside the crown.
      ASSERT_NEAR(physics::Norm(b - a), p.leaf_size_m, 1e-12);
      ASSERT_NEAR(physics::Norm(c - b), p.leaf_size_m, 1e-12);
      ASSERT_NEAR(physics::Norm(a - c), p.leaf_size_m, 1e-12);
      const V3 mid = (1.0 / 3) * (a + b + c);
      ASSERT_LE(physics::Norm(mid - centre), p.crown_radius_m * t.scale + 1e-12);
    }
  }
}

// What the gap prediction assumes: leaf centres uniform in the crown's volume, so (d / R)^3 is
// uniform in (0, 1), mean 1/2; normals uniform on the sphere, so |n_z| is uniform in (0, 1),
// mean 1/2 (the G-function of isotropic leaves, G = 1/2). 72,000 leaves: standard errors
// 0.29 / sqrt(72000) = 0.0011.
TEST(Forest, LeafPlacesAndOrientationsAreUniform) {
  const ForestParams p = ShippedForest();
  const std::vector<ForestTree> trees = PlaceForestTrees(p);
  double volume_fraction = 0, abs_nz = 0;
  size_t n = 0;
  for (uint32_t k = 0; k < trees.size(); ++k) {
    const ForestTreeMesh m = MakeForestTree(p, k, trees[k]);
    const V3 centre{trees[k].x_m, trees[k].y_m, p.trunk_height_m * trees[k].scale};
    for (const auto& tri : m.foliage.triangles) {
      const V3 a = At(m.foliage, tri[0]), b = At(m.foliage, tri[1]), c = At(m.foliage, tri[2]);
      const V3 mid = (1.0 / 3) * (a + b + c);
      volume_fraction +=
          std::pow(physics::Norm(mid - centre) / (p.crown_radius_m * trees[k].scale), 3);
      abs_nz += std::abs(physics::Normalized(physics::Cross(b - a, c - a)).z);
      ++n;
    }
  }
  EXPECT_NEAR(volume_fraction / n, 0.5, 0.005);
  EXPECT_NEAR(abs_nz / n, 0.5, 0.005);
}

// Where a vertical ray down through (x, y) ends, in probability: on leaves, on a trunk's top or
// on the ground. A crown of radius R with n leaves of area a, centres uniform in its volume V
// and isotropic orientations (G = 1/2), stops a ray crossing it along a length L with
// probability 1 - exp(-G a n L / V) (Beer-Lambert for a random leaf cloud; Nilson 1971,
// "A theoretical analysis of the frequency of gaps in plant stands", Agric. Meteorol. 8),
// independently of the other crowns. A ray on a trunk's top (an octagon at the crown centre)
// counts only the leaves above it.
struct Split {
  double foliage = 0, trunk = 0, ground = 0;
  bool under_crown = false;
};

Split Predicted(const ForestParams& p, const std::vector<ForestTree>& trees, double x, double y) {
  const double leaf_area = std::sqrt(3.0) / 4 * p.leaf_size_m * p.leaf_size_m;
  const int n = kForestTrunkSides;
  double cap_z = -1;
  for (const ForestTree& t : trees) {
    const double dx = x - t.x_m, dy = y - t.y_m;
    const double r = p.trunk_radius_m * t.scale;
    if (std::hypot(dx, dy) > r) continue;
    // Inside the regular octagon (corners at 2 pi k / n, circumradius r)?
    const double angle = std::atan2(dy, dx);
    const double sector = 2 * kPi / n;
    const double mid = (std::floor(angle / sector) + 0.5) * sector;
    if (dx * std::cos(mid) + dy * std::sin(mid) <= r * std::cos(kPi / n)) {
      cap_z = std::max(cap_z, p.trunk_height_m * t.scale);
    }
  }
  Split s;
  double depth = 0;
  for (const ForestTree& t : trees) {
    const double radius = p.crown_radius_m * t.scale;
    const double rho = std::hypot(x - t.x_m, y - t.y_m);
    if (rho >= radius) continue;
    s.under_crown = true;
    const double half = std::sqrt(radius * radius - rho * rho);
    const double z = p.trunk_height_m * t.scale;
    const double lo = std::max(z - half, cap_z), hi = z + half;
    if (hi <= lo) continue;
    const double volume = 4.0 / 3 * kPi * radius * radius * radius;
    depth += 0.5 * leaf_area * p.leaves_per_tree / volume * (hi - lo);
  }
  const double through = std::exp(-depth);
  s.foliage = 1 - through;
  (cap_z >= 0 ? s.trunk : s.ground) = through;
  return s;
}

// Vertical rays from above the canopy on a 0.25 m grid over the forest: part of them meet
// leaves and part reach the ground, also under the crowns (the canopy has real gaps), each
// close to the prediction. The tolerance, 0.01, covers the leaves' corners reaching up to
// s / sqrt(3) = 0.14 m outside the crown spheres (which the prediction ignores) and the
// spread of one draw of 72,000 leaves; the two agree to 0.004 today.
TEST(Forest, VerticalRaysReachTheGroundThroughTheGaps) {
  const Scene scene = LoadShipped();
  ASSERT_EQ(scene.objects.size(), 73u);
  const ForestParams p = ShippedForest();
  const std::vector<ForestTree> trees = PlaceForestTrees(p);
  auto caster = RayCaster::Create(scene);
  Split measured, predicted, measured_under, predicted_under;
  size_t rays = 0, under = 0;
  const double step = 0.25;
  for (double y = -25 + 0.1237; y < 25; y += step) {
    for (double x = -25 + 0.0871; x < 25; x += step) {
      const RayHit hit = caster->Closest({x, y, 30}, {0, 0, -1}, 0, 100);
      ASSERT_TRUE(hit.hit) << x << " " << y;  // the ground plane is under everything
      const std::string& name = scene.objects[hit.object].name;
      Split m;
      if (hit.object == 0) {
        m.ground = 1;
      } else if (name.ends_with("/foliage")) {
        m.foliage = 1;
      } else {
        ASSERT_TRUE(name.ends_with("/trunk")) << name;
        m.trunk = 1;
      }
      const Split e = Predicted(p, trees, x, y);
      for (auto [sum, add] : {std::pair{&measured, m}, std::pair{&predicted, e}}) {
        sum->foliage += add.foliage;
        sum->trunk += add.trunk;
        sum->ground += add.ground;
      }
      if (e.under_crown) {
        for (auto [sum, add] : {std::pair{&measured_under, m}, std::pair{&predicted_under, e}}) {
          sum->foliage += add.foliage;
          sum->trunk += add.trunk;
          sum->ground += add.ground;
        }
        ++under;
      }
      ++rays;
    }
  }
  ASSERT_EQ(rays, 200u * 200u);
  const double f = measured.foliage / rays, g = measured.ground / rays;
  const double fu = measured_under.foliage / under, gu = measured_under.ground / under;
  const double pf = predicted.foliage / rays, pg = predicted.ground / rays;
  const double pfu = predicted_under.foliage / under, pgu = predicted_under.ground / under;
  // Today: foliage 0.227 (predicted 0.228), ground 0.772 (0.771); under a crown (38.5 % of
  // the rays) foliage 0.589 (0.591), ground 0.410 (0.406).
  EXPECT_GT(f, 0);
  EXPECT_LT(f, 1);
  EXPECT_GT(g, 0);
  EXPECT_LT(g, 1);
  EXPECT_GT(gu, 0.2);  // real gaps in the canopy, not only between the crowns
  EXPECT_GT(fu, 0.2);
  EXPECT_NEAR(f, pf, 0.01);
  EXPECT_NEAR(g, pg, 0.01);
  EXPECT_NEAR(fu, pfu, 0.01);
  EXPECT_NEAR(gu, pgu, 0.01);
  EXPECT_LT(measured.trunk / rays, 0.01);
}

// ---- bad input ----

std::string ForestYaml(const std::string& extra_keys) {
  return "materials: " + (test::ConfigDir() / "materials/library.yaml").string() +
         "\nobjects:\n"
         "  - name: f\n    type: forest\n    area_m: [20, 20]\n    tree_count: 4\n"
         "    leaves_per_tree: 10\n    trunk_material: wood\n    foliage_material: deciduous\n" +
         extra_keys;
}

void ExpectForestError(const std::string& yaml, const std::vector<std::string>& fragments) {
  test::TempDir dir;
  auto s = LoadScene(dir.Write("bad_forest.yaml", yaml), {});
  ASSERT_FALSE(s.ok()) << yaml;
  EXPECT_NE(s.message().find("bad_forest.yaml"), std::string::npos) << s.message();
  for (const auto& f : fragments)
    EXPECT_NE(s.message().find(f), std::string::npos) << s.message();
}

TEST(ForestErrors, BaseIsValid) {
  test::TempDir dir;
  auto s = LoadScene(dir.Write("ok.yaml", ForestYaml("")), {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->TriangleCount(), 4u * (10u + kForestTrunkTriangles));
}

TEST(ForestErrors, KeysOfOtherObjectsDoNotApply) {
  ExpectForestError(ForestYaml("    material: wood\n"), {"unknown key 'objects[0].material'"});
  ExpectForestError(ForestYaml("    velocity_m_s: [1, 0, 0]\n"),
                    {"unknown key 'objects[0].velocity_m_s'"});
}

TEST(ForestErrors, MissingKeysAndUnknownMaterials) {
  std::string yaml = ForestYaml("");
  yaml.erase(yaml.find("    tree_count: 4\n"), 18);
  ExpectForestError(yaml, {"missing required key 'objects[0].tree_count'"});
  std::string cheese = ForestYaml("");
  cheese.replace(cheese.find("foliage_material: deciduous"), 27, "foliage_material: cheese");
  ExpectForestError(cheese, {"'objects[0].foliage_material'", "unknown material 'cheese'"});
}

TEST(ForestErrors, ImpossibleGeometry) {
  ExpectForestError(ForestYaml("    crown_radius_m: 9\n"),
                    {"'objects[0].trunk_height_m'", "8 m must exceed crown_radius_m, 9 m"});
  ExpectForestError(ForestYaml("    trunk_radius_m: 6\n"),
                    {"'objects[0].tree_count'", "4 trees in 20 x 20 m leave cells of 10 x 10 m",
                     "too small for stems up to 12 m across"});
  ExpectForestError(ForestYaml("    leaf_size_m: -0.1\n"),
                    {"'objects[0].leaf_size_m'", "must be in 0.0001..1000 m, got -0.1"});
  ExpectForestError(ForestYaml("    size_variation: 1\n"),
                    {"'objects[0].size_variation'", "must be in [0, 1), got 1"});
  std::string leaves = ForestYaml("");
  leaves.replace(leaves.find("leaves_per_tree: 10"), 19, "leaves_per_tree: 2.5");
  ExpectForestError(leaves, {"'objects[0].leaves_per_tree'", "whole number", "got 2.5"});
}

TEST(ForestErrors, AreaAndIds) {
  std::string yaml = ForestYaml("");
  yaml.replace(yaml.find("area_m: [20, 20]"), 16, "area_m: [20, 20, 3]");
  ExpectForestError(yaml, {"'objects[0].area_m'", "expected 2 numbers [x, y], got 3"});
  ExpectForestError(ForestYaml("    first_instance_id: 4294967294\n"),
                    {"'objects[0].first_instance_id'", "runs past the largest instance id"});
  ExpectForestError(ForestYaml("    seed: -1\n"), {"'objects[0].seed'", "got -1"});
}

}  // namespace
}  // namespace lt
