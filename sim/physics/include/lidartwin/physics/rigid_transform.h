// Rigid placements of instanced models (issue 42, docs/adr/0030): a model's triangles are stored
// once in the model's frame and placed in the world by a rotation matrix and a translation per
// instance, x_world = R x_model + t. Both backends find the closest hit in single precision
// (Embree's instances on the CPU, our two-level tree on the GPU) and then refine it in double on
// the hit triangle's plane, placed in the world here. The products are rounded on their own
// (DMulRn) so that nvcc does not fuse them into FMAs: the host and the device then place the
// plane to the same bits and report the same range (exact CPU/GPU parity, ADR 0002).
#pragma once

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/pose.h"
#include "lidartwin/physics/vec3.h"

namespace lt::physics {

struct RigidTransform {
  double r[9];  // row-major rotation
  double t[3];  // translation [m]
};

// R v, each product rounded before the sums, left to right.
LT_HD inline Vec3<double> RotateBy(const RigidTransform& x, const Vec3<double>& v) {
  const double* r = x.r;
  return {DMulRn(r[0], v.x) + DMulRn(r[1], v.y) + DMulRn(r[2], v.z),
          DMulRn(r[3], v.x) + DMulRn(r[4], v.y) + DMulRn(r[5], v.z),
          DMulRn(r[6], v.x) + DMulRn(r[7], v.y) + DMulRn(r[8], v.z)};
}

LT_HD inline Vec3<double> PlacePoint(const RigidTransform& x, const Vec3<double>& v) {
  const Vec3<double> r = RotateBy(x, v);
  return {r.x + x.t[0], r.y + x.t[1], r.z + x.t[2]};
}

// The rotation matrix of a unit quaternion (Shoemake, "Animating rotation with quaternion
// curves", SIGGRAPH 1985), and the pose's translation.
inline RigidTransform TransformOfPose(const Pose<double>& p) {
  const Quat<double>& q = p.rotation;
  const double w = q.w, x = q.x, y = q.y, z = q.z;
  return {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),  //
           2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),  //
           2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)},
          {p.translation.x, p.translation.y, p.translation.z}};
}

// Its inverse in single precision, x_model = R^T (x_world - t): what a ray is moved into the
// model's frame with before it traverses the model's tree (rigid, so distances along the ray
// are the same in both frames).
struct FloatInverseTransform {
  float r[9];  // R^T, row-major
  float t[3];  // -R^T t
};

inline FloatInverseTransform FloatInverse(const RigidTransform& x) {
  FloatInverseTransform f;
  for (int i = 0; i < 3; ++i) {
    double ti = 0;
    for (int j = 0; j < 3; ++j) {
      f.r[3 * i + j] = static_cast<float>(x.r[3 * j + i]);
      ti -= x.r[3 * j + i] * x.t[j];
    }
    f.t[i] = static_cast<float>(ti);
  }
  return f;
}

// A ray's origin and direction in the model's frame.
LT_HD inline void RayIntoModel(const FloatInverseTransform& f, const float o[3], const float d[3],
                               float o_model[3], float d_model[3]) {
  for (int i = 0; i < 3; ++i) {
    const float* r = f.r + 3 * i;
    o_model[i] = r[0] * o[0] + r[1] * o[1] + r[2] * o[2] + f.t[i];
    d_model[i] = r[0] * d[0] + r[1] * d[1] + r[2] * d[2];
  }
}

}  // namespace lt::physics
