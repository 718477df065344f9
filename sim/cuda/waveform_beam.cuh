// The waveform chain of one beam by one warp with the circuit as recursions
// (physics/circuit_recursion.h): issue 15's fused kernel for pole-zero circuits, which is every
// circuit but a measured table or one with a pole slower than kMaxRecursionDecay (those keep
// the transform, waveform_warp.cuh).
//
// The record lives in shared memory, each lane owning a contiguous block of L = N / 32 samples
// (one spare float after each block, so that the lanes walking their blocks side by side meet
// on no bank). Power and photons are WarpPhotons' (waveform_warp.cuh). Then, where the photons
// are sparse, one pass over the bins with photons (WarpSipmSparse) composes the SiPM's map of
// the block and sums each circuit section's state at the block's end as an affine function of
// the block's starting sensitivity; else a dense first pass (WarpSipmStart) and a second that
// turns the cells' shares into charges and runs each section to the block's end
// (WarpSipmDense). The SiPM's and the sections' affine maps are scanned across the lanes (with
// the record's periodic start from the last lane's total); the voltage pass runs the sections
// from the block's true start, writing the voltage (WarpSipmSections). No transform, no
// transpose: a few operations a sample for the Cube 1's two sections, against the transforms'
// 2 log2 N butterflies (bench/RESULTS.md, fourth step).
//
// Rounding differs from the CPU's transform by the recursions' float rounding, amplified by the
// sections' conditioning (physics/circuit_recursion.h: 3.3e-6 of the peak measured for the
// Cube 1); CudaWaveform.* holds the records to 1e-5 of their peak, as for the transforms.
#pragma once

#include <cstddef>
#include <cstdint>

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
                       size_t{BlockPaddedLength(n)} * sizeof(float) +
                       (n / 32 + 1) * sizeof(uint32_t);
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
// meet once a beam (BlockWaveformBeams). (Two blocks an SM of up to 16 warps each, to
// overlap one block's tail with the other's stages, measured 96.2 / 63.1 / 30.7 M beams/s at
// 1024 / 2048 / 4096 samples against one block's 95.7 / 64.9 / 29.5 on the same build, and the
// OS0-128 frame 3.39 against 2.97 ms; bench/RESULTS.md, fifth step.)
constexpr int kBeamBlockThreads = 1024;
constexpr int kBeamBlocksPerSm = 1;
// Blocks of at most 27 warps (records of 2048 samples and more; 26 warps for the frame's 16
// contribution slots) run a build of the kernels for 864 threads, for which ptxas may give a
// thread 72 registers rather than 64: spill loads fall from 668 to 492 bytes in the frame's
// kernel and from 408 to 104 in the chain's (ptxas -v), and the chain measured 134.5 / 63.0 M
// beams/s at 2048 / 4096 samples against 132.2 / 61.3, the OS0-128 city frame 1.94 / 2.00 ms (1 M /
// 10 M triangles) against 1.98 / 2.03, on one H100 (bench/RESULTS.md, eighth step).
constexpr int kSmallBeamBlockThreads = 864;
inline bool UsesSmallBeamBlocks(uint32_t warps) {
  return warps * 32 <= static_cast<uint32_t>(kSmallBeamBlockThreads);
}

// The beam kernels' static shared memory: BeamChunks' two slots (declared in each kernel), 16
// bytes as ptxas -v reports it (the dynamic shared memory after it starts 16-byte aligned).
constexpr size_t kBeamBlockStaticBytes = 16;

// Warps (beams) a block runs: 32, or as many as fit in the device's shared memory a block (the
// H100's 227 KiB: 2048 samples, 8.6 KiB a warp, 27 warps with one contribution slot a beam,
// 26 with the frame's 16; 4096: 13).
inline uint32_t BeamWarpsPerBlock(uint32_t n, uint32_t slots) {
  return WarpsThatFit(SIZE_MAX, WarpBeamBytes(n, slots), kBeamBlockThreads / 32,
                      kBeamBlockStaticBytes);
}

// Blocks to launch for `beams` beams at `warps` warps a block: as many as the GPU holds at once
// (or fewer where the beams are fewer), each warp taking beam after beam (BeamChunks). Where a
// warp's block retired with its beam, the SM waited for the block's slowest warp before starting
// the next block: persistent warps measured 188 / 128 / 61 M beams/s at 1024 / 2048 / 4096
// samples against 173 / 122 / 57 a block of beams, the OS0-128 city frame 2.07 against 2.08 ms,
// on the same H100 in one call (bench/RESULTS.md, eighth step).
template <typename Kernel>
inline uint32_t BeamBlocks(Kernel kernel, uint32_t beams, uint32_t warps, size_t shared) {
  const uint32_t needed = (beams + warps - 1) / warps;
  int device = 0, sms = 0, per_sm = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(warps * 32),
                                                    shared) != cudaSuccess ||
      sms <= 0 || per_sm <= 0)
    return needed;  // a block a `warps` beams: the same beams, one round
  const uint32_t resident = static_cast<uint32_t>(sms) * static_cast<uint32_t>(per_sm);
  return needed < resident ? needed : resident;
}
// The block's beams, a chunk of one beam a warp at a time: chunk k is beams k W .. k W + W - 1
// (W the block's warps). Block b starts with chunk b and, each round, takes the next chunk not
// yet taken from a counter in device memory (zero at the launch), so that blocks whose beams
// ran faster take more of them and the grid's SMs finish together, where a fixed share of
// rounds each left the kernel waiting for the SM whose beams had been slowest. Thread 0 takes
// the next chunk before the round's barrier (BlockWaveformBeams) and every warp reads it after:
// the same rounds for all the block's warps. Two slots in shared memory, alternating: a slot is
// written again only two rounds on, after a barrier every warp has passed. Which block runs a
// beam changes nothing in it (its draws are keyed by the beam). Measured on one H100 in one
// call against the fixed share: 190.1 / 134.7 M beams/s at 1024 / 2048 samples against
// 187.8 / 130.3, the OS0-128 city frame 1.88-1.90 ms against 1.92 (1 M triangles) and 1.94
// against 1.96-1.99 (10 M); spreading only the last, partial round over all the blocks gave
// 189.5 / 130.1 and 1.90 / 1.96 (bench/RESULTS.md, ninth step).
class BeamChunks {
 public:
  // `taken`: the launch's counter; `slots`: two words of the block's shared memory.
  __device__ BeamChunks(uint32_t* taken, uint32_t* slots)
      : taken_(taken), slots_(slots), chunk_(blockIdx.x) {}
  // Whether the block's current chunk holds beams (the same on every thread of the block).
  __device__ bool More(uint32_t beams) const {
    return uint64_t{chunk_} * (blockDim.x / 32) < beams;
  }
  // The calling warp's beam in the current chunk (`beams` or more: none).
  __device__ uint32_t Beam() const { return chunk_ * (blockDim.x / 32) + threadIdx.x / 32; }
  // Round r's request for the next chunk, before the round's barrier.
  __device__ void Take(uint32_t r) {
    if (threadIdx.x == 0) slots_[r & 1] = gridDim.x + atomicAdd(taken_, 1u);
  }
  // Round r's next chunk, after the round's barrier.
  __device__ void Next(uint32_t r) { chunk_ = slots_[r & 1]; }

 private:
  uint32_t* taken_;
  uint32_t* slots_;
  uint32_t chunk_;
};

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

// The bins with photons in lane `lane`'s block of L bins (L a multiple of 32): its L / 32 words of
// the photon mask, counted.
__device__ inline uint32_t BlockPhotonBins(const uint32_t* mask, uint32_t lane, uint32_t L) {
  const uint32_t* words = mask + lane * (L / 32);
  uint32_t n = 0;
  for (uint32_t k = 0; k < L / 32; ++k)
    n += __popc(words[k]);
  return n;
}

// Whether the warp's SiPM and section passes visit the bins with photons alone, stepping over
// the others by the gap table (physics/gap_powers.h): where the table is given, the lanes'
// blocks are whole mask words (N >= 1024), and no lane has photons in more than half its bins
// (a visit costs about two dense steps; the warp waits for its busiest lane). Records in
// bright sunlight, or noise-free ones (every bin has its mean), take the dense passes.
__device__ inline bool SparsePasses(const physics::WaveformChain& w, const uint32_t* mask) {
  const uint32_t L = w.samples / 32;
  if (w.gap_powers == nullptr || L % 32 != 0) return false;
  return 2 * __reduce_max_sync(kFullMask, BlockPhotonBins(mask, threadIdx.x & 31u, L)) <= L;
}

// A lane's block with more bins with photons than this (a near target's pulse, where most bins
// of a few blocks have photons) is walked by the whole warp (WarpWalkBlock) rather than by its
// lane while the others wait; the background's few photons a block, and the internal
// reflection's dozen, stay with their lanes.
constexpr uint32_t kWarpWalkBins = 16;

// WarpSipmSparse's walk of one lane's block by the whole warp: lane t takes the block's t-th bin
// with photons (32 at a time); its map from the previous bin's end (the gap, then the bin) is
// scanned across the lanes (ExclusiveAffineScan), giving each bin's sensitivity as an affine
// function of the block's start, S_j = A_j S_in + B_j; the sections' terms of WarpSipmSparse
// are summed by warp reductions. `block`: the block's L samples (each bin with photons left
// holding its cells c_j), `words` its L / 32 photon mask words. Returns, on every lane, the
// block's map of the sensitivity and in v1, v0 its sums. Rounding differs from the lane's walk
// by the scan's and the sums' order.
template <uint32_t K>
__device__ inline physics::SipmRunMap WarpWalkBlock(const physics::WaveformChain& w,
                                                    const physics::GapPowerTable& gaps,
                                                    float* block, const uint32_t* words,
                                                    float recovery, float (&v1)[K],
                                                    float (&v0)[K]) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t L = w.samples / 32;
#pragma unroll
  for (uint32_t p = 0; p < K; ++p)
    v1[p] = v0[p] = 0.0f;
  const uint32_t total = BlockPhotonBins(words, 0, L);
  physics::SipmRunMap run{1.0f, 0.0f};
  uint32_t pos = 0;  // the bin after the last one walked
  for (uint32_t first = 0; first < total; first += 32) {
    // This lane's bin: the (first + lane)-th with photons.
    const bool mine = first + lane < total;
    uint32_t j = 0;
    if (mine) {
      uint32_t t = first + lane;
      for (uint32_t k = 0; k < L / 32; ++k) {
        const uint32_t c = __popc(words[k]);
        if (t < c) {
          j = 32 * k + __fns(words[k], 0, static_cast<int>(t) + 1);
          break;
        }
        t -= c;
      }
    }
    const uint32_t after_previous = __shfl_up_sync(kFullMask, j + 1, 1);
    const uint32_t from = lane == 0 ? pos : after_previous;
    physics::SipmBinMap m{1.0f, 0.0f};
    physics::SipmRunMap gap{1.0f, 0.0f};
    if (mine) {
      m = physics::SipmMapOfShare(w.sipm, recovery, physics::SipmHitShare(w.sipm, block[j]));
      gap = gaps.ThenGap(gap, j - from);
    }
    // The lane's map, gap then bin (the identity past the last bin).
    const physics::SipmRunMap own =
        mine ? physics::SipmThenBin(gap, m, recovery) : physics::SipmRunMap{1.0f, 0.0f};
    AffineMap all;
    const AffineMap before = ExclusiveAffineScan({own.A, own.B}, all);
    // The sensitivity at bin j from the block's start: the run so far, the lanes below, the gap.
    const physics::SipmRunMap upto{before.a * run.A, fmaf(before.a, run.B, before.b)};
    const physics::SipmRunMap at{gap.A * upto.A, fmaf(gap.A, upto.B, gap.B)};
    float t1[K], t0[K];
#pragma unroll
    for (uint32_t p = 0; p < K; ++p)
      t1[p] = t0[p] = 0.0f;
    if (mine) {
      block[j] = m.c;
      const float ca = m.c * at.A, cb = m.c * at.B;
#pragma unroll
      for (uint32_t p = 0; p < K; ++p) {
        const float f = gaps.Section(p, L - 1 - j);
        t1[p] = f * ca;
        t0[p] = f * cb;
      }
    }
#pragma unroll
    for (uint32_t p = 0; p < K; ++p) {
      for (uint32_t d = 16; d > 0; d >>= 1) {
        t1[p] += __shfl_xor_sync(kFullMask, t1[p], d);
        t0[p] += __shfl_xor_sync(kFullMask, t0[p], d);
      }
      v1[p] += t1[p];
      v0[p] += t0[p];
    }
    run = {all.a * run.A, fmaf(all.a, run.B, all.b)};
    const uint32_t walked = total - first < 32 ? total - first : 32;
    pos = __shfl_sync(kFullMask, j + 1, walked - 1);
  }
  return gaps.ThenGap(run, L - pos);
}

// PassFlags: what BlockSipmCircuit's passes did, for the tests: visited the bins with photons
// alone (SparsePasses), walked a crowded block by the whole warp (WarpWalkBlock), and one of
// more than 32 bins with photons (more than one round of the lanes).
constexpr uint8_t kSparsePasses = 1;
constexpr uint8_t kWarpWalkedBlocks = 2;
constexpr uint8_t kWarpWalkedLongBlocks = 4;

// Stage 3's first pass visiting the bins with photons alone (WarpSipmStart, waveform_warp.cuh,
// with each gap of g bins without photons one map, physics::GapPowerTable::ThenGap), which also
// takes the circuit's sections over the lane's block, so that no second pass over the photons
// is needed. A bin j's sensitivity is affine in the block's starting one, S_j = A_j S_in + B_j
// (the run's map up to it), so its charge q_j = c_j S_j (c_j = N h_j, the cells it fires) is
// too, and so is each section's state at the block's end from a zero start,
//   U_p = sum_j a_p^(L-1-j) q_j = S_in V1_p + V0_p,
//   V1_p = sum_j a_p^(L-1-j) c_j A_j,   V0_p = sum_j a_p^(L-1-j) c_j B_j,
// the powers from the gap table. Each bin with photons is left holding c_j (0 elsewhere), from
// which the voltage pass steps the sensitivity bin by bin (WarpSipmSections). Without
// saturation (no cells) the charge is the photons, S stays 1: V1 = 0 and the bins keep their
// photons. Blocks crowded with photons (more than kWarpWalkBins) are walked by the whole warp
// (WarpWalkBlock), `walks` their PassFlags. Returns S_in, scanned across the lanes as
// WarpSipmStart's. (Before, a second pass
// over the photon bins turned them into charges and ran the sections: `ncu` put it at about
// 480 warp instructions a beam at 1024 samples, the lane holding the internal reflection's
// dozen or so bins with photons working while the others waited.)
template <uint32_t K>
__device__ __forceinline__ float WarpSipmSparse(const physics::WaveformChain& w, BlockPadded record,
                                                const uint32_t* mask, double background,
                                                float recovery, float (&v1)[K], float (&v0)[K],
                                                uint8_t& walks) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t L = w.samples / 32;
  float* block = LaneBlock(record, lane, L);
  const physics::GapPowerTable gaps{w.gap_powers, physics::GapPowerRow(w.samples)};
#pragma unroll
  for (uint32_t p = 0; p < K; ++p)
    v1[p] = v0[p] = 0.0f;
  walks = 0;
  if (!(w.sipm.cells > 0)) {
    ForEachPhotonBin(mask, L, [&](uint32_t j) {
      const float q = block[j];
#pragma unroll
      for (uint32_t p = 0; p < K; ++p)
        v0[p] = fmaf(gaps.Section(p, L - 1 - j), q, v0[p]);
    });
    return 1.0f;
  }
  const uint32_t photon_bins = BlockPhotonBins(mask, lane, L);
  const bool crowded = photon_bins > kWarpWalkBins;
  physics::SipmRunMap run{1.0f, 0.0f};
  uint32_t pos = 0;
  if (!crowded) {
    ForEachPhotonBin(mask, L, [&](uint32_t j) {
      run = gaps.ThenGap(run, j - pos);
      const physics::SipmBinMap m =
          physics::SipmMapOfShare(w.sipm, recovery, physics::SipmHitShare(w.sipm, block[j]));
      block[j] = m.c;
      const float ca = m.c * run.A, cb = m.c * run.B;
#pragma unroll
      for (uint32_t p = 0; p < K; ++p) {
        const float f = gaps.Section(p, L - 1 - j);
        v1[p] = fmaf(f, ca, v1[p]);
        v0[p] = fmaf(f, cb, v0[p]);
      }
      run = physics::SipmThenBin(run, m, recovery);
      pos = j + 1;
    });
    run = gaps.ThenGap(run, L - pos);
  }
  // The crowded blocks, one after another, by the whole warp.
  const uint32_t crowded_lanes = __ballot_sync(kFullMask, crowded);
  if (crowded_lanes != 0) walks |= kWarpWalkedBlocks;
  if (__any_sync(kFullMask, photon_bins > 32)) walks |= kWarpWalkedLongBlocks;
  for (uint32_t left = crowded_lanes; left != 0; left &= left - 1) {
    const uint32_t owner = static_cast<uint32_t>(__ffs(left) - 1);
    float b1[K], b0[K];
    const physics::SipmRunMap r = WarpWalkBlock<K>(w, gaps, LaneBlock(record, owner, L),
                                                   mask + owner * (L / 32), recovery, b1, b0);
    if (lane == owner) {
      run = r;
#pragma unroll
      for (uint32_t p = 0; p < K; ++p) {
        v1[p] = b1[p];
        v0[p] = b0[p];
      }
    }
  }
  return SipmBlockStart(w, run, background, recovery);
}

// Stage 3's second pass over every bin of the lane's block (no gap table, or photons in more
// than half its bins): what WarpSipmStart left (shares of cells hit, or photons) turned into
// charges [fired cells] from the block's starting sensitivity `s_in`, and the sections run
// from 0 to the block's end, their states there into u_end.
template <uint32_t K>
__device__ __forceinline__ void WarpSipmDense(const physics::WaveformChain& w, float* block,
                                              float s_in, float recovery, float (&u_end)[K]) {
  const uint32_t L = w.samples / 32;
  physics::SipmState state{s_in};
#pragma unroll
  for (uint32_t p = 0; p < K; ++p)
    u_end[p] = 0.0f;
#pragma unroll 4
  for (uint32_t i = 0; i < L; ++i) {
    const float q = WarpSipmCharge(w, recovery, block[i], state);
    block[i] = q;
#pragma unroll
    for (uint32_t p = 0; p < K; ++p)
      u_end[p] = fmaf(w.sections.decay[p], u_end[p], q);
  }
}

// Stage 4 over the lane's block of L samples at `block`, the sections' states at the block's
// end from a zero start in u_end: the blocks' maps u_out = a^L u_in + U are scanned across the
// lanes, the record's periodic start U_31 / (1 - a^N) taken from the last lane; then the voltage
// pass runs the sections from the block's true start and writes the voltage [V], baseline and
// thermal noise included. The block holds charges [fired cells], or (`steps_sipm`, after
// WarpSipmSparse with saturation) each bin's cells c = N h, from which the pass steps the
// sensitivity from `s_in`: q = c S, S' = (r - (r / N) c) S + (1 - r), r the recovery (exactly
// r S + (1 - r) where c = 0). The sections' gains take the charge's amperes per cell (G e / dt).
// Returns the block's highest voltage, for the ranging's mask.
template <uint32_t K>
__device__ __forceinline__ float WarpSipmSections(const physics::WaveformChain& w,
                                                  const physics::RandomKey& key, float* block,
                                                  float (&u_end)[K], bool steps_sipm, float s_in,
                                                  float recovery) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t L = w.samples / 32;
  float a[K], u[K];
#pragma unroll
  for (uint32_t p = 0; p < K; ++p) {
    a[p] = w.sections.decay[p];
    // a^L: the gap table's, else by squaring (L is a power of two).
    float A = a[p];
    if (w.gap_powers != nullptr) {
      A = physics::GapPowerTable{w.gap_powers, physics::GapPowerRow(w.samples)}.Section(p, L);
    } else {
      for (uint32_t l = 1; l < L; l <<= 1)
        A *= A;
    }
    AffineMap all;
    const AffineMap before = ExclusiveAffineScan({A, u_end[p]}, all);
    const float start = all.b / (1.0f - all.a);
    u[p] = lane == 0 ? start : fmaf(before.a, start, before.b);
  }
  const double amps_per_cell = w.cell_charge_c / w.dt_s;
  float c[K];
#pragma unroll
  for (uint32_t p = 0; p < K; ++p)
    c[p] = static_cast<float>(w.sections.gain[p] * amps_per_cell);
  const float base = static_cast<float>(w.baseline_v);
  // Without the sensitivity to step (the block holds charges), S = 1 throughout: r = 1, no
  // loss per cell, nothing added, so that the pass runs the same instructions without a branch.
  const float r = steps_sipm ? recovery : 1.0f;
  const float r_per_cell = steps_sipm ? recovery / static_cast<float>(w.sipm.cells) : 0.0f;
  const float rest = steps_sipm ? 1.0f - recovery : 0.0f;
  float s = steps_sipm ? s_in : 1.0f;
  // The voltage pass, with the thermal noise of the lane's segment (physics::ThermalSegment: a
  // segment is a lane's block), keeping the block's highest voltage for the ranging's mask.
  float highest = -INFINITY;
  auto voltage = [&](uint32_t i, float y) {  // y: the baseline and the bin's thermal noise
    const float cells = block[i];
    const float x = cells * s;
    s = fmaf(fmaf(-r_per_cell, cells, r), s, rest);
#pragma unroll
    for (uint32_t p = 0; p < K; ++p) {
      u[p] = fmaf(a[p], u[p], x);
      y = fmaf(c[p], u[p], y);
    }
    block[i] = y;
    highest = fmaxf(highest, y);
  };
  if (w.thermal_noise_v > 0) {
    static_assert(physics::ThermalSegments(1024) == 32, "a thermal segment is a lane's block");
    physics::ThermalSegment noise(w, key, lane);
#pragma unroll 2
    for (uint32_t i = 0; i < L; i += 2) {
      float v0, v1;
      noise.NextPairOn(base, v0, v1);
      voltage(i, v0);
      voltage(i + 1, v1);
    }
  } else {
    for (uint32_t i = 0; i < L; ++i)
      voltage(i, base);
  }
  return highest;
}

// Stages 3-4 (eq. 8-10) of the warp's beam with K circuit sections after its photons
// (WarpPhotons): the voltage replaces them in b.record, baseline and thermal noise included
// (keyed per segment as on the CPU), `highest` the calling lane's block's highest voltage. The
// SiPM's first pass over the photon bins alone where SparsePasses allows (WarpSipmSparse), else
// over every bin with a second pass (WarpSipmStart, WarpSipmDense). Returns which passes ran
// (PassFlags below). Warp syncs order the lanes' shared memory where they read what other lanes
// wrote (shuffles and ballots do not; compute-sanitizer racecheck flags it without them):
// after the SiPM pass where a crowded block was walked by the warp (its cells written by every
// lane), and after the voltage pass (the ranging and the copies out read every lane's
// voltages; the ranging overwrites mask words WarpWalkBlock read). The first, always, cost
// about 1 % at 4096 samples (bench/RESULTS.md, eighth step).
template <uint32_t K>
__device__ __forceinline__ uint8_t BlockSipmCircuit(const physics::WaveformChain& w,
                                                    const WarpBeam& b,
                                                    const physics::RandomKey& key,
                                                    double background, bool active,
                                                    float& highest) {
  const float recovery = w.sipm_recovery;
  float* block = LaneBlock(b.record, threadIdx.x & 31u, w.samples / 32);
  float s_in = 1.0f, u_end[K];
  bool sparse = false;
  uint8_t walks = 0;
  if (active) {
    sparse = SparsePasses(w, b.above);
    if (sparse) {
      float v1[K], v0[K];
      s_in = WarpSipmSparse<K>(w, b.record, b.above, background, recovery, v1, v0, walks);
#pragma unroll
      for (uint32_t p = 0; p < K; ++p)
        u_end[p] = fmaf(s_in, v1[p], v0[p]);
    } else {
      s_in = WarpSipmStart(w, b.record, background, recovery);
      WarpSipmDense<K>(w, block, s_in, recovery, u_end);
    }
  }
  if (walks != 0) __syncwarp();  // only then did lanes write into other lanes' blocks
  highest = INFINITY;
  if (active) {
    highest = WarpSipmSections<K>(w, key, block, u_end, sparse && w.sipm.cells > 0, s_in, recovery);
  }
  __syncwarp();
  return (sparse ? kSparsePasses : 0) | walks;
}

// Stages 1-4 of the warp's beam, its voltages then in b.record. Every warp of the block calls
// this (those without a beam with `active` false), and the block's warps meet after the
// photons: the stages' code is long and much of it runs once a beam, so warps at different
// stages kept evicting one another's instructions from the SM's instruction cache (ncu, 2048
// samples: 56 % of the warps' stalls waiting for an instruction, with four-warp blocks).
// One barrier a beam holds them together: a barrier after each stage as well measured
// 181 / 126 / 58 M beams/s at 1024 / 2048 / 4096 samples against this one's 188 / 128 / 61,
// none at all 170 / 115 / 53 and the OS0-128 city frame 3.7 against 2.07 ms, persistent warps
// on one H100 (bench/RESULTS.md, eighth step). Returns the passes' PassFlags, for the tests;
// `highest`: the calling lane's block's highest voltage (for WarpRanging).
__device__ __forceinline__ uint8_t BlockWaveformBeams(const physics::WaveformChain& w,
                                                      const WarpBeam& b, const PairBeam& beam,
                                                      bool active, float& highest) {
  double background = 0;
  if (active) background = WarpPhotons(w, beam.c, beam.n, beam.sun_w, beam.key, b.record, b.above);
  __syncthreads();
  // The sections' count is the sensor's, the same for every warp of the block.
  switch (w.sections.count) {
    case 1:
      return BlockSipmCircuit<1>(w, b, beam.key, background, active, highest);
    case 2:
      return BlockSipmCircuit<2>(w, b, beam.key, background, active, highest);
    case 3:
      return BlockSipmCircuit<3>(w, b, beam.key, background, active, highest);
    default:
      return BlockSipmCircuit<physics::kMaxRecursionSections>(w, b, beam.key, background, active,
                                                              highest);
  }
}

}  // namespace lt::cuda
