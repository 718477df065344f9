// The Open3D mesh adapter (only in builds with Open3D).
#include <gtest/gtest.h>

#include "test_support.h"
#if LT_WITH_OPEN3D
#include "lidartwin/datasets/open3d_mesh_loader.h"
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
