// The GPU binned-SAH builder's middle phase (sah_middle.cu), for its driver
// (binned_sah_build.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "lidartwin/base/status.h"
#include "sah_device.cuh"

namespace lt::bench::sah {

// Splits each of the `count` middle tasks (kSahWarpMax + 1 to kSahBlockMax primitives), a block
// each, down to subtree tasks, which it adds to `subtrees`; writes their nodes and the places
// of single primitives in `order`.
Status LaunchSahMiddle(const SahTask* tasks, uint32_t count, BvhBox* const* boxes,
                       uint32_t* const* ids, uint32_t* counters, const SubtreeTasks& subtrees,
                       BvhNode* nodes, uint32_t* order, cudaStream_t stream);

}  // namespace lt::bench::sah
