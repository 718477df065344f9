#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <string>

#include "lbvh.h"
#include "warp_allocate.cuh"

namespace lt::cuda {

namespace {

using physics::BvhBox;
using physics::BvhNode;
using physics::BvhTriangle;
using physics::CollapseCost;

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
  // Cubic cells, sized by the largest extent: a grid stretched to the bounds on each axis
  // would give a city's 40 m of height as many cells as its 3 km of width, and the curve would
  // then part roofs from the ground beneath them at its top levels (PLOC's SAH cost on the
  // 1 M-triangle benchmark city: 148 with stretched cells, 70 with cubic ones; binned SAH 59).
  float extent = 0;
  for (int a = 0; a < 3; ++a)
    extent = fmaxf(extent, OrderedToFloat(bounds[3 + a]) - OrderedToFloat(bounds[a]));
  uint32_t cell[3];
  for (int a = 0; a < 3; ++a) {
    const float lo = OrderedToFloat(bounds[a]);
    const float c = (t[a] + t[3 + a] + t[6 + a]) * (1.0f / 3.0f);
    const float u = extent > 0 ? (c - lo) / extent : 0.5f;
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
  sorted[i] = ReadTriangle(tri, src);
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

// One thread per leaf climbs towards the root; at each node the second child to arrive
// writes the union of both children's boxes upward (the first one leaves).
__global__ void BoxesKernel(const BvhTriangle* sorted, uint32_t n, BvhNode* nodes,
                            const int32_t* parent, uint32_t* flags) {
  const uint32_t leaf = blockIdx.x * blockDim.x + threadIdx.x;
  if (leaf >= n) return;
  BvhBox box = physics::TriangleBounds(sorted[leaf]);
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

// ---- PLOC (Meister & Bittner, "Parallel locally-ordered clustering for bounding volume
// hierarchy construction", IEEE TVCG 24(3), 2018) ----

constexpr int kPlocRadius = 16;  // neighbours searched on each side in Morton order (paper: 16)

__device__ inline float HalfArea(const BvhBox& a, const BvhBox& b) {
  const float dx = fmaxf(a.hi[0], b.hi[0]) - fminf(a.lo[0], b.lo[0]);
  const float dy = fmaxf(a.hi[1], b.hi[1]) - fminf(a.lo[1], b.lo[1]);
  const float dz = fmaxf(a.hi[2], b.hi[2]) - fminf(a.lo[2], b.lo[2]);
  return dx * dy + dy * dz + dz * dx;
}

__global__ void PlocInitKernel(const BvhTriangle* sorted, uint32_t n, int32_t* clusters,
                               BvhBox* boxes) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  clusters[i] = ~static_cast<int32_t>(i);
  boxes[i] = physics::TriangleBounds(sorted[i]);
}

// A pair's tie-breaker, the same from either end (a hash of the lower and the higher index).
__device__ inline uint32_t PairHash(int a, int b) {
  uint32_t h = static_cast<uint32_t>(min(a, b)) * 0x9E3779B1u ^ static_cast<uint32_t>(max(a, b));
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  return h ^ (h >> 13);
}

// Cluster i's nearest neighbour within the radius among n (boxes in global or shared memory):
// the one whose merged box has the smallest surface area (NaN counted as +inf). Pairs are
// ordered by (area, PairHash, indices), a strict order the same from both ends, so the least
// pair of all is always mutual and every PLOC iteration merges; the hash spreads ties, where
// "lowest index first" would let a run of identical boxes merge one pair an iteration (4,032
// iterations for 20,000 identical boxes in a host model). -1 when there is no other cluster.
__device__ inline int32_t PlocNearest(const BvhBox* boxes, int n, int i) {
  const BvhBox b = boxes[i];
  constexpr float kInf = __builtin_huge_valf();
  float best = kInf;
  uint32_t best_h = 0;
  int best_j = -1;
  const int lo = max(0, i - kPlocRadius), hi = min(n - 1, i + kPlocRadius);
  for (int j = lo; j <= hi; ++j) {
    if (j == i) continue;
    float c = HalfArea(b, boxes[j]);
    if (!(c <= 3.4e38f)) c = kInf;  // NaN and overflow alike
    if (best_j >= 0 && c > best) continue;
    const uint32_t h = PairHash(i, j);
    if (best_j < 0 || c < best || h < best_h || (h == best_h && j < best_j)) {
      best = c;
      best_h = h;
      best_j = j;
    }
  }
  return best_j;
}

// Node `node` over clusters (ca, box a) and (cb, box b); its collapse cost and leaf mark too
// (bvh_collapse.h, pass 1: PLOC makes children before parents, so the collapse need not climb
// the tree for them). Returns the merged box.
__device__ inline BvhBox PlocMakeNode(int32_t node, int32_t ca, const BvhBox& a, int32_t cb,
                                      const BvhBox& b, BvhNode* nodes, CollapseCost* costs,
                                      uint8_t* leaf) {
  BvhNode m;
  m.box[0] = a;
  m.box[1] = b;
  m.child[0] = ca;
  m.child[1] = cb;
  m.pad[0] = m.pad[1] = 0;
  nodes[node] = m;
  bool as_leaf = false;
  costs[node] = physics::CombineCollapseCost(m, physics::ChildCollapseCost(m, 0, costs),
                                             physics::ChildCollapseCost(m, 1, costs), as_leaf);
  leaf[node] = as_leaf ? 1 : 0;
  return physics::BoxUnion(a, b);
}

// PLOC in chunks of the Morton order, one block each (the bottom-up, range-local merging of
// H-PLOC, Benthin et al., HPG 2024, on fixed ranges): a block loads up to kPlocChunk clusters
// into shared memory and runs PLOC's iterations on them, with barriers between iterations,
// until `stop` clusters are left (1: the root); the survivors go, in order, to the start of
// the chunk in `out`, their number to chunk_counts. Where the grid-wide loop paid a few
// launches and a host round trip for each of some 60 iterations, a 1 M-triangle build takes
// three launches of this kernel. Merges stay within a chunk until the next pass: on the 1 M
// city the SAH cost moves from 70.1 to 70.6 (host experiment, chunks of 4,096 down to 64), and
// the last chunk, which one SM merges alone, holds a few hundred clusters, not thousands.
// Nodes are numbered down from total - 2 in the order they are made (one atomic per warp and
// iteration), so the last merge, the root, lands at 0; their collapse costs are made with them.
constexpr int kPlocThreads = 1024;
constexpr int kPlocPerThread = 4;  // a thread's clusters are consecutive: order is kept
constexpr int kPlocChunk = kPlocThreads * kPlocPerThread;
constexpr int kPlocChunkStop = 64;  // survivors of a chunk before the next pass

__global__ void __launch_bounds__(kPlocThreads)
    PlocChunkKernel(const int32_t* clusters, const BvhBox* boxes, const int32_t* count, int stop,
                    uint32_t total, BvhNode* nodes, uint32_t* merged, CollapseCost* costs,
                    uint8_t* leaf, int32_t* out_clusters, BvhBox* out_boxes,
                    int32_t* chunk_counts) {
  using Scan = cub::BlockScan<int, kPlocThreads>;
  extern __shared__ unsigned char shared_bytes[];
  auto* s_box = reinterpret_cast<BvhBox*>(shared_bytes);
  auto* s_cluster = reinterpret_cast<int32_t*>(s_box + kPlocChunk);
  auto* s_neighbour = s_cluster + kPlocChunk;
  __shared__ typename Scan::TempStorage scan_storage;
  const int t = static_cast<int>(threadIdx.x);
  const int begin = static_cast<int>(blockIdx.x) * kPlocChunk;
  int n = min(*count - begin, kPlocChunk);
  if (n <= 0) {
    if (t == 0) chunk_counts[blockIdx.x] = 0;
    return;
  }
  for (int i = t; i < n; i += kPlocThreads) {
    s_box[i] = boxes[begin + i];
    s_cluster[i] = clusters[begin + i];
  }
  __syncthreads();
  while (n > stop && n > 1) {
    const int first = t * kPlocPerThread;
    for (int k = 0; k < kPlocPerThread && first + k < n; ++k)
      s_neighbour[first + k] = PlocNearest(s_box, n, first + k);
    __syncthreads();
    // Merge into registers, then compact in place once every thread has read what it needs.
    int32_t cluster[kPlocPerThread];
    BvhBox box[kPlocPerThread];
    bool keep[kPlocPerThread], makes[kPlocPerThread];
    uint32_t kept = 0, made = 0;
    for (int k = 0; k < kPlocPerThread; ++k) {
      const int i = first + k;
      keep[k] = makes[k] = false;
      if (i >= n) continue;
      const int j = s_neighbour[i];
      const bool mutual = j >= 0 && s_neighbour[j] == i;
      keep[k] = !(mutual && i > j);  // the partner keeps the merged cluster
      makes[k] = mutual && i < j;
      kept += keep[k];
      made += makes[k];
    }
    uint32_t k_node = WarpAllocate(merged, made);
    for (int k = 0; k < kPlocPerThread; ++k) {
      const int i = first + k;
      if (!keep[k]) continue;
      cluster[k] = s_cluster[i];
      box[k] = s_box[i];
      if (!makes[k]) continue;
      const int j = s_neighbour[i];
      const auto node = static_cast<int32_t>(total - 2 - k_node++);
      box[k] = PlocMakeNode(node, cluster[k], box[k], s_cluster[j], s_box[j], nodes, costs, leaf);
      cluster[k] = node;
    }
    int at = 0, survivors = 0;
    Scan(scan_storage).ExclusiveSum(static_cast<int>(kept), at, survivors);
    __syncthreads();  // every read of this iteration is done
    for (int k = 0; k < kPlocPerThread; ++k) {
      if (!keep[k]) continue;
      s_cluster[at] = cluster[k];
      s_box[at] = box[k];
      ++at;
    }
    n = survivors;
    __syncthreads();
  }
  for (int i = t; i < n; i += kPlocThreads) {
    out_clusters[begin + i] = s_cluster[i];
    out_boxes[begin + i] = s_box[i];
  }
  if (t == 0) chunk_counts[blockIdx.x] = n;
}

// The chunks' survivors packed together in chunk order (kept Morton order): block b copies
// chunk b's after those of the chunks before it; the last block writes the new count.
__global__ void PlocPackKernel(const int32_t* clusters, const BvhBox* boxes,
                               const int32_t* chunk_counts, int chunks, int32_t* out_clusters,
                               BvhBox* out_boxes, int32_t* count) {
  using Sum = cub::BlockReduce<int, kBuildBlock>;
  __shared__ typename Sum::TempStorage sum_storage;
  __shared__ int s_offset;
  const int b = static_cast<int>(blockIdx.x);
  int partial = 0;
  for (int c = static_cast<int>(threadIdx.x); c < b; c += blockDim.x)
    partial += chunk_counts[c];
  const int offset = Sum(sum_storage).Sum(partial);
  if (threadIdx.x == 0) {
    s_offset = offset;
    if (b == chunks - 1) *count = offset + chunk_counts[b];
  }
  __syncthreads();
  const int begin = b * kPlocChunk;
  for (int i = static_cast<int>(threadIdx.x); i < chunk_counts[b]; i += blockDim.x) {
    out_clusters[s_offset + i] = clusters[begin + i];
    out_boxes[s_offset + i] = boxes[begin + i];
  }
}

// Parent of every node and leaf (internal nodes at [0, n-1), leaves at [n-1, 2n-1)), from the
// nodes' child links: what the bottom-up box pass climbs, whatever builder made the tree.
__global__ void ParentsKernel(const BvhNode* nodes, uint32_t n, int32_t* parent) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 1) return;
  if (i == 0) parent[0] = -1;  // the root is nobody's child
  for (int k = 0; k < 2; ++k) {
    const int32_t c = nodes[i].child[k];
    parent[c >= 0 ? c : static_cast<int32_t>(n - 1) + ~c] = static_cast<int32_t>(i);
  }
}

}  // namespace

void DeviceBvh::ReleaseBuildMemory() {
  codes_.Release();
  codes_sorted_.Release();
  index_.Release();
  temp_.Release();
  for (int k = 0; k < 2; ++k) {
    clusters_[k].Release();
    cluster_boxes_[k].Release();
  }
  chunk_counts_.Release();
  costs_.Release();
  leaf_.Release();
  for (auto& items : items_)
    items.Release();
}

Status DeviceBvh::Parents(cudaStream_t stream) {
  const uint32_t n = count_;
  if (Status s = parent_.Reserve(2 * static_cast<size_t>(n) - 1); !s.ok()) return s;
  ParentsKernel<<<BuildBlocks(n - 1), kBuildBlock, 0, stream>>>(nodes_.get(), n, parent_.get());
  LT_CUDA_TRY(cudaGetLastError());
  return {};
}

Status DeviceBvh::GatherInOrder(const float* triangles, const uint32_t* index,
                                cudaStream_t stream) {
  if (Status s = sorted_.Reserve(count_); !s.ok()) return s;
  GatherKernel<<<BuildBlocks(count_), kBuildBlock, 0, stream>>>(triangles, count_, index,
                                                                sorted_.get(), order_.get());
  LT_CUDA_TRY(cudaGetLastError());
  return {};
}

Status DeviceBvh::Refit(const float* triangles, cudaStream_t stream) {
  const uint32_t n = count_;
  if (n == 0) return {};
  // The sorted triangles again, from the new positions, in the order of the build.
  if (Status s = GatherInOrder(triangles, order_.get(), stream); !s.ok()) return s;
  if (n == 1) return Collapse(stream);
  if (Status s = flags_.Reserve(n - 1); !s.ok()) return s;
  if (Status s = Parents(stream); !s.ok()) return s;
  LT_CUDA_TRY(cudaMemsetAsync(flags_.get(), 0, (n - 1) * sizeof(uint32_t), stream));
  BoxesKernel<<<BuildBlocks(n), kBuildBlock, 0, stream>>>(sorted_.get(), n, nodes_.get(),
                                                          parent_.get(), flags_.get());
  LT_CUDA_TRY(cudaGetLastError());
  return Collapse(stream);
}

namespace {
constexpr size_t kPlocShared = kPlocChunk * (sizeof(BvhBox) + 2 * sizeof(int32_t));

// Whether this GPU gives a block the shared memory PLOC's chunks need (Hopper and the A100 do,
// some smaller GPUs do not).
bool PlocFitsTheGpu() {
  int device = 0, optin = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
      cudaSuccess)
    return false;
  return static_cast<size_t>(optin) >= kPlocShared + 16 * 1024;  // + the scan's own
}
}  // namespace

Status DeviceBvh::BuildPloc(uint32_t n, cudaStream_t stream) {
  const uint32_t chunks = (n + kPlocChunk - 1) / kPlocChunk;
  for (int k = 0; k < 2; ++k) {
    if (Status s = clusters_[k].Reserve(n); !s.ok()) return s;
    if (Status s = cluster_boxes_[k].Reserve(n); !s.ok()) return s;
  }
  for (Status s : {merged_.Reserve(1), cluster_count_.Reserve(1), chunk_counts_.Reserve(chunks),
                   nodes_.Reserve(n - 1), costs_.Reserve(n - 1), leaf_.Reserve(n - 1)}) {
    if (!s.ok()) return s;
  }
  PlocInitKernel<<<BuildBlocks(n), kBuildBlock, 0, stream>>>(sorted_.get(), n, clusters_[0].get(),
                                                             cluster_boxes_[0].get());
  LT_CUDA_TRY(cudaGetLastError());
  const int32_t first_count = static_cast<int32_t>(n);
  LT_CUDA_TRY(cudaMemcpyAsync(cluster_count_.get(), &first_count, sizeof(first_count),
                              cudaMemcpyHostToDevice, stream));
  LT_CUDA_TRY(cudaMemsetAsync(merged_.get(), 0, sizeof(uint32_t), stream));
  constexpr size_t kShared = kPlocShared;
  LT_CUDA_TRY(cudaFuncSetAttribute(PlocChunkKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(kShared)));
  // Passes of chunks down to kPlocChunkStop survivors each, while more than one chunk is left
  // (an upper bound: every PLOC iteration merges at least the pair of least merged area, so a
  // chunk always gets down to its stop); then the last chunk down to the root. No host round
  // trip: the kernels read the cluster count on the device.
  uint64_t upper = n;
  while (upper > static_cast<uint64_t>(kPlocChunk)) {
    const auto blocks = static_cast<unsigned>((upper + kPlocChunk - 1) / kPlocChunk);
    PlocChunkKernel<<<blocks, kPlocThreads, kShared, stream>>>(
        clusters_[0].get(), cluster_boxes_[0].get(), cluster_count_.get(), kPlocChunkStop, n,
        nodes_.get(), merged_.get(), costs_.get(), leaf_.get(), clusters_[1].get(),
        cluster_boxes_[1].get(), chunk_counts_.get());
    LT_CUDA_TRY(cudaGetLastError());
    PlocPackKernel<<<blocks, kBuildBlock, 0, stream>>>(
        clusters_[1].get(), cluster_boxes_[1].get(), chunk_counts_.get(), static_cast<int>(blocks),
        clusters_[0].get(), cluster_boxes_[0].get(), cluster_count_.get());
    LT_CUDA_TRY(cudaGetLastError());
    upper = uint64_t{blocks} * kPlocChunkStop;
  }
  PlocChunkKernel<<<1, kPlocThreads, kShared, stream>>>(
      clusters_[0].get(), cluster_boxes_[0].get(), cluster_count_.get(), 1, n, nodes_.get(),
      merged_.get(), costs_.get(), leaf_.get(), clusters_[1].get(), cluster_boxes_[1].get(),
      chunk_counts_.get());
  LT_CUDA_TRY(cudaGetLastError());
  return {};
}

Status DeviceBvh::Start(uint32_t n) {
  if (n >= physics::kWideMaxTriangles) {
    return Error{"BVH of " + std::to_string(n) + " triangles: a wide tree holds fewer than " +
                 std::to_string(physics::kWideMaxTriangles) +
                 " (lower the GPU's triangles per BVH)"};
  }
  count_ = n;
  wide_nodes_count_ = 0;
  wide_depth_ = 0;
  if (n == 0) return {};
  return order_.Reserve(n);
}

Status DeviceBvh::BuildWith(const float* triangles, uint32_t n, cudaStream_t stream,
                            const ExternalGpuBvhBuild& build) {
  // One triangle (or none) is the Morton path's single-leaf tree; the outside builder takes
  // two or more.
  if (n <= 1) return Build(triangles, n, stream);
  if (Status s = Start(n); !s.ok()) return s;
  for (Status s : {nodes_.Reserve(n - 1), costs_.Reserve(n - 1), leaf_.Reserve(n - 1)}) {
    if (!s.ok()) return s;
  }
  const ExternalGpuBvhOutput out{nodes_.get(), order_.get(), costs_.get(), leaf_.get()};
  if (Status s = build(triangles, n, out, stream); !s.ok()) return s;
  // The builder wrote the collapse's leaf marks, so neither parents nor their climb are needed
  // (on the H200 they took some 1.3 ms of a 10 M-triangle build, bench/RESULTS.md). Its leaves
  // are runs of sorted positions (ExternalGpuBvhOutput), so the wide tree's triangles are
  // written from the input in sorted order in one pass and its leaves point at them: no gather
  // into a sorted copy (0.68 ms of that build under ncu; a Refit gathers it), and no triangle
  // read in the collapse's levels.
  return Collapse(stream, /*costs_ready=*/true, triangles, /*runs_in_order=*/true);
}

Status DeviceBvh::Build(const float* triangles, uint32_t n, cudaStream_t stream,
                        BvhBuilder builder) {
  if (Status s = Start(n); !s.ok() || n == 0) return s;
  if (Status s = codes_.Reserve(n); !s.ok()) return s;
  if (Status s = codes_sorted_.Reserve(n); !s.ok()) return s;
  if (Status s = index_.Reserve(2 * static_cast<size_t>(n)); !s.ok()) return s;
  if (Status s = bounds_.Reserve(6); !s.ok()) return s;
  auto* bounds = reinterpret_cast<uint32_t*>(bounds_.get());
  InitBoundsKernel<<<1, 32, 0, stream>>>(bounds);
  CentroidBoundsKernel<<<BuildBlocks(n), kBuildBlock, 0, stream>>>(triangles, n, bounds);
  MortonKernel<<<BuildBlocks(n), kBuildBlock, 0, stream>>>(triangles, n, bounds, codes_.get(),
                                                           index_.get());
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
  if (Status s = GatherInOrder(triangles, index_sorted, stream); !s.ok()) return s;
  if (n == 1) return Collapse(stream);
  // Where PLOC's chunks do not fit a block's shared memory, the LBVH: a slower tree to trace,
  // the same hits.
  if (builder == BvhBuilder::kPloc && PlocFitsTheGpu()) {
    if (Status s = BuildPloc(n, stream); !s.ok()) return s;
    return Collapse(stream, /*costs_ready=*/true);
  }
  if (Status s = nodes_.Reserve(n - 1); !s.ok()) return s;
  if (Status s = parent_.Reserve(2 * static_cast<size_t>(n) - 1); !s.ok()) return s;
  if (Status s = flags_.Reserve(n - 1); !s.ok()) return s;
  LT_CUDA_TRY(cudaMemsetAsync(flags_.get(), 0, (n - 1) * sizeof(uint32_t), stream));
  HierarchyKernel<<<BuildBlocks(n - 1), kBuildBlock, 0, stream>>>(codes_sorted_.get(), n,
                                                                  nodes_.get(), parent_.get());
  BoxesKernel<<<BuildBlocks(n), kBuildBlock, 0, stream>>>(sorted_.get(), n, nodes_.get(),
                                                          parent_.get(), flags_.get());
  LT_CUDA_TRY(cudaGetLastError());
  return Collapse(stream);
}

}  // namespace lt::cuda
