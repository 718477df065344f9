#include <cub/device/device_radix_sort.cuh>

#include "lbvh.h"

namespace lt::cuda {

namespace {

using physics::BvhBox;
using physics::BvhNode;
using physics::BvhTriangle;

constexpr int kBlock = 256;

inline unsigned Blocks(uint32_t n) {
  return (n + kBlock - 1) / kBlock;
}

// Floats mapped to unsigned integers of the same order, so atomicMin/atomicMax work on them.
__device__ inline uint32_t FloatToOrdered(float f) {
  const uint32_t b = __float_as_uint(f);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ inline float OrderedToFloat(uint32_t u) {
  return __uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}

__global__ void InitBoundsKernel(uint32_t* bounds) {
  if (threadIdx.x < 3)
    bounds[threadIdx.x] = 0xffffffffu;  // lo: max, then atomicMin
  else if (threadIdx.x < 6)
    bounds[threadIdx.x] = 0u;  // hi: min, then atomicMax
}

// Bounds of the triangle centroids (what the Morton grid must cover).
__global__ void CentroidBoundsKernel(const float* tri, uint32_t n, uint32_t* bounds) {
  __shared__ uint32_t s[6];
  if (threadIdx.x < 6) s[threadIdx.x] = threadIdx.x < 3 ? 0xffffffffu : 0u;
  __syncthreads();
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float* t = tri + 9 * static_cast<size_t>(i);
    for (int a = 0; a < 3; ++a) {
      const uint32_t c = FloatToOrdered((t[a] + t[3 + a] + t[6 + a]) * (1.0f / 3.0f));
      atomicMin(&s[a], c);
      atomicMax(&s[3 + a], c);
    }
  }
  __syncthreads();
  if (threadIdx.x < 3)
    atomicMin(&bounds[threadIdx.x], s[threadIdx.x]);
  else if (threadIdx.x < 6)
    atomicMax(&bounds[threadIdx.x], s[threadIdx.x]);
}

// 10 bits -> 30 bits with two zeros between bits.
__device__ inline uint32_t ExpandBits(uint32_t v) {
  v = (v * 0x00010001u) & 0xFF0000FFu;
  v = (v * 0x00000101u) & 0x0F00F00Fu;
  v = (v * 0x00000011u) & 0xC30C30C3u;
  v = (v * 0x00000005u) & 0x49249249u;
  return v;
}

__global__ void MortonKernel(const float* tri, uint32_t n, const uint32_t* bounds, uint32_t* codes,
                             uint32_t* index) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* t = tri + 9 * static_cast<size_t>(i);
  uint32_t cell[3];
  for (int a = 0; a < 3; ++a) {
    const float lo = OrderedToFloat(bounds[a]);
    const float hi = OrderedToFloat(bounds[3 + a]);
    const float c = (t[a] + t[3 + a] + t[6 + a]) * (1.0f / 3.0f);
    const float u = hi > lo ? (c - lo) / (hi - lo) : 0.5f;
    cell[a] = static_cast<uint32_t>(fminf(fmaxf(u * 1024.0f, 0.0f), 1023.0f));
  }
  codes[i] = (ExpandBits(cell[0]) << 2) | (ExpandBits(cell[1]) << 1) | ExpandBits(cell[2]);
  index[i] = i;
}

__global__ void GatherKernel(const float* tri, uint32_t n, const uint32_t* sorted_index,
                             BvhTriangle* sorted, uint32_t* order) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t src = sorted_index[i];
  const float* t = tri + 9 * static_cast<size_t>(src);
  BvhTriangle out;
  for (int a = 0; a < 3; ++a) {
    out.v0[a] = t[a];
    out.v1[a] = t[3 + a];
    out.v2[a] = t[6 + a];
  }
  sorted[i] = out;
  order[i] = src;
}

// Karras 2012, common prefix length of sorted codes i and j; equal codes are told apart by
// their positions, so duplicates still give a valid tree.
__device__ inline int Delta(const uint32_t* codes, uint32_t n, int i, int j) {
  if (j < 0 || j >= static_cast<int>(n)) return -1;
  const uint32_t a = codes[i], b = codes[j];
  if (a == b) return 32 + __clz(static_cast<uint32_t>(i) ^ static_cast<uint32_t>(j));
  return __clz(a ^ b);
}

__global__ void HierarchyKernel(const uint32_t* codes, uint32_t n, BvhNode* nodes,
                                int32_t* parent) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= static_cast<int>(n) - 1) return;
  // Direction of the range and its length (Karras 2012, Fig. 4).
  const int d = (Delta(codes, n, i, i + 1) - Delta(codes, n, i, i - 1)) >= 0 ? 1 : -1;
  const int delta_min = Delta(codes, n, i, i - d);
  int l_max = 2;
  while (Delta(codes, n, i, i + l_max * d) > delta_min)
    l_max *= 2;
  int l = 0;
  for (int t = l_max / 2; t >= 1; t /= 2) {
    if (Delta(codes, n, i, i + (l + t) * d) > delta_min) l += t;
  }
  const int j = i + l * d;
  // Split position by binary search on the common prefix.
  const int delta_node = Delta(codes, n, i, j);
  int s = 0;
  for (int div = 2;; div *= 2) {
    const int t = (l + div - 1) / div;
    if (Delta(codes, n, i, i + (s + t) * d) > delta_node) s += t;
    if (t == 1) break;
  }
  const int gamma = i + s * d + (d < 0 ? -1 : 0);
  const int lo = i < j ? i : j;
  const int hi = i < j ? j : i;
  const int32_t left = (lo == gamma) ? ~gamma : gamma;
  const int32_t right = (hi == gamma + 1) ? ~(gamma + 1) : gamma + 1;
  nodes[i].child[0] = left;
  nodes[i].child[1] = right;
  // parent: internal nodes at [0, n-1), leaves at [n-1, 2n-1).
  parent[left >= 0 ? left : (n - 1) + ~left] = i;
  parent[right >= 0 ? right : (n - 1) + ~right] = i;
  if (i == 0) parent[0] = -1;
}

__device__ inline BvhBox TriangleBox(const BvhTriangle& t) {
  BvhBox b;
  for (int a = 0; a < 3; ++a) {
    const float p0 = t.v0[a], p1 = t.v1[a], p2 = t.v2[a];
    b.lo[a] = fminf(p0, fminf(p1, p2));
    b.hi[a] = fmaxf(p0, fmaxf(p1, p2));
  }
  return b;
}

// One thread per leaf climbs towards the root; at each node the second child to arrive
// writes the union of both children's boxes upward (the first one leaves).
__global__ void BoxesKernel(const BvhTriangle* sorted, uint32_t n, BvhNode* nodes,
                            const int32_t* parent, uint32_t* flags) {
  const uint32_t leaf = blockIdx.x * blockDim.x + threadIdx.x;
  if (leaf >= n) return;
  BvhBox box = TriangleBox(sorted[leaf]);
  int32_t child = ~static_cast<int32_t>(leaf);
  int32_t p = parent[(n - 1) + leaf];
  while (p >= 0) {
    volatile BvhNode* node = nodes + p;
    const int slot = node->child[0] == child ? 0 : 1;
    for (int a = 0; a < 3; ++a) {
      node->box[slot].lo[a] = box.lo[a];
      node->box[slot].hi[a] = box.hi[a];
    }
    __threadfence();
    if (atomicAdd(&flags[p], 1u) == 0) return;  // the sibling is not done yet
    __threadfence();
    const int other = 1 - slot;
    for (int a = 0; a < 3; ++a) {
      box.lo[a] = fminf(box.lo[a], node->box[other].lo[a]);
      box.hi[a] = fmaxf(box.hi[a], node->box[other].hi[a]);
    }
    child = p;
    p = parent[p];
  }
}

}  // namespace

Status DeviceBvh::Build(const float* triangles, uint32_t n, cudaStream_t stream) {
  count_ = n;
  if (n == 0) return {};
  if (Status s = sorted_.Reserve(n); !s.ok()) return s;
  if (Status s = order_.Reserve(n); !s.ok()) return s;
  if (Status s = codes_.Reserve(n); !s.ok()) return s;
  if (Status s = codes_sorted_.Reserve(n); !s.ok()) return s;
  if (Status s = index_.Reserve(2 * static_cast<size_t>(n)); !s.ok()) return s;
  if (Status s = bounds_.Reserve(6); !s.ok()) return s;
  auto* bounds = reinterpret_cast<uint32_t*>(bounds_.get());
  InitBoundsKernel<<<1, 32, 0, stream>>>(bounds);
  CentroidBoundsKernel<<<Blocks(n), kBlock, 0, stream>>>(triangles, n, bounds);
  MortonKernel<<<Blocks(n), kBlock, 0, stream>>>(triangles, n, bounds, codes_.get(), index_.get());
  LT_CUDA_TRY(cudaGetLastError());
  uint32_t* index_sorted = index_.get() + n;
  size_t temp_bytes = 0;
  LT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, codes_.get(),
                                              codes_sorted_.get(), index_.get(), index_sorted,
                                              static_cast<int>(n), 0, 30, stream));
  if (Status s = temp_.Reserve(temp_bytes); !s.ok()) return s;
  LT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp_.get(), temp_bytes, codes_.get(),
                                              codes_sorted_.get(), index_.get(), index_sorted,
                                              static_cast<int>(n), 0, 30, stream));
  GatherKernel<<<Blocks(n), kBlock, 0, stream>>>(triangles, n, index_sorted, sorted_.get(),
                                                 order_.get());
  LT_CUDA_TRY(cudaGetLastError());
  if (n == 1) return {};
  if (Status s = nodes_.Reserve(n - 1); !s.ok()) return s;
  if (Status s = parent_.Reserve(2 * static_cast<size_t>(n) - 1); !s.ok()) return s;
  if (Status s = flags_.Reserve(n - 1); !s.ok()) return s;
  LT_CUDA_TRY(cudaMemsetAsync(flags_.get(), 0, (n - 1) * sizeof(uint32_t), stream));
  HierarchyKernel<<<Blocks(n - 1), kBlock, 0, stream>>>(codes_sorted_.get(), n, nodes_.get(),
                                                        parent_.get());
  BoxesKernel<<<Blocks(n), kBlock, 0, stream>>>(sorted_.get(), n, nodes_.get(), parent_.get(),
                                                flags_.get());
  LT_CUDA_TRY(cudaGetLastError());
  return {};
}

}  // namespace lt::cuda
