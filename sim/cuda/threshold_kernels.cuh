// The threshold detector's kernels (ADR 0022 step 4: split out of cuda_simulator.cu, its only
// includer): the sub-rays' signal, one thread a sub-ray; the work each beam's detection will
// take, to sort beams of like work into one warp; the echoes of each beam with a signal.
#pragma once

#include <cstdint>

#include "internal/beam_pipeline.h"
#include "trace_kernels.cuh"
#include "waveform_warp.cuh"

namespace lt::cuda {

// Threshold detector, stages 2-3: one thread per sub-ray (beam i = t / n, sub-ray k = t % n),
// so a frame has beams x sub-rays threads in flight rather than one per beam. Sub-ray k of
// beam i writes its contributions to its own slots (i n + k) S .. + S, S = SlotsPerSubRay
// (surfaces, then rain and snow), and their number to counts[i n + k]; in fog, its clear length
// and weight to c.sub_ray_clear[i n + k].
__global__ void SubRaySignalKernel(FrameContext c, GpuClosestHit closest,
                                   physics::SignalContribution* contributions, uint8_t* counts,
                                   uint32_t beam_begin, uint32_t beams) {
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  const uint64_t t = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (t >= uint64_t{beams} * n) return;
  const auto i = static_cast<uint32_t>(t / n);
  const auto k = static_cast<uint32_t>(t % n);
  const uint32_t beam = beam_begin + i;
  const BeamSetup s = SetUpBeam(c, beam);
  const uint32_t slots = SlotsPerSubRay(c.signal);
  physics::SignalContribution* out = contributions + t * slots;
  GpuClosestHit beam_closest = closest.ForBeam(beam);
  SubRayClear* clear = c.sub_ray_clear ? c.sub_ray_clear + t : nullptr;
  counts[t] = static_cast<uint8_t>(
      c.signal.raster_gather ? RasterSubRaySignal(c, beam, k, s, out, slots, clear)
                             : TraceSubRaySignal(c, beam, k, s, beam_closest, out, slots, clear));
}

// Beam i's fog slabs (AddFogSlabs) after its `count` contributions in out[0 .. most), from its
// sub-rays' clear lengths; returns the new count.
__device__ inline uint32_t AddBeamFog(const FrameContext& c, uint32_t i,
                                      physics::SignalContribution* out, uint32_t count,
                                      uint32_t most, physics::TabledPulses* tabled = nullptr) {
  if (c.signal.fog.slabs == 0 || c.sub_ray_clear == nullptr) return count;
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  return AddFogSlabs(c.signal.fog, c.sub_ray_clear + uint64_t{i} * n, n, out, count, most, tabled);
}

// Batch beam i's contributions, its sub-rays' filled slots one after another, then its fog
// slabs, copied to out[0 .. most); returns how many.
__device__ inline uint32_t GatherContributions(const FrameContext& c,
                                               const physics::SignalContribution* contributions,
                                               const uint8_t* counts, uint32_t i, uint32_t most,
                                               physics::SignalContribution* out,
                                               physics::TabledPulses* tabled = nullptr) {
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  const uint32_t slots = SlotsPerSubRay(c.signal);
  const physics::SignalContribution* seg = contributions + uint64_t{i} * n * slots;
  uint32_t w = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t m = counts[uint64_t{i} * n + k];
    for (uint32_t s = 0; s < m && w < most; ++s)
      out[w++] = seg[k * slots + s];
  }
  return AddBeamFog(c, i, out, w, most, tabled);
}

// GatherContributions by the calling warp: each lane copies one sub-ray's filled slots, at the
// offset the counts' prefix sum across the lanes gives (the same order and cut; lane 0 alone
// spent 270 warp instructions a beam on it in the OS0-128 city frame, `ncu`); lane 0 adds the
// fog's slabs. All lanes get the count.
__device__ inline uint32_t WarpGatherContributions(const FrameContext& c,
                                                   const physics::SignalContribution* contributions,
                                                   const uint8_t* counts, uint32_t i, uint32_t most,
                                                   physics::SignalContribution* out) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  const uint32_t slots = SlotsPerSubRay(c.signal);
  const physics::SignalContribution* seg = contributions + uint64_t{i} * n * slots;
  uint32_t w = 0;  // slots filled before this round of 32 sub-rays
  for (uint32_t base = 0; base < n; base += 32) {
    const uint32_t k = base + lane;
    const uint32_t m = k < n ? counts[uint64_t{i} * n + k] : 0;
    const uint32_t end = cuda::WarpInclusiveSum(m);  // of the round's counts
    for (uint32_t s = 0; s < m && w + end - m + s < most; ++s)
      out[w + end - m + s] = seg[k * slots + s];
    w += __shfl_sync(cuda::kFullMask, end, 31);
  }
  w = w < most ? w : most;
  if (c.signal.fog.slabs == 0) return w;
  __syncwarp();  // every lane's slots written before lane 0 sorts them
  if (lane == 0) w = AddBeamFog(c, i, out, w, most);
  return __shfl_sync(cuda::kFullMask, w, 0);
}

// Threshold detector, stages 4-5: one thread per beam compacts its sub-rays' slots, in
// (sub-ray, surface) order, then its fog's slabs, cut at kMaxContributions exactly as
// GatherBeamSignal does on the CPU, then detects and writes its K echo records.
// Only beams that have a signal run it (active[0 .. *active_count), sorted by their work): a
// warp of beams with like work diverges far less than one where most beams see the sky (the
// records of the others stay cleared). Each beam writes only its own records, so the order of
// the work does not change the frame.
// Four blocks a multiprocessor at most 128 registers a thread (the compiler would take up to
// 252 and run one or two): the weather frame 2.35 against 3.07 ms on the H200, 5 and 6 blocks
// no better (bench/RESULTS.md, "The fog's table").
__global__ void __launch_bounds__(128, 4)
    BeamEchoKernel(FrameContext c, const physics::SignalContribution* contributions,
                   const uint8_t* counts, const uint32_t* active, const uint32_t* active_count,
                   BeamRecord* out, uint32_t beam_begin) {
  const uint32_t a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= *active_count) return;
  const uint32_t i = active[a];
  // The beam's contributions, compacted into this thread's local memory: the detector reads
  // them many times over, and local memory is interleaved across a warp's threads, so those
  // reads coalesce, where reads of each beam's global slots would not (ncu: the kernel waited
  // on scattered global loads).
  physics::SignalContribution local[kMaxContributions];
  physics::TabledPulses tabled;
  const uint32_t w =
      GatherContributions(c, contributions, counts, i, kMaxContributions, local, &tabled);
  BeamRecord* r = out + size_t{i} * c.echoes_per_beam;
  for (uint32_t e = 0; e < c.echoes_per_beam; ++e)
    r[e] = BeamRecord{};
  const BeamPlace s = PlaceBeam(c, beam_begin + i);
  WriteEchoes(c, beam_begin + i, s.b, s.t, s.pose, local, w, r, tabled);
}

// How much detecting beam i will cost, as a sort key: the grid steps DetectEchoes could march
// (the range spread of its contributions plus the two windows, in steps of sigma_r / 4, at most
// 4095) times one more than its sub-rays' contributions (every grid point, bound and search sums
// those near it), subtracted from the largest key but one, so that the beams of most work come
// first; beams without a signal get the largest key and are counted out. Sorting the beams by
// it puts beams of like work in one warp, and the heaviest in the first waves of blocks: with
// the heaviest last, the last wave ran them on a half-empty GPU (weather frame 2.35 against
// 2.15 ms on the H200, bench/RESULTS.md, "The fog's table"). On the H200 (`ncu`, OS0-128 with
// 8 sub-rays in the 1 M-triangle city) the product against the steps alone: BeamEchoKernel 3.18
// against 3.56 ms in fog, rain and snow, 1.46 against 1.51 in snow, 1.57 against 1.56 in rain and
// snow with the fog's extinction alone; the contributions first, then the steps, lost 0.5 ms.
__global__ void BeamWorkKernel(FrameContext c, const physics::SignalContribution* contributions,
                               const uint8_t* counts, uint32_t beams, uint32_t* keys, uint32_t* ids,
                               uint32_t* active_count) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= beams) return;
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  const uint32_t slots = SlotsPerSubRay(c.signal);
  float lo = 3.4e38f, hi = -3.4e38f;
  double total = 0;
  uint32_t terms = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t m = counts[uint64_t{i} * n + k];
    terms += m;
    const physics::SignalContribution* s = contributions + (uint64_t{i} * n + k) * slots;
    for (uint32_t j = 0; j < m; ++j) {
      lo = fminf(lo, s[j].range_m);
      hi = fmaxf(hi, s[j].range_m);
      total += s[j].power_w;
    }
  }
  ids[i] = i;
  if (c.signal.fog.slabs > 0) {
    // The fog's slabs (AddFogSlabs): every beam in fog has a signal, at most the slabs' sum.
    const FogView& f = c.signal.fog;
    lo = fminf(lo, f.slab[0].start_m);
    hi = fmaxf(hi, f.slab[f.slabs - 1].end_m);
    total += f.most_power_w;
  }
  if (total == 0) {
    keys[i] = 0xffffffffu;
    return;
  }
  atomicAdd(active_count, 1u);
  const double sigma = c.signal.threshold.pulse_sigma_m;
  // The widest an echo of all the beam's power can be above the threshold (return_signal.h).
  const double window = physics::GaussianEchoWidth(sigma, total, c.signal.threshold.threshold_w);
  const auto steps = static_cast<uint32_t>(fmin(4095, (hi - lo + window) / (sigma / 4)));
  keys[i] = 0xfffffffeu - (terms + 1) * steps;  // the most work first
}

}  // namespace lt::cuda
