// Binary BVH layout and closest-hit traversal, in single precision, shared by the CUDA
// backend (built on the GPU by sim/cuda/lbvh_build.cu) and any host code that reads the same
// nodes. Each node stores its two children's boxes (Aila & Laine, "Understanding the
// efficiency of ray traversal on GPUs", HPG 2009), so one node fetch decides both children.
#pragma once

#include <cstdint>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

struct BvhBox {
  float lo[3];
  float hi[3];
};

// child index >= 0: an internal node; < 0: a leaf holding sorted triangle ~index.
// 64 bytes, aligned, so the GPU fetches a node as four 16-byte loads.
struct alignas(16) BvhNode {
  BvhBox box[2];
  int32_t child[2];
  int32_t pad[2];
};

// Reads a node; on the device through the read-only cache as four 16-byte loads.
LT_HD inline BvhNode LoadNode(const BvhNode* nodes, int32_t i) {
#if defined(__CUDA_ARCH__)
  const float4* p = reinterpret_cast<const float4*>(nodes + i);
  const float4 a = __ldg(p), b = __ldg(p + 1), c = __ldg(p + 2), d = __ldg(p + 3);
  BvhNode n;
  n.box[0] = {{a.x, a.y, a.z}, {a.w, b.x, b.y}};
  n.box[1] = {{b.z, b.w, c.x}, {c.y, c.z, c.w}};
  n.child[0] = __float_as_int(d.x);
  n.child[1] = __float_as_int(d.y);
  return n;
#else
  return nodes[i];
#endif
}

// A triangle's three vertices, in BVH leaf order.
struct BvhTriangle {
  float v0[3];
  float v1[3];
  float v2[3];
};

struct BvhView {
  const BvhNode* nodes;  // count - 1 internal nodes, root at 0
  const BvhTriangle* triangles;
  uint32_t count;
};

static_assert(sizeof(BvhNode) == 64, "BvhNode is fetched as four 16-byte loads");

inline constexpr int kBvhStackSize = 64;  // LBVH depth <= 30 Morton bits + log2(duplicates)

// Slab test of a box against a ray given by origin and inverse direction; on a hit, t_enter
// is where the ray enters the box (clipped to t_min).
LT_HD inline bool RayBoxHit(const BvhBox& b, const float o[3], const float inv_d[3], float t_min,
                            float t_max, float& t_enter) {
  float t0 = t_min, t1 = t_max;
  for (int a = 0; a < 3; ++a) {
    float near = (b.lo[a] - o[a]) * inv_d[a];
    float far = (b.hi[a] - o[a]) * inv_d[a];
    if (near > far) {
      const float s = near;
      near = far;
      far = s;
    }
    // NaN from 0 * inf (a ray in a box's face plane) leaves the bound unchanged.
    t0 = near > t0 ? near : t0;
    t1 = far < t1 ? far : t1;
  }
  // Widen by 2 ulp-ish so a ray through a box's face is not lost to rounding.
  t_enter = t0;
  return t0 <= t1 * 1.0000002f;
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
  uint64_t nodes = 0;      // node fetches: two box tests each, 64 bytes each
  uint64_t triangles = 0;  // ray-triangle tests
  LT_HD void Node() { ++nodes; }
  LT_HD void Triangle() { ++triangles; }
};

// Stack traversal shared by the two queries. Closest hit (kAnyHit false): near child first,
// the far one on the stack, the window shrinking to the best hit so far. Any hit (kAnyHit
// true): stops at the first triangle inside the window. Returns the sorted index of the
// triangle found, or -1, and its distance in t_hit.
template <bool kAnyHit, typename Count = NoTraversalCount>
LT_HD int BvhTraverse(const BvhView& bvh, const float o[3], const float d[3], float t_min,
                      float t_max, float& t_hit, Count* count = nullptr) {
  Count none;
  Count& counted = count ? *count : none;
  int best = -1;
  float t_best = t_max;
  if (bvh.count == 0) return -1;
  const WatertightRay wr = MakeWatertightRay(o, d);
  auto test_leaf = [&](int32_t leaf) {
    counted.Triangle();
    const float t = RayBvhTriangle(bvh.triangles[~leaf], wr);
    if (t >= t_min && t <= t_best) {
      t_best = t;
      best = ~leaf;
    }
  };
  if (bvh.count == 1) {
    test_leaf(~0);
    t_hit = t_best;
    return best;
  }
  const float inv_d[3] = {1.0f / d[0], 1.0f / d[1], 1.0f / d[2]};
  int32_t stack[kBvhStackSize];
  int sp = 0;
  int32_t node = 0;
  for (;;) {
    const BvhNode n = LoadNode(bvh.nodes, node);
    counted.Node();
    float t0 = 0, t1 = 0;
    bool h0 = RayBoxHit(n.box[0], o, inv_d, t_min, t_best, t0);
    bool h1 = RayBoxHit(n.box[1], o, inv_d, t_min, t_best, t1);
    if (h0 && n.child[0] < 0) {
      test_leaf(n.child[0]);
      h0 = false;
    }
    if (h1 && n.child[1] < 0) {
      test_leaf(n.child[1]);
      h1 = false;
    }
    if (kAnyHit && best >= 0) break;
    if (h0 && h1) {
      const bool left_first = kAnyHit || t0 <= t1;
      if (sp < kBvhStackSize) stack[sp++] = left_first ? n.child[1] : n.child[0];
      node = left_first ? n.child[0] : n.child[1];
    } else if (h0) {
      node = n.child[0];
    } else if (h1) {
      node = n.child[1];
    } else {
      if (sp == 0) break;
      node = stack[--sp];
    }
  }
  t_hit = t_best;
  return best;
}

// Closest triangle hit with distance in [t_min, t_max]: its sorted index (or -1) and its
// distance in t_hit.
LT_HD inline int BvhClosestHit(const BvhView& bvh, const float o[3], const float d[3], float t_min,
                               float t_max, float& t_hit) {
  return BvhTraverse<false>(bvh, o, d, t_min, t_max, t_hit);
}

// Any-hit query (occlusion): true as soon as some triangle lies within [t_min, t_max].
LT_HD inline bool BvhAnyHit(const BvhView& bvh, const float o[3], const float d[3], float t_min,
                            float t_max) {
  float t = 0;
  return BvhTraverse<true>(bvh, o, d, t_min, t_max, t) >= 0;
}

}  // namespace lt::physics
