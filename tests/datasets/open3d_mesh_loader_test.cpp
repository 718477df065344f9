// The Open3D mesh adapter (only in builds with Open3D).
#include <gtest/gtest.h>

#include "test_support.h"
#if LT_WITH_OPEN3D
#include "lidartwin/datasets/open3d_mesh_loader.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/simulator.h"
#endif

namespace lt {
namespace {

#if LT_WITH_OPEN3D
TEST(Open3dMeshLoader, ReadsAsciiPlyAndObj) {
  test::TempDir dir;
  const auto ply = dir.Write("quad.ply",
                             "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\n"
                             "property float y\nproperty float z\nelement face 2\n"
                             "property list uchar int vertex_indices\nend_header\n"
                             "0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n3 0 2 3\n");
  auto m = LoadMeshWithOpen3d(ply);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->vertices.size(), 4u);
  EXPECT_EQ(m->triangles.size(), 2u);
  EXPECT_DOUBLE_EQ(m->vertices[2][1], 1.0);

  const auto obj = dir.Write("tri.obj", "v 0 0 0\nv 2 0 0\nv 0 2 0\nf 1 2 3\n");
  auto o = LoadMeshWithOpen3d(obj);
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o->triangles.size(), 1u);
}

// A glTF 2.0 file (the Khronos tutorial's minimal triangle, its buffer embedded as base64):
// a user's vehicle exported from a modelling tool reads as any mesh does.
TEST(Open3dMeshLoader, ReadsGltf) {
  test::TempDir dir;
  const auto gltf = dir.Write(
      "tri.gltf",
      R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],)"
      R"("meshes":[{"primitives":[{"attributes":{"POSITION":1},"indices":0}]}],)"
      R"("buffers":[{"uri":"data:application/octet-stream;base64,)"
      R"(AAABAAIAAAAAAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAAAAAAAAACAPwAAAAA=","byteLength":44}],)"
      R"("bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":6,"target":34963},)"
      R"({"buffer":0,"byteOffset":8,"byteLength":36,"target":34962}],)"
      R"("accessors":[{"bufferView":0,"byteOffset":0,"componentType":5123,"count":3,)"
      R"("type":"SCALAR","max":[2],"min":[0]},{"bufferView":1,"byteOffset":0,)"
      R"("componentType":5126,"count":3,"type":"VEC3","max":[1,1,0],"min":[0,0,0]}]})");
  auto m = LoadMeshWithOpen3d(gltf);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->triangles.size(), 1u);
  ASSERT_EQ(m->vertices.size(), 3u);
  EXPECT_DOUBLE_EQ(m->vertices[1][0], 1.0);
  EXPECT_DOUBLE_EQ(m->vertices[2][1], 1.0);
}

// A vehicle file named by two entries of a scene is read once and placed twice (docs/adr/0030):
// one model, two instances, each seen by the simulator with its own label where it stands.
TEST(Open3dMeshLoader, AVehicleNamedTwiceIsOneModelPlacedTwice) {
  test::TempDir dir;
  std::string obj;
  const TriangleMesh box = MakeBox(4.5, 1.8, 1.5);
  for (const auto& v : box.vertices)
    obj += "v " + std::to_string(v[0]) + " " + std::to_string(v[1]) + " " + std::to_string(v[2]) +
           "\n";
  for (const auto& t : box.triangles)
    obj += "f " + std::to_string(t[0] + 1) + " " + std::to_string(t[1] + 1) + " " +
           std::to_string(t[2] + 1) + "\n";
  dir.Write("car.obj", obj);
  const auto yaml = dir.Write(
      "cars.yaml", "materials: " + (test::ConfigDir() / "materials/library.yaml").string() +
                       "\nobjects:\n"
                       "  - {name: a, type: mesh, file: car.obj, material: aluminium, "
                       "instance_id: 7, position_m: [8, 0, 0]}\n"
                       "  - {name: b, type: mesh, file: car.obj, material: aluminium, "
                       "instance_id: 8, position_m: [-8, 3, 0], rotation_deg: [0, 0, 90]}\n");
  auto scene = LoadScene(yaml, LoadMeshWithOpen3d);
  ASSERT_TRUE(scene.ok()) << scene.message();
  ASSERT_TRUE(scene->objects[0].instanced());
  EXPECT_EQ(scene->objects[0].model.get(), scene->objects[1].model.get());
  auto os0 = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(os0.ok()) << os0.message();
  const Trajectory still = Trajectory::Static();
  auto sim = CreateSimulator(Backend::kCpu, *scene, *os0, still, {1, 0});
  ASSERT_TRUE(sim.ok()) << sim.message();
  const Frame f = (*sim)->Simulate(0).value();
  double x[2] = {0, 0};
  int n[2] = {0, 0};
  for (size_t k = 0; k < f.size(); ++k) {
    if (f.instance_id[k] != 7 && f.instance_id[k] != 8) continue;
    const int i = f.instance_id[k] - 7;
    x[i] += f.x_m[k];
    ++n[i];
  }
  ASSERT_GT(n[0], 100);
  ASSERT_GT(n[1], 100);
  // Each car's points on its side of the sensor: the near faces of boxes 8 m either way.
  EXPECT_NEAR(x[0] / n[0], 8 - 2.25, 0.5);
  EXPECT_NEAR(x[1] / n[1], -8 + 0.9, 0.5);
}

TEST(Open3dMeshLoader, KeepsNanVerticesForTheSceneCheckToReject) {
  test::TempDir dir;
  const auto obj = dir.Write("nan.obj", "v 0 0 0\nv nan 0 0\nv 0 2 0\nf 1 2 3\n");
  auto o = LoadMeshWithOpen3d(obj);
  ASSERT_TRUE(o.ok()) << o.message();
  size_t dropped = 0;
  const Status s = CleanMesh(o.value(), "nan.obj", &dropped);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("vertex 1 is not finite"), std::string::npos) << s.message();
}

TEST(Open3dMeshLoader, RejectsGarbageAndMeshesWithoutTriangles) {
  test::TempDir dir;
  auto g = LoadMeshWithOpen3d(dir.Write("garbage.ply", "ply\nthis is not a mesh\n"));
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.message().find("garbage.ply"), std::string::npos);
  auto e = LoadMeshWithOpen3d(dir.Write("empty.obj", "v 0 0 0\n"));
  ASSERT_FALSE(e.ok());
}
#else
TEST(Open3dMeshLoader, NotBuilt) {
  GTEST_SKIP() << "built with LT_WITH_OPEN3D=OFF";
}
#endif

}  // namespace
}  // namespace lt
