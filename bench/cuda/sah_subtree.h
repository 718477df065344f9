// The GPU binned-SAH builder's subtree phase (sah_subtree.cu), for its driver
// (binned_sah_build.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "lidartwin/base/status.h"
#include "lidartwin/physics/bvh_collapse.h"
#include "sah_device.cuh"

namespace lt::bench::sah {

// Builds every subtree task in `tasks` (counters[kSubtreeCount] and [kSmallSubtreeCount] of
// them, at most task_max), a warp each, on `stream`, with no task count read back: as many
// blocks as stay resident (resident_blocks, looked up once and kept), each warp taking tasks
// until none are left. by_levels: BuildSubtreeByLevels, else BuildSubtree. Writes the nodes,
// the primitives' order, and the lanes' nodes' collapse costs and leaf marks.
Status LaunchSahSubtrees(bool by_levels, const SubtreeTasks& tasks, uint32_t task_max,
                         BvhBox* const* boxes, uint32_t* const* ids, uint32_t* counters,
                         BvhNode* nodes, uint32_t* order, physics::CollapseCost* costs,
                         uint8_t* leaf, uint32_t& resident_blocks, cudaStream_t stream);

}  // namespace lt::bench::sah
