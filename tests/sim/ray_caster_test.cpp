// The Embree ray caster against a brute-force search over all triangles (Moeller-Trumbore in
// double), on a soup of random, huge, tiny and degenerate-adjacent triangles.
#include "lidartwin/sim/ray_caster.h"

#include <gtest/gtest.h>

#include <random>

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

TEST(RayCaster, HonoursTheRangeInterval) {
  Scene scene;
  scene.materials.materials.push_back({"m", {1.0}, {0.5}, "test"});
  SceneObject wall;
  wall.mesh = MakePlate(10, 10);
  for (auto& v : wall.mesh.vertices)
    v[0] += 5;
  scene.objects.push_back(wall);
  const auto caster = RayCaster::Create(scene);
  EXPECT_TRUE(caster->Closest({0, 0, 0}, {1, 0, 0}, 0.1, 10).hit);
  EXPECT_DOUBLE_EQ(caster->Closest({0, 0, 0}, {1, 0, 0}, 0.1, 10).distance_m, 5.0);
  EXPECT_FALSE(caster->Closest({0, 0, 0}, {1, 0, 0}, 0.1, 4.9).hit);
  EXPECT_FALSE(caster->Closest({0, 0, 0}, {-1, 0, 0}, 0.1, 100).hit);
}

}  // namespace
}  // namespace lt
