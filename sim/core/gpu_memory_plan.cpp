#include "internal/gpu_memory_plan.h"

#include <algorithm>
#include <string>

namespace lt {

namespace {

std::string MiB(double bytes) {
  return std::to_string(static_cast<long long>(bytes / (1 << 20))) + " MiB";
}

uint32_t CeilDiv(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>((a + b - 1) / b);
}

}  // namespace

Expected<GpuMemoryPlan> PlanGpuMemory(size_t free_bytes, uint64_t triangles, uint32_t beams,
                                      size_t bytes_per_beam, uint32_t max_triangles_per_bvh,
                                      uint32_t max_beams_per_batch) {
  // The smallest useful batch and BVH: below these, launch and build overheads dominate.
  constexpr uint64_t kMinBeams = 1024, kMinBuildTriangles = 4096;
  const double usable = kGpuUsableFraction * static_cast<double>(free_bytes);
  const double resident = static_cast<double>(triangles) * kGpuBytesPerTriangle;
  const double minimum = resident +
                         static_cast<double>(std::min<uint64_t>(triangles, kMinBuildTriangles)) *
                             kGpuBuildBytesPerTriangle +
                         static_cast<double>(std::min<uint64_t>(beams, kMinBeams)) * bytes_per_beam;
  if (minimum > usable) {
    return Error{"the scene's " + std::to_string(triangles) + " triangles need at least " +
                 MiB(minimum) + " of GPU memory and " + MiB(usable) +
                 " are usable; simulate it on the CPU backend (backend cpu) or split the scene"};
  }
  double left = usable - resident;
  GpuMemoryPlan plan;
  // Beams first, up to half of what is left; a frame rarely needs that much.
  uint64_t b = static_cast<uint64_t>(left / 2 / static_cast<double>(bytes_per_beam));
  b = std::max<uint64_t>(std::min<uint64_t>(b, beams), std::min<uint64_t>(beams, kMinBeams));
  if (max_beams_per_batch) b = std::min<uint64_t>(b, max_beams_per_batch);
  plan.beams_per_batch = static_cast<uint32_t>(std::max<uint64_t>(b, 1));
  left -= static_cast<double>(plan.beams_per_batch) * bytes_per_beam;
  uint64_t t = static_cast<uint64_t>(left / kGpuBuildBytesPerTriangle);
  t = std::max<uint64_t>(std::min<uint64_t>(t, triangles),
                         std::min<uint64_t>(triangles, kMinBuildTriangles));
  if (max_triangles_per_bvh) t = std::min<uint64_t>(t, max_triangles_per_bvh);
  plan.triangles_per_bvh = static_cast<uint32_t>(std::max<uint64_t>(t, 1));
  plan.bvh_count = triangles ? CeilDiv(triangles, plan.triangles_per_bvh) : 0;
  plan.batch_count = beams ? CeilDiv(beams, plan.beams_per_batch) : 0;
  return plan;
}

}  // namespace lt
