// KITTI odometry poses: the OS-1-128 capture's file and malformed lines.
#include <gtest/gtest.h>

#include "lidartwin/reconstruct/reconstruction.h"
#include "test_support.h"

namespace lt {
namespace {

TEST(KittiPoses, ReadsTheOs1CapturesPoses) {
  LT_REQUIRE_REAL_DATA();
  auto p = LoadKittiPoses(test::RealDataDir() /
                          "ouster-sdk/OS-1-128_v2.3.0_1024x10_lb_n3_poses_kitti.txt");
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_EQ(p->size(), 3u);
  EXPECT_DOUBLE_EQ((*p)[0].rotation.w, 1.0);
  EXPECT_NEAR((*p)[1].translation.x, 0.2454105, 1e-6);  // 2.45 m/s forward
  EXPECT_NEAR((*p)[2].translation.x, 0.4978255, 1e-6);
  // R -> quaternion -> R reproduces the file's entry R[0][1] = -3.83e-4 of the third pose.
  const auto r = physics::Rotate((*p)[2].rotation, physics::Vec3<double>{0, 1, 0});
  EXPECT_NEAR(r.x, -3.828950872e-4, 1e-9);
}

TEST(KittiPoses, RejectsMalformedLines) {
  test::TempDir dir;
  auto short_line = LoadKittiPoses(dir.Write("a.txt", "1 0 0 0 0 1 0 0 0 0 1\n"));
  ASSERT_FALSE(short_line.ok());
  EXPECT_NE(short_line.message().find("a.txt: line 1: expected 12 numbers"), std::string::npos);
  auto not_rotation = LoadKittiPoses(dir.Write("b.txt", "2 0 0 0 0 1 0 0 0 0 1 0\n"));
  ASSERT_FALSE(not_rotation.ok());
  EXPECT_NE(not_rotation.message().find("not a rotation"), std::string::npos);
  EXPECT_FALSE(LoadKittiPoses(dir.Write("c.txt", "\n")).ok());
  // Issue 12 review: nan, inf and overflowing numbers are named as not finite, a word that is
  // no number as such, and a translation beyond 10,000 km is refused with the limit.
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"1 0 0 nan 0 1 0 0 0 0 1 0\n", "line 1: value 4 ('nan') is not finite"},
           {"1 0 0 0 0 1 0 inf 0 0 1 0\n", "line 1: value 8 ('inf') is not finite"},
           {"1 0 0 0 0 1 0 0 0 0 1 1e400\n", "line 1: value 12 ('1e400') is not finite"},
           {"1 0 0 x 0 1 0 0 0 0 1 0\n", "line 1: value 4 'x' is not a number"},
           {"1 0 0 1e12 0 1 0 0 0 0 1 0\n", "line 1: the translation lies 1e+12 m"}}) {
    auto p = LoadKittiPoses(dir.Write("d.txt", text));
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_NE(p.message().find("d.txt: " + expected), std::string::npos) << p.message();
  }
  // Issue 36: a 200 KB value was echoed whole; now its start and its length.
  for (const std::string& huge : {std::string(200000, '7') + "x", std::string(200000, '9')}) {
    auto p = LoadKittiPoses(dir.Write("e.txt", "1 0 0 " + huge + " 0 1 0 0 0 0 1 0\n"));
    ASSERT_FALSE(p.ok());
    EXPECT_LT(p.message().size(), 300u) << p.message().substr(0, 300);
    EXPECT_NE(p.message().find("e.txt: line 1: value 4"), std::string::npos) << p.message();
  }
}

}  // namespace
}  // namespace lt
