// The waveform chain of one beam by one warp with the circuit as recursions
// (physics/circuit_recursion.h): issue 15's fused kernel for pole-zero circuits, which is every
// circuit but a measured table or one with a pole slower than kMaxRecursionDecay (those keep
// the transform, waveform_warp.cuh).
//
// The record lives in shared memory, each lane owning a contiguous block of L = N / 32 samples
// (one spare float after each block, so that the lanes walking their blocks side by side meet
// on no bank). Power and photons are WarpPhotons' and the SiPM's first pass WarpSipmStart's
// (waveform_warp.cuh). Then two passes over each block: the first turns the cells' shares into
// charges and runs each circuit section from 0 to the block's end; the sections' affine maps are
// scanned across the lanes (with the record's periodic start from the last lane's total); the
// second runs the sections again from the block's true start, writing the voltage. No
// transform, no transpose: a few operations a sample for the Cube 1's two sections, against the
// transforms' 2 log2 N butterflies (bench/RESULTS.md, fourth step).
//
// Rounding differs from the CPU's transform by the recursions' float rounding, amplified by the
// sections' conditioning (physics/circuit_recursion.h: 3.3e-6 of the peak measured for the
// Cube 1); CudaWaveform.* holds the records to 1e-5 of their peak, as for the transforms.
#pragma once

#include <cstdint>
#include <cstddef>

#include "lidartwin/physics/circuit_recursion.h"
#include "lidartwin/physics/gap_powers.h"
#include "lidartwin/physics/waveform.h"
#include "waveform_warp.cuh"

namespace lt::cuda {

// Shared memory a warp needs for one beam's record of n samples with `slots` contributions:
// the contributions (16-byte values first), the record (BlockPadded), one mask word per 32
// samples.
__host__ __device__ inline size_t WarpBeamBytes(uint32_t n, uint32_t slots) {
  const size_t bytes = size_t{slots} * sizeof(physics::SignalContribution) +
                       size_t{BlockPaddedLength(n)} * sizeof(float) + (n / 32 + 1) * sizeof(uint32_t);
  return (bytes + 15) / 16 * 16;  // the next warp's contributions stay aligned
}

struct WarpBeam {
  physics::SignalContribution* contributions;  // `slots`
  BlockPadded record;
  uint32_t* above;  // n / 32 + 1 mask words
};
__device__ inline WarpBeam WarpBeamAt(unsigned char* shared, uint32_t warp, uint32_t n,
                                      uint32_t slots) {
  unsigned char* mine = shared + warp * WarpBeamBytes(n, slots);
  WarpBeam b;
  b.contributions = reinterpret_cast<physics::SignalContribution*>(mine);
  float* record = reinterpret_cast<float*>(b.contributions + slots);
  b.record = BlockPaddedAt(record, n);
  b.above = reinterpret_cast<uint32_t*>(record + BlockPaddedLength(n));
  return b;
}

// One block an SM of up to 32 warps (launch bounds: at most 64 registers a thread), whose warps
// run each stage together (BlockWaveformBeams). (Two blocks an SM of up to 16 warps each, to
// overlap one block's tail with the other's stages, measured 96.2 / 63.1 / 30.7 M beams/s at
// 1024 / 2048 / 4096 samples against one block's 95.7 / 64.9 / 29.5 on the same build, and the
// OS0-128 frame 3.39 against 2.97 ms; bench/RESULTS.md, fifth step.)
constexpr int kBeamBlockThreads = 1024;
constexpr int kBeamBlocksPerSm = 1;

// Warps (beams) a block runs: 32, or as many as fit in the device's shared memory a block (the
// H100's 227 KiB: 2048 samples, 8.6 KiB a warp, 27 warps with one contribution slot a beam,
// 26 with the frame's 16; 4096: 13).
inline uint32_t BeamWarpsPerBlock(uint32_t n, uint32_t slots) {
  return WarpsThatFit(SIZE_MAX, WarpBeamBytes(n, slots), kBeamBlockThreads / 32);
}

// The bins with photons of the calling lane's block of L = N / 32 bins (L a multiple of 32:
// whole words of WarpPhotons' photon mask), in order: visit(j), j the bin's index in the block.
template <typename Visit>
__device__ __forceinline__ void ForEachPhotonBin(const uint32_t* mask, uint32_t L, Visit visit) {
  const uint32_t* words = mask + (threadIdx.x & 31u) * (L / 32);
  for (uint32_t k = 0; k < L / 32; ++k) {
    uint32_t bits = words[k];
    while (bits) {
      visit(32 * k + static_cast<uint32_t>(__ffs(bits) - 1));
      bits &= bits - 1;
    }
  }
}

// Whether the warp's SiPM and section passes visit the bins with photons alone, stepping over
// the others by the gap table (physics/gap_powers.h): where the table is given, the lanes'
// blocks are whole mask words (N >= 1024), and no lane has photons in more than half its bins
// (a visit costs about two dense steps; the warp waits for its busiest lane). Records in
// bright sunlight, or noise-free ones (every bin has its mean), take the dense passes.
__device__ inline bool SparsePasses(const physics::WaveformChain& w, const uint32_t* mask) {
  const uint32_t L = w.samples / 32;
  if (w.gap_powers == nullptr || L % 32 != 0) return false;
  const uint32_t* words = mask + (threadIdx.x & 31u) * (L / 32);
  uint32_t n = 0;
  for (uint32_t k = 0; k < L / 32; ++k)
    n += __popc(words[k]);
  return 2 * __reduce_max_sync(kFullMask, n) <= L;
}

// WarpSipmStart (waveform_warp.cuh) visiting the bins with photons alone, each gap of g bins
// without photons one map (physics::GapPowerTable::ThenGap).
__device__ __forceinline__ float WarpSipmStartSparse(const physics::WaveformChain& w, float* block,
                                                     const uint32_t* mask, double background,
                                                     float recovery) {
  if (!(w.sipm.cells > 0)) return 1.0f;
  const uint32_t L = w.samples / 32;
  const physics::GapPowerTable gaps{w.gap_powers, physics::GapPowerRow(w.samples)};
  physics::SipmRunMap run{1.0f, 0.0f};
  uint32_t pos = 0;
  ForEachPhotonBin(mask, L, [&](uint32_t j) {
    run = gaps.ThenGap(run, j - pos);
    const float hit = physics::SipmHitShare(w.sipm, block[j]);
    block[j] = hit;
    run = physics::SipmThenBin(run, physics::SipmMapOfShare(w.sipm, recovery, hit), recovery);
    pos = j + 1;
  });
  return SipmBlockStart(w, gaps.ThenGap(run, L - pos), background, recovery);
}

// Stage 3's second pass and stage 4 over the lane's block of L samples at `block`, which holds
// what WarpSipmStart left (shares of cells hit, or photons): the first pass turns them into
// charges [fired cells] (from the block's starting sensitivity `s_in`) and runs the K sections
// from 0 to the block's end; the blocks' maps u_out = a^L u_in + U are scanned across the lanes,
// the record's periodic start U_31 / (1 - a^N) taken from the last lane; the second pass runs
// the sections again from the block's true start and writes the voltage [V], baseline and
// thermal noise included. The sections' gains take the charge's amperes per cell (G e / dt).
template <uint32_t K>
__device__ __forceinline__ void WarpSipmSections(const physics::WaveformChain& w,
                                                 const physics::RandomKey& key, float* block,
                                                 const uint32_t* mask, bool sparse, float s_in,
                                                 float recovery) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t L = w.samples / 32;
  float a[K], u[K];
#pragma unroll
  for (uint32_t p = 0; p < K; ++p) {
    a[p] = w.sections.decay[p];
    u[p] = 0.0f;
  }
  physics::SipmState state{s_in};
  if (sparse) {
    // The bins with photons alone: across a gap of g bins without, S -> r^g S + (1 - r^g) and
    // u_p -> a_p^g u_p (gap table rows 0, 1 and 2 + p); the others' charges stay 0.
    const physics::GapPowerTable gaps{w.gap_powers, physics::GapPowerRow(w.samples)};
    uint32_t pos = 0;
    ForEachPhotonBin(mask, L, [&](uint32_t j) {
      const uint32_t g = j - pos;
      state.sensitivity = gaps.Sensitivity(state.sensitivity, g);
#pragma unroll
      for (uint32_t p = 0; p < K; ++p)
        u[p] *= gaps.Section(p, g);
      const float q = WarpSipmCharge(w, recovery, block[j], state);
      block[j] = q;
#pragma unroll
      for (uint32_t p = 0; p < K; ++p)
        u[p] = fmaf(a[p], u[p], q);
      pos = j + 1;
    });
#pragma unroll
    for (uint32_t p = 0; p < K; ++p)
      u[p] *= gaps.Section(p, L - pos);
  } else {
#pragma unroll 4
    for (uint32_t i = 0; i < L; ++i) {
      const float q = WarpSipmCharge(w, recovery, block[i], state);
      block[i] = q;
#pragma unroll
      for (uint32_t p = 0; p < K; ++p)
        u[p] = fmaf(a[p], u[p], q);
    }
  }
#pragma unroll
  for (uint32_t p = 0; p < K; ++p) {
    float A = a[p];  // a^L: L is a power of two
    for (uint32_t l = 1; l < L; l <<= 1)
      A *= A;
    AffineMap all;
    const AffineMap before = ExclusiveAffineScan({A, u[p]}, all);
    const float start = all.b / (1.0f - all.a);
    u[p] = lane == 0 ? start : fmaf(before.a, start, before.b);
  }
  const double amps_per_cell = w.cell_charge_c / w.dt_s;
  float c[K];
#pragma unroll
  for (uint32_t p = 0; p < K; ++p)
    c[p] = static_cast<float>(w.sections.gain[p] * amps_per_cell);
  const float base = static_cast<float>(w.baseline_v);
  // The second pass, with the thermal noise a segment at a time (physics::ThermalSegment: the
  // lane's block of L bins holds L / S whole segments of S = ThermalSegmentBins(N) bins).
  auto voltage = [&](uint32_t i, float noise_v) {
    const float x = block[i];
    float y = base + noise_v;
#pragma unroll
    for (uint32_t p = 0; p < K; ++p) {
      u[p] = fmaf(a[p], u[p], x);
      y = fmaf(c[p], u[p], y);
    }
    block[i] = y;
  };
  if (w.thermal_noise_v > 0) {
    const uint32_t S = physics::ThermalSegmentBins(w.samples);
    for (uint32_t i = 0; i < L; i += S) {
      physics::ThermalSegment noise(w, key, (lane * L + i) / S);
      for (uint32_t t = 0; t < S; t += 2) {
        float v0, v1;
        noise.NextPair(v0, v1);
        voltage(i + t, v0);
        voltage(i + t + 1, v1);
      }
    }
  } else {
    for (uint32_t i = 0; i < L; ++i)
      voltage(i, 0.0f);
  }
}

// Stages 3-4 (eq. 8-10) of the warp's beam after WarpSipmStart: the voltage replaces what `x`
// holds, baseline and thermal noise included (keyed per segment as on the CPU).
__device__ __forceinline__ void WarpSipmCircuit(const physics::WaveformChain& w,
                                                const physics::RandomKey& key, BlockPadded x,
                                                const uint32_t* mask, bool sparse, float s_in,
                                                float recovery) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t N = w.samples;
  float* block = LaneBlock(x, lane, N / 32);
  __syncwarp();
  switch (w.sections.count) {
    case 1:
      WarpSipmSections<1>(w, key, block, mask, sparse, s_in, recovery);
      break;
    case 2:
      WarpSipmSections<2>(w, key, block, mask, sparse, s_in, recovery);
      break;
    case 3:
      WarpSipmSections<3>(w, key, block, mask, sparse, s_in, recovery);
      break;
    default:
      WarpSipmSections<physics::kMaxRecursionSections>(w, key, block, mask, sparse, s_in, recovery);
      break;
  }
  __syncwarp();
}

// Stages 1-4 of the warp's beam, its voltages then in b.record. Every warp of the block calls
// this (those without a beam with `active` false), and the block's warps run each stage
// together, a barrier between: the stages' code is long and much of it runs once a beam, so
// warps at different stages kept evicting one another's instructions from the SM's
// instruction cache (ncu, 2048 samples: 56 % of the warps' stalls waiting for an instruction,
// with four-warp blocks). Returns whether the warp's SiPM and section passes visited the bins
// with photons alone (SparsePasses), for the tests.
__device__ __forceinline__ bool BlockWaveformBeams(const physics::WaveformChain& w,
                                                   const WarpBeam& b, const PairBeam& beam,
                                                   bool active) {
  double background = 0;
  if (active) background = WarpPhotons(w, beam.c, beam.n, beam.sun_w, beam.key, b.record, b.above);
  __syncthreads();
  const float recovery = w.sipm_recovery;
  float s_in = 1.0f;
  bool sparse = false;
  if (active) {
    sparse = SparsePasses(w, b.above);
    s_in = sparse ? WarpSipmStartSparse(w, LaneBlock(b.record, threadIdx.x & 31u, w.samples / 32),
                                        b.above, background, recovery)
                  : WarpSipmStart(w, b.record, background, recovery);
  }
  __syncthreads();
  if (active) WarpSipmCircuit(w, beam.key, b.record, b.above, sparse, s_in, recovery);
  __syncthreads();
  return sparse;
}

}  // namespace lt::cuda
