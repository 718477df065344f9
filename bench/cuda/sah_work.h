// Work items of the GPU's binned-SAH builder (binned_sah_build.cu): what its kernels hand each
// other through device memory.
#pragma once

#include <cstdint>

#include "lidartwin/physics/bvh.h"

namespace lt::bench {

// Bins an axis in the large phase (Wald 2007 uses 16 too); the subtree phase has fewer
// (sah_device.cuh, kSubtreeBins).
inline constexpr int kSahBins = 16;

// The bins of one node: for each axis and bin, the bounds of its primitives' boxes as ordered
// integers (for atomicMin/atomicMax) and how many there are. Nodes of more than 256 primitives
// fill one axis only (sah_device.cuh, LongestAxis).
template <int kBins>
struct BinsOf {
  static constexpr int kCount = kBins;
  uint32_t lo[3][kBins][3];
  uint32_t hi[3][kBins][3];
  uint32_t count[3][kBins];
};
using SahBins = BinsOf<kSahBins>;

// A node still to split: its primitives are [begin, begin + count) of one of two buffers. Its
// node index is known once it splits (sah_device.cuh, NodeIndex), and it writes it into its
// parent's child slot then.
struct SahTask {
  int32_t parent;  // the parent's node index, -1 for the root
  uint32_t side;   // which child of the parent
  uint32_t begin, count;
  uint32_t buffer;
  uint32_t depth;       // of its node below the root
  physics::BvhBox box;  // bounds of its primitives' boxes
};

// A large node's split, for the blocks that partition it.
struct SahSplit {
  int32_t axis;           // 0-2, or -1: at the middle position
  int32_t bin;            // primitives in bins <= bin go left
  uint32_t left;          // how many go left
  int32_t child_task[2];  // the next level's large task of each side, or -1
  uint32_t cursor[2];     // primitives placed on each side so far
};

}  // namespace lt::bench
