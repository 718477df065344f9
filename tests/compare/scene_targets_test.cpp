// Targets made from a scene's objects: one per instance, boxes around the shipped lab plates.
#include <gtest/gtest.h>

#include "lidartwin/compare/targets.h"
#include "test_support.h"

namespace lt::compare {
namespace {

TEST(SceneTargets, OneBoxPerInstanceAroundEachPlate) {
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  const auto targets = TargetsFromScene(*scene, 0.05);
  ASSERT_EQ(targets.size(), scene->objects.size() - 1);  // all but the ground
  for (size_t i = 0; i < targets.size(); ++i) {
    const SceneObject& o = scene->objects[i + 1];
    const Target& t = targets[i];
    EXPECT_EQ(t.name, o.name);
    EXPECT_EQ(t.material, scene->materials.materials[o.material_id].name);
    // Plates of zero thickness: half sizes 0.05 and half the plate plus the 0.05 margin
    // (0.5 m plates: 0.3, 0.3).
    EXPECT_NEAR(t.half_size_m[0], 0.05, 1e-9);
    EXPECT_NEAR(t.half_size_m[1], 0.5 * o.size_m[0] + 0.05, 1e-9) << o.name;
    EXPECT_NEAR(t.half_size_m[2], 0.5 * o.size_m[1] + 0.05, 1e-9) << o.name;
    for (const auto& v : o.mesh.vertices)
      EXPECT_TRUE(t.Contains(v[0], v[1], v[2])) << o.name;
    const auto& c = o.pose.translation;
    EXPECT_FALSE(t.Contains(c.x * 1.1, c.y * 1.1, c.z)) << o.name;  // 10 % farther: outside
    EXPECT_NEAR(*t.GroundTruthDistance(), std::sqrt(c.x * c.x + c.y * c.y + c.z * c.z), 1e-12);
  }
}

}  // namespace
}  // namespace lt::compare
