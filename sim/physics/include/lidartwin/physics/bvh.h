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
struct BvhNode {
  BvhBox box[2];
  int32_t child[2];
};

// A triangle as a vertex and two edges (what Moeller-Trumbore needs), in BVH leaf order.
struct BvhTriangle {
  float v0[3];
  float e1[3];
  float e2[3];
};

struct BvhView {
  const BvhNode* nodes;  // count - 1 internal nodes, root at 0
  const BvhTriangle* triangles;
  uint32_t count;
};

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

// Moeller-Trumbore in float: distance to the triangle, or -1.
LT_HD inline float RayBvhTriangle(const BvhTriangle& tr, const float o[3], const float d[3]) {
  const float px = d[1] * tr.e2[2] - d[2] * tr.e2[1];
  const float py = d[2] * tr.e2[0] - d[0] * tr.e2[2];
  const float pz = d[0] * tr.e2[1] - d[1] * tr.e2[0];
  const float det = tr.e1[0] * px + tr.e1[1] * py + tr.e1[2] * pz;
  if (det == 0.0f) return -1.0f;
  const float inv = 1.0f / det;
  const float sx = o[0] - tr.v0[0], sy = o[1] - tr.v0[1], sz = o[2] - tr.v0[2];
  const float u = (sx * px + sy * py + sz * pz) * inv;
  if (u < 0.0f || u > 1.0f) return -1.0f;
  const float qx = sy * tr.e1[2] - sz * tr.e1[1];
  const float qy = sz * tr.e1[0] - sx * tr.e1[2];
  const float qz = sx * tr.e1[1] - sy * tr.e1[0];
  const float v = (d[0] * qx + d[1] * qy + d[2] * qz) * inv;
  if (v < 0.0f || u + v > 1.0f) return -1.0f;
  return (tr.e2[0] * qx + tr.e2[1] * qy + tr.e2[2] * qz) * inv;
}

// Closest triangle hit with distance in [t_min, t_max]: returns its sorted index (or -1) and
// its distance in t_hit. Near child first, far child on a stack.
LT_HD inline int BvhClosestHit(const BvhView& bvh, const float o[3], const float d[3], float t_min,
                               float t_max, float& t_hit) {
  int best = -1;
  float t_best = t_max;
  auto test_leaf = [&](int32_t leaf) {
    const float t = RayBvhTriangle(bvh.triangles[~leaf], o, d);
    if (t >= t_min && t <= t_best) {
      t_best = t;
      best = ~leaf;
    }
  };
  if (bvh.count == 0) return -1;
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
    const BvhNode& n = bvh.nodes[node];
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
    if (h0 && h1) {
      const bool left_first = t0 <= t1;
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

}  // namespace lt::physics
