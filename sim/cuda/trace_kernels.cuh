// The CUDA backend's closest hits and the kernels that only trace (ADR 0022 step 4: split out
// of cuda_simulator.cu, its only includer): closest hits on the GPU-built BVHs in float,
// refined in double on the hit triangle's plane exactly as the CPU backend refines Embree's hits
// (ADR 0002); the single-hit detectors' beams, one thread a beam; the angular raster's pixels.
#pragma once

#include <cstdint>

#include "internal/beam_pipeline.h"
#include "internal/two_level_hit.h"
#include "lbvh.h"
#include "lidartwin/physics/ray_triangle.h"

namespace lt::cuda {

using physics::Vec3;

// One BVH over triangles [first, first + count) of the scene soup (a scene too large to build
// at once is split into several, gpu_memory_plan.h).
struct BvhChunk {
  physics::WideBvhView view;  // its leaves give triangle indices within the chunk
  uint32_t first;
};

// Closest hits on the GPU-built BVHs in float, refined in double on the hit triangle's plane
// exactly as the CPU backend refines Embree's hits (ADR 0002): the still geometry's chunks, then
// the placed objects' two-level tree (sim/internal/two_level_hit.h) no farther than the still
// hit, which keeps the hit on equal float distances (as the top level keeps the lower id).
struct GpuClosestHit {
  const BvhChunk* chunks;
  uint32_t chunk_count;
  const TrianglePlane* planes;
  const uint32_t* tri_object;
  // The placed objects (docs/adr/0030): one top level for the frame over each instance's box
  // swept through the frame's motion slices, and each slice's transforms: slice k covers the
  // beams from slice_begin[k] on and its instances are [k n, (k + 1) n), n = instance_count,
  // so a frame's slices run in one launch.
  const uint32_t* slice_begin;
  uint32_t slices;
  const InstanceRecord* all_instances;
  uint32_t instance_count;
  const ModelTree* models;
  physics::WideBvhView top;  // leaves' ids index `instances` (count 0: nothing placed)
  // The slice a query is in: the first one's unless ForBeam chose.
  const InstanceRecord* instances;

  // This with the transforms of the slice holding `beam`.
  __device__ GpuClosestHit ForBeam(uint32_t beam) const {
    GpuClosestHit c = *this;
    if (slices < 2) return c;
    uint32_t lo = 0, hi = slices;  // the last slice beginning at or before the beam
    while (hi - lo > 1) {
      const uint32_t mid = (lo + hi) / 2;
      if (slice_begin[mid] <= beam) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    c.instances = all_instances + size_t{lo} * instance_count;
    return c;
  }

  __device__ SurfaceHit operator()(const Vec3<double>& o, const Vec3<double>& d, double t_min,
                                   double t_max) const {
    const float of[3] = {static_cast<float>(o.x), static_cast<float>(o.y), static_cast<float>(o.z)};
    const float df[3] = {static_cast<float>(d.x), static_cast<float>(d.y), static_cast<float>(d.z)};
    // The nearest float hit over all chunks; each later chunk only searches nearer than it.
    float t_best = static_cast<float>(t_max);
    int64_t tri = -1;
    for (uint32_t k = 0; k < chunk_count; ++k) {
      float t = 0;
      const int64_t j =
          physics::WideClosestHit(chunks[k].view, of, df, static_cast<float>(t_min), t_best, t);
      if (j >= 0 && (tri < 0 || t < t_best)) {
        t_best = t;
        tri = chunks[k].first + j;
      }
    }
    const InstanceHit placed =
        ClosestInstanceHit(top, instances, models, of, df, static_cast<float>(t_min), t_best);
    Vec3<double> a, n;
    uint32_t object = 0;
    if (placed.instance >= 0 && (tri < 0 || placed.t < t_best)) {
      const InstanceRecord& in = instances[placed.instance];
      const PlacedPlane p = PlaceModelPlane(in, models[in.model].planes[placed.triangle]);
      a = p.a;
      n = p.n;
      object = in.object;
    } else if (tri >= 0) {
      const TrianglePlane& p = planes[tri];
      a = {p.a[0], p.a[1], p.a[2]};
      n = {p.n[0], p.n[1], p.n[2]};
      object = tri_object[tri];
    } else {
      return {false, 0, {0, 0, 0}, 0};
    }
    const double td = physics::RayPlaneDistance(o, d, a, n);
    if (!(td >= t_min && td <= t_max)) return {false, 0, {0, 0, 0}, 0};
    return {true, td, n, object};
  }
};

__global__ void SimulateFrameKernel(FrameContext c, GpuClosestHit closest, BeamRecord* out,
                                    uint32_t beam_begin, uint32_t beams) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= beams) return;
  SimulateBeam(c, beam_begin + i, closest.ForBeam(beam_begin + i),
               out + size_t{i} * c.echoes_per_beam);
}

// One thread per pixel of the frame's angular raster (raster gathering, seed 004 Alg. 1).
__global__ void TraceRasterKernel(FrameContext c, GpuClosestHit closest, physics::Pose<double> pose,
                                  RasterPixel* pixels) {
  const uint64_t k = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (k >= uint64_t{c.raster.naz} * c.raster.nel) return;
  const auto i = static_cast<uint32_t>(k % c.raster.naz);
  const auto j = static_cast<uint32_t>(k / c.raster.naz);
  pixels[k] = TraceRasterPixel(c, i, j, pose, closest);
}

}  // namespace lt::cuda
