// Range-image meshing, surfels and the consensus step (issue 12) on frames simulated from
// planes, where every surface a test expects is known exactly.
#include "lidartwin/reconstruct/range_image_mesh.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "lidartwin/reconstruct/mesh_caster.h"
#include "lidartwin/reconstruct/reconstruction.h"
#include "lidartwin/sim/material_library.h"
#include "lidartwin/sim/ray_caster.h"
#include "reconstruct/reconstruction_test_frames.h"
#include "test_support.h"

namespace lt {
namespace {

using physics::Vec3;

RangeImageMeshOptions MeshOnly() {
  RangeImageMeshOptions o;
  o.surfels = RangeImageMeshOptions::Surfels::kNone;
  o.consensus_window_m = 0;
  return o;
}

Scene SceneOf(std::vector<SceneObject> objects, std::vector<double> reflectances = {0.5}) {
  Scene scene;
  scene.materials = test::ConstantMaterials(reflectances);
  scene.objects = std::move(objects);
  return scene;
}

// A caster over the reconstructed surface.
struct SurfaceCaster {
  MeshCaster mesh;
  const RayCaster* caster;
  explicit SurfaceCaster(const ReconstructedSurface& s)
      : mesh(CasterOfMesh(s.vertices, s.triangles)), caster(mesh.caster.get()) {}
};

// The surface's first hit along return i's ray from the sensor at the origin.
RayHit HitThroughReturn(const SurfaceCaster& mesh, const Frame& f, size_t i) {
  const Vec3<double> p{f.x_m[i], f.y_m[i], f.z_m[i]};
  return mesh.caster->Closest({0, 0, 0}, (1 / std::sqrt(Dot(p, p))) * p, 0, 100);
}

// A wall 10 m ahead seen by one frame: the mesh's vertices are the returns, so they lie on the
// wall (to the float storage of the frame), and a ray from another viewpoint into the seen part
// meets the mesh where it meets the wall.
TEST(RangeImageMesh, AWallIsRebuiltWhereItWasSeen) {
  const Scene scene = SceneOf({test::Wall(10)});
  const SensorProfile sensor = test::SpinningSensor(16, 15, -15, 720, 10);
  const Frame f = test::SimulatedFrame(scene, sensor, {0, 0, 0});
  auto s = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), MeshOnly());
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_GT(s->triangles.size(), 1000u);
  for (const auto& t : s->triangles)
    for (uint32_t v : t)
      ASSERT_NEAR(s->vertices[v][0], 10.0, 1e-5);
  SurfaceCaster mesh(*s);
  ASSERT_TRUE(mesh.caster);
  const Vec3<double> origin{0.3, -0.2, 0.1};
  int hits = 0;
  for (double y = -1.5; y <= 1.5; y += 0.25)
    for (double z = -1.5; z <= 1.5; z += 0.25) {
      Vec3<double> d = Vec3<double>{10, y, z} - origin;
      const double expected = std::sqrt(Dot(d, d));
      d = (1 / expected) * d;
      const RayHit hit = mesh.caster->Closest(origin, d, 0, 100);
      ASSERT_TRUE(hit.hit) << y << " " << z;
      EXPECT_NEAR(hit.distance_m, expected, 1e-4) << y << " " << z;
      ++hits;
    }
  EXPECT_EQ(hits, 169);
}

// A plate 5 m ahead in front of the wall: no triangle joins the plate to the wall behind it.
TEST(RangeImageMesh, NoTriangleBridgesADepthDiscontinuity) {
  const Scene scene = SceneOf(
      {test::Wall(10), test::Placed("plate", MakePlate(2, 2), {5, 0, 0}, 0, 0, 0, 0, 2, 1)});
  const Frame f = test::SimulatedFrame(scene, test::SpinningSensor(32, 15, -15, 720, 10), {});
  auto s = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), MeshOnly());
  ASSERT_TRUE(s.ok()) << s.message();
  size_t on_plate = 0, on_wall = 0;
  for (const auto& t : s->triangles) {
    const double x0 = s->vertices[t[0]][0];
    for (uint32_t v : t)
      ASSERT_NEAR(s->vertices[v][0], x0, 1e-4) << "a triangle from the plate to the wall";
    (x0 < 7.5 ? on_plate : on_wall) += 1;
  }
  EXPECT_GT(on_plate, 100u);
  EXPECT_GT(on_wall, 1000u);
}

// A plate 5 m ahead whose top edge lies half-way between two of 16 rings 2 deg apart (at 12
// deg): its highest returns (at 11 deg) are the mesh's edge, which joins returns at their beams'
// centres and so stops there. A beam a third of a ring step above such a return, still inside
// its pixel and on the plate, passes by the mesh alone; with a surfel at each return on the
// mesh's edge it meets the plate's surface (issue 41: a simulated beam a little off the
// recorded one, on a sparse sensor most of the scan). A return inside the mesh gets none.
TEST(RangeImageMesh, ReturnsOnTheMeshsEdgeFillTheirPixel) {
  const double top_deg = 12;
  const Scene scene = SceneOf({test::Placed(
      "plate", MakePlate(4, 2 * 5 * std::tan(top_deg * M_PI / 180)), {5, 0, 0}, 0, 0, 0, 0, 1, 1)});
  const Frame f = test::SimulatedFrame(scene, test::SpinningSensor(16, 15, -15, 720, 10), {});
  RangeImageMeshOptions with;
  with.consensus_window_m = 0;
  with.fill_ground = false;
  RangeImageMeshOptions without = with;
  without.surfels_at_mesh_edges = false;
  auto edged = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), with);
  auto plain = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), without);
  ASSERT_TRUE(edged.ok()) << edged.message();
  ASSERT_TRUE(plain.ok()) << plain.message();
  // Each surfel is two triangles: the edge's returns (two rings' and two columns' worth)
  // have them, the returns inside do not.
  const size_t returns = f.size();
  const size_t extra = edged->triangles.size() - plain->triangles.size();
  EXPECT_GT(extra, 2u * 2 * 30) << "the top and bottom rings' returns";
  EXPECT_LT(extra, returns) << "not every return";
  SurfaceCaster with_edges(*edged), mesh_alone(*plain);
  ASSERT_TRUE(with_edges.caster && mesh_alone.caster);
  int beams = 0, met_with = 0, met_alone = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    const double el = std::asin(f.z_m[i] / f.range_m[i]) * 180 / M_PI;
    const double az = std::atan2(f.y_m[i], f.x_m[i]);
    if (std::fabs(el - 11) > 0.05 || std::fabs(az) > 0.3) continue;  // the top ring, inside
    const double up = (11 + 2.0 / 3) * M_PI / 180;
    const Vec3<double> d{std::cos(up) * std::cos(az), std::cos(up) * std::sin(az), std::sin(up)};
    const double truth = 5 / d.x;  // the plate at x = 5 m
    ++beams;
    const RayHit a = with_edges.caster->Closest({0, 0, 0}, d, 0, 100);
    const RayHit b = mesh_alone.caster->Closest({0, 0, 0}, d, 0, 100);
    if (a.hit && std::fabs(a.distance_m - truth) < 0.05) ++met_with;
    met_alone += b.hit;
  }
  ASSERT_GT(beams, 30);
  EXPECT_EQ(met_with, beams);
  EXPECT_EQ(met_alone, 0);
}

// Ground 2 m below, seen at 81-87.5 deg incidence through OS-1-128-like 0.35 deg rings: beyond
// the mesh's incidence limit, so the returns become surfels; their neighbours run on smoothly,
// so the surfels lie on the ground (the edge rings too, from their one neighbour ring).
TEST(RangeImageMesh, SurfelsOnGrazingGroundLieOnTheGround) {
  const Scene scene =
      SceneOf({test::Placed("ground", MakePlane(200, 200), {0, 0, -2}, 0, 0, 0, 0, 1, 1)});
  const Frame f = test::SimulatedFrame(scene, test::SpinningSensor(20, -2.5, -9.15, 1024, 10), {});
  RangeImageMeshOptions o;
  o.consensus_window_m = 0;
  o.max_incidence_deg = 80;
  auto s = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), o);
  ASSERT_TRUE(s.ok()) << s.message();
  auto mesh_only = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), MeshOnly());
  const size_t meshed = mesh_only.ok() ? mesh_only->triangles.size() : 0;
  EXPECT_GT(s->triangles.size(), meshed + 1000) << "the grazing rings became surfels";
  for (const auto& t : s->triangles)
    for (uint32_t v : t)
      ASSERT_NEAR(s->vertices[v][2], -2.0, 1e-4)
          << "triangle at x " << s->vertices[t[0]][0] << ", y " << s->vertices[t[0]][1];
}

// Returns whose neighbours jump in range both ways (foliage): no triangle, and each return a
// square facing the sensor, one azimuth step wide and one ring spacing high at its range.
TEST(RangeImageMesh, AnIsolatedReturnIsASquareFacingTheSensor) {
  Frame f;
  const int columns = 36;  // 10 deg apart
  for (int ring = 0; ring < 3; ++ring)
    for (int c = 0; c < columns; ++c) {
      const double az = 2 * M_PI * c / columns, el = (ring - 1) * 2.0 * M_PI / 180;
      const double r = (ring + c) % 2 ? 10 : 20;  // a checkerboard of ranges
      FramePoint p;
      p.x_m = static_cast<float>(r * std::cos(el) * std::cos(az));
      p.y_m = static_cast<float>(r * std::cos(el) * std::sin(az));
      p.z_m = static_cast<float>(r * std::sin(el));
      p.range_m = static_cast<float>(r);
      p.intensity = 30;
      p.channel = static_cast<uint16_t>(ring);
      p.column = static_cast<uint32_t>(c);
      f.Append(p);
    }
  RangeImageMeshOptions o;
  o.consensus_window_m = 0;
  auto s = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), o);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(s->triangles.size(), 2u * 3 * columns);  // two per return, no mesh
  const double step = 2 * M_PI / columns, ring_step = 2.0 * M_PI / 180;
  for (size_t t = 0; t < s->triangles.size(); t += 2) {
    // The square's corners: first triangle (0, 1, 2), second (0, 2, 3).
    const auto& a = s->vertices[s->triangles[t][0]];
    const auto& b = s->vertices[s->triangles[t][1]];
    const auto& c = s->vertices[s->triangles[t][2]];
    const auto& d = s->vertices[s->triangles[t + 1][2]];
    const Vec3<double> centre{(a[0] + c[0]) / 2, (a[1] + c[1]) / 2, (a[2] + c[2]) / 2};
    const double r = std::sqrt(Dot(centre, centre));
    const Vec3<double> ab{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const Vec3<double> bc{c[0] - b[0], c[1] - b[1], c[2] - b[2]};
    EXPECT_NEAR(std::sqrt(Dot(ab, ab)), r * step, 1e-4 * r);       // one azimuth step wide
    EXPECT_NEAR(std::sqrt(Dot(bc, bc)), r * ring_step, 1e-4 * r);  // one ring spacing high
    EXPECT_NEAR(Dot(ab, centre), 0, 1e-6 * r * r);                 // both sides across the ray
    EXPECT_NEAR(Dot(bc, centre), 0, 1e-6 * r * r);
    EXPECT_NEAR(d[0] - a[0], c[0] - b[0], 1e-9);  // a parallelogram
    // Facing the sensor, so R0 is the reflectivity read at normal incidence: 30 % -> 0.3.
    EXPECT_NEAR(s->triangle_reflectance[t], 0.3, 1e-6);
  }
}

// The same wall seen from two places, the second frame's returns 4 cm too far along their
// rays: the consensus moves both frames' vertices to the mean, half-way.
TEST(RangeImageMesh, ConsensusFusesTwoFramesOfOneSurface) {
  const Scene scene = SceneOf({test::Wall(10)});
  const SensorProfile sensor = test::SpinningSensor(16, 10, -10, 720, 10);
  const Frame a = test::SimulatedFrame(scene, sensor, {0, 0, 0});
  Frame b = test::SimulatedFrame(scene, sensor, {0, 0.5, 0});
  for (size_t i = 0; i < b.size(); ++i) {
    const float k = (b.range_m[i] + 0.04f) / b.range_m[i];
    b.x_m[i] *= k, b.y_m[i] *= k, b.z_m[i] *= k, b.range_m[i] += 0.04f;
  }
  const PosedFrames in = test::Posed({a, b}, {{0, 0, 0}, {0, 0.5, 0}});
  RangeImageMeshOptions o = MeshOnly();
  auto apart = MeshRangeImages(in, o);
  o.consensus_window_m = 0.10;
  auto fused = MeshRangeImages(in, o);
  ASSERT_TRUE(apart.ok() && fused.ok());
  ASSERT_EQ(apart->vertices.size(), fused->vertices.size());
  // Near the middle of the wall (incidence under ~15 deg) a 4 cm range offset is ~4 cm in x.
  int checked = 0;
  for (size_t v = 0; v < fused->vertices.size(); ++v) {
    const auto& p = apart->vertices[v];
    if (std::fabs(p[1]) > 2 || std::fabs(p[2]) > 1.5) continue;
    EXPECT_NEAR(fused->vertices[v][0], 10.02, 0.004) << "vertex at x " << p[0];
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

// The ground in the sensor's blind cone: filled by a disc in the plane of the lowest rings'
// nearest returns, so a ray straight down meets the ground where it is; without the fill it
// meets nothing. A sensor that stayed put (two frames from one place) gets no disc: no frame
// sees under it, and the disc would stand in front of what its lowest rings saw.
TEST(RangeImageMesh, TheGroundUnderTheSensorIsFilled) {
  const Scene scene = SceneOf(
      {test::Wall(10), test::Placed("ground", MakePlane(60, 60), {0, 0, -1.8}, 0, 0, 0, 0, 2, 1)});
  const physics::Vec3<double> at{1, 2, 0}, on{1.5, 2, 0};
  const auto sensor = test::SpinningSensor(32, 15, -25, 720, 10);
  const Frame f = test::SimulatedFrame(scene, sensor, at);
  const Frame g = test::SimulatedFrame(scene, sensor, on);
  RangeImageMeshOptions o;
  o.consensus_window_m = 0;
  auto filled = MeshRangeImages(test::Posed({f, g}, {at, on}), o);
  auto still = MeshRangeImages(test::Posed({f, f}, {at, at}), o);
  o.fill_ground = false;
  auto open = MeshRangeImages(test::Posed({f, g}, {at, on}), o);
  ASSERT_TRUE(filled.ok() && open.ok() && still.ok());
  SurfaceCaster with(*filled), without(*open), unmoved(*still);
  for (const auto& d : {Vec3<double>{0, 0, -1}, Vec3<double>{0.6, 0.3, -1}}) {
    const Vec3<double> dir = (1 / std::sqrt(Dot(d, d))) * d;
    const RayHit hit = with.caster->Closest(at, dir, 0, 100);
    ASSERT_TRUE(hit.hit);
    EXPECT_NEAR(hit.distance_m, 1.8 / -dir.z, 1e-4);
    EXPECT_FALSE(without.caster->Closest(at, dir, 0, 100).hit);
    EXPECT_FALSE(unmoved.caster->Closest(at, dir, 0, 100).hit);
    // The disc's reflectance, under the sensor: the ground's R0 = 0.5 read from its
    // intensities.
    EXPECT_NEAR(filled->triangle_reflectance[hit.triangle], 0.5, 0.01);
  }
}

// Ground that is not flat (a valley rising 0.004 x^2: 6 cm higher 3.7 m out along x, where the
// lowest ring meets it 12 cm nearer than along y): the disc under the sensor reaches the lowest
// ring in every direction, at its height. A ray from the sensor 3 cm short of any of the
// ring's returns, or 3 cm beyond it, meets the surface on the ground (within 3 cm along the
// ray: the discs are fans from the point under each sensor, straight where the valley curves,
// 1.4 cm off it at most, seen at 25 deg); a disc out to the nearest tenth of the ring (the
// earlier fill) left a band along y that the rays short of the ring passed through.
// No surfels, so that only the disc can fill it.
TEST(RangeImageMesh, TheGroundDiscMeetsTheLowestRingAtItsHeight) {
  const auto ground_z = [](double x) { return -1.8 + 0.004 * x * x; };
  SceneObject valley;
  valley.type = "mesh";
  valley.material_id = 0;
  valley.instance_id = 2;
  constexpr int kN = 161;  // 0.1 m grid over 16 m
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) {
      const double x = -8 + 0.1 * i, y = -8 + 0.1 * j;
      valley.mesh.vertices.push_back(
          {static_cast<float>(x), static_cast<float>(y), static_cast<float>(ground_z(x))});
    }
  for (int i = 0; i + 1 < kN; ++i)
    for (int j = 0; j + 1 < kN; ++j) {
      const auto v = [&](int a, int b) { return static_cast<uint32_t>(a * kN + b); };
      valley.mesh.triangles.push_back({v(i, j), v(i + 1, j), v(i + 1, j + 1)});
      valley.mesh.triangles.push_back({v(i, j), v(i + 1, j + 1), v(i, j + 1)});
    }
  const Scene scene = SceneOf({valley});
  const Vec3<double> at{0, 0, 0}, on{0.5, 0, 0};
  const auto sensor = test::SpinningSensor(32, 15, -25, 720, 10);
  const Frame f = test::SimulatedFrame(scene, sensor, at);
  const Frame g = test::SimulatedFrame(scene, sensor, on);
  RangeImageMeshOptions o = MeshOnly();
  auto filled = MeshRangeImages(test::Posed({f, g}, {at, on}), o);
  ASSERT_TRUE(filled.ok()) << filled.message();
  SurfaceCaster mesh(*filled);
  // The lowest ring: frame f's returns at its lowest elevation.
  double lowest = 0;
  for (size_t i = 0; i < f.size(); ++i)
    lowest = std::min(lowest, double(f.z_m[i] / f.range_m[i]));
  size_t probes = 0;
  double worst = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f.z_m[i] / f.range_m[i] > lowest + 1e-4) continue;
    const double h = std::hypot(f.x_m[i], f.y_m[i]);
    // 3 cm short of the return (the disc) and 3 cm beyond it (the ring's own mesh, which the
    // disc must not stand in front of).
    for (const double off : {-0.03, 0.03}) {
      const double scale = (h + off) / h;
      const Vec3<double> target{scale * f.x_m[i], scale * f.y_m[i], ground_z(scale * f.x_m[i])};
      const double d = std::sqrt(Dot(target, target));
      const RayHit hit = mesh.caster->Closest(at, (1 / d) * target, 0, 100);
      ASSERT_TRUE(hit.hit) << "no surface " << off << " m from the ring's return at (" << f.x_m[i]
                           << ", " << f.y_m[i] << ")";
      worst = std::max(worst, std::fabs(hit.distance_m - d));
      ++probes;
    }
  }
  EXPECT_GT(probes, 1200u);
  EXPECT_LT(worst, 0.03) << "the disc stands off the ground by up to " << worst << " m";
}

// A post (0.5 m square) or a car (4 x 2 m, a fifth of the lowest rings' returns) beside the
// sensor, which the lowest ring meets 0.6 m above the road 2.5 m out: those returns are no
// ground, so the disc's rim in their direction stays on the road's plane (at the fallback
// radius); taken as ground they had pulled the rim in and lifted it, and the disc rose towards
// the post as a ramp, and the car's returns had kept the plane's fit from converging (no disc
// at all). A ray 2 m out towards them meets the road where it is (within 2 cm), as one on the
// open side does.
TEST(RangeImageMesh, TheGroundDiscKeepsToTheRoadBesideAPostOrACar) {
  for (const auto& [size_x, size_y] : {std::pair{0.5, 0.5}, std::pair{4.0, 2.0}}) {
    const Scene scene =
        SceneOf({test::Placed("ground", MakePlane(60, 60), {0, 0, -1.8}, 0, 0, 0, 0, 2, 1),
                 test::Placed("beside", MakeBox(size_x, size_y, 1.5), {0, 2.5 + size_y / 2, -1.05},
                              0, 0, 0, 0, 3, 1)});
    const Vec3<double> at{0, 0, 0}, on{0.5, 0, 0};
    const auto sensor = test::SpinningSensor(32, 15, -25, 720, 10);
    auto filled = MeshRangeImages(test::Posed({test::SimulatedFrame(scene, sensor, at),
                                               test::SimulatedFrame(scene, sensor, on)},
                                              {at, on}),
                                  MeshOnly());
    ASSERT_TRUE(filled.ok()) << filled.message();
    SurfaceCaster mesh(*filled);
    for (const double y : {2.0, -2.0}) {  // towards the obstacle, and the open side
      for (const double x : {-0.1, 0.0, 0.1}) {
        const Vec3<double> target{x, y, -1.8};
        const double d = std::sqrt(Dot(target, target));
        const RayHit hit = mesh.caster->Closest(at, (1 / d) * target, 0, 100);
        ASSERT_TRUE(hit.hit) << size_x << " m wide: no surface at (" << x << ", " << y << ")";
        EXPECT_NEAR(hit.distance_m, d, 0.02)
            << size_x << " m wide: the disc stands off the road at (" << x << ", " << y << ")";
      }
    }
  }
}

TEST(RangeImageMesh, AFrameWithoutChannelsNamesTheMethodsThatNeedNone) {
  Frame f;
  for (int i = 0; i < 10; ++i) {
    FramePoint p;
    p.x_m = 5, p.y_m = static_cast<float>(i), p.range_m = 5;
    f.Append(p);
  }
  f.channel.clear();
  auto s = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("frame 0 has no channel field"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("poisson, ball-pivoting or tsdf"), std::string::npos) << s.message();
}

// The reflectance of a wall of R0 = 0.5 read back from the simulated intensities
// (100 R0 cos theta), each vertex's incidence from the mesh's own normals.
TEST(RangeImageMesh, ReflectanceIsReadBackFromTheIntensities) {
  const Scene scene = SceneOf({test::Wall(10)}, {0.5});
  const Frame f = test::SimulatedFrame(scene, test::SpinningSensor(16, 15, -15, 720, 10), {});
  auto s = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), MeshOnly());
  ASSERT_TRUE(s.ok()) << s.message();
  for (float r : s->triangle_reflectance)
    ASSERT_NEAR(r, 0.5, 1e-3);
}

// A floor 1 m below a head whose beams leave 5 cm off its axis, 36 mm above the sensor frame
// (an OS-0's lidar frame and beam origins, rounded up), its ranges reported 3 cm longer: the
// returns' incidence is their own beams'. Read from those origins R0 comes back; read from the
// sensor frame's origin, the grazing rings' cos(theta) is off by several percent, and so is their
// R0.
TEST(RangeImageMesh, ReflectanceIsReadAlongEachBeamsOwnRay) {
  const Scene scene =
      SceneOf({test::Placed("floor", MakePlane(20, 20), {0, 0, -1}, 0, 0, 0, 0, 1, 1)}, {0.5});
  SensorProfile sensor = test::SpinningSensor(16, -20, -50, 720, 10);
  sensor.beam_origin_m = {0, 0, 0.036};
  sensor.beam_origin_radius_m = 0.05;
  sensor.range_offset_m = 0.03;
  Frame f = test::SimulatedFrame(scene, sensor, {});
  // In raw units through a steep gain (10 times over 0.5-3 m, as an OS-0's signal photons
  // fall), a function of the reported range that the reading must be given, not the distance
  // from the beam's origin (3 cm less).
  RangeImageMeshOptions o = MeshOnly();
  o.reading.gain_range_m = {0.5, 3};
  o.reading.gain = {200, 20};
  for (size_t i = 0; i < f.size(); ++i)
    f.intensity[i] = static_cast<float>(o.reading.GainAt(f.range_m[i]) * f.intensity[i] / 100);
  o.reflectance_max_incidence_deg = o.own_face_max_incidence_deg = 80;
  o.fill_ground = false;  // the disc under the sensor reads its rings' median
  o.beam_origins = {{0, 0, 0.036}, 0.05};
  auto own = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), o);
  o.beam_origins = {};
  auto centre = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), o);
  ASSERT_TRUE(own.ok() && centre.ok()) << own.message() << centre.message();
  ASSERT_GT(own->triangle_reflectance.size(), 1000u);
  double worst_centre = 0;
  for (size_t k = 0; k < own->triangle_reflectance.size(); ++k) {
    ASSERT_NEAR(own->triangle_reflectance[k], 0.5, 0.5 * 2e-3) << k;
    worst_centre = std::max(worst_centre, std::fabs(centre->triangle_reflectance[k] - 0.5) / 0.5);
  }
  EXPECT_GT(worst_centre, 0.03) << "from the axis reads alike: the case tests nothing";
}

// A wall reading 2.5 times a white target (paint, a sign): a diffuse reading stops at R0 = 1,
// an apparent one (IntensityReading::max_reflectance, reproduce of a sensor that barely moved)
// keeps 2.5, and the scene written from it marks that class's material apparent.
TEST(RangeImageMesh, AnApparentReadingKeepsWhatReadsBrighterThanWhite) {
  Frame f = test::SimulatedFrame(SceneOf({test::Wall(10)}, {0.5}),
                                 test::SpinningSensor(16, 15, -15, 720, 10), {});
  for (float& i : f.intensity)
    i *= 5;
  RangeImageMeshOptions o = MeshOnly();
  for (const double max_reflectance : {1.0, 4.0}) {
    o.reading.max_reflectance = max_reflectance;
    auto s = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), o);
    ASSERT_TRUE(s.ok()) << s.message();
    for (float r : s->triangle_reflectance)
      ASSERT_NEAR(r, std::min(2.5, max_reflectance), 3e-3);
  }
  ReconstructOptions ro;
  ro.reading.max_reflectance = 4;
  test::TempDir dir;
  auto built = Reconstruct(test::Posed({f}, {{0, 0, 0}}), ro, dir / "scene");
  ASSERT_TRUE(built.ok()) << built.message();
  auto materials = LoadMaterialLibrary(dir / "scene/materials.yaml");
  ASSERT_TRUE(materials.ok()) << materials.message();
  size_t apparent = 0;
  for (const Material& m : materials->materials) {
    EXPECT_EQ(m.apparent, m.reflectance[0] > 1) << m.name;
    apparent += m.apparent;
  }
  EXPECT_GE(apparent, 1u);
}

// Neighbouring lasers reading one wall differently (every odd channel twice as bright): each
// return's corner of the split triangles carries its own R0, so a ray from the sensor through a
// return meets a triangle that reads that return back, not the mean of two lasers.
TEST(RangeImageMesh, EachReturnsCornerReadsItsOwnReflectance) {
  const Scene scene = SceneOf({test::Wall(10)}, {0.3});
  Frame f = test::SimulatedFrame(scene, test::SpinningSensor(16, 15, -15, 720, 10), {});
  for (size_t i = 0; i < f.size(); ++i)
    if (f.channel[i] % 2) f.intensity[i] *= 2;
  RangeImageMeshOptions whole = MeshOnly();
  whole.reflectance_at_vertices = false;
  auto mean = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), whole);
  auto split = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), MeshOnly());
  ASSERT_TRUE(mean.ok() && split.ok());
  EXPECT_EQ(split->triangles.size(), 6 * mean->triangles.size());  // two a corner
  SurfaceCaster mesh(*split);
  ASSERT_TRUE(mesh.caster);
  size_t checked = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    const RayHit hit = HitThroughReturn(mesh, f, i);
    if (!hit.hit) continue;  // a return at the mesh's border
    const double want = f.channel[i] % 2 ? 0.6 : 0.3;
    ASSERT_NEAR(split->triangle_reflectance[hit.triangle], want, 2e-3) << "return " << i;
    ++checked;
  }
  EXPECT_GT(checked, 1000u);
  // Anywhere in a triangle, the nearest corner's reading: a ray at barycentric (0.45, 0.3,
  // 0.25), inside the middle quarter that a split at the midpoints alone kept at the mean,
  // reads its first corner's laser.
  std::map<std::array<long, 3>, bool> odd;  // a return's place (0.1 mm) -> odd laser
  const auto place = [](const std::array<double, 3>& v) {
    return std::array<long, 3>{std::lround(v[0] * 1e4), std::lround(v[1] * 1e4),
                               std::lround(v[2] * 1e4)};
  };
  for (size_t i = 0; i < f.size(); ++i)
    odd[place({f.x_m[i], f.y_m[i], f.z_m[i]})] = f.channel[i] % 2;
  size_t inside = 0;
  for (const auto& t : mean->triangles) {
    const auto &a = mean->vertices[t[0]], &b = mean->vertices[t[1]], &c = mean->vertices[t[2]];
    const auto found = odd.find(place(a));
    ASSERT_NE(found, odd.end());
    Vec3<double> p{0.45 * a[0] + 0.3 * b[0] + 0.25 * c[0], 0.45 * a[1] + 0.3 * b[1] + 0.25 * c[1],
                   0.45 * a[2] + 0.3 * b[2] + 0.25 * c[2]};
    const double r = std::sqrt(Dot(p, p));
    const RayHit hit = mesh.caster->Closest({0, 0, 0}, (1 / r) * p, 0, 100);
    ASSERT_TRUE(hit.hit);
    ASSERT_NEAR(split->triangle_reflectance[hit.triangle], found->second ? 0.6 : 0.3, 2e-3);
    ++inside;
  }
  EXPECT_GT(inside, 1000u);
  // Unsplit, a triangle spans two lasers and reads between them.
  size_t between = 0;
  for (float r0 : mean->triangle_reflectance)
    between += r0 > 0.35 && r0 < 0.55;
  EXPECT_GT(between, mean->triangles.size() / 2);
}

// Ground 2 m below seen at 70-79 deg incidence, odd lasers reading twice the even ones: with
// own_face_max_incidence_deg 89 (a sensor that stood still), a corner's R0 is read through its
// own face, which the simulator's ray meets again, beyond reflectance_max_incidence_deg (75)
// too, where a reading through the vertex's shared normal is refused and the corner would fall
// back to its triangle's mean.
TEST(RangeImageMesh, ACornerReadsItsOwnReflectanceBeyondTheSharedNormalsLimit) {
  const Scene scene =
      SceneOf({test::Placed("ground", MakePlane(200, 200), {0, 0, -2}, 0, 0, 0, 0, 1, 1)}, {0.3});
  Frame f = test::SimulatedFrame(scene, test::SpinningSensor(16, -11, -20, 720, 10), {});
  for (size_t i = 0; i < f.size(); ++i)
    if (f.channel[i] % 2) f.intensity[i] *= 2;
  RangeImageMeshOptions o = MeshOnly();
  o.fill_ground = false;  // its disc would lie in the ground's own plane, under the nearest rings
  o.own_face_max_incidence_deg = kStillOwnFaceMaxIncidenceDeg;
  auto split = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), o);
  ASSERT_TRUE(split.ok()) << split.message();
  SurfaceCaster mesh(*split);
  ASSERT_TRUE(mesh.caster);
  size_t beyond = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    const double r = f.range_m[i];
    const RayHit hit = HitThroughReturn(mesh, f, i);
    if (!hit.hit) continue;  // a return at the mesh's border
    ASSERT_NEAR(split->triangle_reflectance[hit.triangle], f.channel[i] % 2 ? 0.6 : 0.3, 2e-3)
        << "return " << i << " at " << std::acos(2 / r) * 180 / M_PI << " deg";
    beyond += std::acos(2 / r) > 75.5 * M_PI / 180;
  }
  EXPECT_GT(beyond, 1000u) << "returns beyond 75 deg";
  // At the shared limit (a sensor that moved), those corners take their triangle's mean, or
  // none (NaN: the scene's median) where its vertices' readings are refused too.
  o.own_face_max_incidence_deg = o.reflectance_max_incidence_deg;
  auto limited = MeshRangeImages(test::Posed({f}, {{0, 0, 0}}), o);
  ASSERT_TRUE(limited.ok()) << limited.message();
  SurfaceCaster limited_mesh(*limited);
  size_t mixed = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    const RayHit hit = HitThroughReturn(limited_mesh, f, i);
    if (hit.hit)
      mixed += !(std::fabs(limited->triangle_reflectance[hit.triangle] -
                           (f.channel[i] % 2 ? 0.6 : 0.3)) <= 0.05);
  }
  EXPECT_GT(mixed, beyond / 2);
}

}  // namespace
}  // namespace lt
