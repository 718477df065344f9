// The waveform detector's kernels (ADR 0022 step 4: split out of cuda_simulator.cu, its only
// includer): each beam's voltage record and echoes, two beams a warp with the record in
// registers (waveform_warp.cuh) or one beam a warp with the circuit as recursions
// (waveform_beam.cuh), and their launchers.
#pragma once

#include <cstdint>

#include "internal/beam_pipeline.h"
#include "internal/waveform_setup.h"
#include "threshold_kernels.cuh"
#include "waveform_beam.cuh"
#include "waveform_warp.cuh"

namespace lt::cuda {

// EchoSource for each of the m chosen echoes (echoes and chosen read on lane 0) by the calling
// warp: each lane weighs contributions lane, lane + 32, ... in order, then the warp keeps the
// strongest, the lowest index on ties: EchoSource's choice, where lane 0 alone spent about 150
// warp instructions an echo on the OS0-128 city frame's 16 contributions. Every lane gets
// sources[0 .. m).
__device__ inline void WarpEchoSources(const FrameContext& c, const physics::Echo* echoes,
                                       const uint32_t* chosen, uint32_t m,
                                       const physics::SignalContribution* contributions, uint32_t n,
                                       int64_t* sources) {
  const uint32_t lane = threadIdx.x & 31u;
  const double half_inv_var = EchoHalfInverseVariance(c);
  for (uint32_t e = 0; e < m; ++e) {
    const double peak =
        __shfl_sync(cuda::kFullMask, lane == 0 ? echoes[chosen[e]].peak_range_m : 0.0, 0);
    double best = 0;
    int64_t source = -1;
    for (uint32_t k = lane; k < n; k += 32)
      if (EchoSourceBetter(contributions[k], peak, half_inv_var, best)) source = k;
    for (uint32_t d = 16; d > 0; d >>= 1) {
      const double other_best = __shfl_xor_sync(cuda::kFullMask, best, d);
      const int64_t other = __shfl_xor_sync(cuda::kFullMask, source, d);
      if (other >= 0 &&
          (source < 0 || other_best > best || (other_best == best && other < source))) {
        best = other_best;
        source = other;
      }
    }
    sources[e] = source;
  }
}

// RecordWaveformEchoes by the calling warp (echoes and count read on lane 0): the sources
// across the lanes (WarpEchoSources), the unused record slots cleared by the lanes, the records
// written by lane 0.
__device__ inline void WarpRecordWaveformEchoes(const FrameContext& c, uint32_t beam,
                                                const physics::SignalContribution* contributions,
                                                uint32_t n, const physics::Echo* echoes,
                                                uint32_t count, BeamRecord* out) {
  const uint32_t lane = threadIdx.x & 31u;
  uint32_t chosen[physics::kMaxEchoesDetected];
  uint32_t m = 0;
  if (lane == 0) m = ChosenEchoes(c, echoes, count, chosen);
  m = __shfl_sync(cuda::kFullMask, m, 0);
  int64_t sources[physics::kMaxEchoesDetected];
  WarpEchoSources(c, echoes, chosen, m, contributions, n, sources);
  for (uint32_t e = m + lane; e < c.echoes_per_beam; e += 32)
    out[e] = BeamRecord{};
  if (lane == 0) {
    const BeamPlace s = PlaceBeam(c, beam);
    WriteChosenEchoes(c, beam, s.b, s.t, s.pose, contributions, echoes, count, chosen, sources, m,
                      out);
  }
  __syncwarp();
}

// Waveform detector, stages 4-5: one warp per two beams of the batch (every beam: noise alone
// can cross the threshold), their records in shared memory and registers (waveform_warp.cuh)
// with layout R (RegisterValues). Lanes 0 and 1 compact the two beams' sub-ray slots as
// BeamEchoKernel does, and the warp writes each beam's echo records
// (WarpRecordWaveformEchoes); the selected beams' records (`kept`, sorted) go to
// kept_volts[slot N ..].
template <uint32_t R>
__global__ void __launch_bounds__(cuda::kPairBlockThreads, cuda::kPairBlocksPerSm)
    WaveformWarpKernel(FrameContext c, const physics::SignalContribution* contributions,
                       const uint8_t* counts, BeamRecord* out, uint32_t beam_begin, uint32_t beams,
                       uint32_t slots_per_beam, const physics::ComplexF* step, const uint32_t* kept,
                       uint32_t kept_count, float* kept_volts) {
  extern __shared__ unsigned char shared[];
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31u;
  const uint32_t first = 2 * (blockIdx.x * (blockDim.x / 32) + warp);
  const bool active = first < beams;
  const uint32_t N = c.waveform.samples;
  const cuda::WarpPair p = cuda::WarpPairAt(shared, warp, N, slots_per_beam);
  uint32_t w = 0;
  if (lane < 2 && first + lane < beams) {
    w = GatherContributions(c, contributions, counts, first + lane, slots_per_beam,
                            p.contributions[lane]);
  }
  const uint32_t n[2] = {__shfl_sync(cuda::kFullMask, w, 0), __shfl_sync(cuda::kFullMask, w, 1)};
  __syncwarp();
  cuda::BlockWaveformPairs<R>(c.waveform, p,
                              {p.contributions[0],
                               n[0],
                               BeamSunlight(p.contributions[0], n[0]),
                               {c.seed, c.frame, beam_begin + first, 0, 0}},
                              {p.contributions[1],
                               n[1],
                               BeamSunlight(p.contributions[1], n[1]),
                               {c.seed, c.frame, beam_begin + first + 1, 0, 0}},
                              step, active);
  if (!active) return;  // after the block's last barrier
  for (uint32_t k = 0; k < 2 && first + k < beams; ++k) {
    const uint32_t beam = beam_begin + first + k;
    const auto x = cuda::PairSamples<R>(p, N, k);
    const int64_t slot = cuda::KeptSlot(kept, kept_count, beam);
    if (slot >= 0)
      for (uint32_t s = lane; s < N; s += 32)
        kept_volts[static_cast<uint64_t>(slot) * N + s] = x[s];
    physics::Echo echoes[physics::kMaxEchoesDetected];
    const uint32_t count = cuda::WarpRanging(c.waveform, x, p.above[k], c.detector.min_range_m,
                                             c.detector.max_range_m, echoes);
    WarpRecordWaveformEchoes(c, beam, p.contributions[k], n[k], echoes, count,
                             out + size_t{first + k} * c.echoes_per_beam);
  }
}

// The same with the circuit as recursions (waveform_beam.cuh): one warp a beam, beam after beam
// (BeamBlocks), the block's warps meeting once a beam; the warp gathers its sub-rays' slots
// (WarpGatherContributions) and writes its echo records (WarpRecordWaveformEchoes).
template <int kThreads>
__global__ void __launch_bounds__(kThreads, cuda::kBeamBlocksPerSm)
    WaveformBeamWarpKernel(FrameContext c, const physics::SignalContribution* contributions,
                           const uint8_t* counts, BeamRecord* out, uint32_t beam_begin,
                           uint32_t beams, uint32_t slots_per_beam, const uint32_t* kept,
                           uint32_t kept_count, float* kept_volts, uint32_t* chunks_taken) {
  extern __shared__ unsigned char shared[];
  __shared__ uint32_t chunk_slots[2];
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31u;
  const uint32_t N = c.waveform.samples;
  const cuda::WarpBeam b = cuda::WarpBeamAt(shared, warp, N, slots_per_beam);
  cuda::BeamChunks chunks(chunks_taken, chunk_slots);
  for (uint32_t r = 0; chunks.More(beams); ++r) {
    const uint32_t i = chunks.Beam();
    const bool active = i < beams;
    chunks.Take(r);
    const uint32_t w = active ? WarpGatherContributions(c, contributions, counts, i, slots_per_beam,
                                                        b.contributions)
                              : 0;
    __syncwarp();
    const uint32_t beam = beam_begin + i;
    float highest;
    (void)cuda::BlockWaveformBeams(
        c.waveform, b,
        {b.contributions, w, BeamSunlight(b.contributions, w), {c.seed, c.frame, beam, 0, 0}},
        active, highest);
    chunks.Next(r);
    if (!active) continue;  // to the block's next barrier
    const int64_t slot = cuda::KeptSlot(kept, kept_count, beam);
    if (slot >= 0)
      for (uint32_t s = lane; s < N; s += 32)
        kept_volts[static_cast<uint64_t>(slot) * N + s] = b.record[s];
    physics::Echo echoes[physics::kMaxEchoesDetected];
    const uint32_t count = cuda::WarpRanging(c.waveform, b.record, b.above, c.detector.min_range_m,
                                             c.detector.max_range_m, echoes, highest);
    WarpRecordWaveformEchoes(c, beam, b.contributions, w, echoes, count,
                             out + size_t{i} * c.echoes_per_beam);
  }
}

// Launches WaveformWarpKernel<R> for the batch's n beams.
template <uint32_t R>
cudaError_t LaunchWaveformWarpsOf(const FrameContext& c,
                                  const physics::SignalContribution* contributions,
                                  const uint8_t* counts, BeamRecord* out, uint32_t beam_begin,
                                  uint32_t n, uint32_t slots, const physics::ComplexF* step,
                                  const uint32_t* kept, uint32_t kept_count, float* kept_volts) {
  const uint32_t samples = c.waveform.samples;
  const uint32_t warps = cuda::WarpsPerBlock(samples, slots);
  size_t shared = 0;  // none where a warp's records exceed the GPU's
  if (cudaError_t e = cuda::AllowWarpsSharedMemory(WaveformWarpKernel<R>, warps,
                                                   cuda::WarpPairBytes(samples, slots), shared);
      e != cudaSuccess)
    return e;
  const uint32_t pairs = (n + 1) / 2;
  WaveformWarpKernel<R><<<(pairs + warps - 1) / warps, warps * 32, shared>>>(
      c, contributions, counts, out, beam_begin, n, slots, step, kept, kept_count, kept_volts);
  return cudaGetLastError();
}

// Launches WaveformBeamWarpKernel<kThreads> for the batch's n beams, `warps` a block.
template <int kThreads>
cudaError_t LaunchWaveformBeamWarps(const FrameContext& c,
                                    const physics::SignalContribution* contributions,
                                    const uint8_t* counts, BeamRecord* out, uint32_t beam_begin,
                                    uint32_t n, uint32_t slots, uint32_t warps,
                                    const uint32_t* kept, uint32_t kept_count, float* kept_volts,
                                    uint32_t* chunks_taken) {
  size_t shared = 0;  // none where a beam's record exceeds the GPU's
  if (cudaError_t e =
          cuda::AllowWarpsSharedMemory(WaveformBeamWarpKernel<kThreads>, warps,
                                       cuda::WarpBeamBytes(c.waveform.samples, slots), shared);
      e != cudaSuccess)
    return e;
  if (cudaError_t e = cudaMemsetAsync(chunks_taken, 0, sizeof(uint32_t)); e != cudaSuccess)
    return e;
  WaveformBeamWarpKernel<kThreads>
      <<<cuda::BeamBlocks(WaveformBeamWarpKernel<kThreads>, n, warps, shared), warps * 32,
         shared>>>(c, contributions, counts, out, beam_begin, n, slots, kept, kept_count,
                   kept_volts, chunks_taken);
  return cudaGetLastError();
}

// ... one beam a warp where the circuit runs as sections, else two a warp with the record
// layout of the chain's length.
cudaError_t LaunchWaveformWarps(const FrameContext& c,
                                const physics::SignalContribution* contributions,
                                const uint8_t* counts, BeamRecord* out, uint32_t beam_begin,
                                uint32_t n, uint32_t slots, const physics::ComplexF* step,
                                const uint32_t* kept, uint32_t kept_count, float* kept_volts,
                                uint32_t* chunks_taken) {
  const uint32_t samples = c.waveform.samples;
  if (c.waveform.sections.count > 0) {
    const uint32_t warps = cuda::BeamWarpsPerBlock(samples, slots);
    return cuda::UsesSmallBeamBlocks(warps)
               ? LaunchWaveformBeamWarps<cuda::kSmallBeamBlockThreads>(
                     c, contributions, counts, out, beam_begin, n, slots, warps, kept, kept_count,
                     kept_volts, chunks_taken)
               : LaunchWaveformBeamWarps<cuda::kBeamBlockThreads>(
                     c, contributions, counts, out, beam_begin, n, slots, warps, kept, kept_count,
                     kept_volts, chunks_taken);
  }
  switch (cuda::RegisterValues(samples)) {
    case 32:
      return LaunchWaveformWarpsOf<32>(c, contributions, counts, out, beam_begin, n, slots, step,
                                       kept, kept_count, kept_volts);
    case 64:
      return LaunchWaveformWarpsOf<64>(c, contributions, counts, out, beam_begin, n, slots, step,
                                       kept, kept_count, kept_volts);
    default:
      return LaunchWaveformWarpsOf<0>(c, contributions, counts, out, beam_begin, n, slots, step,
                                      kept, kept_count, kept_volts);
  }
}

}  // namespace lt::cuda
