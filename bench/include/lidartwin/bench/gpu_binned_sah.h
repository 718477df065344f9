// The GPU's binned-SAH BVH builder (Wald 2007; bench/cuda/binned_sah_build.cu): the SAH-quality
// reference the simulator's GPU builders (LBVH, PLOC) are measured against, by build time and
// by the tree's SAH cost. It lives in the bench because the simulator never builds with it.
// Built when LT_WITH_CUDA is on.
#pragma once

#include "lidartwin/sim/cuda_backend.h"

namespace lt::bench {

// How the builder works through its nodes. Either way they take the same splits from the same
// bins, so where bins decide every split the trees are the same (a positional split follows the
// order triangles reach a node in); only the time differs.
struct GpuBinnedSahOptions {
  // true: one block a node, splitting it down to 256 triangles in shared memory (the middle
  // phase); false: a grid launch a level, as the larger nodes are split (the tests compare the
  // two).
  bool block_per_middle_node = true;
  // true: a warp splits the nodes of one depth of its subtree (256 triangles or fewer) together;
  // false: one at a time, depth first. The same splits either way, so the same tree. Off until
  // it is measured on a GPU (docs/adr/0034, "Written, not yet run (2026-12-05, night)").
  bool subtree_by_levels = false;
};

// The builder, for the ray queries of lidartwin/sim/cuda_backend.h (a GpuBvhChoice). Its work
// buffers live as long as the returned function and its copies, so timed repeats reuse them as
// the simulator's builders reuse theirs; for the same reason one builder and its copies build
// one tree at a time (never on two streams or threads at once).
ExternalGpuBvhBuild GpuBinnedSahBuild(GpuBinnedSahOptions options = {});

}  // namespace lt::bench
