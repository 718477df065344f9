#include "lidartwin/sim/scene.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lidartwin/physics/scan_pattern.h"
#include "test_support.h"

namespace lt {
namespace {

double Area(const TriangleMesh& m) {
  double a = 0;
  for (const auto& t : m.triangles) {
    const auto& p = m.vertices[t[0]];
    const auto& q = m.vertices[t[1]];
    const auto& r = m.vertices[t[2]];
    const physics::Vec3<double> e1{q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    const physics::Vec3<double> e2{r[0] - p[0], r[1] - p[1], r[2] - p[2]};
    a += 0.5 * physics::Norm(physics::Cross(e1, e2));
  }
  return a;
}

TEST(Primitives, HaveTheirAnalyticAreas) {
  EXPECT_NEAR(Area(MakePlate(0.5, 0.4)), 0.2, 1e-15);
  EXPECT_NEAR(Area(MakePlane(200, 100)), 20000, 1e-9);
  EXPECT_NEAR(Area(MakeBox(1, 2, 3)), 2 * (2 + 3 + 6), 1e-12);
  const int n = 64;
  EXPECT_NEAR(Area(MakeDisc(2.0, n)), 0.5 * n * std::sin(2 * physics::kPi / n) * 4.0, 1e-12);
}

TEST(CleanMesh, RejectsNonFiniteVerticesWithTheirIndex) {
  TriangleMesh m = MakePlate(1, 1);
  m.vertices[2][1] = std::nan("");
  size_t dropped = 0;
  const Status s = CleanMesh(m, "scene.yaml: object 'x'", &dropped);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("object 'x': vertex 2 is not finite"), std::string::npos)
      << s.message();
}

TEST(CleanMesh, DropsAndCountsDegenerateTriangles) {
  TriangleMesh m = MakePlate(1, 1);
  m.vertices.push_back({5, 5, 5});
  m.triangles.push_back({0, 0, 1});  // repeated vertex
  m.triangles.push_back({0, 2, 4});  // a proper triangle: kept
  m.vertices.push_back({0, 0, 0});   // 5: the midpoint of vertices 0 and 2
  m.triangles.push_back({0, 5, 2});  // collinear: zero area
  size_t dropped = 0;
  ASSERT_TRUE(CleanMesh(m, "m", &dropped).ok());
  EXPECT_EQ(dropped, 2u);
  EXPECT_EQ(m.triangles.size(), 3u);
}

TEST(CleanMesh, RejectsOutOfRangeIndices) {
  TriangleMesh m = MakePlate(1, 1);
  m.triangles.push_back({0, 1, 9});
  size_t dropped = 0;
  const Status s = CleanMesh(m, "m", &dropped);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("triangle 2 refers to vertex 9"), std::string::npos) << s.message();
}

TEST(Scene, LabPlatesLoads) {
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  // Ground, 24 distance plates, 4 material plates, and the sensor-effect group (sign, dark
  // wall, glass pane, plate behind it).
  EXPECT_EQ(scene->objects.size(), 1u + 24u + 4u + 4u);
  EXPECT_EQ(scene->TriangleCount(), 2u * 33u);
  // Plates are centred at their distance: seed 002's 5..40 m.
  const auto& p = scene->objects[1].pose.translation;
  EXPECT_NEAR(std::hypot(p.x, p.y), 5.0, 1e-6);
}

std::string SceneYaml(const std::string& objects) {
  return "materials: " + (test::ConfigDir() / "materials/library.yaml").string() + "\nobjects:\n" +
         objects;
}

void ExpectSceneError(const std::string& yaml, const std::string& fragment,
                      const MeshLoader& loader = {}) {
  test::TempDir dir;
  auto s = LoadScene(dir.Write("bad_scene.yaml", yaml), loader);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bad_scene.yaml"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

TEST(SceneErrors, EmptyScene) {
  ExpectSceneError(SceneYaml("  []\n"), "the scene has no objects");
}

TEST(SceneErrors, UnknownKeyAndUnknownMaterial) {
  ExpectSceneError(
      SceneYaml("  - {name: a, type: plate, size_m: [1, 1], material: wood, colour: red}\n"),
      "unknown key 'objects[0].colour'");
  ExpectSceneError(SceneYaml("  - {name: a, type: plate, size_m: [1, 1], material: cheese}\n"),
                   "unknown material 'cheese'");
}

TEST(SceneErrors, MissingMeshFile) {
  const MeshLoader never = [](const std::filesystem::path&) -> Expected<TriangleMesh> {
    return Error{"unreachable"};
  };
  ExpectSceneError(SceneYaml("  - {name: car, type: mesh, file: nowhere.ply, material: wood}\n"),
                   "nowhere.ply: cannot open: No such file or directory", never);
}

TEST(SceneErrors, NanVerticesFromAMeshLoader) {
  test::TempDir dir;
  dir.Write("m.ply", "x");
  const MeshLoader nan_loader = [](const std::filesystem::path&) -> Expected<TriangleMesh> {
    TriangleMesh m = MakePlate(1, 1);
    m.vertices[1][0] = std::nan("");
    return m;
  };
  auto s =
      LoadScene(dir.Write("bad_scene.yaml",
                          SceneYaml("  - {name: car, type: mesh, file: m.ply, material: wood}\n")),
                nan_loader);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("object 'car': vertex 1 is not finite"), std::string::npos)
      << s.message();
}

// The weather's keys as a file gives them: a visibility that is not a number, a fog that is not
// a mapping, and a kind of weather not simulated are each refused with the key named.
TEST(SceneErrors, WeatherKeys) {
  const std::string plate = "  - {name: a, type: plate, size_m: [1, 1], material: wood}\n";
  ExpectSceneError(
      SceneYaml(plate) + "weather: {fog: {visibility_m: 0}}\n",
      "key 'weather.fog.visibility_m' (line 4): must be a meteorological optical range in "
      "[5, 100000] m, got 0");
  ExpectSceneError(SceneYaml(plate) + "weather: {fog: {visibility_m: thick}}\n",
                   "'weather.fog.visibility_m'");
  ExpectSceneError(SceneYaml(plate) + "weather: {fog: 50}\n", "'weather.fog'");
  ExpectSceneError(SceneYaml(plate) + "weather:\n", "key 'weather' (line 5): expected a mapping");
  ExpectSceneError(SceneYaml(plate) + "weather: {fog: }\n", "key 'weather.fog'");
  ExpectSceneError(SceneYaml(plate) + "weather: {fog: {}}\n", "'weather.fog.visibility_m'");
  ExpectSceneError(SceneYaml(plate) + "weather: {hail: {rate_mm_h: 5}}\n",
                   "unknown key 'weather.hail'");
  // The fog's own return: a lidar ratio out of range, a switch that is not a boolean, a label
  // out of range.
  ExpectSceneError(SceneYaml(plate) + "weather: {fog: {visibility_m: 50, lidar_ratio_sr: 0}}\n",
                   "key 'weather.fog.lidar_ratio_sr' (line 4): must be an extinction-to-"
                   "backscatter ratio in [5, 200] sr, got 0");
  ExpectSceneError(SceneYaml(plate) + "weather: {fog: {visibility_m: 50, lidar_ratio_sr: 1e9}}\n",
                   "'weather.fog.lidar_ratio_sr'");
  ExpectSceneError(SceneYaml(plate) + "weather: {fog: {visibility_m: 50, backscatter: maybe}}\n",
                   "'weather.fog.backscatter'");
  ExpectSceneError(SceneYaml(plate) + "weather: {fog: {visibility_m: 50, semantic_class: 70000}}\n",
                   "'weather.fog.semantic_class'");
  // Rain and snow: negative, zero, absurd and missing rates, drops that would have broken up,
  // a flake brighter than white, a label out of range, a misspelt key.
  ExpectSceneError(SceneYaml(plate) + "weather: {rain: {rate_mm_h: -5}}\n",
                   "key 'weather.rain.rate_mm_h' (line 4): must be a rain rate in (0, 300] "
                   "mm/h, got -5");
  ExpectSceneError(SceneYaml(plate) + "weather: {rain: {rate_mm_h: 0}}\n",
                   "'weather.rain.rate_mm_h'");
  ExpectSceneError(SceneYaml(plate) + "weather: {rain: {rate_mm_h: 1e9}}\n",
                   "'weather.rain.rate_mm_h'");
  ExpectSceneError(SceneYaml(plate) + "weather: {rain: {}}\n", "'weather.rain.rate_mm_h'");
  ExpectSceneError(SceneYaml(plate) + "weather: {rain: {rate_mm_h: 5, min_diameter_mm: 40}}\n",
                   "key 'weather.rain.min_diameter_mm' (line 4): must be in [0.1, 6) mm");
  ExpectSceneError(SceneYaml(plate) + "weather: {rain: {rate_mm_h: 5, min_diameter_mm: 0}}\n",
                   "'weather.rain.min_diameter_mm'");
  ExpectSceneError(SceneYaml(plate) + "weather: {rain: {rate_mm_h: 5, semantic_class: -1}}\n",
                   "'weather.rain.semantic_class'");
  ExpectSceneError(SceneYaml(plate) + "weather: {rain: {rate_mm_h: 5, drop_mm: 2}}\n",
                   "unknown key 'weather.rain.drop_mm'");
  ExpectSceneError(SceneYaml(plate) + "weather: {snow: {rate_mm_h: nan}}\n",
                   "'weather.snow.rate_mm_h'");
  ExpectSceneError(SceneYaml(plate) + "weather: {snow: {rate_mm_h: 60}}\n",
                   "must be a snowfall rate as melted water in (0, 50] mm/h, got 60");
  ExpectSceneError(SceneYaml(plate) + "weather: {snow: {rate_mm_h: 2, flake_reflectance: 1.5}}\n",
                   "key 'weather.snow.flake_reflectance' (line 4): must be in [0, 1], got 1.5");
  // Wet surfaces: a list of the library's materials, at least one.
  ExpectSceneError(SceneYaml(plate) + "weather: {wet: {materials: []}}\n",
                   "key 'weather.wet.materials' (line 4): must name at least one material");
  ExpectSceneError(SceneYaml(plate) + "weather: {wet: {materials: asphalt}}\n",
                   "key 'weather.wet.materials' (line 4): expected a list of strings");
  ExpectSceneError(SceneYaml(plate) + "weather: {wet: {materials: [[a]]}}\n",
                   "'weather.wet.materials' (line 4): element 0 is not a string");
  ExpectSceneError(SceneYaml(plate) + "weather: {wet: {materials: [wood, tarmac]}}\n",
                   "'weather.wet.materials' (line 4): unknown material 'tarmac'");
  // A dirty cover: no regions, a transmission of 0 or above 1, backscatter past 1 %, angles
  // that are not a pair or run backwards, a window too far out, a misspelt key.
  ExpectSceneError(SceneYaml(plate) + "weather: {cover: {regions: []}}\n",
                   "key 'weather.cover.regions' (line 4): must list 1 to 8 regions of the "
                   "window, got 0");
  ExpectSceneError(SceneYaml(plate) + "weather: {cover: {regions: [{transmission: 0}]}}\n",
                   "key 'weather.cover.regions[0].transmission' (line 4): must be the window's "
                   "one-way transmission in (0, 1], got 0");
  ExpectSceneError(SceneYaml(plate) + "weather: {cover: {regions: [{transmission: 1.2}]}}\n",
                   "'weather.cover.regions[0].transmission'");
  ExpectSceneError(SceneYaml(plate) + "weather: {cover: {regions: [{backscatter: 0.5}]}}\n",
                   "'weather.cover.regions[0].backscatter' (line 4): must be the share of the "
                   "emitted pulse sent back in [0, 0.01], got 0.5");
  ExpectSceneError(SceneYaml(plate) + "weather: {cover: {regions: [{azimuth_deg: [10]}]}}\n",
                   "'weather.cover.regions[0].azimuth_deg' (line 4): must be two angles "
                   "[from, to] in degrees, got 1 numbers");
  ExpectSceneError(SceneYaml(plate) + "weather: {cover: {regions: [{azimuth_deg: [30, 10]}]}}\n",
                   "'weather.cover.regions[0].azimuth_deg'");
  ExpectSceneError(SceneYaml(plate) + "weather: {cover: {regions: [{elevation_deg: [-10, 95]}]}}\n",
                   "'weather.cover.regions[0].elevation_deg'");
  ExpectSceneError(
      SceneYaml(plate) + "weather: {cover: {regions: [{}], window_range_m: 2}}\n",
      "'weather.cover.window_range_m' (line 4): must be the window's distance along the beam in "
      "[0, 0.1] m, got 2");
  ExpectSceneError(SceneYaml(plate) + "weather: {cover: {regions: [{dirt: 1}]}}\n",
                   "unknown key 'weather.cover.regions[0].dirt'");
  // Spray: no visibility, a film of 0 or a flood, a lidar ratio out of range.
  ExpectSceneError(SceneYaml(plate) + "weather: {spray: {water_film_mm: 1}}\n",
                   "'weather.spray.visibility_m'");
  ExpectSceneError(SceneYaml(plate) + "weather: {spray: {visibility_m: 10, water_film_mm: 0}}\n",
                   "key 'weather.spray.water_film_mm' (line 4): must be the road's water film in "
                   "(0, 10] mm, got 0");
  ExpectSceneError(SceneYaml(plate) + "weather: {spray: {visibility_m: 10, water_film_mm: 50}}\n",
                   "'weather.spray.water_film_mm'");
  ExpectSceneError(SceneYaml(plate) + "weather: {spray: {visibility_m: 0.5, water_film_mm: 1}}\n",
                   "key 'weather.spray.visibility_m' (line 4): must be the meteorological optical "
                   "range inside a fresh spray cluster in [1, 100000] m, got 0.5");
  ExpectSceneError(
      SceneYaml(plate) +
          "weather: {spray: {visibility_m: 10, water_film_mm: 1, lidar_ratio_sr: 1}}\n",
      "'weather.spray.lidar_ratio_sr'");
  test::TempDir dir;
  auto fog = LoadScene(
      dir.Write("fog.yaml", SceneYaml(plate) + "weather: {fog: {visibility_m: 50}}\n"), {});
  ASSERT_TRUE(fog.ok()) << fog.message();
  ASSERT_TRUE(fog->description.weather.fog.has_value());
  EXPECT_EQ(fog->description.weather.fog->visibility_m, 50);
  auto wet = LoadScene(
      dir.Write("wet.yaml", SceneYaml(plate) + "weather: {rain: {rate_mm_h: 25}, snow: "
                                               "{rate_mm_h: 2, flake_reflectance: 0.6}}\n"),
      {});
  ASSERT_TRUE(wet.ok()) << wet.message();
  ASSERT_TRUE(wet->description.weather.rain && wet->description.weather.snow);
  EXPECT_EQ(wet->description.weather.rain->rate_mm_h, 25);
  EXPECT_EQ(wet->description.weather.rain->min_diameter_mm, 0.5);
  EXPECT_EQ(wet->description.weather.rain->semantic_class, 101);
  EXPECT_EQ(wet->description.weather.snow->flake_reflectance, 0.6);
  EXPECT_EQ(wet->description.weather.Keys(), "weather.rain, weather.snow");
  auto cover = LoadScene(
      dir.Write("cover.yaml", SceneYaml(plate) +
                                  "weather: {cover: {regions: [{azimuth_deg: [170, 200], "
                                  "elevation_deg: [-5, 5], transmission: 0.6, backscatter: "
                                  "1e-4}, {}]}}\n"),
      {});
  ASSERT_TRUE(cover.ok()) << cover.message();
  ASSERT_TRUE(cover->description.weather.cover.has_value());
  const CoverDescription& c = *cover->description.weather.cover;
  ASSERT_EQ(c.regions.size(), 2u);
  EXPECT_EQ(c.regions[0].azimuth_deg[1], 200);
  EXPECT_EQ(c.regions[0].elevation_deg[0], -5);
  EXPECT_EQ(c.regions[0].transmission, 0.6);
  EXPECT_EQ(c.regions[0].backscatter, 1e-4);
  EXPECT_EQ(c.regions[1].transmission, 1);  // defaults: the whole window, clean
  EXPECT_EQ(c.regions[1].azimuth_deg[0], -180);
  EXPECT_EQ(c.window_range_m, 0.02);
  EXPECT_EQ(c.semantic_class, 104);
  EXPECT_EQ(cover->description.weather.Keys(), "weather.cover");
}

TEST(SceneErrors, ImpossibleSizes) {
  ExpectSceneError(SceneYaml("  - {name: a, type: plate, size_m: [1, -1], material: wood}\n"),
                   "'objects[0].size_m'");
  ExpectSceneError(
      SceneYaml("  - {name: a, type: disc, radius_m: 1, segments: 2, material: wood}\n"),
      "'objects[0].segments'");
}

TEST(SceneErrors, BadMotion) {
  ExpectSceneError(
      SceneYaml(
          "  - {name: a, type: plate, size_m: [1, 1], material: wood, velocity_m_s: [1, 2]}\n"),
      "'objects[0].velocity_m_s' (line 3): expected 3 numbers");
  ExpectSceneError(
      SceneYaml("  - {name: a, type: plate, size_m: [1, 1], material: wood, yaw_rate_deg_s: x}\n"),
      "'objects[0].yaw_rate_deg_s'");
}

TEST(Scene, MovingObjectsLoadAndMoveRigidly) {
  test::TempDir dir;
  auto s = LoadScene(
      dir.Write("moving.yaml",
                SceneYaml("  - {name: car, type: box, size_m: [4, 2, 1.5], material: wood,\n"
                          "     position_m: [10, 0, 0.75], velocity_m_s: [-5, 1, 0],\n"
                          "     yaw_rate_deg_s: 90}\n"
                          "  - {name: wall, type: plate, size_m: [1, 1], material: wood}\n")),
      {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(s->HasMovingObjects());
  EXPECT_TRUE(s->objects[0].motion.moving());
  EXPECT_FALSE(s->objects[1].motion.moving());
  const SceneObject& car = s->objects[0];
  // At t = 2 s: turned by 180 degrees about the vertical through (10, 0), moved by (-10, 2, 0).
  const auto v = VerticesAt(car, 2.0);
  ASSERT_EQ(v.size(), car.mesh.vertices.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const auto& p = car.mesh.vertices[i];
    EXPECT_NEAR(v[i][0], 10 - (p[0] - 10) - 10, 1e-12);
    EXPECT_NEAR(v[i][1], -p[1] + 2, 1e-12);
    EXPECT_NEAR(v[i][2], p[2], 1e-12);
  }
  // At t = 0 the object is where its pose put it.
  EXPECT_EQ(VerticesAt(car, 0.0), car.mesh.vertices);
}

}  // namespace
}  // namespace lt
