#include "lidartwin/physics/pose.h"

#include <gtest/gtest.h>

#include <array>

#include <cmath>

#include "lidartwin/physics/scan_pattern.h"

namespace lt::physics {
namespace {

// R = Rz(yaw) Ry(pitch) Rx(roll) written out as matrices, independently of the quaternion.
Vec3<double> RotateByMatrices(double roll, double pitch, double yaw, Vec3<double> v) {
  auto rx = [&](Vec3<double> p) {
    return Vec3<double>{p.x, std::cos(roll) * p.y - std::sin(roll) * p.z,
                        std::sin(roll) * p.y + std::cos(roll) * p.z};
  };
  auto ry = [&](Vec3<double> p) {
    return Vec3<double>{std::cos(pitch) * p.x + std::sin(pitch) * p.z, p.y,
                        -std::sin(pitch) * p.x + std::cos(pitch) * p.z};
  };
  auto rz = [&](Vec3<double> p) {
    return Vec3<double>{std::cos(yaw) * p.x - std::sin(yaw) * p.y,
                        std::sin(yaw) * p.x + std::cos(yaw) * p.y, p.z};
  };
  return rz(ry(rx(v)));
}

TEST(Pose, QuaternionFromRollPitchYawMatchesMatrixProduct) {
  const double angles[][3] = {{0.1, -0.4, 2.0}, {1.2, 0.3, -0.7}, {0, 0, kPi / 2}};
  const Vec3<double> v{0.3, -1.7, 2.2};
  for (const auto& a : angles) {
    const Vec3<double> q = Rotate(QuatFromRollPitchYaw(a[0], a[1], a[2]), v);
    const Vec3<double> m = RotateByMatrices(a[0], a[1], a[2], v);
    EXPECT_NEAR(q.x, m.x, 1e-12);
    EXPECT_NEAR(q.y, m.y, 1e-12);
    EXPECT_NEAR(q.z, m.z, 1e-12);
  }
}

TEST(Pose, InverseTransformUndoesTransform) {
  const Pose<double> p{QuatFromRollPitchYaw(0.2, 0.5, -1.0), {3, -2, 1}};
  const Vec3<double> v{1, 2, 3};
  const Vec3<double> back = InverseTransformPoint(p, TransformPoint(p, v));
  EXPECT_NEAR(back.x, 1, 1e-12);
  EXPECT_NEAR(back.y, 2, 1e-12);
  EXPECT_NEAR(back.z, 3, 1e-12);
}

TEST(Pose, ComposeAndInverseAgreeWithPointTransforms) {
  const Pose<double> a{QuatFromRollPitchYaw(0.2, 0.5, -1.0), {3, -2, 1}};
  const Pose<double> b{QuatFromRollPitchYaw(-0.7, 0.1, 2.0), {-1, 4, 0.5}};
  const Vec3<double> v{1, 2, 3};
  const Vec3<double> ab = TransformPoint(ComposePoses(a, b), v);
  const Vec3<double> step = TransformPoint(a, TransformPoint(b, v));
  const Vec3<double> inv = TransformPoint(InversePose(a), v);
  const Vec3<double> ref = InverseTransformPoint(a, v);
  EXPECT_NEAR(ab.x, step.x, 1e-12);
  EXPECT_NEAR(ab.y, step.y, 1e-12);
  EXPECT_NEAR(ab.z, step.z, 1e-12);
  EXPECT_NEAR(inv.x, ref.x, 1e-12);
  EXPECT_NEAR(inv.y, ref.y, 1e-12);
  EXPECT_NEAR(inv.z, ref.z, 1e-12);
}

TEST(Pose, RollPitchYawAndRotationMatrixRoundTrip) {
  for (const auto& a : {std::array<double, 3>{0.2, 0.5, -1.0},
                        {-2.9, -1.2, 3.0},
                        {3.1, 0.0, 0.0},
                        {0.0, 0.0, 0.0}}) {
    const Quat<double> q = QuatFromRollPitchYaw(a[0], a[1], a[2]);
    const Vec3<double> rpy = RollPitchYaw(q);
    EXPECT_NEAR(rpy.x, a[0], 1e-12);
    EXPECT_NEAR(rpy.y, a[1], 1e-12);
    EXPECT_NEAR(rpy.z, a[2], 1e-12);
    // The matrix from the independent Rz Ry Rx product, as a 3x4 with a translation column.
    double m[12];
    for (int c = 0; c < 3; ++c) {
      Vec3<double> e{c == 0 ? 1.0 : 0.0, c == 1 ? 1.0 : 0.0, c == 2 ? 1.0 : 0.0};
      const Vec3<double> col = RotateByMatrices(a[0], a[1], a[2], e);
      m[c] = col.x, m[4 + c] = col.y, m[8 + c] = col.z;
    }
    m[3] = m[7] = m[11] = 9;
    const Quat<double> back = QuatFromRotationMatrix(m, 4);
    const double sign = back.w * q.w + back.x * q.x + back.y * q.y + back.z * q.z < 0 ? -1 : 1;
    EXPECT_NEAR(sign * back.w, q.w, 1e-12);
    EXPECT_NEAR(sign * back.x, q.x, 1e-12);
    EXPECT_NEAR(sign * back.y, q.y, 1e-12);
    EXPECT_NEAR(sign * back.z, q.z, 1e-12);
  }
}

TEST(Pose, SlerpHitsEndpointsAndHalvesTheAngle) {
  const Quat<double> a = QuatFromRollPitchYaw(0.0, 0.0, 0.0);
  const Quat<double> b = QuatFromRollPitchYaw(0.0, 0.0, 1.0);
  const Quat<double> mid = Slerp(a, b, 0.5);
  const Quat<double> expected = QuatFromRollPitchYaw(0.0, 0.0, 0.5);
  EXPECT_NEAR(mid.w, expected.w, 1e-12);
  EXPECT_NEAR(mid.z, expected.z, 1e-12);
  EXPECT_NEAR(Slerp(a, b, 1.0).z, b.z, 1e-12);
  EXPECT_NEAR(Slerp(a, b, 0.0).w, 1.0, 1e-12);
}

TEST(Pose, InterpolationIsLinearInPosition) {
  const Pose<double> a{{1, 0, 0, 0}, {0, 0, 0}};
  const Pose<double> b{{1, 0, 0, 0}, {10, -4, 2}};
  const Pose<double> p = InterpolatePose(a, b, 0.25);
  EXPECT_DOUBLE_EQ(p.translation.x, 2.5);
  EXPECT_DOUBLE_EQ(p.translation.y, -1.0);
  EXPECT_DOUBLE_EQ(p.translation.z, 0.5);
}

}  // namespace
}  // namespace lt::physics
