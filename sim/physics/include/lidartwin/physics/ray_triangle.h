// Ray-triangle geometry shared by the backends and by the brute-force test references.
#pragma once

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/vec3.h"

namespace lt::physics {

// Moeller & Trumbore, "Fast, minimum storage ray-triangle intersection" (JGT 1997).
// Returns the distance t along `direction` (any length; t in its units) to triangle abc, or
// a negative value for a miss or a ray parallel to the triangle.
template <typename T>
LT_HD T RayTriangleDistance(const Vec3<T>& origin, const Vec3<T>& direction, const Vec3<T>& a,
                            const Vec3<T>& b, const Vec3<T>& c) {
  const Vec3<T> e1 = b - a;
  const Vec3<T> e2 = c - a;
  const Vec3<T> p = Cross(direction, e2);
  const T det = Dot(e1, p);
  if (det == 0) return -1;
  const T inv_det = 1 / det;
  const Vec3<T> s = origin - a;
  const T u = Dot(s, p) * inv_det;
  if (u < 0 || u > 1) return -1;
  const Vec3<T> q = Cross(s, e1);
  const T v = Dot(direction, q) * inv_det;
  if (v < 0 || u + v > 1) return -1;
  return Dot(e2, q) * inv_det;
}

// Distance along a unit `direction` to the plane through a with unit normal n. Used to
// refine a single-precision hit distance in double: the plane of the hit triangle is exact
// where barycentric tests near an edge are not. The products are rounded on their own
// (DMulRn): with nvcc's FMA contraction the GPU's distance could differ from the CPU's by an
// ulp, which a sensor's range quantisation (the OS0-128's 1 mm) can turn into a whole step.
LT_HD inline double RayPlaneDistance(const Vec3<double>& origin, const Vec3<double>& direction,
                                     const Vec3<double>& a, const Vec3<double>& n) {
  const Vec3<double> r = a - origin;
  const double num = DMulRn(n.x, r.x) + DMulRn(n.y, r.y) + DMulRn(n.z, r.z);
  const double den = DMulRn(n.x, direction.x) + DMulRn(n.y, direction.y) + DMulRn(n.z, direction.z);
  return num / den;
}

}  // namespace lt::physics
