// A minimal 3-vector for physics code that must compile for host and device alike.
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

template <typename T>
struct Vec3 {
  T x, y, z;
};

// A product of doubles rounded on its own: nvcc would otherwise fuse a * b + c into an FMA,
// and the host (no FMA in x86-64's baseline) and the device would round differently. Where
// the backends must agree to the bit (the refined hit, rigid_transform.h), products use it.
LT_HD inline double DMulRn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

template <typename T>
LT_HD Vec3<T> operator+(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <typename T>
LT_HD Vec3<T> operator-(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <typename T>
LT_HD Vec3<T> operator*(T s, const Vec3<T>& a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <typename T>
LT_HD T Dot(const Vec3<T>& a, const Vec3<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <typename T>
LT_HD Vec3<T> Cross(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <typename T>
LT_HD T Norm(const Vec3<T>& a) {
  using std::sqrt;
  return sqrt(Dot(a, a));
}
template <typename T>
LT_HD Vec3<T> Normalized(const Vec3<T>& a) {
  const T n = Norm(a);
  return {a.x / n, a.y / n, a.z / n};
}

}  // namespace lt::physics
