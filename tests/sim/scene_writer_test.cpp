// The scene's writer beside its loader (house rule 13) and Validate(): every shipped scene
// reads back from SaveScene to the same description and builds the same objects, as does a
// scene built in code with every object type and relative paths (what `reconstruct` writes);
// each range rule fails with its key path.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>

#include "lidartwin/sim/scene.h"
#include "sim/expect_same_config.h"
#include "test_support.h"

namespace lt {
namespace {

// Same objects, labels, poses and triangles.
void ExpectSameScene(const Scene& a, const Scene& b, const std::string& what) {
  ASSERT_EQ(a.objects.size(), b.objects.size()) << what;
  test::ExpectSameLibrary(a.materials, b.materials, what);
  for (size_t i = 0; i < a.objects.size(); ++i) {
    const SceneObject& x = a.objects[i];
    const SceneObject& y = b.objects[i];
    EXPECT_EQ(x.name, y.name) << what;
    EXPECT_EQ(x.type, y.type) << what;
    EXPECT_EQ(x.material_id, y.material_id) << what << " " << x.name;
    EXPECT_EQ(x.semantic_class, y.semantic_class) << what << " " << x.name;
    EXPECT_EQ(x.instance_id, y.instance_id) << what << " " << x.name;
    EXPECT_EQ(x.size_m, y.size_m) << what << " " << x.name;
    EXPECT_EQ(x.motion.velocity_m_s, y.motion.velocity_m_s) << what << " " << x.name;
    EXPECT_EQ(x.motion.yaw_rate_rad_s, y.motion.yaw_rate_rad_s) << what << " " << x.name;
    EXPECT_EQ(x.mesh.vertices, y.mesh.vertices) << what << " " << x.name;
    EXPECT_EQ(x.mesh.triangles, y.mesh.triangles) << what << " " << x.name;
  }
}

TEST(SceneWriter, EveryShippedSceneReadsBackTheSame) {
  test::TempDir dir;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::ConfigDir() / "scenes")) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().filename().string();
    auto a = LoadSceneDescription(entry.path());
    ASSERT_TRUE(a.ok()) << a.message();
    EXPECT_TRUE(a->Validate().ok()) << a->Validate().message();
    // Written elsewhere: the paths are absolute after loading.
    const auto copy = dir.Write(name, SaveScene(*a, "written by the round-trip test"));
    auto b = LoadSceneDescription(copy);
    ASSERT_TRUE(b.ok()) << b.message() << "\n" << SaveScene(*a);
    test::ExpectSameSceneDescription(*a, *b, name);
    auto c = ParseSceneDescription(SaveScene(*b), copy);
    ASSERT_TRUE(c.ok()) << c.message();
    test::ExpectSameSceneDescription(*a, *c, name + " (second round)");
    auto scene_a = LoadScene(entry.path(), {});
    auto scene_b = LoadScene(copy, {});
    ASSERT_TRUE(scene_a.ok() && scene_b.ok()) << scene_a.message() << scene_b.message();
    ExpectSameScene(*scene_a, *scene_b, name);
    test::ExpectSameSceneDescription(scene_a->description, *a, name + " (in the scene)");
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

// A mesh loader for tests: every file is a unit box.
Expected<TriangleMesh> BoxLoader(const std::filesystem::path&) {
  return MakeBox(1, 1, 1);
}

SceneDescription EveryType() {
  SceneDescription d;
  d.materials = "materials.yaml";  // relative: beside the scene, as reconstruct writes it
  d.sunlight = 0.75;               // the waveform detector's ambient light
  d.weather.fog = FogDescription{
      .visibility_m = 37.5, .backscatter = false, .lidar_ratio_sr = 30, .semantic_class = 7};
  d.weather.rain = RainDescription{.rate_mm_h = 12.5, .min_diameter_mm = 0.7, .semantic_class = 7};
  d.weather.snow = SnowDescription{
      .rate_mm_h = 1.5, .min_diameter_mm = 0.3, .flake_reflectance = 0.35, .semantic_class = 8};
  d.weather.wet = WetDescription{{"grey"}};
  d.weather.spray = SprayDescription{12.5, 1.5, 22, 11};
  d.weather.cover = CoverDescription{{{{170, 200}, {-5, 12.5}, 0.65, 3e-5}, {}}, 0.035, 9};
  SceneObjectDescription plate{.name = "plate",
                               .type = "plate",
                               .position_m = {5, 0, 0.5},
                               .rotation_deg = {0, 10, 180},
                               .material = "grey",
                               .semantic_class = 64,
                               .instance_id = 7,
                               .size_m = {0.5, 0.4}};
  SceneObjectDescription car{.name = "car",
                             .type = "box",
                             .position_m = {10, 0, 0.75},
                             .material = "grey",
                             .velocity_m_s = {-5, 1, 0},
                             .yaw_rate_deg_s = 90,
                             .size_m = {4, 2, 1.5}};
  SceneObjectDescription ground{.name = "ground",
                                .type = "plane",
                                .position_m = {0, 0, -1.5},
                                .material = "grey",
                                .size_m = {100, 100}};
  SceneObjectDescription disc{.name = "disc",
                              .type = "disc",
                              .position_m = {3, 3, 0},
                              .material = "grey",
                              .radius_m = 0.3,
                              .segments = 64};
  SceneObjectDescription mesh{.name = "surface_r00",
                              .type = "mesh",
                              .material = "grey",
                              .semantic_class = 1,
                              .instance_id = 1,
                              .file = "surface_r00.ply",
                              .scale = 2};
  SceneObjectDescription forest{.name = "trees", .type = "forest", .position_m = {0, 30, -1.5}};
  forest.forest.params = {.area_x_m = 20,
                          .area_y_m = 10,
                          .tree_count = 2,
                          .leaves_per_tree = 5,
                          .size_variation = 0.2,
                          .seed = 7};
  forest.forest.trunk_material = "grey";
  forest.forest.foliage_material = "grey";
  forest.forest.first_instance_id = 100;
  d.objects = {plate, car, ground, disc, mesh, forest};
  return d;
}

TEST(SceneWriter, EveryTypeBuiltInCodeReadsBackTheSame) {
  test::TempDir dir;
  const SceneDescription d = EveryType();
  ASSERT_TRUE(d.Validate().ok()) << d.Validate().message();
  MaterialLibrary lib;
  lib.materials.push_back(Material{.name = "grey",
                                   .wavelength_nm = {kFlatSpectrumWavelengthNm},
                                   .reflectance = {0.5},
                                   .source = "test"});
  dir.Write("materials.yaml", SaveMaterialLibrary(lib));
  dir.Write("surface_r00.ply", "read by BoxLoader");
  const auto file = dir.Write("scene.yaml", SaveScene(d, "written by the test"));
  auto loaded = LoadScene(file, BoxLoader);
  ASSERT_TRUE(loaded.ok()) << loaded.message() << "\n" << SaveScene(d);
  auto built = BuildScene(d, dir.path(), BoxLoader);
  ASSERT_TRUE(built.ok()) << built.message();
  ExpectSameScene(*built, *loaded, "every type");
  EXPECT_EQ(built->TriangleCount(), 2u + 12u + 2u + 64u + 12u + 2u * (5u + kForestTrunkTriangles));
  // The loaded description is the written one with its paths made absolute.
  SceneDescription absolute = d;
  absolute.materials = std::filesystem::absolute(dir / "materials.yaml").string();
  absolute.objects[4].file = std::filesystem::absolute(dir / "surface_r00.ply").string();
  test::ExpectSameSceneDescription(loaded->description, absolute, "every type");
  // A scene built in code carries its text as written, for the HDF5 file.
  EXPECT_EQ(built->source_text, SaveScene(d));
}

TEST(SceneWriter, BuildSceneNamesTheKeyOfAnUnknownMaterial) {
  test::TempDir dir;
  SceneDescription d = EveryType();
  d.materials = (test::ConfigDir() / "materials/library.yaml").string();
  auto s = BuildScene(d, dir.path(), BoxLoader);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("scene: key 'objects[0].material': unknown material 'grey'"),
            std::string::npos)
      << s.message();
}

// One rule per row: a valid object, changed by `breaks`, fails on `key` with `problem`.
struct ObjectRule {
  const char* key;
  std::function<void(SceneObjectDescription&)> breaks;
  const char* problem;
};

void ExpectRules(const SceneObjectDescription& valid, const std::vector<ObjectRule>& rules) {
  SceneDescription d;
  d.materials = "lib.yaml";
  d.objects = {valid};
  ASSERT_TRUE(d.Validate().ok()) << d.Validate().message();
  for (const ObjectRule& rule : rules) {
    d.objects[0] = valid;
    rule.breaks(d.objects[0]);
    const Status s = d.Validate();
    ASSERT_FALSE(s.ok()) << rule.key << ": " << rule.problem;
    EXPECT_NE(s.message().find("scene: key 'objects[0]." + std::string(rule.key) + "': "),
              std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find(rule.problem), std::string::npos) << s.message();
  }
}

TEST(SceneValidate, EachObjectRuleNamesItsKey) {
  const SceneObjectDescription box{
      .name = "b", .type = "box", .material = "grey", .size_m = {1, 2, 3}};
  ExpectRules(
      box,
      {{"name", [](auto& o) { o.name.clear(); }, "must not be empty"},
       {"type", [](auto& o) { o.type = "sphere"; },
        "unknown object type 'sphere' (expected plane, box, disc, plate, mesh, forest or street)"},
       {"position_m", [](auto& o) { o.position_m[1] = NAN; }, "must be finite"},
       {"rotation_deg", [](auto& o) { o.rotation_deg[2] = INFINITY; },
        "angles must be within +-1000000 deg, got [0, 0, inf]"},
       // Issue 36: 1e308 was taken for angles, speeds and turn rates.
       {"rotation_deg", [](auto& o) { o.rotation_deg[0] = 1e308; },
        "angles must be within +-1000000 deg"},
       {"material", [](auto& o) { o.material.clear(); }, "must name a material"},
       {"velocity_m_s", [](auto& o) { o.velocity_m_s[0] = NAN; },
        "each component must be within +-1e4 m/s, got nan"},
       {"velocity_m_s", [](auto& o) { o.velocity_m_s[2] = -1e308; },
        "each component must be within +-1e4 m/s, got -1e+308"},
       {"yaw_rate_deg_s", [](auto& o) { o.yaw_rate_deg_s = NAN; },
        "must be within +-1e6 deg/s, got nan"},
       {"yaw_rate_deg_s", [](auto& o) { o.yaw_rate_deg_s = 1e308; },
        "must be within +-1e6 deg/s, got 1e+308"},
       {"size_m", [](auto& o) { o.size_m.pop_back(); }, "expected 3 numbers, got 2"},
       {"size_m", [](auto& o) { o.size_m[1] = 0; }, "sizes must be positive, got 0"},
       // Issue 36: sizes, radii and scales of 1e308 were accepted.
       {"size_m", [](auto& o) { o.size_m[2] = 1e308; },
        "sizes must be at most 2e7 m, got 1e+308"}});
  const SceneObjectDescription plate{
      .name = "p", .type = "plate", .material = "grey", .size_m = {1, 2}};
  ExpectRules(plate,
              {{"size_m", [](auto& o) { o.size_m.push_back(1); }, "expected 2 numbers, got 3"}});
  const SceneObjectDescription disc{.name = "d", .type = "disc", .material = "grey", .radius_m = 1};
  ExpectRules(
      disc, {{"radius_m", [](auto& o) { o.radius_m = -1; }, "must be positive, got -1"},
             {"radius_m", [](auto& o) { o.radius_m = 1e308; }, "must be at most 2e7 m, got 1e+308"},
             {"segments", [](auto& o) { o.segments = 2; },
              "must be a whole number in 3..1000000, got 2"}});
  const SceneObjectDescription mesh{
      .name = "m", .type = "mesh", .material = "grey", .file = "m.ply"};
  ExpectRules(mesh,
              {{"file", [](auto& o) { o.file.clear(); }, "must name a mesh file"},
               {"scale", [](auto& o) { o.scale = 0; }, "must be positive, got 0"},
               {"scale", [](auto& o) { o.scale = 1e308; }, "must be at most 1e6, got 1e+308"}});
}

TEST(SceneValidate, EachForestRuleNamesItsKey) {
  SceneObjectDescription forest{.name = "f", .type = "forest"};
  forest.forest.params = {.area_x_m = 20, .area_y_m = 20, .tree_count = 4, .leaves_per_tree = 10};
  forest.forest.trunk_material = "wood";
  forest.forest.foliage_material = "deciduous";
  ExpectRules(
      forest,
      {{"area_m", [](auto& o) { o.forest.params.area_y_m = 0; },
        "sizes must be in (0, 20000000] m, got [20, 0]"},
       // Issue 36: a forest of 1e308 m trees vanished with a warning about its triangles.
       {"area_m", [](auto& o) { o.forest.params.area_x_m = 1e39; },
        "sizes must be in (0, 20000000] m, got [1e+39, 20]"},
       {"trunk_height_m", [](auto& o) { o.forest.params.trunk_height_m = 1e308; },
        "must be in 0.0001..1000 m, got 1e+308"},
       {"leaf_size_m", [](auto& o) { o.forest.params.leaf_size_m = 1e-308; },
        "must be in 0.0001..1000 m, got 1e-308"},
       {"tree_count", [](auto& o) { o.forest.params.tree_count = 0; },
        "must be in 1..1000000, got 0"},
       {"seed", [](auto& o) { o.forest.params.seed = (uint64_t{1} << 53) + 1; },
        "must be at most 2^53"},
       {"trunk_radius_m", [](auto& o) { o.forest.params.trunk_radius_m = 0; },
        "must be in 0.0001..1000 m, got 0"},
       {"leaves_per_tree", [](auto& o) { o.forest.params.leaves_per_tree = 0; },
        "must be in 1..1000000, got 0"},
       {"size_variation", [](auto& o) { o.forest.params.size_variation = 1; },
        "must be in [0, 1), got 1"},
       {"trunk_material", [](auto& o) { o.forest.trunk_material.clear(); }, "must name a material"},
       {"foliage_material", [](auto& o) { o.forest.foliage_material.clear(); },
        "must name a material"},
       {"first_instance_id", [](auto& o) { o.forest.first_instance_id = 0; }, "must be at least 1"},
       {"first_instance_id", [](auto& o) { o.forest.first_instance_id = 4294967294u; },
        "4294967294 + 4 trees runs past the largest instance id"},
       {"trunk_height_m", [](auto& o) { o.forest.params.crown_radius_m = 9; },
        "8 m must exceed crown_radius_m, 9 m"},
       {"tree_count", [](auto& o) { o.forest.params.trunk_radius_m = 6; },
        "too small for stems up to 12 m across"},
       {"leaves_per_tree",
        [](auto& o) {
          o.forest.params.tree_count = 100;
          o.forest.params.leaves_per_tree = 1000000;
        },
        "triangles, more than 2 x 10^7"}});
}

// Issue 36: the triangle cap held per forest, so three forests within it loaded 6.9 GB.
TEST(SceneValidate, TheForestTriangleCapIsTheScenes) {
  SceneObjectDescription forest{.name = "f", .type = "forest"};
  // 90 trees of 80,000 leaves: 7.2 million triangles, within the cap alone and two together.
  forest.forest.params = {
      .area_x_m = 200, .area_y_m = 200, .tree_count = 90, .leaves_per_tree = 80000};
  forest.forest.trunk_material = "wood";
  forest.forest.foliage_material = "deciduous";
  SceneDescription d;
  d.materials = "lib.yaml";
  d.objects = {forest, forest};
  EXPECT_TRUE(d.Validate().ok()) << d.Validate().message();
  d.objects.push_back(forest);
  const Status three = d.Validate();
  ASSERT_FALSE(three.ok());
  EXPECT_NE(three.message().find("scene: key 'objects': the scene's forests and streets make"),
            std::string::npos)
      << three.message();
  EXPECT_NE(three.message().find("triangles together, more than 2 x 10^7"), std::string::npos)
      << three.message();
}

TEST(SceneValidate, TheSceneNeedsALibraryAndObjects) {
  SceneDescription d;
  EXPECT_EQ(d.Validate().message(), "scene: key 'materials': must name a material library");
  d.materials = "lib.yaml";
  EXPECT_EQ(d.Validate().message(), "scene: key 'objects': the scene has no objects");
  d = EveryType();
  d.sunlight = 2.5;
  EXPECT_EQ(
      d.Validate().message(),
      "scene: key 'sunlight': must be a fraction of the ASTM G173 spectrum in [0, 2], got 2.5");
}

// Visibility 0, negative, not a number, denser than any fog chamber's or clearer than clear air:
// each refused with the key named.
TEST(SceneValidate, AFogsVisibilityIsAMeteorologicalOpticalRange) {
  for (double v : {0.0, -50.0, double{NAN}, double{INFINITY}, 4.9, 1.5e5}) {
    SceneDescription d = EveryType();
    d.weather.fog = FogDescription{v};
    EXPECT_EQ(d.Validate().message(),
              "scene: key 'weather.fog.visibility_m': must be a meteorological optical range in "
              "[5, 100000] m, got " +
                  NumberText(v))
        << v;
  }
  SceneDescription d = EveryType();
  for (double v : {5.0, 30.0, 1e5}) {
    d.weather.fog = FogDescription{v};
    EXPECT_TRUE(d.Validate().ok()) << v;
  }
}

}  // namespace
}  // namespace lt
