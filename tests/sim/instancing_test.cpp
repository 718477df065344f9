// Instanced models (issue 42, docs/adr/0030): a model stored once and placed by transforms hits
// what its flattened copies hit, at rest and moved; the GPU's two-level traversal, run on the
// host, finds what Embree's instances find, to the same bits; the loader stores a mesh file
// read twice once; the host top-level tree finds the nearest box as brute force does.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <vector>

#include "internal/instance_tree.h"
#include "internal/two_level_hit.h"
#include "lidartwin/physics/ray_triangle.h"
#include "lidartwin/sim/ray_caster.h"
#include "lidartwin/sim/scene.h"
#include "test_support.h"

namespace lt {
namespace {

using physics::Vec3;

// A ground plate and `count` instances of one rounded-box model, turned and tilted at random
// around the origin; every third one moving and turning.
Scene InstancedScene(int count, uint32_t seed) {
  Scene scene;
  SceneObject ground;
  ground.name = "ground";
  ground.mesh = MakePlane(120, 120);
  scene.objects.push_back(ground);
  const auto model =
      std::make_shared<const TriangleMesh>(MakeSuperellipsoid(4.5, 1.8, 1.5, 0.3, 2000));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (int k = 0; k < count; ++k) {
    SceneObject o;
    o.name = "car_" + std::to_string(k);
    o.instance_id = 1 + k;
    o.model = model;
    const double r = 6 + 30 * u(rng), a = 2 * M_PI * u(rng);
    o.pose = {physics::QuatFromRollPitchYaw(0.3 * (u(rng) - 0.5), 0.2 * (u(rng) - 0.5),
                                            2 * M_PI * u(rng)),
              {r * std::cos(a), r * std::sin(a), -1.8 + 0.5 * u(rng)}};
    if (k % 3 == 0) {
      o.motion.velocity_m_s = {10 * (u(rng) - 0.5), 10 * (u(rng) - 0.5), 0};
      o.motion.yaw_rate_rad_s = u(rng) - 0.5;
    }
    scene.objects.push_back(o);
  }
  scene.objects[0].pose.translation = {0, 0, -1.8};
  for (auto& v : scene.objects[0].mesh.vertices)
    v[2] -= 1.8;
  return scene;
}

// The scene's geometry at time t as still world meshes: what instancing must reproduce.
Scene FlattenedAt(const Scene& scene, double t) {
  Scene flat;
  for (const SceneObject& o : scene.objects) {
    SceneObject f;
    f.name = o.name;
    f.instance_id = o.instance_id;
    f.mesh.triangles = o.stored().triangles;
    f.mesh.vertices = VerticesAt(o, t);
    flat.objects.push_back(f);
  }
  return flat;
}

std::vector<Vec3<double>> SphereDirections(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g;
  std::vector<Vec3<double>> out;
  for (int i = 0; i < n; ++i) {
    Vec3<double> d{g(rng), g(rng), 0.3 * g(rng) - 0.05};
    out.push_back(physics::Normalized(d));
  }
  return out;
}

// A mesh's triangles in float, as the GPU's trees hold them.
std::vector<physics::BvhTriangle> FloatTriangles(const TriangleMesh& mesh) {
  std::vector<physics::BvhTriangle> out;
  for (const auto& t : mesh.triangles) {
    physics::BvhTriangle b;
    float* v[3] = {b.v0, b.v1, b.v2};
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a)
        v[k][a] = static_cast<float>(mesh.vertices[t[k]][a]);
    out.push_back(b);
  }
  return out;
}

// Hits of a caster and a reference that see the same geometry: the same object, and the same
// distance to double rounding; only rays within float rounding of a silhouette may differ.
void ExpectSameHits(const RayCaster& caster, const RayCaster& reference, const Scene& scene,
                    const std::string& what) {
  const Vec3<double> origin{0.3, -0.2, 0};
  int hits = 0, differ = 0;
  double worst = 0;
  const auto dirs = SphereDirections(40000, 7);
  for (const auto& d : dirs) {
    const RayHit a = caster.Closest(origin, d, 0.1, 300);
    const RayHit b = reference.Closest(origin, d, 0.1, 300);
    if (a.hit != b.hit ||
        (a.hit && scene.objects[a.object].instance_id != scene.objects[b.object].instance_id)) {
      ++differ;
      continue;
    }
    if (!a.hit) continue;
    ++hits;
    worst = std::max(worst, std::fabs(a.distance_m - b.distance_m));
  }
  EXPECT_GT(hits, 20000) << what;
  EXPECT_LE(differ, 8) << what << ": rays whose hit differs of " << dirs.size();
  EXPECT_LT(worst, 1e-9) << what;
  std::printf("[instancing] %s: %d hits, %d differ, max |distance diff| %.3g m\n", what.c_str(),
              hits, differ, worst);
}

TEST(Instancing, AnInstancedSceneHitsWhatItsFlattenedCopyHitsAtRestAndMoved) {
  const Scene scene = InstancedScene(40, 3);
  auto instanced = RayCaster::Create(scene);
  ASSERT_NE(instanced, nullptr);
  for (double t : {0.0, 0.35, 1.2}) {
    instanced->MoveTo(t);
    const Scene flat = FlattenedAt(scene, t);
    auto reference = RayCaster::Create(flat);
    ASSERT_NE(reference, nullptr);
    ExpectSameHits(*instanced, *reference, scene, "t = " + std::to_string(t) + " s");
  }
}

// The GPU's two-level traversal (two_level_hit.h), run on the host over host-built trees,
// against Embree's instances: the same object for all but silhouette rays, and where both found
// the same triangle, the same distance to the bit (both place its plane with the same code).
TEST(Instancing, TheTwoLevelTraversalFindsWhatEmbreesInstancesFind) {
  Scene scene = InstancedScene(60, 11);
  scene.objects.erase(scene.objects.begin());  // instances only
  auto embree = RayCaster::Create(scene);
  ASSERT_NE(embree, nullptr);
  const TriangleMesh& model = *scene.objects[0].model;
  const std::vector<physics::BvhTriangle> tris = FloatTriangles(model);
  std::vector<TrianglePlane> planes;
  for (const auto& t : model.triangles) {
    const auto& p0 = model.vertices[t[0]];
    const Vec3<double> a{p0[0], p0[1], p0[2]};
    const auto& p1 = model.vertices[t[1]];
    const auto& p2 = model.vertices[t[2]];
    const Vec3<double> n = physics::Normalized(physics::Cross(
        Vec3<double>{p1[0], p1[1], p1[2]} - a, Vec3<double>{p2[0], p2[1], p2[2]} - a));
    planes.push_back({{a.x, a.y, a.z}, {n.x, n.y, n.z}});
  }
  const physics::WideBvhTree model_tree = BuildTriangleTree(tris);
  const ModelTree models[1] = {{model_tree.View(), planes.data()}};
  const physics::BvhBox box = ModelBox(model.vertices);
  std::vector<InstanceRecord> records;
  std::vector<physics::BvhBox> boxes;
  for (uint32_t o = 0; o < scene.objects.size(); ++o) {
    const physics::RigidTransform x = StoredToWorld(scene.objects[o], 0);
    records.push_back({physics::FloatInverse(x), x, 0, o});
    boxes.push_back(PlacedBox(box, x));
  }
  const physics::WideBvhTree top = BuildBoxTree(boxes);
  ASSERT_FALSE(top.nodes.empty());
  const Vec3<double> origin{0.3, -0.2, 0};
  int hits = 0, differ = 0, same_triangle = 0;
  for (const auto& d : SphereDirections(40000, 5)) {
    const float of[3] = {0.3f, -0.2f, 0};
    const float df[3] = {static_cast<float>(d.x), static_cast<float>(d.y), static_cast<float>(d.z)};
    const InstanceHit h =
        ClosestInstanceHit(top.View(), records.data(), models, of, df, 0.1f, 300.0f);
    const RayHit e = embree->Closest(origin, d, 0.1, 300);
    double t = 0;
    bool hit = h.instance >= 0;
    if (hit) {
      const PlacedPlane p = PlaceModelPlane(records[h.instance], planes[h.triangle]);
      t = physics::RayPlaneDistance(origin, d, p.a, p.n);
      hit = t >= 0.1 && t <= 300;
    }
    if (hit != e.hit || (hit && records[h.instance].object != e.object)) {
      ++differ;
      continue;
    }
    if (!hit) continue;
    ++hits;
    if (h.triangle == e.triangle) {
      ++same_triangle;
      EXPECT_EQ(t, e.distance_m);
    }
  }
  EXPECT_GT(hits, 5000);
  EXPECT_LE(differ, 8);
  EXPECT_GT(same_triangle, hits * 99 / 100);
  std::printf(
      "[instancing] two-level on the host vs Embree: %d hits, %d differ, %d same triangle\n", hits,
      differ, same_triangle);
}

// The top level never loses an instance that the ray, moved into the model's frame, meets:
// rays along y grazing a turned cube's extreme x, within a few float spacings of it, with the
// cube 10^4 and 10^5 m from the origin (where a float spacing is 1 and 8 mm), against the
// model's tree traversed alone.
TEST(Instancing, TheTopLevelNeverLosesAnInstanceFarFromTheOrigin) {
  const TriangleMesh cube = MakeBox(1, 1, 1);
  const physics::WideBvhTree model_tree = BuildTriangleTree(FloatTriangles(cube));
  const ModelTree models[1] = {{model_tree.View(), nullptr}};
  const physics::BvhBox model_box = ModelBox(cube.vertices);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  for (double offset : {1e4, 1e5}) {
    int hits = 0, lost = 0;
    for (int trial = 0; trial < 1000; ++trial) {
      const double yaw = 2 * M_PI * u(rng), c = std::cos(yaw), s = std::sin(yaw);
      const physics::RigidTransform x{{c, -s, 0, s, c, 0, 0, 0, 1},
                                      {offset * (0.5 + u(rng)), offset * (0.5 + u(rng)), 3}};
      const InstanceRecord records[1] = {{physics::FloatInverse(x), x, 0, 0}};
      const physics::WideBvhTree top = BuildBoxTree({PlacedBox(model_box, x)});
      double x_max = -1e300;
      for (const auto& v : cube.vertices)
        x_max = std::max(x_max, physics::PlacePoint(x, {v[0], v[1], v[2]}).x);
      for (int i = 0; i < 100; ++i) {
        const double e = (2 * u(rng) - 0.5) * (1e-3 + 4 * 1.2e-7 * offset);
        const float o[3] = {static_cast<float>(x_max + e), static_cast<float>(x.t[1] - 30),
                            static_cast<float>(3 + 0.8 * (u(rng) - 0.5))};
        const Vec3<double> dir = physics::Normalized(Vec3<double>{(u(rng) - 0.5) * 1e-7, 1, 0});
        const float d[3] = {static_cast<float>(dir.x), static_cast<float>(dir.y), 0};
        const InstanceHit h = ClosestInstanceHit(top.View(), records, models, o, d, 0.1f, 1000);
        float om[3], dm[3], t = 0;
        physics::RayIntoModel(records[0].to_model, o, d, om, dm);
        const int64_t j = physics::WideBvhTraverse<false>(model_tree.View(), om, dm, 0.1f, 1000, t);
        hits += j >= 0;
        lost += j >= 0 && h.instance < 0;
        if (j >= 0 && h.instance >= 0) EXPECT_EQ(h.t, t);
      }
    }
    EXPECT_GT(hits, 10000) << "offset " << offset;
    EXPECT_EQ(lost, 0) << "offset " << offset << ": hits the top level lost of " << hits;
  }
}

TEST(Instancing, StoredToWorldPlacesAnInstanceByItsPoseAndMotion) {
  SceneObject o;
  o.model = std::make_shared<const TriangleMesh>(MakeBox(1, 1, 1));
  const double yaw0 = 0.5;
  o.pose = {physics::QuatFromRollPitchYaw(0.0, 0.0, yaw0), {5, 2, 1}};
  o.motion.velocity_m_s = {1, -2, 0.5};
  o.motion.yaw_rate_rad_s = 0.25;
  const double t = 2;
  const physics::RigidTransform x = StoredToWorld(o, t);
  // (1, 0, 0) turned by yaw0 + w t about z, then at the position moved by v t.
  const Vec3<double> p = physics::PlacePoint(x, {1, 0, 0});
  const double yaw = yaw0 + 0.25 * t;
  EXPECT_NEAR(p.x, 5 + 1 * t + std::cos(yaw), 1e-12);
  EXPECT_NEAR(p.y, 2 - 2 * t + std::sin(yaw), 1e-12);
  EXPECT_NEAR(p.z, 1 + 0.5 * t, 1e-12);
  // A world mesh moved by the same motion turns about the vertical through its position.
  SceneObject w;
  w.pose.translation = {5, 2, 1};
  w.mesh.vertices = {{6, 2, 1}};
  w.motion = o.motion;
  const auto moved = VerticesAt(w, t);
  EXPECT_NEAR(moved[0][0], 5 + t + std::cos(0.25 * t), 1e-12);
  EXPECT_NEAR(moved[0][1], 2 - 2 * t + std::sin(0.25 * t), 1e-12);
  EXPECT_NEAR(moved[0][2], 1 + 0.5 * t, 1e-12);
  // At rest: exactly where it was.
  EXPECT_EQ(VerticesAt(w, 0), w.mesh.vertices);
}

TEST(Instancing, AMeshFileReadTwiceIsStoredOnce) {
  test::TempDir dir;
  dir.Write("car.ply", "unused: the loader below makes the mesh");
  std::atomic<int> reads = 0;  // the files are read several at a time
  const MeshLoader loader = [&reads](const std::filesystem::path&) -> Expected<TriangleMesh> {
    ++reads;
    return MakeSuperellipsoid(4.5, 1.8, 1.5, 0.3, 500);
  };
  dir.Write("scene.yaml",
            "materials: " + (test::ConfigDir() / "materials/library.yaml").string() +
                "\n"
                "objects:\n"
                "  - {name: a, type: mesh, file: car.ply, material: wood, position_m: [10, 0, 0]}\n"
                "  - {name: b, type: mesh, file: car.ply, material: wood, position_m: [0, 10, 0]}\n"
                "  - {name: c, type: mesh, file: car.ply, material: wood, scale: 2}\n");
  auto scene = LoadScene(dir.path() / "scene.yaml", loader);
  ASSERT_TRUE(scene.ok()) << scene.message();
  EXPECT_EQ(reads, 2);  // once at scale 1, once at scale 2
  ASSERT_TRUE(scene->objects[0].instanced());
  EXPECT_EQ(scene->objects[0].model.get(), scene->objects[1].model.get());
  // Placed once and still: a world mesh again (still geometry, sized by the GPU's plan).
  EXPECT_FALSE(scene->objects[2].instanced());
  const size_t n = scene->objects[0].model->triangles.size();
  EXPECT_EQ(scene->objects[2].mesh.triangles.size(), n);
  EXPECT_EQ(scene->TriangleCount(), 2 * n);
  EXPECT_EQ(PlacedTriangleCount(*scene), 3 * n);
  // Each placed by its own pose.
  EXPECT_NEAR(VerticesAt(scene->objects[1], 0)[0][1], 10 + scene->objects[1].model->vertices[0][1],
              1e-12);
}

// The host top-level tree: every box in one leaf, and the nearest box a ray enters found as
// brute force finds it.
TEST(InstanceTree, FindsTheNearestBoxAsBruteForceDoes) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-50, 50), s(0.2f, 5);
  std::vector<physics::BvhBox> boxes;
  for (int k = 0; k < 3000; ++k) {
    const float x = u(rng), y = u(rng), z = 0.1f * u(rng);
    boxes.push_back({{x, y, z}, {x + s(rng), y + s(rng), z + s(rng)}});
  }
  const physics::WideBvhTree tree = BuildBoxTree(boxes);
  ASSERT_FALSE(tree.nodes.empty());
  std::vector<int> seen(boxes.size(), 0);
  for (const auto& leaf : tree.triangles)
    ++seen[leaf.id];
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(boxes.size()));
  // Entry distance of a ray into a box by the slab test (-1 for a miss).
  auto entry = [](const physics::BvhBox& b, const float o[3], const float d[3]) {
    float t0 = 0, t1 = 1e30f;
    for (int a = 0; a < 3; ++a) {
      const float inv = 1.0f / d[a];
      float n = (b.lo[a] - o[a]) * inv, f = (b.hi[a] - o[a]) * inv;
      if (n > f) std::swap(n, f);
      t0 = std::max(t0, n);
      t1 = std::min(t1, f);
    }
    return t0 <= t1 ? t0 : -1.0f;
  };
  struct BoxEntry {
    const std::vector<physics::BvhBox>* boxes;
    decltype(entry) f;
    const float* o;
    const float* d;
    float operator()(const physics::WideTriangle& leaf, const physics::WatertightRay&, float, float,
                     int64_t& id) const {
      id = leaf.id;
      return f((*boxes)[leaf.id], o, d);
    }
  };
  int agree = 0;
  for (const auto& dir : SphereDirections(5000, 9)) {
    const float o[3] = {1, 2, 0.5f};
    const float d[3] = {static_cast<float>(dir.x), static_cast<float>(dir.y),
                        static_cast<float>(dir.z)};
    float t = 0;
    const int64_t found = physics::WideBvhTraverse<false, physics::NoTraversalCount>(
        tree.View(), o, d, 0, 1e30f, t, nullptr, BoxEntry{&boxes, entry, o, d});
    int64_t best = -1;
    float t_best = 1e30f;
    for (size_t k = 0; k < boxes.size(); ++k) {
      const float e = entry(boxes[k], o, d);
      if (e >= 0 && e < t_best) {
        t_best = e;
        best = static_cast<int64_t>(k);
      }
    }
    ASSERT_EQ(found >= 0, best >= 0);
    if (best >= 0) {
      EXPECT_EQ(t, t_best);
      EXPECT_EQ(found, best);  // at equal entries, both the lowest index
      ++agree;
    }
  }
  EXPECT_GT(agree, 1000);
}

}  // namespace
}  // namespace lt
