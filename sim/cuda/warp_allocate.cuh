// Slots from a global counter for each active thread, one atomic per warp: the threads of a
// warp take consecutive ranges in lane order (so what one thread allocates stays together, and
// thousands of threads do not queue on one address).
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

#include <cstdint>

namespace lt::cuda {

// Every active thread of the warp must call it at the same point (n may be 0).
__device__ inline uint32_t WarpAllocate(uint32_t* counter, uint32_t n) {
  namespace cg = cooperative_groups;
  const cg::coalesced_group g = cg::coalesced_threads();
  const uint32_t offset = cg::exclusive_scan(g, n);
  uint32_t base = 0;
  if (g.thread_rank() == g.size() - 1) base = atomicAdd(counter, offset + n);
  return g.shfl(base, g.size() - 1) + offset;
}

}  // namespace lt::cuda
