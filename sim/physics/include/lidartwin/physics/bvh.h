// Binary BVH layout and the watertight ray-triangle test, in single precision. The GPU
// builders (sim/cuda/lbvh_build.cu) make binary trees, whose nodes store their two children's
// boxes (Aila & Laine, "Understanding the efficiency of ray traversal on GPUs", HPG 2009);
// the rays traverse the four-wide tree collapsed from them (wide_bvh.h, bvh_collapse.h).
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

struct BvhBox {
  float lo[3];
  float hi[3];
};

// child index >= 0: an internal node; < 0: a leaf holding sorted triangle ~index.
struct alignas(16) BvhNode {
  BvhBox box[2];
  int32_t child[2];
  int32_t pad[2];
};

// A triangle's three vertices, in BVH leaf order.
struct BvhTriangle {
  float v0[3];
  float v1[3];
  float v2[3];
};

static_assert(sizeof(BvhNode) == 64, "BvhNode is 64 bytes, aligned");

// A triangle's bounding box.
LT_HD inline BvhBox TriangleBounds(const BvhTriangle& t) {
  BvhBox b;
  for (int a = 0; a < 3; ++a) {
    const float p0 = t.v0[a], p1 = t.v1[a], p2 = t.v2[a];
    b.lo[a] = fminf(p0, fminf(p1, p2));
    b.hi[a] = fmaxf(p0, fmaxf(p1, p2));
  }
  return b;
}

// A product rounded on its own: nvcc would otherwise fuse a * b - c * d into an FMA, and the
// edge function of a shared edge would no longer be exactly the negative of its neighbour's,
// which is what makes the test below watertight.
LT_HD inline float MulRn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

// Per-ray constants of the watertight test: the dominant axis kz and the shear that maps the
// ray onto +z (Woop, Benthin & Wald, "Watertight ray/triangle intersection", JCGT 2(1), 2013).
struct WatertightRay {
  int kx, ky, kz;
  float sx, sy, sz;
  float ox, oy, oz;  // the origin's coordinates on axes kx, ky, kz
};

// v[k] for a run-time k without indexing: an array indexed at run time would live in local
// memory on the GPU, and this is read for every triangle tested.
LT_HD inline float Component(const float v[3], int k) {
  return k == 0 ? v[0] : (k == 1 ? v[1] : v[2]);
}

LT_HD inline WatertightRay MakeWatertightRay(const float o[3], const float d[3]) {
  const float ax = d[0] < 0 ? -d[0] : d[0];
  const float ay = d[1] < 0 ? -d[1] : d[1];
  const float az = d[2] < 0 ? -d[2] : d[2];
  WatertightRay r;
  r.kz = (ax > ay) ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2);
  r.kx = (r.kz + 1) % 3;
  r.ky = (r.kx + 1) % 3;
  if (d[r.kz] < 0) {  // keep the winding of the sheared triangle
    const int t = r.kx;
    r.kx = r.ky;
    r.ky = t;
  }
  r.sx = d[r.kx] / d[r.kz];
  r.sy = d[r.ky] / d[r.kz];
  r.sz = 1.0f / d[r.kz];
  r.ox = Component(o, r.kx);
  r.oy = Component(o, r.ky);
  r.oz = Component(o, r.kz);
  return r;
}

// Watertight ray-triangle test (Woop et al. 2013, Fig. 6): distance along d, or -1. A ray
// through an edge or vertex shared by two triangles hits at least one of them; edge functions
// that round to 0 are recomputed in double, as the paper prescribes.
LT_HD inline float RayBvhTriangle(const BvhTriangle& tr, const WatertightRay& r) {
  const float ax = tr.v0[r.kx] - r.ox, ay = tr.v0[r.ky] - r.oy, az = tr.v0[r.kz] - r.oz;
  const float bx = tr.v1[r.kx] - r.ox, by = tr.v1[r.ky] - r.oy, bz = tr.v1[r.kz] - r.oz;
  const float cx = tr.v2[r.kx] - r.ox, cy = tr.v2[r.ky] - r.oy, cz = tr.v2[r.kz] - r.oz;
  const float Ax = ax - MulRn(r.sx, az), Ay = ay - MulRn(r.sy, az);
  const float Bx = bx - MulRn(r.sx, bz), By = by - MulRn(r.sy, bz);
  const float Cx = cx - MulRn(r.sx, cz), Cy = cy - MulRn(r.sy, cz);
  float u = MulRn(Cx, By) - MulRn(Cy, Bx);
  float v = MulRn(Ax, Cy) - MulRn(Ay, Cx);
  float w = MulRn(Bx, Ay) - MulRn(By, Ax);
  if (u == 0.0f || v == 0.0f || w == 0.0f) {
    u = static_cast<float>(static_cast<double>(Cx) * By - static_cast<double>(Cy) * Bx);
    v = static_cast<float>(static_cast<double>(Ax) * Cy - static_cast<double>(Ay) * Cx);
    w = static_cast<float>(static_cast<double>(Bx) * Ay - static_cast<double>(By) * Ax);
  }
  if ((u < 0.0f || v < 0.0f || w < 0.0f) && (u > 0.0f || v > 0.0f || w > 0.0f)) return -1.0f;
  const float det = u + v + w;
  if (det == 0.0f) return -1.0f;
  const float t = (u * MulRn(r.sz, az) + v * MulRn(r.sz, bz) + w * MulRn(r.sz, cz)) / det;
  return t;
}

// What a traversal may count (issue 14: box and triangle tests per ray, node bytes fetched).
// The queries use NoTraversalCount, whose empty members compile away; the bench counts with
// TraversalCount on the host over a tree copied from the GPU, through the same traversal.
struct NoTraversalCount {
  LT_HD void Node() {}
  LT_HD void Triangle() {}
};
struct TraversalCount {
  uint64_t nodes = 0;      // wide node fetches: four box tests each, 64 bytes each
  uint64_t triangles = 0;  // ray-triangle tests
  LT_HD void Node() { ++nodes; }
  LT_HD void Triangle() { ++triangles; }
};

}  // namespace lt::physics
