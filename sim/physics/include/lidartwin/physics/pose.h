// Rigid poses (unit quaternion + translation) and their interpolation along a trajectory.
// Used for the sensor pose at each beam's firing time (rolling-shutter motion distortion)
// and for motion correction to the frame's last pose (seed 003, "Point Cloud Motion
// Correction": all points expressed in the frame of reference of the sweep's last pose).
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/vec3.h"

namespace lt::physics {

// Hamilton quaternion w + xi + yj + zk.
template <typename T>
struct Quat {
  T w, x, y, z;
};

// Pose maps sensor coordinates to world coordinates: p_world = R p_sensor + t.
template <typename T>
struct Pose {
  Quat<T> rotation;
  Vec3<T> translation;
};

template <typename T>
LT_HD Quat<T> Multiply(const Quat<T>& a, const Quat<T>& b) {
  return {
      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

template <typename T>
LT_HD Quat<T> Conjugate(const Quat<T>& q) {
  return {q.w, -q.x, -q.y, -q.z};
}

// v' = q v q*, expanded: v' = v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z).
template <typename T>
LT_HD Vec3<T> Rotate(const Quat<T>& q, const Vec3<T>& v) {
  const Vec3<T> u{q.x, q.y, q.z};
  const Vec3<T> uv = Cross(u, v);
  const Vec3<T> uuv = Cross(u, uv);
  return v + static_cast<T>(2) * (q.w * uv + uuv);
}

template <typename T>
LT_HD Vec3<T> TransformPoint(const Pose<T>& p, const Vec3<T>& v) {
  return Rotate(p.rotation, v) + p.translation;
}

template <typename T>
LT_HD Vec3<T> InverseTransformPoint(const Pose<T>& p, const Vec3<T>& v) {
  return Rotate(Conjugate(p.rotation), v - p.translation);
}

// Rotation from intrinsic roll (x), pitch (y), yaw (z) in radians: R = Rz(yaw) Ry(pitch)
// Rx(roll), the aerospace / ROS convention.
template <typename T>
LT_HD Quat<T> QuatFromRollPitchYaw(T roll, T pitch, T yaw) {
  using std::cos;
  using std::sin;
  const T h = static_cast<T>(0.5);
  const T cr = cos(h * roll), sr = sin(h * roll);
  const T cp = cos(h * pitch), sp = sin(h * pitch);
  const T cy = cos(h * yaw), sy = sin(h * yaw);
  return {cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
          cr * cp * sy - sr * sp * cy};
}

// Spherical linear interpolation, shortest arc; falls back to normalised linear
// interpolation when the quaternions are nearly parallel (sin of the angle ~ 0).
template <typename T>
LT_HD Quat<T> Slerp(const Quat<T>& a, Quat<T> b, T s) {
  using std::acos;
  using std::sin;
  using std::sqrt;
  T c = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
  if (c < 0) {
    b = {-b.w, -b.x, -b.y, -b.z};
    c = -c;
  }
  T wa, wb;
  if (c > static_cast<T>(0.9995)) {
    wa = 1 - s;
    wb = s;
  } else {
    const T angle = acos(c);
    const T inv_sin = 1 / sin(angle);
    wa = sin((1 - s) * angle) * inv_sin;
    wb = sin(s * angle) * inv_sin;
  }
  Quat<T> q{wa * a.w + wb * b.w, wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z};
  const T n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return {q.w / n, q.x / n, q.y / n, q.z / n};
}

// a * b: first b, then a (both sensor -> world style maps).
template <typename T>
LT_HD Pose<T> ComposePoses(const Pose<T>& a, const Pose<T>& b) {
  return {Multiply(a.rotation, b.rotation), TransformPoint(a, b.translation)};
}

// The inverse map: InverseTransformPoint(p, v) == TransformPoint(InversePose(p), v).
template <typename T>
LT_HD Pose<T> InversePose(const Pose<T>& p) {
  const Quat<T> r = Conjugate(p.rotation);
  const Vec3<T> t = Rotate(r, p.translation);
  return {r, {-t.x, -t.y, -t.z}};
}

// Roll, pitch, yaw [rad] of a unit quaternion: the inverse of QuatFromRollPitchYaw
// (R = Rz(yaw) Ry(pitch) Rx(roll)); pitch in [-pi/2, pi/2].
template <typename T>
LT_HD Vec3<T> RollPitchYaw(const Quat<T>& q) {
  using std::asin;
  using std::atan2;
  T s = 2 * (q.w * q.y - q.z * q.x);
  s = s > 1 ? T(1) : (s < -1 ? T(-1) : s);
  return {atan2(2 * (q.w * q.x + q.y * q.z), 1 - 2 * (q.x * q.x + q.y * q.y)), asin(s),
          atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))};
}

// Unit quaternion of a rotation matrix given row-major with row stride `stride` (3 for a
// 3x3, 4 for the rotation part of a 3x4 [R | t]); Shepperd's method, the largest of
// w, x, y, z computed first for accuracy.
template <typename T>
LT_HD Quat<T> QuatFromRotationMatrix(const T* m, int stride) {
  using std::sqrt;
  const T r00 = m[0], r01 = m[1], r02 = m[2];
  const T r10 = m[stride], r11 = m[stride + 1], r12 = m[stride + 2];
  const T r20 = m[2 * stride], r21 = m[2 * stride + 1], r22 = m[2 * stride + 2];
  const T tr = r00 + r11 + r22;
  Quat<T> q;
  if (tr > 0) {
    const T s = sqrt(tr + 1) * 2;
    q = {T(0.25) * s, (r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s};
  } else if (r00 > r11 && r00 > r22) {
    const T s = sqrt(1 + r00 - r11 - r22) * 2;
    q = {(r21 - r12) / s, T(0.25) * s, (r01 + r10) / s, (r02 + r20) / s};
  } else if (r11 > r22) {
    const T s = sqrt(1 + r11 - r00 - r22) * 2;
    q = {(r02 - r20) / s, (r01 + r10) / s, T(0.25) * s, (r12 + r21) / s};
  } else {
    const T s = sqrt(1 + r22 - r00 - r11) * 2;
    q = {(r10 - r01) / s, (r02 + r20) / s, (r12 + r21) / s, T(0.25) * s};
  }
  const T n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return {q.w / n, q.x / n, q.y / n, q.z / n};
}

// Pose between two timed poses: translation linear, rotation slerp; s = (t - t0) / (t1 - t0).
template <typename T>
LT_HD Pose<T> InterpolatePose(const Pose<T>& a, const Pose<T>& b, T s) {
  return {Slerp(a.rotation, b.rotation, s), a.translation + s * (b.translation - a.translation)};
}

}  // namespace lt::physics

namespace lt::physics {

// Pose at time t on a sampled trajectory (times strictly increasing, n >= 0): interpolated
// between the neighbouring samples, held constant outside them; identity when n == 0.
template <typename T>
LT_HD Pose<T> PoseAtTime(const T* times, const Pose<T>* poses, int n, T t) {
  if (n == 0) return {{1, 0, 0, 0}, {0, 0, 0}};
  if (t <= times[0]) return poses[0];
  if (t >= times[n - 1]) return poses[n - 1];
  int lo = 0, hi = n - 1;  // times[lo] <= t < times[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (times[mid] <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return InterpolatePose(poses[lo], poses[hi], (t - times[lo]) / (times[hi] - times[lo]));
}

}  // namespace lt::physics
