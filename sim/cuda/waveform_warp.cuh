// The waveform chain of two beams by one warp (issue 15's fused kernel): the same per-sample
// and per-run functions as the CPU's sequential chain (physics/waveform.h, waveform_ranging.h,
// fft.h, sipm.h), with the work of each stage spread over the 32 lanes:
//   - power: each pulse's samples across the lanes, pulse after pulse (the additions to a
//     sample keep the CPU's order);
//   - photons: the pulses' bins across the lanes, the background a segment a lane
//     (BackgroundSegmentBins: 32 bins, or the lane's block where longer);
//   - SiPM: each lane a contiguous block of N / 32 bins, the recurrence's affine maps
//     (SipmMap) composed per block and scanned across the lanes;
//   - circuit: both beams in one complex transform (register_fft.cuh): in registers, four
//     steps, for N = 1024 and 2048; otherwise radix-2 butterflies across the lanes in shared
//     memory;
//   - ranging: the pretrigger's sums by warp reductions, the internal reflection's maximum by a
//     warp argmax (the lowest index on ties, as the CPU's scan), the samples above the
//     threshold as mask words; then each lane takes one run and its echo (WarpRunEchoes) where
//     the lanes' blocks are whole words, else lane 0 walks the runs.
// Rounding differs from the CPU in the SiPM scan's order, the transform's (whose float rounding
// also mixes the pair's two beams, about 1e-7 of the brighter one's peak) and the reductions'
// (float and double sums), and the thermal normals by the hardware's log and sine (2.5e-4 of
// the noise's rms at most, physics/waveform.h): CudaWaveform.* holds the records to 1e-5 of
// their peak.
// Over 700 lines: one header because every stage is a __device__ function the fused kernel
// inlines (separate translation units would need relocatable device code and lose the
// inlining).
#pragma once

#include <cstdint>
#include <type_traits>

#include "internal/beam_pipeline.h"
#include "lidartwin/physics/fft.h"
#include "lidartwin/physics/sipm.h"
#include "lidartwin/physics/waveform.h"
#include "lidartwin/physics/waveform_ranging.h"
#include "register_fft.cuh"

namespace lt::cuda {

constexpr uint32_t kFullMask = 0xffffffffu;

// A record in shared memory with one spare value after every 32, for the radix-2 butterflies'
// strides (ncu: 5-6 way bank conflicts on an H100 without it).
struct PaddedRecord {
  physics::ComplexF* base;
  __device__ physics::ComplexF& operator[](uint32_t i) const { return base[i + (i >> 5)]; }
};
__host__ __device__ inline uint32_t PaddedLength(uint32_t n) {
  return n + n / 32;
}

// Values a lane holds in the register transform for records of n samples (register_fft.cuh),
// or 0: the radix-2 transform in shared memory.
__host__ __device__ constexpr uint32_t RegisterValues(uint32_t n) {
  return n == 1024 ? 32 : (n == 2048 ? 64 : 0);
}

// One beam's samples as floats, for the register transform: one spare float after every
// block of N / 32 (a lane's block in the SiPM pass), so that the lanes walking their blocks
// side by side, and the transform's loads of every 32nd sample, meet on no bank.
struct BlockPadded {
  float* base;
  uint32_t log2_block;
  __device__ float& operator[](uint32_t i) const { return base[i + (i >> log2_block)]; }
};
__host__ __device__ inline uint32_t BlockPaddedLength(uint32_t n) {
  return n + 32;
}
// The record of n samples at `base` (blocks of n / 32).
__device__ inline BlockPadded BlockPaddedAt(float* base, uint32_t n) {
  const uint32_t log2_n = 31u - static_cast<uint32_t>(__clz(n));  // n a power of two
  return {base, log2_n > 5 ? log2_n - 5 : 0};
}

// One beam's samples as the real (part 0) or imaginary (part 1) parts of a PaddedRecord, for
// the shared-memory transform.
struct ComplexPart {
  physics::ComplexF* base;
  uint32_t part;
  __device__ float& operator[](uint32_t i) const { return (&base[i + (i >> 5)].re)[part]; }
};

// The float samples the physics' ranging reads as x[i].re.
template <typename Floats>
struct ReView {
  Floats f;
  struct Value {
    float re;
  };
  __device__ Value operator[](uint32_t i) const { return {f[i]}; }
};

// A lane's contiguous block of L samples (first sample lane L): a pointer into a BlockPadded
// record (whose padding follows each block), else the record indexed from the block's start.
template <typename Floats>
struct OffsetSamples {
  Floats x;
  uint32_t first;
  __device__ float& operator[](uint32_t k) const { return x[first + k]; }
};
template <typename Floats>
__device__ inline OffsetSamples<Floats> LaneBlock(Floats x, uint32_t lane, uint32_t L) {
  return {x, lane * L};
}
__device__ inline float* LaneBlock(BlockPadded x, uint32_t lane, uint32_t L) {
  return x.base + lane * (L + 1);
}

// Shared memory a warp needs for two beams' records of n samples with `slots` contributions
// each: the records (and the transpose over them), one mask word per 32 samples and the
// contributions, for each beam.
__host__ __device__ inline size_t PairRecordBytes(uint32_t n) {
  const uint32_t r = RegisterValues(n);
  if (r == 0) return size_t{PaddedLength(n)} * sizeof(physics::ComplexF);
  const size_t floats = 2 * size_t{BlockPaddedLength(n)} * sizeof(float);
  const size_t transpose = size_t{TransposeValues(r)} * sizeof(physics::ComplexF);
  return floats > transpose ? floats : transpose;
}
__host__ __device__ inline size_t WarpPairBytes(uint32_t n, uint32_t slots) {
  const size_t bytes = PairRecordBytes(n) + 2 * (n / 32 + 1) * sizeof(uint32_t) +
                       2 * size_t{slots} * sizeof(physics::SignalContribution);
  return (bytes + 15) / 16 * 16;  // the next warp's records stay aligned
}

// The parts of a warp's shared memory.
struct WarpPair {
  unsigned char* records;                         // PairRecordBytes
  uint32_t* above[2];                             // n / 32 + 1 mask words a beam
  physics::SignalContribution* contributions[2];  // `slots` a beam
};
__device__ inline WarpPair WarpPairAt(unsigned char* shared, uint32_t warp, uint32_t n,
                                      uint32_t slots) {
  unsigned char* mine = shared + warp * WarpPairBytes(n, slots);
  WarpPair p;
  p.records = mine;
  // Contributions first after the records: 16-byte values on a 16-byte boundary.
  p.contributions[0] = reinterpret_cast<physics::SignalContribution*>(mine + PairRecordBytes(n));
  p.contributions[1] = p.contributions[0] + slots;
  p.above[0] = reinterpret_cast<uint32_t*>(p.contributions[1] + slots);
  p.above[1] = p.above[0] + n / 32 + 1;
  return p;
}

// The pair kernels' launch bounds: blocks of at most four warps, at least two blocks an SM.
// Measured on the H100 (bench/RESULTS.md, third step): with these bounds ptxas gives the
// register transform up to 255 registers, and the chain runs at 30 M beams/s at 1024 samples
// against 15-16 M when it is held to 168 or 128 registers for a third or fourth block.
constexpr int kPairBlockThreads = 128;
constexpr int kPairBlocksPerSm = 2;

// Warps a block runs: `most`, or as many as the shared memory a block may have on the current
// device (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on an H100, 163 on an A100, 99 on
// Ada), at most `cap`, holds at `warp_bytes` a warp beside the kernel's own `reserved` bytes
// (its static shared memory); 0 when not even one fits (the launch then fails with
// cudaErrorInvalidConfiguration).
inline uint32_t WarpsThatFit(size_t cap, size_t warp_bytes, uint32_t most, size_t reserved = 0) {
  int device = 0, optin = 48 << 10;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
          cudaSuccess)
    optin = 48 << 10;
  size_t bytes = static_cast<size_t>(optin) < cap ? static_cast<size_t>(optin) : cap;
  bytes = bytes > reserved ? bytes - reserved : 0;
  const size_t fit = bytes / warp_bytes;
  return static_cast<uint32_t>(fit >= most ? most : fit);
}

// Lets `kernel` have `warps` warps' shared memory of `warp_bytes` each, its bytes in `shared`:
// cudaErrorInvalidConfiguration where not even one warp's fits (WarpsThatFit gave 0).
template <typename Kernel>
inline cudaError_t AllowWarpsSharedMemory(Kernel kernel, uint32_t warps, size_t warp_bytes,
                                          size_t& shared) {
  if (warps == 0) return cudaErrorInvalidConfiguration;
  shared = warps * warp_bytes;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(shared));
}

// Warps (beam pairs) a block runs: four, or as many as fit in 200 KiB of shared memory or the
// device's limit.
inline uint32_t WarpsPerBlock(uint32_t n, uint32_t slots) {
  return WarpsThatFit(200u << 10, WarpPairBytes(n, slots), kPairBlockThreads / 32);
}

// Beam k's (0, 1) samples in the warp's records, for a record layout R (RegisterValues).
template <uint32_t R>
__device__ inline auto PairSamples(const WarpPair& p, uint32_t n, uint32_t k) {
  if constexpr (R == 0) {
    return ComplexPart{reinterpret_cast<physics::ComplexF*>(p.records), k};
  } else {
    return BlockPaddedAt(reinterpret_cast<float*>(p.records) + k * BlockPaddedLength(n), n);
  }
}

// Lane 0 of a warp finds `beam` in the sorted list kept[0 .. count); every lane gets its slot,
// or -1.
__device__ inline int64_t KeptSlot(const uint32_t* kept, uint32_t count, uint32_t beam) {
  int64_t slot = -1;
  if ((threadIdx.x & 31u) == 0 && count > 0) {
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
      const uint32_t mid = (lo + hi) / 2;
      if (kept[mid] < beam) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo < count && kept[lo] == beam) slot = lo;
  }
  return __shfl_sync(0xffffffffu, slot, 0);
}

// Zeroes a record of N samples by the calling warp: a BlockPadded one (16-byte aligned, its
// padding included) four floats a store.
template <typename Floats>
__device__ inline void ZeroRecord(Floats x, uint32_t N) {
  for (uint32_t i = threadIdx.x & 31u; i < N; i += 32)
    x[i] = 0.0f;
}
__device__ inline void ZeroRecord(BlockPadded x, uint32_t N) {
  float4* v = reinterpret_cast<float4*>(x.base);
  for (uint32_t k = threadIdx.x & 31u; k < BlockPaddedLength(N) / 4; k += 32)
    v[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// Stages 1-2 (eq. 3-7) of one beam by the calling warp: the photons of each bin into
// x[0 .. N), as physics::ReceivedPowerSamples and DetectorCurrent draw them. `chunks`: N / 32
// words of scratch (the ranging's mask words, free until then) flagging the 32-bin chunks a
// pulse reaches: under a sparse background (drawn by segments) a bin outside them has no draw
// of its own and stays 0, so the draws skip them 32 at a time. On return the words are the
// record's photon mask, bit i % 32 of word i / 32 set where bin i has photons (x[i] > 0; all set
// where every bin is drawn on its own), for the passes that visit those bins alone
// (waveform_beam.cuh). Returns the background's mean
// photons a bin (physics::BackgroundMean).
template <typename Floats>
__device__ __forceinline__ double WarpPhotons(const physics::WaveformChain& w,
                                              const physics::SignalContribution* c, uint32_t n,
                                              double sun_w, const physics::RandomKey& key, Floats x,
                                              uint32_t* chunks) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t N = w.samples;
  ZeroRecord(x, N);
  for (uint32_t k = lane; k < N / 32; k += 32)
    chunks[k] = 0;
  __syncwarp();
  // The pulses' power: the internal reflection (its table's, or computed as the others'), then
  // each contribution, in the CPU's order (physics::ReceivedPowerSamples). Each bin a pulse
  // reaches flags its chunk (a store of the same word by several lanes; a loop over each
  // pulse's chunks took about 200 warp instructions a beam on the OS0-128 city frame). Bins of a
  // record (below 2^14) and pulses (kMaxContributions) in 32 bits.
  const physics::InternalReflectionTable& internal = w.internal;
  if (internal.bins > 0) {
    for (uint32_t b = lane; b < internal.bins; b += 32) {
      x[internal.first_bin + b] += internal.bin[b].power_w;
      chunks[(internal.first_bin + b) / 32] = 1;
    }
    __syncwarp();
  }
  const double t_e = physics::EmissionTime(w);
  const double half_inv_var = 0.5 / (w.pulse_sigma_s * w.pulse_sigma_s);
  const bool internal_pulse = internal.bins == 0 && w.internal_power_w > 0;
  for (int32_t k = internal_pulse ? -1 : 0; k < static_cast<int32_t>(n); ++k) {
    const double peak = k < 0 ? w.internal_power_w : c[k].power_w;
    // The sum rounded apart from the product, as the CPU's is (no fused multiply-add): the
    // same pulse centre on both backends.
    const double t =
        k < 0 ? t_e + w.internal_delay_s
              : __dadd_rn(t_e, physics::RangeIntervalTime(static_cast<double>(c[k].range_m)));
    const physics::SampleSpan s = physics::PulseSpan(w, t);
    if (s.first <= s.last) {  // within [0, N)
      const uint32_t last = static_cast<uint32_t>(s.last);
      for (uint32_t i = static_cast<uint32_t>(s.first) + lane; i <= last; i += 32) {
        x[i] += physics::PulseSample(w, peak, t, i, half_inv_var);
        chunks[i / 32] = 1;
      }
    }
    __syncwarp();
  }
  // Photons: each bin's own draw in place (a pulse's bins side by side across the lanes), then
  // the background's, a segment a lane.
  const double background = physics::BackgroundMean(w, sun_w);
  const double bin_background = physics::BinBackgroundMean(w, background);
  auto draw = [&](uint32_t i) {
    const float pulse_w = x[i];
    float photons = 0.0f;
    if (physics::BinDraws(pulse_w, bin_background)) {
      const physics::Philox4x32 words =
          w.shot_noise ? physics::PhotonWords(key, i) : physics::Philox4x32{};
      photons = physics::BinPhotons(w, key, i, pulse_w, bin_background, words);
    }
    x[i] = photons;
  };
  // Visits the flagged chunks (those a pulse reaches) in order: visit(g).
  auto for_each_flagged = [&](auto visit) {
    for (uint32_t base = 0; base < N / 32; base += 32) {
      uint32_t flagged = __ballot_sync(kFullMask, base + lane < N / 32 && chunks[base + lane] != 0);
      __syncwarp();  // the flags read before a visit overwrites its chunk's word with the mask
      while (flagged) {
        visit(base + static_cast<uint32_t>(__ffs(flagged) - 1));
        flagged &= flagged - 1;
      }
    }
  };
  if (bin_background > 0) {
    // Every bin drawn: the mask all set (a bin without photons in it is one the passes over the
    // photons step through as in a gap; with two or more photons a bin the passes are dense).
    for (uint32_t i = lane; i < N; i += 32)
      draw(i);
    __syncwarp();
    for (uint32_t g = lane; g < N / 32; g += 32)
      chunks[g] = kFullMask;
  } else {
    // Chunk by chunk, each leaving its mask word.
    for_each_flagged([&](uint32_t g) {
      draw(32 * g + lane);
      const uint32_t bits = __ballot_sync(kFullMask, x[32 * g + lane] > 0.0f);
      if (lane == 0) chunks[g] = bits;
    });
  }
  __syncwarp();
  // A segment's mask words (whole words: segments of at least 32 bins) are lane g's alone in
  // this loop; at 1024 samples and more, each lane draws one segment, its own block.
  if (bin_background == 0) {
    const uint32_t B = physics::BackgroundSegmentBins(N);
    for (uint32_t g = lane; g < N / B; g += 32) {
      physics::SegmentBackgroundPhotons(background, B, key, g, [&](uint32_t b) {
        const uint32_t i = g * B + b;
        x[i] += 1.0f;
        chunks[i / 32] |= 1u << (i % 32);
      });
    }
  }
  __syncwarp();
  return background;
}

// The sum of `v` over the calling lane and the lanes below it (an inclusive scan).
__device__ inline uint32_t WarpInclusiveSum(uint32_t v) {
  const uint32_t lane = threadIdx.x & 31u;
  for (uint32_t d = 1; d < 32; d <<= 1) {
    const uint32_t below = __shfl_up_sync(kFullMask, v, d);
    if (lane >= d) v += below;
  }
  return v;
}

// An affine map x -> a x + b.
struct AffineMap {
  float a, b;
};
// Each lane's map composed after those of the lanes below it (an inclusive scan across the
// warp): returns the composition of the lanes before the calling one (the identity for lane 0),
// and in `warp` that of all 32.
__device__ inline AffineMap ExclusiveAffineScan(AffineMap m, AffineMap& warp) {
  const uint32_t lane = threadIdx.x & 31u;
  for (uint32_t d = 1; d < 32; d <<= 1) {
    const float a_prev = __shfl_up_sync(kFullMask, m.a, d);
    const float b_prev = __shfl_up_sync(kFullMask, m.b, d);
    if (lane >= d) {
      m.b = m.a * b_prev + m.b;
      m.a = m.a * a_prev;
    }
  }
  warp = {__shfl_sync(kFullMask, m.a, 31), __shfl_sync(kFullMask, m.b, 31)};
  const float a_ex = __shfl_up_sync(kFullMask, m.a, 1);
  const float b_ex = __shfl_up_sync(kFullMask, m.b, 1);
  return lane == 0 ? AffineMap{1.0f, 0.0f} : AffineMap{a_ex, b_ex};
}

// The sensitivity at the start of the calling lane's block from its blocks' maps
// S_out = A S_in + B (`block`), scanned across the lanes (exclusive) from the resting
// sensitivity under the background, which lane 0's block starts at.
__device__ inline float SipmBlockStart(const physics::WaveformChain& w, physics::SipmRunMap block,
                                       double background, float recovery) {
  AffineMap all;
  const AffineMap before = ExclusiveAffineScan({block.A, block.B}, all);
  const float resting =
      physics::SipmRestingSensitivity(w.sipm, recovery, static_cast<float>(background));
  return (threadIdx.x & 31u) == 0 ? resting : before.a * resting + before.b;
}

// Stage 3's first pass (eq. 8-9): each lane's contiguous block of L = N / 32 bins has its
// photons replaced by the shares of the cells they fire (physics::SipmHitShare, 0 without
// photons: the costly part done once, by the lanes that have photons), is composed into one
// affine map of the sensitivity S_out = A S_in + B, and the maps are scanned across the lanes
// (exclusive). Returns the sensitivity at the start of the lane's block; without saturation
// (no cells) 1, the photons left as they are.
template <typename Floats>
__device__ __forceinline__ float WarpSipmStart(const physics::WaveformChain& w, Floats x,
                                               double background, float recovery) {
  if (!(w.sipm.cells > 0)) return 1.0f;
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t L = w.samples / 32;
  const auto block = LaneBlock(x, lane, L);
  physics::SipmRunMap run{1.0f, 0.0f};
#pragma unroll 4
  for (uint32_t i = 0; i < L; ++i) {
    const float photons = block[i];
    const float hit = photons == 0 ? 0.0f : physics::SipmHitShare(w.sipm, photons);
    block[i] = hit;
    run = physics::SipmThenBin(run, physics::SipmMapOfShare(w.sipm, recovery, hit), recovery);
  }
  return SipmBlockStart(w, run, background, recovery);
}

// The charge of a bin left by WarpSipmStart (its share of cells hit, or its photons without
// saturation) in fired-cell units, the state moved on to the next bin.
__device__ __forceinline__ float WarpSipmCharge(const physics::WaveformChain& w, float recovery,
                                                float share_or_photons, physics::SipmState& state) {
  if (!(w.sipm.cells > 0)) return share_or_photons;
  return physics::SipmChargeOfMap(physics::SipmMapOfShare(w.sipm, recovery, share_or_photons),
                                  recovery, state);
}

// Stages 1-3 (eq. 3-9) of one beam by the calling warp: the circuit's input current [A] into
// x[0 .. N), as physics::ReceivedPowerSamples and DetectorCurrent compute it. `chunks`: as
// WarpPhotons.
template <typename Floats>
__device__ __forceinline__ void WarpDetectorCurrent(const physics::WaveformChain& w,
                                                    const physics::SignalContribution* c,
                                                    uint32_t n, double sun_w,
                                                    const physics::RandomKey& key, Floats x,
                                                    uint32_t* chunks) {
  const double background = WarpPhotons(w, c, n, sun_w, key, x, chunks);
  const float recovery = w.sipm_recovery;
  physics::SipmState state{WarpSipmStart(w, x, background, recovery)};
  const uint32_t L = w.samples / 32;
  const auto block = LaneBlock(x, threadIdx.x & 31u, L);
  const double amps_per_cell = w.cell_charge_c / w.dt_s;
  for (uint32_t i = 0; i < L; ++i)
    block[i] = static_cast<float>(WarpSipmCharge(w, recovery, block[i], state) * amps_per_cell);
  __syncwarp();
}

// Thermal noise of segment g (physics::ThermalSegment) added to the pair's records xa and xb.
template <typename Floats>
__device__ __forceinline__ void AddThermalSegment(const physics::WaveformChain& w,
                                                  const physics::RandomKey& key_a,
                                                  const physics::RandomKey& key_b, uint32_t g,
                                                  Floats xa, Floats xb) {
  const uint32_t S = physics::ThermalSegmentBins(w.samples);
  physics::ThermalSegment noise_a(w, key_a, g), noise_b(w, key_b, g);
  for (uint32_t i = g * S; i < (g + 1) * S; i += 2) {
    float a0, a1, b0, b1;
    noise_a.NextPair(a0, a1);
    noise_b.NextPair(b0, b1);
    xa[i] += a0;
    xa[i + 1] += a1;
    xb[i] += b0;
    xb[i + 1] += b1;
  }
}

// Stage 4 (eq. 10) of the warp's two beams, their currents in the records of layout R: the
// voltages (baseline and thermal noise included) replace them. `step`: StepTwiddles(N) in
// device memory where R > 0.
template <uint32_t R>
__device__ __forceinline__ void WarpCircuitPair(const physics::WaveformChain& w, const WarpPair& p,
                                                const physics::RandomKey key_a,
                                                const physics::RandomKey key_b,
                                                const physics::ComplexF* step) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t N = w.samples;
  const float scale = 1.0f / static_cast<float>(N);
  const float base = static_cast<float>(w.baseline_v);
  if constexpr (R > 0) {
    const auto xa = PairSamples<R>(p, N, 0);
    const auto xb = PairSamples<R>(p, N, 1);
    physics::ComplexF a[R];
#pragma unroll
    for (uint32_t m = 0; m < R; ++m)
      a[m] = {xa[lane + 32 * m], xb[lane + 32 * m]};
    __syncwarp();
    RegisterCircuitPair<R>(w, a, reinterpret_cast<physics::ComplexF*>(p.records), step);
#pragma unroll
    for (uint32_t m = 0; m < R; ++m)
      a[m] = {a[m].re * scale + base, a[m].im * scale + base};
    __syncwarp();  // the transpose's last reads of the records' memory
#pragma unroll
    for (uint32_t m = 0; m < R; ++m) {
      xa[lane + 32 * m] = a[m].re;
      xb[lane + 32 * m] = a[m].im;
    }
    __syncwarp();
    // Thermal noise: each lane the segments of its own block (physics::ThermalSegment), so the
    // blocks' padding keeps the lanes on distinct banks.
    if (w.thermal_noise_v > 0) {
      const uint32_t S = physics::ThermalSegmentBins(N), L = N / 32;
      for (uint32_t g = lane * L / S; g < (lane + 1) * L / S; ++g)
        AddThermalSegment(w, key_a, key_b, g, xa, xb);
    }
  } else {
    const PaddedRecord x{reinterpret_cast<physics::ComplexF*>(p.records)};
    uint32_t log2n = 0;
    while ((1u << log2n) < N)
      ++log2n;
    for (int inverse = 0; inverse < 2; ++inverse) {
      for (uint32_t i = lane; i < N; i += 32) {
        const uint32_t j = __brev(i) >> (32 - log2n);
        if (i < j) {
          const physics::ComplexF t = x[i];
          x[i] = x[j];
          x[j] = t;
        }
      }
      __syncwarp();
      for (uint32_t len = 2; len <= N; len <<= 1) {
        for (uint32_t b = lane; b < N / 2; b += 32)
          physics::Butterfly(x, N, len, b, w.twiddles, inverse != 0);
        __syncwarp();
      }
      if (inverse == 0) {
        for (uint32_t k = lane; k < N; k += 32)
          x[k] = physics::Mul(static_cast<physics::ComplexF>(x[k]), w.transfer[k]);
        __syncwarp();
      }
    }
    for (uint32_t i = lane; i < N; i += 32)
      x[i] = {x[i].re * scale + base, x[i].im * scale + base};
    __syncwarp();
    if (w.thermal_noise_v > 0) {
      for (uint32_t g = lane; g < physics::ThermalSegments(N); g += 32)
        AddThermalSegment(w, key_a, key_b, g, ComplexPart{x.base, 0}, ComplexPart{x.base, 1});
    }
  }
  __syncwarp();
}

// What stages 1-4 need of one beam of a pair: its contributions c[0 .. n), sunlight [W] and
// key. A missing second beam has no contributions and is not read.
struct PairBeam {
  const physics::SignalContribution* c;
  uint32_t n;
  double sun_w;
  physics::RandomKey key;
};

// Stages 1-4 of the warp's two beams; their voltages are then PairSamples<R>(p, N, 0 and 1).
// `step`: StepTwiddles(N) in device memory where R > 0 (RegisterValues(N)). Every warp of the
// block calls this (those without beams with `active` false), and the block's warps run each
// stage together, a barrier between: fewer stages' code in the instruction cache at once (the
// one-beam kernels keep one barrier a beam, waveform_beam.cuh).
template <uint32_t R>
__device__ __forceinline__ void BlockWaveformPairs(const physics::WaveformChain& w,
                                                   const WarpPair& p, const PairBeam a,
                                                   const PairBeam b, const physics::ComplexF* step,
                                                   bool active) {
  if (active)
    WarpDetectorCurrent(w, a.c, a.n, a.sun_w, a.key, PairSamples<R>(p, w.samples, 0), p.above[0]);
  __syncthreads();
  if (active)
    WarpDetectorCurrent(w, b.c, b.n, b.sun_w, b.key, PairSamples<R>(p, w.samples, 1), p.above[1]);
  __syncthreads();
  if (active) WarpCircuitPair<R>(w, p, a.key, b.key, step);
  __syncthreads();
}

// The mask words of the samples above `threshold` from `begin` on (bit b of word c: sample
// 32 c + b), each lane building those of its own block: for BlockPadded records of at least
// 1024 samples (whole words a lane), a few operations a sample instead of a ballot's. False for
// other layouts: the caller ballots.
template <typename Floats>
__device__ inline bool LaneAboveWords(Floats, uint32_t, uint32_t, float, uint32_t*) {
  return false;
}
__device__ inline bool LaneAboveWords(BlockPadded x, uint32_t N, uint32_t begin, float threshold,
                                      uint32_t* above) {
  const uint32_t L = N / 32;
  if (L < 32) return false;
  const uint32_t lane = threadIdx.x & 31u;
  const float* block = LaneBlock(x, lane, L);
  for (uint32_t k = 0; k < L; k += 32) {
    const uint32_t i0 = lane * L + k;
    uint32_t bits = 0;
#pragma unroll
    for (uint32_t b = 0; b < 32; ++b)
      bits |= static_cast<uint32_t>(block[k + b] > threshold) << b;
    if (i0 + 32 <= begin) {
      bits = 0;
    } else if (i0 < begin) {
      bits &= 0xffffffffu << (begin - i0);
    }
    above[i0 / 32] = bits;
  }
  return true;
}

// The mask words as LaneAboveWords's, by the whole warp for the lanes' blocks that reach the
// target window and rise above the threshold (`highest`: the calling lane's block's highest
// sample), a ballot a word, the other blocks' words zero: with thermal noise a beam has a block
// or two above the threshold, where LaneAboveWords takes a few operations for every sample
// (`ncu`: 140 warp instructions a beam at 1024 samples, 270 at 2048). False where more than
// kMostHotBlocks blocks are above it (a ballot a word then costs more than the lanes' own
// passes) and for layouts other than BlockPadded records of at least 1024 samples.
constexpr uint32_t kMostHotBlocks = 16;
template <typename Floats>
__device__ inline bool HotAboveWords(Floats, uint32_t, uint32_t, float, float, uint32_t*) {
  return false;
}
__device__ inline bool HotAboveWords(BlockPadded x, uint32_t N, uint32_t begin, float threshold,
                                     float highest, uint32_t* above) {
  const uint32_t L = N / 32, W = L / 32;  // samples and mask words a lane's block
  if (L < 32) return false;
  const uint32_t lane = threadIdx.x & 31u;
  uint32_t hot = __ballot_sync(kFullMask, highest > threshold && (lane + 1) * L > begin);
  if (static_cast<uint32_t>(__popc(hot)) > kMostHotBlocks) return false;
  for (uint32_t k = 0; k < W; ++k)
    above[lane * W + k] = 0;
  __syncwarp();
  while (hot) {
    const uint32_t h = static_cast<uint32_t>(__ffs(hot) - 1);
    hot &= hot - 1;
    for (uint32_t k = 0; k < W; ++k) {
      const uint32_t i = h * L + 32 * k + lane;
      const uint32_t bits = __ballot_sync(kFullMask, i >= begin && x[i] > threshold);
      if (lane == 0) above[h * W + k] = bits;
    }
  }
  return true;
}

// Lane k's run of the record's runs above the threshold (their starts counted in lane order,
// `before` of them in lanes below the caller's, `inclusive` up to and with its own), found from
// the mask words of the lane that holds its start: first index i, end j (exclusive) and highest
// sample top. False where the record has fewer than k + 1 runs.
__device__ inline bool LaneRun(BlockPadded x, const uint32_t* above, uint32_t N, uint32_t k,
                               uint32_t before, uint32_t inclusive, uint32_t& i, uint32_t& j,
                               uint32_t& top) {
  const uint32_t L = N / 32, W = L / 32;
  // The lane holding run k's start: the first whose inclusive count exceeds k (a binary search
  // over the lanes' counts, every lane taking part in the shuffles).
  uint32_t owner = 0;
  for (uint32_t step = 16; step > 0; step >>= 1)
    if (__shfl_sync(kFullMask, inclusive, owner + step - 1) <= k) owner += step;
  uint32_t r = k - __shfl_sync(kFullMask, before, owner);  // its r-th start
  if (k >= __shfl_sync(kFullMask, inclusive, 31)) return false;
  const uint32_t* words = above + owner * W;
  uint32_t carry = owner > 0 ? words[-1] >> 31 : 0;
  i = N;
  for (uint32_t c = 0; c < W; ++c) {
    const uint32_t a = words[c];
    uint32_t starts = a & ~((a << 1) | carry);
    carry = a >> 31;
    const uint32_t n = static_cast<uint32_t>(__popc(starts));
    if (r < n) {
      for (; r > 0; --r)
        starts &= starts - 1;
      i = owner * L + 32 * c + static_cast<uint32_t>(__ffs(starts) - 1);
      break;
    }
    r -= n;
  }
  // The run's end: the first clear bit after i (runs are short; they may cross into the next
  // lane's block), and its highest sample, the first on ties (as the CPU's scan).
  j = i;
  while (j < N) {
    const uint32_t clear = ~above[j / 32] & (0xffffffffu << (j & 31u));
    if (clear) {
      j = (j & ~31u) + static_cast<uint32_t>(__ffs(clear) - 1);
      break;
    }
    j = (j & ~31u) + 32;
  }
  if (j > N) j = N;
  top = i;
  for (uint32_t m = i + 1; m < j; ++m)
    if (x[m] > x[top]) top = m;
  return true;
}

// Stage 5's runs for BlockPadded records of at least 1024 samples (whole mask words a lane): each
// lane takes one run (the k-th of the record, k its lane, 32 a round) and computes its echo
// (physics::RunEcho), and lane 0 keeps those in the reporting window in range order
// (physics::KeepEcho), each gathered from its lane by shuffles: the same echoes as
// WaveformEchoes' walk. (Lane 0 walking the runs alone took about 500 warp instructions a beam
// at 2048 samples with three or four runs a beam in the Cube 1's sunlight, `ncu`.) Returns the
// echo count on lane 0.
__device__ inline uint32_t WarpRunEchoes(const physics::WaveformChain& w,
                                         const physics::WaveformBackground& g, BlockPadded x,
                                         const uint32_t* above, uint32_t begin, double min_range_m,
                                         double max_range_m, physics::Echo* echoes) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t N = w.samples, W = N / 32 / 32;
  // Run starts in the lane's words: set bits whose predecessor is clear (bits below `begin`
  // are clear, so a run at the window's start starts there).
  const uint32_t* mine = above + lane * W;
  uint32_t carry = __shfl_up_sync(kFullMask, mine[W - 1] >> 31, 1);
  if (lane == 0) carry = 0;
  uint32_t count_here = 0;
  for (uint32_t c = 0; c < W; ++c) {
    const uint32_t a = mine[c];
    count_here += static_cast<uint32_t>(__popc(a & ~((a << 1) | carry)));
    carry = a >> 31;
  }
  const uint32_t inclusive = WarpInclusiveSum(count_here);
  const uint32_t before = inclusive - count_here;
  const uint32_t runs = __shfl_sync(kFullMask, inclusive, 31);
  const ReView<BlockPadded> xr{x};
  uint32_t count = 0, seen = 0;
  for (uint32_t round = 0; round < runs; round += 32) {
    uint32_t i = 0, j = 0, top = 0;
    const bool mine_run = LaneRun(x, above, N, round + lane, before, inclusive, i, j, top);
    physics::Echo e{};
    if (mine_run) e = physics::RunEcho(w, g, xr, begin, i, j, top);
    uint32_t kept = __ballot_sync(
        kFullMask, mine_run && e.peak_range_m >= min_range_m && e.peak_range_m <= max_range_m);
    while (kept) {
      const int from = __ffs(kept) - 1;
      kept &= kept - 1;
      physics::Echo k{};
      k.range_m = __shfl_sync(kFullMask, e.range_m, from);
      k.peak_range_m = __shfl_sync(kFullMask, e.peak_range_m, from);
      k.peak_power_w = __shfl_sync(kFullMask, e.peak_power_w, from);
      k.start_m = __shfl_sync(kFullMask, e.start_m, from);
      k.end_m = __shfl_sync(kFullMask, e.end_m, from);
      if (lane == 0) physics::KeepEcho(k, min_range_m, max_range_m, echoes, count, seen);
    }
  }
  return lane == 0 ? count : 0;
}

// Stage 5's ranging of the voltages x[0 .. N) by the calling warp: the background and the
// internal reflection's peak (every lane gets them), the samples above the threshold in
// `above` (bit i of word i / 32), then the runs' echoes: a run a lane (WarpRunEchoes) for
// BlockPadded records of at least 1024 samples, else lane 0 walks them. `highest`: the calling
// lane's block's highest sample where known (BlockWaveformBeams), else infinity. Returns the echo
// count on lane 0.
template <typename Floats>
__device__ inline uint32_t WarpRanging(const physics::WaveformChain& w, Floats x, uint32_t* above,
                                       double min_range_m, double max_range_m,
                                       physics::Echo* echoes, float highest = INFINITY) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t N = w.samples;
  const uint32_t m = w.pretrigger_samples;
  const ReView<Floats> xr{x};
  // The pretrigger's mean and rms in one pass, in float from the configured baseline x0 (the
  // deviations are noise, millivolts on a baseline of 0.1 V: their float sums carry 1e-7 of the
  // rms, where the CPU's two double passes carry 1e-16; the threshold moves by less than
  // 1e-9 V): mean = x0 + S1 / m, sum of squared deviations = S2 - S1^2 / m, whose cancellation
  // stays small while the mean is within a few rms of x0 (it is: the pretrigger holds only the
  // background). (In double over two passes, with double divisions and square root, as the
  // CPU's: about 300 warp instructions a beam, `ncu`.)
  const float x0 = static_cast<float>(w.baseline_v);
  float s1 = 0, s2 = 0;
  for (uint32_t i = lane; i < m; i += 32) {
    const float d = x[i] - x0;
    s1 += d;
    s2 = fmaf(d, d, s2);
  }
  for (int d = 16; d > 0; d >>= 1) {
    s1 += __shfl_xor_sync(kFullMask, s1, d);
    s2 += __shfl_xor_sync(kFullMask, s2, d);
  }
  physics::WaveformBackground g;
  if (m > 1) {
    const float dev = s1 * __frcp_rn(static_cast<float>(m));
    const float var = fmaxf(0.0f, fmaf(-s1, dev, s2)) * __frcp_rn(static_cast<float>(m - 1));
    g = physics::BackgroundOfLevels(w, double{x0} + dev, sqrtf(var));
  } else {
    g = physics::BackgroundLevels(w, m * double{x0} + s1, 0.0);
  }
  // The internal reflection's highest sample in [m, end), the lowest index on ties.
  const uint32_t end = physics::TargetWindowStart(w);
  uint32_t best = m;
  float best_v = m < N ? x[m] : 0.0f;
  for (uint32_t i = m + lane; i < end; i += 32) {
    if (x[i] > best_v || (x[i] == best_v && i < best)) {
      best_v = x[i];
      best = i;
    }
  }
  for (int d = 16; d > 0; d >>= 1) {
    const float v = __shfl_xor_sync(kFullMask, best_v, d);
    const uint32_t b = __shfl_xor_sync(kFullMask, best, d);
    if (v > best_v || (v == best_v && b < best)) {
      best_v = v;
      best = b;
    }
  }
  physics::ReferencePeak(w, xr, best, end, g);
  // Samples above T from the target window on, 32 at a time. For a float x, x > T exactly when
  // x > T rounded down to a float, so the comparisons need no conversion to double.
  const uint32_t begin = end;
  const float threshold = __double2float_rd(g.threshold_v);
  if (!HotAboveWords(x, N, begin, threshold, highest, above) &&
      !LaneAboveWords(x, N, begin, threshold, above)) {
    for (uint32_t c = 0; c < (N + 31) / 32; ++c) {
      const uint32_t i = 32 * c + lane;
      const unsigned bits = __ballot_sync(kFullMask, i < N && i >= begin && x[i] > threshold);
      if (lane == 0) above[c] = bits;
    }
  }
  __syncwarp();
  if constexpr (std::is_same_v<Floats, BlockPadded>) {
    if (N / 32 >= 32) return WarpRunEchoes(w, g, x, above, begin, min_range_m, max_range_m, echoes);
  }
  // Which mask words hold a set bit (bit c mod 32 of busy[c / 32]), 32 words a ballot, so that
  // lane 0 crosses the empty stretch before each run in a step or two instead of word by word.
  const uint32_t words = (N + 31) / 32;
  uint32_t busy[physics::kMaxWaveformSamples / 1024];
  for (uint32_t c0 = 0; c0 < words; c0 += 32)
    busy[c0 / 32] = __ballot_sync(kFullMask, c0 + lane < words && above[c0 + lane] != 0);
  if (lane != 0) return 0;
  // Lane 0: the runs, as WaveformEchoes finds them.
  auto next_set = [&](uint32_t i) {  // first index >= i whose bit is set
    while (i < N) {
      const uint32_t c = i / 32;
      const uint32_t bits = above[c] & (0xffffffffu << (i & 31u));
      if (bits) return 32 * c + static_cast<uint32_t>(__ffs(bits) - 1);
      uint32_t d = c + 1, m = 0;  // the next busy word
      while (d < words) {
        m = busy[d / 32] & (0xffffffffu << (d & 31u));
        if (m) break;
        d = (d & ~31u) + 32;
      }
      if (m == 0) return N;
      i = 32 * ((d & ~31u) + static_cast<uint32_t>(__ffs(m) - 1));
    }
    return N;
  };
  auto next_clear = [&](uint32_t i) {  // first index >= i whose bit is clear (runs are short)
    while (i < N) {
      const uint32_t bits = ~above[i / 32] & (0xffffffffu << (i & 31u));
      if (bits) return (i & ~31u) + static_cast<uint32_t>(__ffs(bits) - 1);
      i = (i & ~31u) + 32;
    }
    return N;
  };
  uint32_t count = 0, seen = 0;
  for (uint32_t i = next_set(begin); i < N;) {
    const uint32_t j = next_clear(i);
    uint32_t top = i;
    for (uint32_t k = i + 1; k < j; ++k)
      if (x[k] > x[top]) top = k;
    if (!physics::KeepRunEcho(w, g, xr, begin, i, j, top, min_range_m, max_range_m, echoes, count,
                              seen))
      break;
    i = next_set(j);
  }
  return count;
}

}  // namespace lt::cuda
