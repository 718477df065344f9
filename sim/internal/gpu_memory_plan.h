// How the CUDA backend splits a scene and a frame to fit the GPU's free memory: the scene into
// BVHs of at most `triangles_per_bvh` triangles (built one after another, so only one build's
// scratch memory is ever allocated), the frame into launches of `beams_per_batch` beams.
// Plain C++ so the planning is tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lidartwin/base/status.h"

namespace lt {

// Device bytes per triangle for the whole run: float triangle (36), double plane (48), owner
// (4), binary tree node (64), sorted triangle (36), order (4), parent links (8), refit flags
// (4), wide nodes (fewer than 2/3 of a 64-byte node per triangle: 43), leaf triangle (48),
// and what a refit's collapse keeps (costs 8, leaf marks 1, level items 8).
inline constexpr size_t kGpuBytesPerTriangle =
    36 + 48 + 4 + 64 + 36 + 4 + 8 + 4 + 43 + 48 + 8 + 1 + 8;
// Device bytes per triangle only while its BVH is built: Morton codes and their sorted copy
// (8), sort indices (8), CUB radix-sort scratch (about 16), PLOC clusters (8), cluster boxes
// (48), flags (1), the collapse's costs (8), leaf marks (1) and level items (8); rounded up to
// leave room for CUB's alignment.
inline constexpr size_t kGpuBuildBytesPerTriangle = 128;
// Share of the free memory the plan may use (the rest: CUDA context growth, kernel stacks,
// allocator granularity).
inline constexpr double kGpuUsableFraction = 0.9;

struct GpuMemoryPlan {
  uint32_t triangles_per_bvh = 0;
  uint32_t beams_per_batch = 0;
  uint32_t bvh_count = 0;
  uint32_t batch_count = 0;
};

// bytes_per_beam: device bytes per beam of a batch. max_*: user limits (0: none). An error
// names what does not fit, by how much, and what to do instead.
Expected<GpuMemoryPlan> PlanGpuMemory(size_t free_bytes, uint64_t triangles, uint32_t beams,
                                      size_t bytes_per_beam, uint32_t max_triangles_per_bvh,
                                      uint32_t max_beams_per_batch);

}  // namespace lt
