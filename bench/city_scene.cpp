#include <cmath>
#include <random>

#include "lidartwin/bench/city_scene.h"

namespace lt::bench {

namespace {
constexpr double kPitch_m = 12.0;  // block pitch: 4..9 m buildings, the rest is street
}

Scene MakeCityScene(uint64_t target_triangles, uint64_t seed) {
  const uint64_t buildings = target_triangles > 2 ? (target_triangles - 2) / 12 : 1;
  const auto side = static_cast<uint64_t>(std::ceil(std::sqrt(static_cast<double>(buildings))));
  const double extent = side * kPitch_m;
  Scene scene;
  scene.materials.materials.push_back({"concrete", {1.0}, {0.3}, "benchmark stand-in"});
  SceneObject ground;
  ground.name = "ground";
  ground.type = "plane";
  ground.mesh = MakePlane(extent + 100, extent + 100);
  for (auto& v : ground.mesh.vertices) {
    v[0] += extent / 2;
    v[1] += extent / 2;
  }
  scene.objects.push_back(std::move(ground));
  SceneObject city;
  city.name = "buildings";
  city.type = "mesh";
  city.instance_id = 1;
  city.semantic_class = 6;  // LAS 1.4: building
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> footprint(4.0, 9.0), height(3.0, 40.0);
  for (uint64_t b = 0; b < buildings; ++b) {
    const double cx = (b % side + 0.5) * kPitch_m;
    const double cy = (b / side + 0.5) * kPitch_m;
    const double sx = footprint(rng), sy = footprint(rng), h = height(rng);
    TriangleMesh box = MakeBox(sx, sy, h);
    const auto base = static_cast<uint32_t>(city.mesh.vertices.size());
    for (auto v : box.vertices)
      city.mesh.vertices.push_back({v[0] + cx, v[1] + cy, v[2] + h / 2});
    for (auto t : box.triangles)
      city.mesh.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
  }
  scene.objects.push_back(std::move(city));
  return scene;
}

std::vector<float> TriangleSoup(const Scene& scene) {
  std::vector<float> soup;
  soup.reserve(9 * scene.TriangleCount());
  for (const auto& o : scene.objects) {
    for (const auto& t : o.mesh.triangles) {
      for (uint32_t i : t) {
        for (int k = 0; k < 3; ++k)
          soup.push_back(static_cast<float>(o.mesh.vertices[i][k]));
      }
    }
  }
  return soup;
}

physics::Vec3<double> CitySensorPosition(const Scene& scene) {
  // The street corner nearest the middle: a multiple of the pitch, between four blocks.
  const auto& v = scene.objects[0].mesh.vertices;  // ground corners
  const double mid = 0.5 * (v[0][0] + v[2][0]);
  const double street = std::round(mid / kPitch_m) * kPitch_m;
  return {street, street, 1.8};
}

}  // namespace lt::bench
