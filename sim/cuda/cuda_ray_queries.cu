// Ray queries on a GPU-built BVH for tests (against brute force) and benchmarks.
#include <algorithm>

#include "device_buffer.h"
#include "lbvh.h"
#include "lidartwin/sim/cuda_backend.h"

namespace lt {

namespace {

using cuda::DeviceBuffer;

__global__ void ClosestHitKernel(physics::WideBvhView bvh, const float* origins,
                                 const float* directions, uint32_t n, float t_min, float t_max,
                                 int32_t* triangle, float* distance) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float o[3] = {origins[3 * i], origins[3 * i + 1], origins[3 * i + 2]};
  const float d[3] = {directions[3 * i], directions[3 * i + 1], directions[3 * i + 2]};
  float t = 0;
  const int64_t k = physics::WideClosestHit(bvh, o, d, t_min, t_max, t);
  triangle[i] = static_cast<int32_t>(k);
  distance[i] = k < 0 ? 0.0f : t;
}

__global__ void AnyHitKernel(physics::WideBvhView bvh, const float* origins,
                             const float* directions, uint32_t n, float t_min, float t_max,
                             uint8_t* occluded) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float o[3] = {origins[3 * i], origins[3 * i + 1], origins[3 * i + 2]};
  const float d[3] = {directions[3 * i], directions[3 * i + 1], directions[3 * i + 2]};
  occluded[i] = physics::WideAnyHit(bvh, o, d, t_min, t_max) ? 1 : 0;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Events {
  cudaEvent_t a = nullptr, b = nullptr;
  Events() {
    cudaEventCreate(&a);
    cudaEventCreate(&b);
  }
  ~Events() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  Expected<double> Ms() {
    LT_CUDA_TRY(cudaEventSynchronize(b));
    float ms = 0;
    LT_CUDA_TRY(cudaEventElapsedTime(&ms, a, b));
    return static_cast<double>(ms);
  }
};

}  // namespace

namespace {
// Builds the BVH of `n` device triangles with the chosen builder.
Status Build(cuda::DeviceBvh& bvh, const float* triangles, uint32_t n, const GpuBvhChoice& b) {
  if (b.external) return bvh.BuildWith(triangles, n, nullptr, b.external);
  return bvh.Build(
      triangles, n, nullptr,
      b.builder == GpuBvhBuilder::kPloc ? cuda::BvhBuilder::kPloc : cuda::BvhBuilder::kLbvh);
}

// Uploads a triangle soup (9 floats per triangle) and builds its BVH.
Status UploadAndBuild(const std::vector<float>& triangles, const GpuBvhChoice& builder,
                      DeviceBuffer<float>& device_triangles, cuda::DeviceBvh& bvh) {
  if (Status s = cuda::CheckBvhCoordinates(triangles); !s.ok()) return s;
  if (Status s = device_triangles.Upload(triangles); !s.ok()) return s;
  return Build(bvh, device_triangles.get(), static_cast<uint32_t>(triangles.size() / 9), builder);
}

// Median CUDA-event time of `repeats` runs of op (a Status-returning launch sequence).
template <typename Op>
Expected<double> MedianMs(int repeats, Op&& op) {
  Events ev;
  std::vector<double> ms;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    LT_CUDA_TRY(cudaEventRecord(ev.a));
    if (Status s = op(r); !s.ok()) return s.error();
    LT_CUDA_TRY(cudaEventRecord(ev.b));
    auto t = ev.Ms();
    if (!t.ok()) return t.error();
    ms.push_back(t.value());
  }
  return Median(ms);
}

}  // namespace

Expected<std::vector<uint8_t>> CudaAnyHits(const std::vector<float>& triangles,
                                           const std::vector<float>& origins,
                                           const std::vector<float>& directions, float t_min,
                                           float t_max, const GpuBvhChoice& builder) {
  if (Status s = CudaAvailable(); !s.ok()) return s.error();
  if (origins.size() != directions.size() || origins.size() % 3 != 0) {
    return Error{"CudaAnyHits: origins and directions must be 3 floats per ray"};
  }
  const auto n_rays = static_cast<uint32_t>(origins.size() / 3);
  DeviceBuffer<float> tri, o, d;
  DeviceBuffer<uint8_t> occluded;
  cuda::DeviceBvh bvh;
  for (Status s : {o.Upload(origins), d.Upload(directions), occluded.Reserve(n_rays),
                   UploadAndBuild(triangles, builder, tri, bvh)}) {
    if (!s.ok()) return s.error();
  }
  AnyHitKernel<<<(n_rays + 127) / 128, 128>>>(bvh.View(), o.get(), d.get(), n_rays, t_min, t_max,
                                              occluded.get());
  LT_CUDA_TRY(cudaGetLastError());
  std::vector<uint8_t> out(n_rays);
  if (Status s = occluded.Download(out.data(), n_rays); !s.ok()) return s.error();
  return out;
}

Expected<GpuBvhTree> CudaBvhTree(const std::vector<float>& triangles, const GpuBvhChoice& builder) {
  if (Status s = CudaAvailable(); !s.ok()) return s.error();
  if (triangles.size() % 9 != 0 || triangles.size() < 18)
    return Error{"CudaBvhTree: at least two triangles of 9 floats each"};
  DeviceBuffer<float> tri;
  cuda::DeviceBvh bvh;
  if (Status s = UploadAndBuild(triangles, builder, tri, bvh); !s.ok()) return s.error();
  const uint32_t n = bvh.count();
  GpuBvhTree out;
  out.nodes.resize(n - 1);
  out.order.resize(n);
  out.wide.nodes.resize(bvh.wide_node_count());
  out.wide.triangles.resize(n);
  out.wide.depth = bvh.wide_depth();
  LT_CUDA_TRY(cudaMemcpy(out.nodes.data(), bvh.BinaryNodes(), (n - 1) * sizeof(physics::BvhNode),
                         cudaMemcpyDeviceToHost));
  LT_CUDA_TRY(
      cudaMemcpy(out.order.data(), bvh.Order(), n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  LT_CUDA_TRY(cudaMemcpy(out.wide.nodes.data(), bvh.View().nodes,
                         out.wide.nodes.size() * sizeof(physics::WideNode),
                         cudaMemcpyDeviceToHost));
  LT_CUDA_TRY(cudaMemcpy(out.wide.triangles.data(), bvh.View().triangles,
                         n * sizeof(physics::WideTriangle), cudaMemcpyDeviceToHost));
  return out;
}

Expected<double> CudaBvhBuildMs(const std::vector<float>& triangles, int repeats,
                                const GpuBvhChoice& builder) {
  if (Status s = CudaAvailable(); !s.ok()) return s.error();
  DeviceBuffer<float> tri;
  cuda::DeviceBvh bvh;
  // The first build is the warm-up; it also makes the allocations.
  if (Status s = UploadAndBuild(triangles, builder, tri, bvh); !s.ok()) return s.error();
  const auto n = static_cast<uint32_t>(triangles.size() / 9);
  LT_CUDA_TRY(cudaDeviceSynchronize());
  return MedianMs(repeats, [&](int) { return Build(bvh, tri.get(), n, builder); });
}

Expected<double> CudaBvhRefitMs(const std::vector<float>& triangles,
                                const std::vector<float>& moved, int repeats,
                                const GpuBvhChoice& builder) {
  if (Status s = CudaAvailable(); !s.ok()) return s.error();
  if (moved.size() != triangles.size()) {
    return Error{"CudaBvhRefitMs: moved must hold the same number of triangles"};
  }
  DeviceBuffer<float> tri, next;
  cuda::DeviceBvh bvh;
  for (Status s : {cuda::CheckBvhCoordinates(moved), next.Upload(moved),
                   UploadAndBuild(triangles, builder, tri, bvh)}) {
    if (!s.ok()) return s.error();
  }
  if (Status s = bvh.Refit(next.get()); !s.ok()) return s.error();  // warm-up, allocations
  LT_CUDA_TRY(cudaDeviceSynchronize());
  // Alternate between the two positions so every refit moves the geometry.
  return MedianMs(repeats, [&](int r) { return bvh.Refit(r % 2 ? tri.get() : next.get()); });
}

Expected<GpuRayResult> CudaClosestHits(const std::vector<float>& triangles,
                                       const std::vector<float>& origins,
                                       const std::vector<float>& directions, float t_min,
                                       float t_max, int repeats, const GpuBvhChoice& builder,
                                       const std::vector<float>* refit_to) {
  if (Status s = CudaAvailable(); !s.ok()) return s.error();
  if (origins.size() != directions.size() || origins.size() % 3 != 0) {
    return Error{"CudaClosestHits: origins and directions must be 3 floats per ray"};
  }
  const auto n_tri = static_cast<uint32_t>(triangles.size() / 9);
  const auto n_rays = static_cast<uint32_t>(origins.size() / 3);
  DeviceBuffer<float> tri, o, d, dist;
  DeviceBuffer<int32_t> hit;
  for (Status s : {cuda::CheckBvhCoordinates(triangles), tri.Upload(triangles), o.Upload(origins),
                   d.Upload(directions), dist.Reserve(n_rays), hit.Reserve(n_rays)}) {
    if (!s.ok()) return s.error();
  }
  GpuRayResult result;
  cuda::DeviceBvh bvh;
  Events ev;
  LT_CUDA_TRY(cudaEventRecord(ev.a));
  if (Status s = Build(bvh, tri.get(), n_tri, builder); !s.ok()) {
    return s.error();
  }
  LT_CUDA_TRY(cudaEventRecord(ev.b));
  auto build = ev.Ms();
  if (!build.ok()) return build.error();
  result.build_ms = build.value();
  DeviceBuffer<float> moved;
  if (refit_to) {
    if (refit_to->size() != triangles.size()) {
      return Error{"CudaClosestHits: refit_to must hold the same number of triangles"};
    }
    if (Status s = cuda::CheckBvhCoordinates(*refit_to); !s.ok()) return s.error();
    if (Status s = moved.Upload(*refit_to); !s.ok()) return s.error();
    LT_CUDA_TRY(cudaEventRecord(ev.a));
    if (Status s = bvh.Refit(moved.get()); !s.ok()) return s.error();
    LT_CUDA_TRY(cudaEventRecord(ev.b));
    auto refit = ev.Ms();
    if (!refit.ok()) return refit.error();
    result.refit_ms = refit.value();
  }
  const int block = 128;
  const unsigned grid = (n_rays + block - 1) / block;
  std::vector<double> ms;
  for (int r = 0; r < std::max(1, repeats) + (repeats > 1 ? 1 : 0); ++r) {
    LT_CUDA_TRY(cudaEventRecord(ev.a));
    ClosestHitKernel<<<grid, block>>>(bvh.View(), o.get(), d.get(), n_rays, t_min, t_max, hit.get(),
                                      dist.get());
    LT_CUDA_TRY(cudaGetLastError());
    LT_CUDA_TRY(cudaEventRecord(ev.b));
    auto t = ev.Ms();
    if (!t.ok()) return t.error();
    if (repeats <= 1 || r > 0) ms.push_back(t.value());  // the first of several is warm-up
  }
  result.trace_ms = Median(ms);
  result.triangle.resize(n_rays);
  result.distance.resize(n_rays);
  if (Status s = hit.Download(result.triangle.data(), n_rays); !s.ok()) return s.error();
  if (Status s = dist.Download(result.distance.data(), n_rays); !s.ok()) return s.error();
  return result;
}

}  // namespace lt
