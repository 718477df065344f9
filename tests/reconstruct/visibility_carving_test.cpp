// Visibility carving (issue 12): a plate one frame saw (a car that drove away) is removed
// because another frame's rays reached the wall through where it stood; the wall stays.
#include "lidartwin/reconstruct/visibility_carving.h"

#include <gtest/gtest.h>

#include "lidartwin/reconstruct/range_image_mesh.h"
#include "reconstruct/reconstruction_test_frames.h"

namespace lt {
namespace {

TEST(VisibilityCarving, WhatAnotherFrameSawThroughIsRemovedAndNothingElse) {
  const test::PlateThatLeaves scenes;
  const Scene &with_plate = scenes.with_plate, &wall_only = scenes.wall_only;
  const SensorProfile sensor = test::SpinningSensor(32, 15, -15, 720, 10);
  const PosedFrames in = test::Posed({test::SimulatedFrame(with_plate, sensor, {0, 0, 0}),
                                      test::SimulatedFrame(wall_only, sensor, {0, 0.3, 0})},
                                     {{0, 0, 0}, {0, 0.3, 0}});
  RangeImageMeshOptions mo;
  mo.surfels = RangeImageMeshOptions::Surfels::kNone;
  mo.consensus_window_m = 0;
  auto surface = MeshRangeImages(in, mo);
  ASSERT_TRUE(surface.ok()) << surface.message();
  auto count = [](const ReconstructedSurface& s) {
    size_t plate = 0, wall = 0;
    for (const auto& t : s.triangles)
      (s.vertices[t[0]][0] < 7.5 ? plate : wall) += 1;
    return std::pair{plate, wall};
  };
  const auto [plate_before, wall_before] = count(*surface);
  ASSERT_GT(plate_before, 100u);
  auto carved = CarveSeenThrough(*surface, in, {});
  ASSERT_TRUE(carved.ok()) << carved.message();
  const auto [plate_after, wall_after] = count(*surface);
  EXPECT_EQ(wall_after, wall_before);  // nothing stands in front of the wall
  // A plate triangle is crossed by the second frame's rays unless it lies at the plate's rim,
  // where fewer than two rays pass through it.
  EXPECT_LE(plate_after, plate_before / 20) << plate_before << " -> " << plate_after;
  EXPECT_EQ(carved->triangles_removed, plate_before - plate_after);
  EXPECT_EQ(surface->triangle_reflectance.size(), surface->triangles.size());
  EXPECT_GT(carved->rays, 1000u);
  EXPECT_GT(carved->crossings, 100u);
}

TEST(VisibilityCarving, FramesThatAgreeLoseNothing) {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.5});
  scene.objects = {test::Wall(10),
                   test::Placed("plate", MakePlate(2, 2), {5, 0, 0}, 0, 0, 0, 0, 2, 1),
                   test::Placed("ground", MakePlane(100, 100), {0, 0, -1.8}, 0, 0, 0, 0, 3, 1)};
  const SensorProfile sensor = test::SpinningSensor(32, 15, -25, 720, 10);
  const PosedFrames in = test::Posed({test::SimulatedFrame(scene, sensor, {0, 0, 0}),
                                      test::SimulatedFrame(scene, sensor, {0.25, 0.1, 0})},
                                     {{0, 0, 0}, {0.25, 0.1, 0}});
  // Rays graze the ground and the plate's edges; the margin and the incidence limit keep
  // them from voting against what is there. The surfels at the mesh's edges fill their
  // returns' pixels, so at the plate's rim they overhang it by up to half a pixel, and the
  // other frame sees past some of them to the wall: those few go too.
  for (const bool edge_surfels : {false, true}) {
    RangeImageMeshOptions o;
    o.surfels_at_mesh_edges = edge_surfels;
    auto surface = MeshRangeImages(in, o);
    ASSERT_TRUE(surface.ok()) << surface.message();
    const size_t before = surface->triangles.size();
    auto carved = CarveSeenThrough(*surface, in, {});
    ASSERT_TRUE(carved.ok()) << carved.message();
    EXPECT_LE(carved->triangles_removed, before / (edge_surfels ? 500 : 1000))
        << carved->triangles_removed << " of " << before << (edge_surfels ? " with" : " without")
        << " surfels at the mesh's edges";
  }
}

// The rim of a plate seen from two places 0.3 m apart: each frame's own surface ends at its
// returns' beam centres, so a ray from one frame to a triangle on the rim the other frame saw
// passes just beside its own rim and meets the wall, and the rim went a pixel at a time. A
// frame that saw the plate within a quarter of a column of that ray casts no vote; the plate a
// frame really saw through (the first test) still goes.
TEST(VisibilityCarving, TheRimOfAPlateSeenFromElsewhereStays) {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.5});
  scene.objects = {test::Wall(10),
                   test::Placed("plate", MakePlate(2, 2), {5, 0, 0}, 0, 0, 0, 0, 2, 1)};
  const SensorProfile sensor = test::SpinningSensor(32, 15, -15, 720, 10);
  PosedFrames in = test::Posed({test::SimulatedFrame(scene, sensor, {0, 0, 0}),
                                test::SimulatedFrame(scene, sensor, {0.1, 0.3, 0})},
                               {{0, 0, 0}, {0.1, 0.3, 0}});
  in.columns_per_frame = 720;  // the footprint a quarter of its 0.5 deg columns
  auto plate_triangles = [](const ReconstructedSurface& s) {
    size_t n = 0;
    for (const auto& t : s.triangles)
      n += s.vertices[t[0]][0] < 7.5;
    return n;
  };
  std::vector<size_t> removed;
  for (const double footprint : {0.0, 0.25}) {
    auto surface = MeshRangeImages(in, {});
    ASSERT_TRUE(surface.ok()) << surface.message();
    const size_t before = plate_triangles(*surface);
    VisibilityCarvingOptions o;
    o.footprint_columns = footprint;
    ASSERT_TRUE(CarveSeenThrough(*surface, in, o).ok());
    removed.push_back(before - plate_triangles(*surface));
  }
  // 64 and 20 of the plate's 25,016 triangles (its surfels' included).
  EXPECT_GT(removed[0], 30u) << "the rim is no longer carved without a footprint";
  EXPECT_LE(removed[1], removed[0] / 2) << removed[0] << " -> " << removed[1];
}

// A strip that stood in front of the wall only in the first frame, reaching into where the
// plate's rim hides the wall from the second (as a mixed return floats between an edge and
// the background): beside the rim, the second frame's rays a quarter column from the strip's
// centroids meet the plate, nearer than the strip, or the wall behind it, never a surface at
// the strip, so the footprint spares none of what it saw through: all of the strip outside
// the plate's shadow goes. (Sparing a triangle wherever any of those rays met something short
// of the wall kept 14 of its 248 triangles.)
TEST(VisibilityCarving, WhatFloatsBesideAnotherFramesRimStillGoes) {
  Scene with_strip, without;
  with_strip.materials = without.materials = test::ConstantMaterials({0.5});
  const SceneObject plate = test::Placed("plate", MakePlate(2, 2), {5, 0, 0}, 0, 0, 0, 0, 2, 1);
  // At x = 7.5 the plate's rim at y = 1 hides the wall up to y = 1.5 from the first sensor and
  // up to y = -0.3 + 7.5 * 1.3 / 5 = 1.65 from the second (0.3 m to the other side); the strip
  // spans y = 1.5 to 1.9 there.
  const SceneObject strip =
      test::Placed("strip", MakePlate(0.4, 1.0), {7.5, 1.7, 0}, 0, 0, 0, 0, 3, 1);
  with_strip.objects = {test::Wall(10), plate, strip};
  without.objects = {test::Wall(10), plate};
  const SensorProfile sensor = test::SpinningSensor(32, 15, -15, 720, 10);
  PosedFrames in = test::Posed({test::SimulatedFrame(with_strip, sensor, {0, 0, 0}),
                                test::SimulatedFrame(without, sensor, {0, -0.3, 0})},
                               {{0, 0, 0}, {0, -0.3, 0}});
  in.columns_per_frame = 720;
  // The strip's triangles whose centroid lies clear of the shadow (y > 1.685, past the 3 cm the
  // plate's rim surfels add to it): the second frame's ray to it meets the wall.
  auto strip_triangles = [](const ReconstructedSurface& s) {
    size_t n = 0;
    for (const auto& t : s.triangles) {
      double x = 0, y = 0;
      for (uint32_t v : t)
        x += s.vertices[v][0] / 3, y += s.vertices[v][1] / 3;
      n += x > 7 && x < 8 && y > 1.685;
    }
    return n;
  };
  auto surface = MeshRangeImages(in, {});
  ASSERT_TRUE(surface.ok()) << surface.message();
  const size_t clear = strip_triangles(*surface);
  ASSERT_GT(clear, 50u);
  ASSERT_TRUE(CarveSeenThrough(*surface, in, {}).ok());
  EXPECT_EQ(strip_triangles(*surface), 0u) << "of " << clear;
}

// A capture's last, partial frame (a packet's few returns past the wrap) whose first returns
// are all of one laser shows no surface to carve with: it is passed over, not an error (the
// nebula XT16 bag's last frame; its second returns were of another laser).
TEST(VisibilityCarving, AFrameWhoseFirstReturnsAreOfOneLaserIsPassedOver) {
  const test::PlateThatLeaves scenes;
  const SensorProfile sensor = test::SpinningSensor(32, 15, -15, 720, 10);
  Frame one_laser = test::SimulatedFrame(scenes.wall_only, sensor, {0, 0.3, 0});
  Frame kept;
  const uint16_t first = one_laser.channel[0];
  for (size_t i = 0; i < one_laser.size(); ++i) {
    FramePoint p;
    p.x_m = one_laser.x_m[i], p.y_m = one_laser.y_m[i], p.z_m = one_laser.z_m[i];
    p.range_m = one_laser.range_m[i];
    p.channel = one_laser.channel[i];
    p.column = one_laser.column[i];
    p.return_index = one_laser.channel[i] == first ? 0 : 1;  // the others as second returns
    kept.Append(p);
  }
  ASSERT_GT(kept.size(), 10u);
  const PosedFrames in = test::Posed(
      {test::SimulatedFrame(scenes.with_plate, sensor, {0, 0, 0}), kept}, {{0, 0, 0}, {0, 0.3, 0}});
  auto surface = MeshRangeImages(in, {});
  ASSERT_TRUE(surface.ok()) << surface.message();
  auto carved = CarveSeenThrough(*surface, in, {});
  ASSERT_TRUE(carved.ok()) << carved.message();
}

}  // namespace
}  // namespace lt
