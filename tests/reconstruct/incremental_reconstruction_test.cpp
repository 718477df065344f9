// Reconstruction in bounded memory (issue 12): frames added one at a time leave a surface
// bounded by the scene (max_layers triangles per voxel), whatever the number of frames, and
// a later frame carves what an earlier one saw that has gone.
#include "lidartwin/reconstruct/incremental_reconstruction.h"

#include <gtest/gtest.h>

#include "reconstruct/reconstruction_test_frames.h"

namespace lt {
namespace {

TEST(IncrementalReconstruction, TheSurfaceIsBoundedByTheSceneNotTheFrames) {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.5});
  scene.objects = {test::Wall(10),
                   test::Placed("ground", MakePlane(60, 60), {0, 0, -1.5}, 0, 0, 0, 0, 2, 1)};
  const SensorProfile sensor = test::SpinningSensor(32, 15, -25, 720, 10);
  IncrementalReconstructionOptions o;
  IncrementalReconstruction rebuild(o);
  std::vector<size_t> triangles;
  for (int k = 0; k < 12; ++k) {
    // The sensor wanders over a metre and back: every frame sees the same scene anew.
    const physics::Vec3<double> at{0.1 * (k % 6), 0.05 * (k % 4), 0};
    const physics::Pose<double> pose{{1, 0, 0, 0}, at};
    const Frame f = test::SimulatedFrame(scene, sensor, at);
    ASSERT_TRUE(rebuild.AddFrame(f, pose, pose, 0).ok());
    triangles.push_back(rebuild.surface().triangles.size());
    if (k == 0) {
      // A frame's own triangles count as one layer: the first frame is kept whole, as the
      // batch meshing makes it (a cap on triangles had kept 14 % of a VLP-16 frame's).
      EXPECT_EQ(rebuild.triangles_left_out(), 0u);
      auto alone = MeshRangeImages(test::Posed({f}, {at}), o.mesh);
      ASSERT_TRUE(alone.ok()) << alone.message();
      EXPECT_EQ(triangles[0], alone->triangles.size());
    }
  }
  // Each voxel holds the triangles of at most max_layers frames: from the third frame on,
  // nearly everything a frame adds is left out, and the surface stops growing. Cells follow
  // each triangle's size, which a frame from elsewhere changes, so some cells fill anew: the
  // surface settles within three frames' worth (181k, 362k, 419k, 470k, 481k, ... 499k).
  EXPECT_GT(triangles[1], triangles[0]);
  EXPECT_LT(triangles.back(), 3 * triangles[0]);
  EXPECT_LT(triangles.back() - triangles[5], triangles[0] / 10);
  EXPECT_GT(rebuild.triangles_left_out(), 5 * triangles[0]);
  EXPECT_EQ(rebuild.frames_added(), 12u);
  // Every vertex is used by a triangle (the rest were dropped as the surface changed).
  std::vector<bool> used(rebuild.surface().vertices.size(), false);
  for (const auto& t : rebuild.surface().triangles)
    for (uint32_t v : t)
      used[v] = true;
  EXPECT_EQ(std::count(used.begin(), used.end(), false), 0);
  EXPECT_EQ(rebuild.surface().triangle_reflectance.size(), rebuild.surface().triangles.size());
}

TEST(IncrementalReconstruction, ALaterFrameCarvesWhatHasGone) {
  const test::PlateThatLeaves scenes;
  const Scene &with_plate = scenes.with_plate, &wall_only = scenes.wall_only;
  const SensorProfile sensor = test::SpinningSensor(32, 15, -15, 720, 10);
  IncrementalReconstruction rebuild({});
  const physics::Pose<double> here{{1, 0, 0, 0}, {0, 0, 0}}, there{{1, 0, 0, 0}, {0, 0.3, 0}};
  ASSERT_TRUE(
      rebuild.AddFrame(test::SimulatedFrame(with_plate, sensor, {0, 0, 0}), here, here, 0).ok());
  auto on_plate = [&] {
    size_t n = 0;
    for (const auto& t : rebuild.surface().triangles)
      n += rebuild.surface().vertices[t[0]][0] < 7.5;
    return n;
  };
  const size_t before = on_plate();
  ASSERT_GT(before, 100u);
  ASSERT_TRUE(
      rebuild.AddFrame(test::SimulatedFrame(wall_only, sensor, {0, 0.3, 0}), there, there, 0).ok());
  EXPECT_LE(on_plate(), before / 20);
  EXPECT_GT(rebuild.triangles_carved(), before * 9 / 10);
}

}  // namespace
}  // namespace lt
