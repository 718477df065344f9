// The Embree ray caster against a brute-force search over all triangles (Moeller-Trumbore in
// double), on a soup of random, huge, tiny and degenerate-adjacent triangles.
#include "lidartwin/sim/ray_caster.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "lidartwin/physics/ray_triangle.h"

namespace lt {
namespace {

using physics::Vec3;

TEST(RayCaster, ClosestHitsMatchBruteForce) {
  std::mt19937_64 rng(12345);  // fixed seed: a fixed test case
  std::uniform_real_distribution<double> pos(-20, 20), unit(-1, 1), size(0.001, 5);
  Scene scene;
  scene.materials.materials.push_back({"m", {1.0}, {0.5}, "test"});
  SceneObject soup;
  soup.name = "soup";
  for (int t = 0; t < 3000; ++t) {
    const Vec3<double> c{pos(rng), pos(rng), pos(rng)};
    const double s = t % 100 == 0 ? 50.0 : (t % 7 == 0 ? 1e-3 : size(rng));  // huge, tiny
    const uint32_t base = static_cast<uint32_t>(soup.mesh.vertices.size());
    for (int k = 0; k < 3; ++k) {
      soup.mesh.vertices.push_back({c.x + s * unit(rng), c.y + s * unit(rng), c.z + s * unit(rng)});
    }
    soup.mesh.triangles.push_back({base, base + 1, base + 2});
  }
  size_t dropped = 0;
  ASSERT_TRUE(CleanMesh(soup.mesh, "soup", &dropped).ok());
  scene.objects.push_back(soup);
  const auto caster = RayCaster::Create(scene);
  const auto& mesh = scene.objects[0].mesh;
  auto vertex = [&](uint32_t i) {
    return Vec3<double>{mesh.vertices[i][0], mesh.vertices[i][1], mesh.vertices[i][2]};
  };
  const int rays = 4000;
  int hits = 0, disagreements = 0;
  for (int r = 0; r < rays; ++r) {
    const Vec3<double> o{pos(rng), pos(rng), pos(rng)};
    const Vec3<double> d = physics::Normalized(Vec3<double>{unit(rng), unit(rng), unit(rng)});
    double best = 1e30;
    for (const auto& t : mesh.triangles) {
      const double dist =
          physics::RayTriangleDistance(o, d, vertex(t[0]), vertex(t[1]), vertex(t[2]));
      if (dist > 1e-6 && dist < best) best = dist;
    }
    const RayHit h = caster->Closest(o, d, 1e-6, 1e30);
    const bool brute_hit = best < 1e30;
    hits += brute_hit;
    if (brute_hit != h.hit || (h.hit && std::abs(h.distance_m - best) > 1e-4 * best)) {
      ++disagreements;  // rays grazing a triangle edge, decided in float by Embree
    }
  }
  EXPECT_GT(hits, rays / 10);
  // Embree decides in single precision: only rays within float rounding of an edge may differ.
  EXPECT_LE(disagreements, rays / 1000) << disagreements << " of " << rays;
}

// `copies` coincident 10 m x 10 m plates facing the origin 5 m down +x.
Scene Walls(int copies) {
  Scene scene;
  scene.materials.materials.push_back({"m", {1.0}, {0.5}, "test"});
  SceneObject wall;
  wall.mesh = MakePlate(10, 10);
  for (auto& v : wall.mesh.vertices)
    v[0] += 5;
  for (int k = 0; k < copies; ++k)
    scene.objects.push_back(wall);
  return scene;
}

TEST(RayCaster, HonoursTheRangeInterval) {
  const Scene scene = Walls(1);
  const auto caster = RayCaster::Create(scene);
  EXPECT_TRUE(caster->Closest({0, 0, 0}, {1, 0, 0}, 0.1, 10).hit);
  EXPECT_DOUBLE_EQ(caster->Closest({0, 0, 0}, {1, 0, 0}, 0.1, 10).distance_m, 5.0);
  EXPECT_FALSE(caster->Closest({0, 0, 0}, {1, 0, 0}, 0.1, 4.9).hit);
  EXPECT_FALSE(caster->Closest({0, 0, 0}, {-1, 0, 0}, 0.1, 100).hit);
}

// The batch (8-wide packets) gives the hits of one ray at a time: the CPU backend traces the
// pipeline's queries ahead with it and must not change a frame by doing so (no coincident
// triangles here; with them only the choice among the tied ones may differ, checked below).
TEST(RayCaster, BatchEqualsOneRayAtATime) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> pos(-20, 20), unit(-1, 1), size(0.01, 5);
  Scene scene;
  scene.materials.materials.push_back({"m", {1.0}, {0.5}, "test"});
  SceneObject soup;
  for (int t = 0; t < 2000; ++t) {
    const Vec3<double> c{pos(rng), pos(rng), pos(rng)};
    const double s = size(rng);
    const auto base = static_cast<uint32_t>(soup.mesh.vertices.size());
    for (int k = 0; k < 3; ++k)
      soup.mesh.vertices.push_back({c.x + s * unit(rng), c.y + s * unit(rng), c.z + s * unit(rng)});
    soup.mesh.triangles.push_back({base, base + 1, base + 2});
  }
  scene.objects.push_back(soup);
  // A ground square split along its diagonal, for rays exactly along the shared edge.
  SceneObject ground;
  ground.mesh.vertices = {{-30, -30, -25}, {30, -30, -25}, {30, 30, -25}, {-30, 30, -25}};
  ground.mesh.triangles = {{0, 1, 2}, {0, 2, 3}};
  scene.objects.push_back(ground);
  const auto caster = RayCaster::Create(scene);
  ASSERT_TRUE(caster);
  std::vector<RayQuery> queries;
  for (int r = 0; r < 3001; ++r) {  // not a multiple of the packet width
    RayQuery q;
    if (r % 5 == 0) {  // from one point along a fan down to the diagonal y = x
      q.origin = {0, 0, 0};
      q.unit_direction = physics::Normalized(Vec3<double>{1, 1, -0.2 - r * 1e-4});
    } else {
      q.origin = {pos(rng), pos(rng), pos(rng)};
      q.unit_direction = physics::Normalized(Vec3<double>{unit(rng), unit(rng), unit(rng)});
    }
    q.t_min = r % 3 == 0 ? 1e-3 : 2.0;
    q.t_max = r % 4 == 0 ? 15.0 : 1e30;
    queries.push_back(q);
  }
  std::vector<RayHit> batch(queries.size());
  caster->ClosestBatch(queries.data(), queries.size(), batch.data());
  int hits = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    const RayQuery& q = queries[i];
    const RayHit one = caster->Closest(q.origin, q.unit_direction, q.t_min, q.t_max);
    ASSERT_EQ(batch[i].hit, one.hit) << "query " << i;
    hits += one.hit;
    if (!one.hit) continue;
    EXPECT_EQ(batch[i].distance_m, one.distance_m) << "query " << i;
    EXPECT_EQ(batch[i].object, one.object) << "query " << i;
    EXPECT_EQ(batch[i].triangle, one.triangle) << "query " << i;
    EXPECT_EQ(batch[i].normal.x, one.normal.x);
    EXPECT_EQ(batch[i].normal.z, one.normal.z);
  }
  EXPECT_GT(hits, 1000);
  caster->ClosestBatch(nullptr, 0, nullptr);  // nothing to do, nothing touched
}

// Two coincident copies of a mesh: batch and single rays agree on where the surface is; the
// copy reported may differ.
TEST(RayCaster, BatchOnCoincidentSurfacesGivesTheSameDistance) {
  const Scene scene = Walls(2);
  const auto caster = RayCaster::Create(scene);
  ASSERT_TRUE(caster);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-0.4, 0.4);
  std::vector<RayQuery> queries;
  for (int r = 0; r < 999; ++r)
    queries.push_back({{0, 0, 0}, physics::Normalized(Vec3<double>{1, u(rng), u(rng)}), 0.1, 100});
  std::vector<RayHit> batch(queries.size());
  caster->ClosestBatch(queries.data(), queries.size(), batch.data());
  for (size_t i = 0; i < queries.size(); ++i) {
    const RayQuery& q = queries[i];
    const RayHit one = caster->Closest(q.origin, q.unit_direction, q.t_min, q.t_max);
    ASSERT_TRUE(one.hit);
    ASSERT_TRUE(batch[i].hit);
    EXPECT_EQ(batch[i].distance_m, one.distance_m);
    EXPECT_LT(batch[i].object, 2u);
  }
}

}  // namespace
}  // namespace lt
