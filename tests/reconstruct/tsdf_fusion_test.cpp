// TSDF fusion (issue 12) on frames simulated from a wall and a box, whose surfaces are known
// exactly: the fused surface lies where they are, seen from a pose neither frame was taken
// from; a moving sensor's wall and grazing ground stay flat; a voxel too fine for memory is
// refused.
#include <gtest/gtest.h>

#include <cmath>

#include "lidartwin/datasets/open3d_mesh_loader.h"
#include "lidartwin/reconstruct/reconstruction.h"
#include "lidartwin/sim/ray_caster.h"
#include "reconstruct/reconstruction_test_frames.h"
#include "reconstruction_steps.h"
#include "test_support.h"

namespace lt {
namespace {

using physics::Vec3;

// The voxel of every test: TSDF's default, about the beam spacing at 3 m.
constexpr double kVoxelM = 0.05;

Scene WallAndBox() {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.5});
  // The wall's face at x = 10 m; the box's front face (x = 4.5 m) spans y -2.5..-1.5 m and
  // z -0.5..0.5 m, so it shades the wall beyond y = -3 m from the sensor.
  scene.objects = {test::Wall(10),
                   test::Placed("box", MakeBox(1, 1, 1), {5, -2, 0}, 0, 0, 0, 0, 2, 1)};
  return scene;
}

// 32 channels over +-15 deg, 720 columns: 0.97 deg between rings, 17 cm at the wall.
SensorProfile Sensor() {
  return test::SpinningSensor(32, 15, -15, 720, 10);
}

ReconstructOptions Tsdf() {
  ReconstructOptions o;
  o.method = "tsdf";
  o.voxel_m = kVoxelM;
  return o;
}

// Distance along a ray from `origin` to the point `target` on a known face.
double DistanceTo(const Vec3<double>& origin, const Vec3<double>& target, Vec3<double>& unit) {
  const Vec3<double> d = target - origin;
  const double n = std::sqrt(Dot(d, d));
  unit = (1 / n) * d;
  return n;
}

// Two frames from poses 1 m apart, reconstructed and written; the scene, loaded back as the
// simulator loads it, is hit where the wall and the box are by rays from a third pose.
TEST(TsdfFusion, TheWrittenSceneIsHitWhereTheWallAndTheBoxAre) {
  const Scene truth = WallAndBox();
  const PosedFrames in = test::Posed({test::SimulatedFrame(truth, Sensor(), {0, 0, 0}),
                                      test::SimulatedFrame(truth, Sensor(), {0, 1, 0})},
                                     {{0, 0, 0}, {0, 1, 0}});
  test::TempDir dir;
  std::vector<std::string> steps;
  auto r = Reconstruct(in, Tsdf(), dir / "rec", [&](int, int count, const char* what) {
    EXPECT_EQ(count, 7);  // five TSDF steps, carving, writing
    steps.emplace_back(what);
  });
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(steps.front(), "placing returns in the world");
  EXPECT_GT(r->triangles, 10000u);
  auto scene = LoadScene(dir / "rec/scene.yaml", LoadMeshWithOpen3d);
  ASSERT_TRUE(scene.ok()) << scene.message();
  auto caster = RayCaster::Create(*scene);
  ASSERT_TRUE(caster);
  const Vec3<double> origin{0.5, -0.4, 0.2};
  int hits = 0;
  for (double y = -1.0; y <= 2.0; y += 0.25)
    for (double z = -1.5; z <= 1.5; z += 0.25) {
      Vec3<double> unit;
      const double expected = DistanceTo(origin, {10, y, z}, unit);
      const RayHit hit = caster->Closest(origin, unit, 0, 100);
      ASSERT_TRUE(hit.hit) << "wall at y " << y << ", z " << z;
      // Marching cubes places the surface by linear interpolation between voxel centres.
      EXPECT_NEAR(hit.distance_m, expected, kVoxelM) << "wall at y " << y << ", z " << z;
      ++hits;
    }
  EXPECT_EQ(hits, 13 * 13);
  for (double y = -2.3; y <= -1.7; y += 0.15)
    for (double z = -0.3; z <= 0.3; z += 0.15) {
      Vec3<double> unit;
      const double expected = DistanceTo(origin, {4.5, y, z}, unit);
      const RayHit hit = caster->Closest(origin, unit, 0, 100);
      ASSERT_TRUE(hit.hit) << "box at y " << y << ", z " << z;
      EXPECT_NEAR(hit.distance_m, expected, kVoxelM) << "box at y " << y << ", z " << z;
    }
}

// A sensor driving 1 m towards the wall during its frame: each return is placed with the pose
// of its own firing, so the fused wall is flat where one pose for the whole frame would spread
// it over the metre driven.
TEST(TsdfFusion, AMovingSensorsWallStaysWhereItIs) {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.5});
  scene.objects = {test::Wall(10)};
  Trajectory trajectory;
  trajectory.time_s = {0, 0.1};  // one frame at 10 Hz
  trajectory.poses = {{{1, 0, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {1, 0, 0}}};
  const SensorProfile sensor = Sensor();  // outlives the simulator, which keeps a view of it
  auto simulator = CreateSimulator(Backend::kCpu, scene, sensor, trajectory, {});
  ASSERT_TRUE(simulator.ok()) << simulator.message();
  auto frame = (*simulator)->Simulate(0);
  ASSERT_TRUE(frame.ok()) << frame.message();
  PosedFrames in;
  in.start_poses = {frame->pose_start};
  in.end_poses = {frame->pose_end};
  in.frames = {std::move(*frame)};
  in.columns_per_frame = sensor.columns;
  ASSERT_NEAR(in.end_poses[0].translation.x - in.start_poses[0].translation.x, 1, 1e-9);
  ReconstructionSummary summary;
  auto s = reconstruction::MeshByTsdf(
      in, Tsdf(), [](const char*) {}, summary);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_GT(s->triangles.size(), 1000u);
  EXPECT_EQ(s->triangle_reflectance.size(), s->triangles.size());
  // Every vertex lies within a voxel of the face, the wall's ends 45 deg off the axis too.
  for (const auto& v : s->vertices)
    ASSERT_NEAR(v[0], 10, kVoxelM) << "vertex at y " << v[1] << ", z " << v[2];
  // The wall's reflectance (0.5) read back from the simulated reflectivity, I = 100 R0 cos,
  // short of its ends, where marching cubes bends the normals round the wall's last returns.
  size_t inner = 0, near_half = 0;
  for (size_t t = 0; t < s->triangles.size(); ++t)
    if (std::fabs(s->vertices[s->triangles[t][0]][1]) < 9)
      ++inner, near_half += std::fabs(s->triangle_reflectance[t] - 0.5) < 0.05;
  EXPECT_GT(inner, s->triangles.size() / 2);
  EXPECT_GT(near_half, inner * 99 / 100);
}

// Ground 2 m below, seen at 81-84 deg incidence (out to 20 m) through 0.35 deg rings 0.1-0.2 m
// apart on it: each return drawn as a surfel along the ground, so the fused ground is flat
// between the rings, where surfels facing the sensor would make a riser at each ring.
TEST(TsdfFusion, GrazingGroundIsFlatBetweenTheRings) {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.5});
  scene.objects = {test::Placed("ground", MakePlane(200, 200), {0, 0, -2}, 0, 0, 0, 0, 1, 1)};
  const Frame f = test::SimulatedFrame(scene, test::SpinningSensor(20, -2.5, -9.15, 1024, 10), {});
  ReconstructOptions o = Tsdf();
  o.max_range_m = 20;  // within kMaxSurfelIncidenceDeg (85 deg: 23 m)
  ReconstructionSummary summary;
  auto s = reconstruction::MeshByTsdf(
      test::Posed({f}, {{0, 0, 0}}), o, [](const char*) {}, summary);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_GT(s->triangles.size(), 10000u);
  for (const auto& v : s->vertices)
    ASSERT_NEAR(v[2], -2, kVoxelM) << "vertex " << std::hypot(v[0], v[1]) << " m out";
}

// A 1 mm voxel over a wall 10 m away would take gigabytes of Open3D's voxels: refused before
// any is allocated, with the voxel_m, the extent, the limit and a voxel that fits named.
TEST(TsdfFusion, AVoxelTooFineForMemoryIsRefusedWithOneThatFits) {
  const Scene truth = WallAndBox();
  const PosedFrames in = test::Posed({test::SimulatedFrame(truth, Sensor(), {0, 0, 0})}, {{}});
  ReconstructOptions o = Tsdf();
  o.voxel_m = 0.001;
  test::TempDir dir;
  auto r = Reconstruct(in, o, dir / "rec");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("reconstruct: voxel_m 0.001 m is too fine for TSDF fusion (the "
                             "returns span "),
            std::string::npos)
      << r.message();
  EXPECT_NE(r.message().find("the volume would need more than 131072 blocks of 8^3 voxels (3 GiB "
                             "of Open3D's voxels); voxel_m 0.0"),
            std::string::npos)
      << r.message();
  EXPECT_FALSE(std::filesystem::exists(dir / "rec"));
}

}  // namespace
}  // namespace lt
