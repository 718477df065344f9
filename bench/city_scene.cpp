#include <algorithm>
#include <cmath>
#include <random>

#include "lidartwin/bench/city_scene.h"

namespace lt::bench {

namespace {
constexpr double kPitch_m = 12.0;  // block pitch: 4..9 m buildings, the rest is street
}

Scene MakeCityScene(uint64_t target_triangles, uint64_t seed) {
  // Each block: a building (12 triangles) on its own ground tile (2 triangles), as city
  // meshes tile their ground. (One ground quad spanning the city would put two huge triangles
  // under the LBVH, whose boxes would swell every ancestor of their leaves to the whole city.)
  const uint64_t blocks = std::max<uint64_t>(1, target_triangles / 14);
  const auto side = static_cast<uint64_t>(std::ceil(std::sqrt(static_cast<double>(blocks))));
  Scene scene;
  scene.materials.materials.push_back({"concrete", {1.0}, {0.3}, "benchmark stand-in"});
  SceneObject ground;
  ground.name = "ground";
  ground.type = "mesh";
  SceneObject city;
  city.name = "buildings";
  city.type = "mesh";
  city.instance_id = 1;
  city.semantic_class = 6;  // LAS 1.4: building
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> footprint(4.0, 9.0), height(3.0, 40.0);
  for (uint64_t b = 0; b < blocks; ++b) {
    const double x0 = (b % side) * kPitch_m, y0 = (b / side) * kPitch_m;
    const auto g = static_cast<uint32_t>(ground.mesh.vertices.size());
    ground.mesh.vertices.insert(ground.mesh.vertices.end(), {{x0, y0, 0},
                                                             {x0 + kPitch_m, y0, 0},
                                                             {x0 + kPitch_m, y0 + kPitch_m, 0},
                                                             {x0, y0 + kPitch_m, 0}});
    ground.mesh.triangles.push_back({g, g + 1, g + 2});
    ground.mesh.triangles.push_back({g, g + 2, g + 3});
    const double cx = x0 + kPitch_m / 2, cy = y0 + kPitch_m / 2;
    const double sx = footprint(rng), sy = footprint(rng), h = height(rng);
    TriangleMesh box = MakeBox(sx, sy, h);
    const auto base = static_cast<uint32_t>(city.mesh.vertices.size());
    for (auto v : box.vertices)
      city.mesh.vertices.push_back({v[0] + cx, v[1] + cy, v[2] + h / 2});
    for (auto t : box.triangles)
      city.mesh.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
  }
  scene.objects.push_back(std::move(ground));
  scene.objects.push_back(std::move(city));
  return scene;
}

std::vector<float> TriangleSoup(const Scene& scene) {
  std::vector<float> soup;
  soup.reserve(9 * PlacedTriangleCount(scene));
  for (const auto& o : scene.objects) {
    // Instances flattened: every placement's triangles in the world at time 0.
    const std::vector<std::array<double, 3>> world = VerticesAt(o, 0);
    for (const auto& t : o.stored().triangles) {
      for (uint32_t i : t) {
        for (int k = 0; k < 3; ++k)
          soup.push_back(static_cast<float>(world[i][k]));
      }
    }
  }
  return soup;
}

void CityGroundBounds(const Scene& scene, double lo[2], double hi[2]) {
  lo[0] = lo[1] = 1e300;
  hi[0] = hi[1] = -1e300;
  for (const auto& v : scene.objects[0].mesh.vertices) {
    for (int a = 0; a < 2; ++a) {
      lo[a] = std::min(lo[a], v[a]);
      hi[a] = std::max(hi[a], v[a]);
    }
  }
}

physics::Vec3<double> CitySensorPosition(const Scene& scene) {
  // The block corner nearest the middle: between four buildings, on the street.
  double lo[2], hi[2];
  CityGroundBounds(scene, lo, hi);
  const double x = std::round(0.5 * (lo[0] + hi[0]) / kPitch_m) * kPitch_m;
  const double y = std::round(0.5 * (lo[1] + hi[1]) / kPitch_m) * kPitch_m;
  return {x, y, 1.8};
}

}  // namespace lt::bench
