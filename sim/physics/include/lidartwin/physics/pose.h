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
