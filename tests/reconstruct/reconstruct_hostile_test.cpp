// Reconstruct on hostile input (issue 11 finding 4): a voxel larger than the cloud, a voxel
// grid too fine for the cloud's extent, options out of range and degenerate clouds give an
// error that names the problem and the limit, never a crash or an exception; what was written
// is listed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "lidartwin/reconstruct/reconstruction.h"
#include "test_support.h"

namespace lt {
namespace {

// One frame of a wall at x = 5 m, n x n points over 4 x 4 m, intensity 40 (%), sensor at the
// origin (static).
PosedFrames Wall(int n = 60, double x = 5, double side_m = 4) {
  PosedFrames in;
  Frame f;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      FramePoint p;
      p.x_m = static_cast<float>(x);
      p.y_m = static_cast<float>(-side_m / 2 + side_m * i / (n - 1));
      p.z_m = static_cast<float>(-side_m / 2 + side_m * j / (n - 1));
      p.range_m = std::sqrt(p.x_m * p.x_m + p.y_m * p.y_m + p.z_m * p.z_m);
      p.intensity = 40;
      f.Append(p);
    }
  in.frames.push_back(std::move(f));
  in.start_poses.push_back({{1, 0, 0, 0}, {0, 0, 0}});
  in.end_poses = in.start_poses;
  return in;
}

ReconstructOptions Fast() {
  ReconstructOptions o;
  o.method = "poisson";  // the wall has no channel field for range-image meshing
  o.poisson_depth = 6;
  o.voxel_m = 0.1;
  o.max_gap_m = 0.5;
  return o;
}

TEST(ReconstructHostile, OptionsOutsideTheirRangeNameTheLimit) {
  ReconstructOptions o = Fast();
  o.voxel_m = 1e-9;
  EXPECT_EQ(o.Validate().message(),
            "reconstruct options: key 'voxel_m': must be in [0.001, 100] m, got 1e-09");
  o.voxel_m = 1000;
  EXPECT_EQ(o.Validate().message(),
            "reconstruct options: key 'voxel_m': must be in [0.001, 100] m, got 1000");
  o = Fast();
  o.max_range_m = 1e6;
  EXPECT_EQ(o.Validate().message(),
            "reconstruct options: key 'max_range_m': must be at most 10000 m, got 1000000");
  o = Fast();
  o.min_range_m = INFINITY;
  EXPECT_FALSE(o.Validate().ok());
  test::TempDir dir;
  o = Fast();
  o.voxel_m = 1e-9;
  auto r = Reconstruct(Wall(), o, dir / "rec");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("[0.001, 100] m"), std::string::npos) << r.message();
  EXPECT_FALSE(std::filesystem::exists(dir / "rec"));
}

TEST(ReconstructHostile, AVoxelLargerThanTheCloudIsAnErrorNotACrash) {
  test::TempDir dir;
  ReconstructOptions o = Fast();
  o.voxel_m = 50;  // the wall is 4 m across
  auto r = Reconstruct(Wall(), o, dir / "rec");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("voxel_m 50 m is not smaller than the cloud (the cloud spans 0 x 4 x "
                             "4 m)"),
            std::string::npos)
      << r.message();
  // Smaller than the cloud, but too coarse to leave enough points to mesh.
  o.voxel_m = 1.5;
  auto coarse = Reconstruct(Wall(), o, dir / "rec");
  ASSERT_FALSE(coarse.ok());
  EXPECT_NE(coarse.message().find("to one per 1.5 m voxel left"), std::string::npos)
      << coarse.message();
  EXPECT_NE(coarse.message().find("at least 100 are needed"), std::string::npos)
      << coarse.message();
  EXPECT_FALSE(std::filesystem::exists(dir / "rec"));
}

TEST(ReconstructHostile, TooManyVoxelsForTheExtentIsRefusedWithTheLimit) {
  // Two walls 3 km apart: a 1 mm grid would need 3 million voxels along x.
  PosedFrames in = Wall();
  const PosedFrames far = Wall(60, 3000);
  for (size_t i = 0; i < far.frames[0].size(); ++i)
    in.frames[0].Append({far.frames[0].x_m[i], far.frames[0].y_m[i], far.frames[0].z_m[i],
                         far.frames[0].range_m[i], 40});
  ReconstructOptions o = Fast();
  o.max_range_m = 5000;
  o.voxel_m = 0.001;
  test::TempDir dir;
  auto r = Reconstruct(in, o, dir / "rec");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("voxel_m 0.001 m is too fine for the cloud"), std::string::npos)
      << r.message();
  EXPECT_NE(r.message().find("at most 1048576 voxels per axis, so at least 0.00286 m"),
            std::string::npos)
      << r.message();
}

TEST(ReconstructHostile, DegenerateCloudsGiveAnErrorOrAResultNeverACrash) {
  test::TempDir dir;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::pair<std::string, PosedFrames>> cases;
  {
    PosedFrames same = Wall();
    for (size_t i = 0; i < same.frames[0].size(); ++i)
      same.frames[0].y_m[i] = same.frames[0].z_m[i] = 0;  // 3600 copies of one point
    cases.emplace_back("identical points", same);
  }
  {
    PosedFrames line = Wall();
    for (size_t i = 0; i < line.frames[0].size(); ++i)
      line.frames[0].z_m[i] = 0;  // collinear
    cases.emplace_back("a line", line);
  }
  cases.emplace_back("too few points", Wall(8));
  {
    PosedFrames poisoned = Wall();
    for (size_t i = 0; i < poisoned.frames[0].size(); i += 3) {
      poisoned.frames[0].x_m[i] = i % 2 ? nan : inf;
      poisoned.frames[0].intensity[i + 1] = i % 2 ? inf : nan;
      poisoned.frames[0].range_m[i + 2] = nan;
    }
    cases.emplace_back("non-finite values", poisoned);
  }
  for (const auto& method : {"poisson", "ball-pivoting", "tsdf"}) {
    for (const auto& [name, input] : cases) {
      SCOPED_TRACE(std::string(method) + ", " + name);
      ReconstructOptions o = Fast();
      o.method = method;
      auto r = Reconstruct(input, o, dir / "rec");
      if (r.ok()) {
        ASSERT_FALSE(r->written.empty());
        for (const auto& f : r->written)
          EXPECT_TRUE(std::filesystem::is_regular_file(f)) << f;
        for (const auto& [reflectance, triangles] : r->reflectance_classes)
          EXPECT_TRUE(reflectance >= 0 && reflectance <= 1) << reflectance;
      } else {
        EXPECT_EQ(r.message().rfind("reconstruct: ", 0), 0u) << r.message();
      }
    }
  }
}

TEST(ReconstructHostile, TheSummaryListsEveryFileWrittenAndReportsSteps) {
  test::TempDir dir;
  std::vector<std::string> steps;
  auto r = Reconstruct(Wall(), Fast(), dir / "rec", [&](int step, int count, const char* what) {
    EXPECT_EQ(count, 7);  // five Poisson steps, carving, writing
    EXPECT_EQ(step, static_cast<int>(steps.size()));
    steps.emplace_back(what);
  });
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(steps.size(), 7u);
  EXPECT_EQ(steps.back(), "writing the scene");
  ASSERT_GE(r->written.size(), 3u);
  EXPECT_EQ(r->written.back(), dir / "rec/scene.yaml");
  EXPECT_EQ(r->written[r->written.size() - 2], dir / "rec/materials.yaml");
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "rec"))
    files += e.is_regular_file();
  EXPECT_EQ(files, r->written.size());  // no temporary file left, nothing unlisted
  // The wall's reflectance: I = 100 R0 cos(theta) with I = 40 seen head-on, about 0.4.
  ASSERT_FALSE(r->reflectance_classes.empty());
  size_t most = 0;
  double r0 = 0;
  for (const auto& [reflectance, triangles] : r->reflectance_classes)
    if (triangles > most) most = triangles, r0 = reflectance;
  EXPECT_NEAR(r0, 0.42, 0.06);
}

}  // namespace
}  // namespace lt
