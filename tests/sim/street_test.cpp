// The procedural street (sim/scene/street.cpp, issue 42): the shipped city's parts, labels,
// sizes and motion; determinism; the models' meshes; traffic seen by the simulator; bad keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "cpu/cpu_simulator.h"
#include "lidartwin/base/config_check.h"
#include "lidartwin/sim/scene.h"
#include "scene/street_reader.h"
#include "sim/sim_test_scenes.h"
#include "test_support.h"

namespace lt {
namespace {

// The mesh's bounding box.
struct Box {
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
};
Box BoundsOf(const TriangleMesh& m) {
  Box b;
  for (const auto& v : m.vertices)
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = std::min(b.lo[a], v[a]);
      b.hi[a] = std::max(b.hi[a], v[a]);
    }
  return b;
}

// An object's box in the world at scene time 0 (an instance's model placed by its pose).
Box WorldBounds(const SceneObject& o) {
  TriangleMesh world;
  world.vertices = VerticesAt(o, 0);
  return BoundsOf(world);
}

bool Overlap(const Box& a, const Box& b) {
  for (int k = 0; k < 3; ++k)
    if (a.hi[k] <= b.lo[k] || b.hi[k] <= a.lo[k]) return false;
  return true;
}

Scene LoadShipped() {
  auto scene = LoadScene(test::ConfigDir() / "scenes/street_city.yaml", {});
  EXPECT_TRUE(scene.ok()) << scene.message();
  return scene.ok() ? std::move(scene.value()) : Scene{};
}

// The shipped city: 1 road, 16 buildings, 50 cars, 20 pedestrians, each labelled; about 10^6
// triangles of facades, 50 x 2 x 10^4 of cars, 20 x 10^4 of pedestrians; the cars on the road
// between the blocks, apart, heading along a street at 5-15 m/s; the pedestrians walking.
TEST(Street, TheShippedCityHoldsItsTrafficLabelledAndApart) {
  const Scene scene = LoadShipped();
  std::map<uint16_t, int> by_class;
  std::set<uint32_t> ids;
  size_t building_triangles = 0;
  std::vector<Box> cars;
  const TriangleMesh* car_model = nullptr;
  for (const SceneObject& o : scene.objects) {
    ++by_class[o.semantic_class];
    if (o.semantic_class != 11) {
      EXPECT_TRUE(ids.insert(o.instance_id).second) << o.name;
    }
    if (o.semantic_class == 6) building_triangles += o.mesh.triangles.size();
    if (o.semantic_class == 64) {
      cars.push_back(WorldBounds(o));
      const auto& v = o.motion.velocity_m_s;
      const double speed = std::hypot(v[0], v[1]);
      EXPECT_GE(speed, 5);
      EXPECT_LE(speed, 15);
      EXPECT_TRUE(std::fabs(v[0]) < 1e-9 || std::fabs(v[1]) < 1e-9) << o.name << ": along a street";
      EXPECT_NEAR(o.stored().triangles.size(), 2e4, 0.05 * 2e4);
      // Every car an instance of the one car model, stored once.
      ASSERT_TRUE(o.instanced()) << o.name;
      EXPECT_TRUE(o.mesh.triangles.empty());
      if (!car_model) car_model = o.model.get();
      EXPECT_EQ(o.model.get(), car_model) << o.name;
      // On the road 1.5 m under the sensor, and 1.5 m tall.
      EXPECT_NEAR(cars.back().lo[2], -1.5, 1e-9);
      EXPECT_NEAR(cars.back().hi[2], 0.0, 1e-9);
    }
    if (o.semantic_class == 65) {
      const auto& v = o.motion.velocity_m_s;
      EXPECT_NEAR(std::hypot(v[0], v[1]), 1.4, 1e-12);
    }
  }
  EXPECT_EQ(by_class[11], 1);
  EXPECT_EQ(by_class[6], 16);
  EXPECT_EQ(by_class[64], 50);
  EXPECT_EQ(by_class[65], 20);
  EXPECT_NEAR(static_cast<double>(building_triangles), 1e6, 0.05e6);
  for (size_t a = 0; a < cars.size(); ++a)
    for (size_t b = a + 1; b < cars.size(); ++b)
      EXPECT_FALSE(Overlap(cars[a], cars[b])) << "cars " << a << " and " << b;
  // No car inside a building: the buildings stand back from the streets by their sidewalks.
  for (const SceneObject& o : scene.objects)
    if (o.semantic_class == 6)
      for (const Box& c : cars)
        EXPECT_FALSE(Overlap(WorldBounds(o), c)) << o.name;
  // StreetTriangles counts every placement; the scene stores each model once.
  EXPECT_NEAR(static_cast<double>(PlacedTriangleCount(scene)),
              StreetTriangles(StreetParams{.city_triangles = 1e6, .seed = 42}), 1.0);
  const TriangleMesh* person_model = nullptr;
  for (const SceneObject& o : scene.objects)
    if (o.semantic_class == 65) person_model = o.model.get();
  ASSERT_NE(person_model, nullptr);
  EXPECT_EQ(scene.TriangleCount(), PlacedTriangleCount(scene) - 49 * car_model->triangles.size() -
                                       19 * person_model->triangles.size());
}

// Over many seeds and a crowded city (the most cars and pedestrians allowed): no two cars and no
// two pedestrians start inside each other, at the crossings and the blocks' corners too, and
// the cars of a lane share its speed.
TEST(Street, NoTwoMoversStartInsideEachOtherOverManySeeds) {
  for (uint64_t seed = 0; seed < 12; ++seed) {
    StreetDescription d;
    d.params.blocks_x = 2;
    d.params.blocks_y = 2;
    d.params.city_triangles = 1000;
    d.params.car_triangles = 64;
    d.params.pedestrian_triangles = 64;
    d.params.sidewalk_m = seed % 2 ? 2 : 6;  // corner slots once met at these
    d.params.cars = static_cast<uint32_t>(StreetCarSlots(d.params) / 2);
    d.params.pedestrians = static_cast<uint32_t>(StreetWalkSlots(d.params) / 2);
    d.params.seed = seed;
    d.road_material = d.building_material = d.car_material = d.pedestrian_material = "m";
    ConfigCheck check;
    d.Check(check);
    ASSERT_TRUE(check.ok()) << check.problem()->problem;
    const std::vector<SceneObject> objects = MakeStreet(d, "s", {{1, 0, 0, 0}, {0, 0, 0}}, {});
    std::vector<Box> cars, people;
    for (const SceneObject& o : objects) {
      if (o.semantic_class == 64) cars.push_back(WorldBounds(o));
      if (o.semantic_class == 65) people.push_back(WorldBounds(o));
    }
    ASSERT_EQ(cars.size(), d.params.cars);
    ASSERT_EQ(people.size(), d.params.pedestrians);
    for (const auto* boxes : {&cars, &people})
      for (size_t a = 0; a < boxes->size(); ++a)
        for (size_t b = a + 1; b < boxes->size(); ++b)
          ASSERT_FALSE(Overlap((*boxes)[a], (*boxes)[b]))
              << "seed " << seed << ": " << a << ", " << b;
  }
}

TEST(Street, SameSeedSameCityOtherSeedDiffers) {
  test::TempDir dir;
  auto yaml = [](int seed) {
    return "materials: " + (test::ConfigDir() / "materials/library.yaml").string() +
           "\nobjects:\n  - name: s\n    type: street\n    blocks: [2, 3]\n"
           "    city_triangles: 20000\n    cars: 6\n    car_triangles: 500\n"
           "    pedestrians: 4\n    pedestrian_triangles: 200\n    seed: " +
           std::to_string(seed) +
           "\n    road_material: asphalt\n    building_material: lambertian_50\n"
           "    car_material: aluminium\n    pedestrian_material: lambertian_10\n";
  };
  auto a = LoadScene(dir.Write("a.yaml", yaml(1)), {});
  auto b = LoadScene(dir.Write("b.yaml", yaml(1)), {});
  auto c = LoadScene(dir.Write("c.yaml", yaml(2)), {});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.message();
  ASSERT_EQ(a->objects.size(), b->objects.size());
  bool differs = false;
  for (size_t k = 0; k < a->objects.size(); ++k) {
    EXPECT_EQ(VerticesAt(a->objects[k], 0), VerticesAt(b->objects[k], 0));
    EXPECT_EQ(a->objects[k].motion.velocity_m_s, b->objects[k].motion.velocity_m_s);
    differs |= VerticesAt(a->objects[k], 0) != VerticesAt(c->objects[k], 0);
  }
  EXPECT_TRUE(differs);
  // Written and read back: the same description, the same city.
  const auto description = LoadSceneDescription(dir.path() / "a.yaml");
  ASSERT_TRUE(description.ok()) << description.message();
  const auto again = LoadScene(dir.Write("again.yaml", SaveScene(*description)), {});
  ASSERT_TRUE(again.ok()) << again.message();
  ASSERT_EQ(again->objects.size(), a->objects.size());
  for (size_t k = 0; k < a->objects.size(); ++k)
    EXPECT_EQ(VerticesAt(again->objects[k], 0), VerticesAt(a->objects[k], 0));
}

// The models' mesh: closed (every edge in exactly two triangles, oriented opposite ways),
// 4 R^2 triangles, the extents asked for, on z = 0.
TEST(Street, TheSuperellipsoidIsAClosedBodyOfItsSize) {
  for (double exponent : {0.25, 0.6, 1.0}) {
    const TriangleMesh m = MakeSuperellipsoid(4.5, 1.8, 1.5, exponent, 2e4);
    EXPECT_EQ(m.triangles.size(), 4u * 71 * 71);  // R = round(sqrt(2e4 / 4)) = 71
    std::map<std::pair<uint32_t, uint32_t>, int> edges;
    for (const auto& t : m.triangles)
      for (int e = 0; e < 3; ++e)
        ++edges[{t[e], t[(e + 1) % 3]}];
    for (const auto& [edge, count] : edges) {
      EXPECT_EQ(count, 1);
      EXPECT_EQ(edges.count({edge.second, edge.first}), 1u);
    }
    const Box b = BoundsOf(m);
    EXPECT_NEAR(b.hi[0] - b.lo[0], 4.5, 1e-9);
    EXPECT_NEAR(b.hi[1] - b.lo[1], 1.8, 0.01);
    EXPECT_NEAR(b.lo[2], 0, 1e-12);
    EXPECT_NEAR(b.hi[2], 1.5, 1e-12);
  }
}

// The simulator sees the traffic: a sensor at the shipped crossing returns from road,
// buildings and cars, each point labelled with its object's class and id; a car's points move
// between frames by its velocity.
TEST(Street, TheSimulatorSeesTheTrafficLabelledAndMoving) {
  test::TempDir dir;
  const std::string yaml =
      "materials: " + (test::ConfigDir() / "materials/library.yaml").string() +
      "\nobjects:\n  - name: s\n    type: street\n    position_m: [-81, -81, -1.5]\n"
      "    blocks: [2, 2]\n    city_triangles: 20000\n    cars: 30\n    car_triangles: 800\n"
      "    pedestrians: 10\n    pedestrian_triangles: 200\n    seed: 3\n"
      "    road_material: asphalt\n    building_material: lambertian_50\n"
      "    car_material: aluminium\n    pedestrian_material: lambertian_10\n";
  auto scene = LoadScene(dir.Write("s.yaml", yaml), {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  std::map<uint32_t, std::array<double, 3>> velocity;
  for (const SceneObject& o : scene->objects)
    if (o.semantic_class == 64) velocity[o.instance_id] = o.motion.velocity_m_s;
  const SensorProfile profile = test::SpinningSensor(32, 10, -30, 720, 10);
  CpuSimulator sim(*scene, profile, Trajectory::Static(), {});
  const Frame f0 = sim.Simulate(0).value(), f1 = sim.Simulate(5).value();
  std::map<uint16_t, size_t> seen;
  std::map<uint32_t, std::array<double, 4>> centroid0, centroid1;  // x, y, z, n
  for (const auto& [f, c] : {std::pair{&f0, &centroid0}, std::pair{&f1, &centroid1}})
    for (size_t k = 0; k < f->size(); ++k) {
      ++seen[f->semantic_class[k]];
      if (f->semantic_class[k] != 64) continue;
      ASSERT_TRUE(velocity.count(f->instance_id[k])) << "a car point labelled with no car's id";
      auto& s = (*c)[f->instance_id[k]];
      s[0] += f->x_m[k], s[1] += f->y_m[k], s[3] += 1;
    }
  EXPECT_GT(seen[11], 1000u);
  EXPECT_GT(seen[6], 1000u);
  EXPECT_GT(seen[64], 100u);
  // A car seen by many beams in both frames (0.5 s apart) moved along its velocity: its
  // points' centroid by about v t (the visible side changes a little: within 1 m).
  int checked = 0;
  for (const auto& [id, a] : centroid0) {
    const auto it = centroid1.find(id);
    if (a[3] < 50 || it == centroid1.end() || it->second[3] < 50) continue;
    const double t = 0.5;
    const double dx = it->second[0] / it->second[3] - a[0] / a[3];
    const double dy = it->second[1] / it->second[3] - a[1] / a[3];
    EXPECT_NEAR(dx, velocity[id][0] * t, 1.0) << "car " << id;
    EXPECT_NEAR(dy, velocity[id][1] * t, 1.0) << "car " << id;
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

// ---- bad input ----

std::string StreetYaml(const std::string& extra_keys) {
  return "materials: " + (test::ConfigDir() / "materials/library.yaml").string() +
         "\nobjects:\n  - name: s\n    type: street\n    blocks: [2, 2]\n"
         "    city_triangles: 5000\n    cars: 4\n    car_triangles: 100\n    pedestrians: 2\n"
         "    pedestrian_triangles: 100\n    road_material: asphalt\n"
         "    building_material: lambertian_50\n    car_material: aluminium\n"
         "    pedestrian_material: lambertian_10\n" +
         extra_keys;
}

// The base with one of its keys' values changed.
std::string StreetYamlWith(const std::string& key, const std::string& value) {
  std::string yaml = StreetYaml("");
  const size_t at = yaml.find("    " + key + ": ");
  const size_t end = yaml.find('\n', at);
  return yaml.replace(at, end - at, "    " + key + ": " + value);
}

void ExpectStreetError(const std::string& yaml, const std::vector<std::string>& fragments) {
  test::TempDir dir;
  auto s = LoadScene(dir.Write("bad_street.yaml", yaml), {});
  ASSERT_FALSE(s.ok()) << yaml;
  EXPECT_NE(s.message().find("bad_street.yaml"), std::string::npos) << s.message();
  for (const auto& f : fragments)
    EXPECT_NE(s.message().find(f), std::string::npos) << f << " in: " << s.message();
}

TEST(StreetErrors, BaseIsValidAndEachKeyIsChecked) {
  test::TempDir dir;
  ASSERT_TRUE(LoadScene(dir.Write("ok.yaml", StreetYaml("")), {}).ok());
  ExpectStreetError(StreetYaml("    material: wood\n"), {"unknown key 'objects[0].material'"});
  ExpectStreetError(StreetYaml("    street_m: 10\n"),
                    {"'objects[0].street_m'", "must be in 14..1000 m, got 10"});
  ExpectStreetError(StreetYaml("    sidewalk_m: 40\n"),
                    {"'objects[0].sidewalk_m'", "leave no building"});
  ExpectStreetError(StreetYaml("    building_height_m: [30, 10]\n"),
                    {"'objects[0].building_height_m'", "lowest <= highest"});
  ExpectStreetError(StreetYaml("    car_speed_m_s: [-1, 10]\n"), {"'objects[0].car_speed_m_s'"});
  ExpectStreetError(StreetYamlWith("cars", "100000"),
                    {"'objects[0].cars'", "at most half of them may hold a car"});
  ExpectStreetError(StreetYamlWith("pedestrians", "2.5"),
                    {"'objects[0].pedestrians'", "whole number"});
  ExpectStreetError(StreetYamlWith("car_triangles", "1e9"), {"'objects[0].car_triangles'"});
  ExpectStreetError(StreetYamlWith("blocks", "[2, 0]"), {"'objects[0].blocks'"});
  ExpectStreetError(StreetYaml("    seed: -1\n"), {"'objects[0].seed'", "got -1"});
  ExpectStreetError(StreetYaml("    first_instance_id: 4294967294\n"),
                    {"'objects[0].first_instance_id'", "runs past the largest instance id"});
  std::string cheese = StreetYaml("");
  cheese.replace(cheese.find("car_material: aluminium"), 23, "car_material: cheese");
  ExpectStreetError(cheese, {"'objects[0].car_material'", "unknown material 'cheese'"});
  std::string huge = StreetYamlWith("blocks", "[900, 900]");
  huge.replace(huge.find("city_triangles: 5000"), 20, "city_triangles: 2e7");
  ExpectStreetError(huge, {"'objects[0].city_triangles'", "more than 2 x 10^7"});
}

}  // namespace
}  // namespace lt
