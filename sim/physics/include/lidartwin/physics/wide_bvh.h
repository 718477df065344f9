// Four-wide BVH with quantised child boxes: what the rays traverse, on the GPU and on the host
// alike. The GPU builds a binary tree (LBVH or PLOC, sim/cuda/lbvh_build.cu) and collapses it
// into this one (bvh_collapse.h).
//
// A node holds four children in 64 bytes, the size of a binary node holding two: the child
// boxes are stored as 8-bit offsets on a per-axis grid of power-of-two step (the compression of
// Ylitie, Karras & Laine, "Efficient incoherent ray traversal on GPUs through compressed wide
// BVHs", HPG 2017, sec. 3.1, on four children instead of eight). A wide node halves the node
// fetches of a ray, and its four boxes are tested with independent arithmetic.
//
// The quantised boxes are conservative and exactly decoded: the grid origin is a multiple of
// the step, and the step is at least the float spacing of every value on the node's grid, so
// origin + q * step is a float with no rounding, and each child's decoded box contains its true
// box (EncodeWideNode steps each bound outward until it does). A ray therefore reaches every
// triangle it reached through the float boxes of the binary tree. This holds for coordinates
// within +-kMaxBvhCoordinate (the builders refuse others).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "lidartwin/physics/bvh.h"
#include "lidartwin/physics/hd.h"

namespace lt::physics {

inline constexpr int kWideArity = 4;
// Largest coordinate magnitude [m] the GPU builders take: far beyond any scene (the Earth is
// 1.3e7 m across), far below where box areas (1.8e19 m on a side) or the grid's base
// (origin - 2^23 step) would overflow a float.
inline constexpr float kMaxBvhCoordinate = 1e9f;
// Triangles per leaf at most (Ylitie et al. 2017 use 3; the collapse decides by SAH).
inline constexpr int kWideLeafMax = 4;
// Sorted triangle positions a leaf reference can hold: 2 bits of the child word are its count.
inline constexpr uint32_t kWideMaxTriangles = 1u << 29;

// A child word: 0 is an empty slot (the root, node 0, is nobody's child); > 0 an internal node;
// < 0 a leaf of `count` triangles from sorted position `first`.
LT_HD inline int32_t WideLeaf(uint32_t first, uint32_t count) {
  return ~static_cast<int32_t>((first << 2) | (count - 1));
}
LT_HD inline uint32_t WideLeafFirst(int32_t child) {
  return static_cast<uint32_t>(~child) >> 2;
}
LT_HD inline uint32_t WideLeafCount(int32_t child) {
  return (static_cast<uint32_t>(~child) & 3u) + 1;
}

// 64 bytes, fetched as four 16-byte loads on the GPU.
struct alignas(16) WideNode {
  float origin[3];  // grid origin per axis, a multiple of step
  float step[3];    // grid step per axis, a power of two
  // q[j][k]: child k's box on axis j % 3, its low bound for j < 3 and its high one for j >= 3,
  // in steps from the origin.
  uint8_t q[6][kWideArity];
  int32_t child[kWideArity];
};
static_assert(sizeof(WideNode) == 64, "WideNode is fetched as four 16-byte loads");

// A triangle as the leaves store it: 48 bytes (three 16-byte loads), the input index of the
// triangle in the fourth word of the first vertex.
struct alignas(16) WideTriangle {
  float v0[3];
  uint32_t id;
  float v1[3];
  float pad1;
  float v2[3];
  float pad2;
};
static_assert(sizeof(WideTriangle) == 48, "WideTriangle is fetched as three 16-byte loads");

struct WideBvhView {
  const WideNode* nodes;  // root at 0
  const WideTriangle* triangles;
  uint32_t count;  // triangles
};

// Traversal stack entries. The collapse keeps a tree within kWideMaxDepth levels (an error
// otherwise), and a node pushes at most three children, so the stack never overflows.
inline constexpr int kWideMaxDepth = 64;
inline constexpr int kWideStackSize = 3 * kWideMaxDepth;

// Decoded bound q of a node on axis a: exact (see the file comment).
LT_HD inline float WideBound(const WideNode& n, int j, int k, int a) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(static_cast<float>(n.q[j][k]), n.step[a], n.origin[a]);
#else
  return std::fma(static_cast<float>(n.q[j][k]), n.step[a], n.origin[a]);
#endif
}

// Quantises `count` (1..4) child boxes into a node; empty slots get child word 0.
LT_HD inline WideNode EncodeWideNode(const BvhBox* box, const int32_t* child, int count) {
  WideNode n;
  for (int a = 0; a < 3; ++a) {
    float lo = box[0].lo[a], hi = box[0].hi[a];
    for (int k = 1; k < count; ++k) {
      lo = fminf(lo, box[k].lo[a]);
      hi = fmaxf(hi, box[k].hi[a]);
    }
    // The step: at least extent / 254 (so the origin's rounding down leaves the top bound
    // within 255 steps) and at least four float spacings at the node's largest magnitude (so
    // origin + q * step, and origin - 2^23 step of WideGridValue, are exact).
    int e_extent = 0, e_magnitude = 0;
    frexpf((hi - lo) / 254.0f, &e_extent);
    frexpf(fmaxf(fabsf(lo), fabsf(hi)), &e_magnitude);
    const int e = e_extent > e_magnitude - 22 ? e_extent : e_magnitude - 22;
    const float step = ldexpf(1.0f, e);
    n.step[a] = step;
    n.origin[a] = floorf(lo / step) * step;
    // A tiny negative lo gives lo / step = -0 and an origin of 0, above lo: one step down.
    if (n.origin[a] > lo) n.origin[a] -= step;
  }
  for (int k = 0; k < kWideArity; ++k) {
    n.child[k] = k < count ? child[k] : 0;
    for (int a = 0; a < 3; ++a) {
      if (k >= count) {  // an empty box: low above high
        n.q[a][k] = 255;
        n.q[3 + a][k] = 0;
        continue;
      }
      const float s = n.step[a], o = n.origin[a];
      float ql = floorf((box[k].lo[a] - o) / s), qh = ceilf((box[k].hi[a] - o) / s);
      ql = fminf(fmaxf(ql, 0.0f), 255.0f);
      qh = fminf(fmaxf(qh, 0.0f), 255.0f);
      n.q[a][k] = static_cast<uint8_t>(ql);
      n.q[3 + a][k] = static_cast<uint8_t>(qh);
      // The division above rounds: step the bounds outward until they contain the box.
      while (n.q[a][k] > 0 && WideBound(n, a, k, a) > box[k].lo[a])
        --n.q[a][k];
      while (n.q[3 + a][k] < 255 && WideBound(n, 3 + a, k, a) < box[k].hi[a])
        ++n.q[3 + a][k];
    }
  }
  return n;
}

// The decoded box of child k.
LT_HD inline BvhBox DecodeWideBox(const WideNode& n, int k) {
  BvhBox b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = WideBound(n, a, k, a);
    b.hi[a] = WideBound(n, 3 + a, k, a);
  }
  return b;
}

LT_HD inline WideNode LoadWideNode(const WideNode* nodes, int32_t i) {
#if defined(__CUDA_ARCH__)
  const float4* p = reinterpret_cast<const float4*>(nodes + i);
  const float4 w[4] = {__ldg(p), __ldg(p + 1), __ldg(p + 2), __ldg(p + 3)};
  WideNode n;
  static_assert(sizeof(w) == sizeof(n));
  memcpy(&n, w, sizeof(n));
  return n;
#else
  return nodes[i];
#endif
}

LT_HD inline WideTriangle LoadWideTriangle(const WideTriangle* t, uint32_t i) {
#if defined(__CUDA_ARCH__)
  const float4* p = reinterpret_cast<const float4*>(t + i);
  const float4 w[3] = {__ldg(p), __ldg(p + 1), __ldg(p + 2)};
  WideTriangle out;
  static_assert(sizeof(w) == sizeof(out));
  memcpy(&out, w, sizeof(out));
  return out;
#else
  return t[i];
#endif
}

// The watertight test of bvh.h on a leaf triangle.
LT_HD inline float RayWideTriangle(const WideTriangle& t, const WatertightRay& r) {
  const BvhTriangle b{
      {t.v0[0], t.v0[1], t.v0[2]}, {t.v1[0], t.v1[1], t.v1[2]}, {t.v2[0], t.v2[1], t.v2[2]}};
  return RayBvhTriangle(b, r);
}

// Bound q (byte k of a row word) of a node's grid on one axis, from base = origin - 2^23 step:
// the float 2^23 + q made by placing the byte under the exponent bits (one byte permute on the
// GPU, where a byte-to-float conversion runs at a sixteenth of the FMA rate), then one FMA.
// Exact: base is a multiple of step below 2^24 steps in magnitude (the step is at least four
// float spacings of the node's coordinates), and the result is the grid value itself.
LT_HD inline float WideGridValue(uint32_t row, int k, float step, float base) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(__int_as_float(__byte_perm(row, 0x4B000000u, 0x7440u | k)), step, base);
#else
  const uint32_t bits = 0x4B000000u | ((row >> (8 * k)) & 0xffu);
  float q_plus = 0;
  std::memcpy(&q_plus, &bits, sizeof(q_plus));
  return std::fma(q_plus, step, base);
#endif
}

// Entry distances of a ray into the four children of a node (+inf where it misses), by the
// slab test on the decoded boxes, near planes chosen by the direction's signs; a bound exactly
// on the window is kept (the widening below), so a ray through a face is not lost to rounding.
LT_HD inline void WideChildEntries(const WideNode& n, const float o[3], const float inv_d[3],
                                   const bool negative[3], float t_min, float t_max,
                                   float t_enter[kWideArity]) {
  constexpr float kInf = __builtin_huge_valf();
  uint32_t row[6];
  std::memcpy(row, n.q, sizeof(row));
  uint32_t near_row[3], far_row[3];
  float base[3];
  for (int a = 0; a < 3; ++a) {
    near_row[a] = negative[a] ? row[3 + a] : row[a];
    far_row[a] = negative[a] ? row[a] : row[3 + a];
    base[a] = n.origin[a] - 8388608.0f * n.step[a];  // exact (see WideGridValue)
  }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int k = 0; k < kWideArity; ++k) {
    float t0 = t_min, t1 = t_max;
    for (int a = 0; a < 3; ++a) {
      const float near = (WideGridValue(near_row[a], k, n.step[a], base[a]) - o[a]) * inv_d[a];
      const float far = (WideGridValue(far_row[a], k, n.step[a], base[a]) - o[a]) * inv_d[a];
      // fmaxf and fminf return the other operand for a NaN (0 * inf, a ray in a box's face
      // plane), leaving the bound unchanged; one instruction each on the GPU.
      t0 = fmaxf(t0, near);
      t1 = fminf(t1, far);
    }
    t_enter[k] = (n.child[k] != 0 && t0 <= t1 * 1.0000002f) ? t0 : kInf;
  }
}

// What a leaf's item is tested with: its distance along the ray (negative for a miss) and the
// id the hit reports. A triangle's test is the watertight one and its id the input index; the
// two-level trees' top level tests an instance's own tree instead (sim/internal/two_level_hit.h).
struct TriangleLeafTest {
  LT_HD float operator()(const WideTriangle& tri, const WatertightRay& wr, float /*t_min*/,
                         float /*t_best*/, int64_t& id) const {
    id = tri.id;
    return RayWideTriangle(tri, wr);
  }
};

// Closest hit (kAnyHit false) or any hit (true) within [t_min, t_max]. Returns the id of the
// item found (the smallest among hits at the same distance, so the answer does not depend on
// the tree's layout), or -1; its distance in t_hit.
template <bool kAnyHit, typename Count = NoTraversalCount, typename LeafTest = TriangleLeafTest>
LT_HD int64_t WideBvhTraverse(const WideBvhView& bvh, const float o[3], const float d[3],
                              float t_min, float t_max, float& t_hit, Count* count = nullptr,
                              const LeafTest& leaf_test = {}) {
  constexpr float kInf = __builtin_huge_valf();
  Count none;
  Count& counted = count ? *count : none;
  int64_t best = -1;
  float t_best = t_max;
  t_hit = t_max;
  if (bvh.count == 0) return -1;
  const WatertightRay wr = MakeWatertightRay(o, d);
  const float inv_d[3] = {1.0f / d[0], 1.0f / d[1], 1.0f / d[2]};
  // Near plane of each axis: the low bound for a positive direction, else the high one.
  const bool negative[3] = {inv_d[0] < 0, inv_d[1] < 0, inv_d[2] < 0};
  // Each entry keeps where the ray enters it: an entry beyond the best hit found since it was
  // pushed is dropped at the pop, without fetching its node (closest hit only).
  int32_t stack[kWideStackSize];
  float stack_t[kWideStackSize];
  int sp = 0;
  int32_t item = 0;  // the root
  for (;;) {
    if (item < 0) {  // a leaf
      const uint32_t first = WideLeafFirst(item), n = WideLeafCount(item);
      for (uint32_t i = 0; i < n; ++i) {
        counted.Triangle();
        const WideTriangle tri = LoadWideTriangle(bvh.triangles, first + i);
        int64_t id = 0;
        const float t = leaf_test(tri, wr, t_min, t_best, id);
        const bool nearer = best < 0 ? t <= t_best : (t < t_best || (t == t_best && id < best));
        if (t >= t_min && nearer) {
          t_best = t;
          best = id;
          if (kAnyHit) break;
        }
      }
      if (kAnyHit && best >= 0) break;
    } else {
      const WideNode n = LoadWideNode(bvh.nodes, item);
      counted.Node();
      float t[kWideArity];
      WideChildEntries(n, o, inv_d, negative, t_min, t_best, t);
      int32_t c[kWideArity] = {n.child[0], n.child[1], n.child[2], n.child[3]};
      // Nearest first: a sorting network of five compare-exchanges on (entry, child).
      auto order = [&](int x, int y) {
        if (t[y] < t[x]) {
          const float tt = t[x];
          t[x] = t[y];
          t[y] = tt;
          const int32_t cc = c[x];
          c[x] = c[y];
          c[y] = cc;
        }
      };
      order(0, 1);
      order(2, 3);
      order(0, 2);
      order(1, 3);
      order(1, 2);
      // The far ones on the stack, farthest deepest; the nearest is visited next.
      auto push = [&](int k) {
        if (t[k] < kInf) {
          stack[sp] = c[k];
          stack_t[sp++] = t[k];
        }
      };
      push(3);
      push(2);
      push(1);
      if (t[0] < kInf) {
        item = c[0];
        continue;
      }
    }
    // The widening of the box test: an entry up to t_best * 1.0000002 may still hold a hit.
    while (sp > 0 && !kAnyHit && stack_t[sp - 1] > t_best * 1.0000002f)
      --sp;
    if (sp == 0) break;
    item = stack[--sp];
  }
  t_hit = t_best;
  return best;
}

LT_HD inline int64_t WideClosestHit(const WideBvhView& bvh, const float o[3], const float d[3],
                                    float t_min, float t_max, float& t_hit) {
  return WideBvhTraverse<false>(bvh, o, d, t_min, t_max, t_hit);
}

LT_HD inline bool WideAnyHit(const WideBvhView& bvh, const float o[3], const float d[3],
                             float t_min, float t_max) {
  float t = 0;
  return WideBvhTraverse<true>(bvh, o, d, t_min, t_max, t) >= 0;
}

}  // namespace lt::physics
