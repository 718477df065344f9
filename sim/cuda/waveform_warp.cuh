// The waveform chain of one beam by one warp, its record in shared memory (issue 15's fused
// kernel): the same per-sample and per-run functions as the CPU's sequential chain
// (physics/waveform.h, waveform_ranging.h, fft.h, sipm.h), with the work of each stage spread
// over the 32 lanes:
//   - power: each pulse's samples across the lanes, pulse after pulse (the additions to a
//     sample keep the CPU's order);
//   - photons: each lane a contiguous block of N / 32 samples; the SiPM's recurrence, an
//     affine map per bin (SipmMap), composed per block and scanned across the lanes;
//   - FFT: the bit reversal and each stage's butterflies across the lanes (a stage's
//     butterflies touch disjoint pairs, so each value is computed exactly as on the CPU);
//   - ranging: the pretrigger's sums by warp reductions, the internal reflection's maximum by a
//     warp argmax (the lowest index on ties, as the CPU's scan), the samples above the
//     threshold as ballot masks, so that lane 0 walks only the runs.
// Rounding differs from the CPU only in the SiPM scan's order and the reductions' (float and
// double sums): CudaWaveform.* holds the records to 1e-5 of their peak.
#pragma once

#include <cstdint>

#include "internal/beam_pipeline.h"
#include "lidartwin/physics/fft.h"
#include "lidartwin/physics/sipm.h"
#include "lidartwin/physics/waveform.h"
#include "lidartwin/physics/waveform_ranging.h"

namespace lt::cuda {

constexpr uint32_t kFullMask = 0xffffffffu;

// A record in shared memory with one spare value after every 32: a lane's contiguous block of
// samples (the photon and SiPM passes) and the butterflies' strides would otherwise put many
// lanes on the same memory bank (ncu: 5-6 way conflicts on an H100).
struct PaddedRecord {
  physics::ComplexF* base;
  __device__ physics::ComplexF& operator[](uint32_t i) const { return base[i + (i >> 5)]; }
};
__host__ __device__ inline uint32_t PaddedLength(uint32_t n) {
  return n + n / 32;
}

// Shared memory a warp needs for a record of n samples: the record, one mask word per 32
// samples, and the beam's contributions.
__host__ __device__ inline size_t WarpRecordBytes(uint32_t n) {
  const size_t bytes = size_t{PaddedLength(n)} * sizeof(physics::ComplexF) +
                       (n / 32 + 1) * sizeof(uint32_t) +
                       kMaxContributions * sizeof(physics::SignalContribution);
  return (bytes + 15) / 16 * 16;  // the next warp's record stays aligned
}

// The parts of a warp's shared memory.
struct WarpRecord {
  PaddedRecord x;                         // n samples
  uint32_t* above;                        // n / 32 + 1 mask words
  physics::SignalContribution* contributions;  // kMaxContributions
};
__device__ inline WarpRecord WarpRecordAt(unsigned char* shared, uint32_t warp, uint32_t n) {
  unsigned char* mine = shared + warp * WarpRecordBytes(n);
  WarpRecord r;
  r.x = {reinterpret_cast<physics::ComplexF*>(mine)};
  r.above = reinterpret_cast<uint32_t*>(r.x.base + PaddedLength(n));
  r.contributions = reinterpret_cast<physics::SignalContribution*>(r.above + n / 32 + 1);
  return r;
}

// Warps (beams) a block runs for records of n samples: four, or as many as fit in 200 KiB of
// shared memory (the H100 allows 227 KiB a block).
inline uint32_t WarpsPerBlock(uint32_t n) {
  const size_t fit = (200u << 10) / WarpRecordBytes(n);
  return static_cast<uint32_t>(fit >= 4 ? 4 : (fit < 1 ? 1 : fit));
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

// Stages 1-4 (eq. 3-10) of one beam into x[0 .. N) (shared memory), by the calling warp.
__device__ inline void WarpWaveform(const physics::WaveformChain& w,
                                    const physics::SignalContribution* c, uint32_t n,
                                    double sun_w, const physics::RandomKey& key,
                                    PaddedRecord x) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t N = w.samples;
  for (uint32_t i = lane; i < N; i += 32)
    x[i].im = static_cast<float>(sun_w);
  __syncwarp();
  // Power: the internal reflection, then each contribution, as ReceivedPowerSamples adds them.
  const double t_e = physics::EmissionTime(w);
  const double half_inv_var = 0.5 / (w.pulse_sigma_s * w.pulse_sigma_s);
  for (int64_t k = w.internal_power_w > 0 ? -1 : 0; k < static_cast<int64_t>(n); ++k) {
    const double peak = k < 0 ? w.internal_power_w : c[k].power_w;
    const double t = k < 0 ? t_e + w.internal_delay_s
                           : t_e + physics::RangeIntervalTime(static_cast<double>(c[k].range_m));
    const physics::SampleSpan s = physics::PulseSpan(w, t);
    for (int64_t i = s.first + lane; i <= s.last; i += 32)
      x[i].im += physics::PulseSample(w, peak, t, i, half_inv_var);
    __syncwarp();
  }
  const float resting = physics::SipmRestingSensitivity(
      w.sipm, physics::SipmRecovery(w.sipm, w.dt_s), physics::BackgroundPhotons(w, x[0].im));
  // Photons, per lane a block of L samples; their counts into x[i].re.
  const uint32_t L = N / 32;
  const uint32_t first = lane * L;
  physics::Philox4x32 words{};
  for (uint32_t i = first; i < first + L; ++i) {
    if (w.shot_noise && (i == first || (i & 3u) == 0)) words = physics::PhotonWords(key, i);
    x[i].re = physics::SamplePhotons(w, key, i, x[i].im, words);
  }
  // SiPM: each block's bins composed into one affine map S_out = A S_in + B, the maps scanned
  // across the lanes (exclusive), then the block's charges from its incoming sensitivity.
  const double amps_per_cell = w.cell_charge_c / w.dt_s;
  const float recovery = physics::SipmRecovery(w.sipm, w.dt_s);
  const bool saturates = w.sipm.cells > 0;
  float s_in = 1.0f;
  if (saturates) {
    float A = 1.0f, B = 0.0f;
    for (uint32_t i = first; i < first + L; ++i) {
      const physics::SipmBinMap m = physics::SipmMap(w.sipm, recovery, x[i].re);
      A = m.a * A;
      B = m.a * B + (1.0f - recovery);
    }
    // Inclusive scan of (A, B) over the lanes: a later map applied after an earlier one.
    for (uint32_t d = 1; d < 32; d <<= 1) {
      const float a_prev = __shfl_up_sync(kFullMask, A, d);
      const float b_prev = __shfl_up_sync(kFullMask, B, d);
      if (lane >= d) {
        B = A * b_prev + B;
        A = A * a_prev;
      }
    }
    const float a_ex = __shfl_up_sync(kFullMask, A, 1);
    const float b_ex = __shfl_up_sync(kFullMask, B, 1);
    s_in = lane == 0 ? resting : a_ex * resting + b_ex;
  }
  physics::SipmState state{s_in};
  for (uint32_t i = first; i < first + L; ++i) {
    const float q = physics::SipmCharge(w.sipm, recovery, x[i].re, state);
    x[i] = {static_cast<float>(q * amps_per_cell), 0.0f};
  }
  __syncwarp();
  // Circuit (eq. 10): FFT, H, inverse FFT, as CircuitVoltage.
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
  const float base = static_cast<float>(w.baseline_v);
  for (uint32_t i = lane; i < N; i += 32) {
    physics::ScaleInverse(x[i], N);
    x[i].re += base;
  }
  __syncwarp();
  if (w.thermal_noise_v > 0) {
    for (uint32_t j = lane; j < N / 4; j += 32) {
      float v[4];
      physics::ThermalNoiseOfFour(w, key, j, v);
      for (uint32_t m = 0; m < 4; ++m)
        x[4 * j + m].re += v[m];
    }
  }
  __syncwarp();
}

__device__ inline double WarpSum(double v) {
  for (int d = 16; d > 0; d >>= 1)
    v += __shfl_xor_sync(kFullMask, v, d);
  return v;
}

// Stage 5's ranging of the record in x by the calling warp: the background and the internal
// reflection's peak (every lane gets them), the samples above the threshold in `above` (bit i
// of word i / 32), then lane 0 walks the runs. Returns the echo count on lane 0.
__device__ inline uint32_t WarpRanging(const physics::WaveformChain& w, PaddedRecord x,
                                       uint32_t* above, double min_range_m, double max_range_m,
                                       physics::Echo* echoes) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t N = w.samples;
  const uint32_t m = w.pretrigger_samples;
  double sum = 0;
  for (uint32_t i = lane; i < m; i += 32)
    sum += x[i].re;
  sum = WarpSum(sum);
  const double mean = m > 0 ? sum / m : 0.0;
  double sum2 = 0;
  for (uint32_t i = lane; i < m; i += 32) {
    const double d = x[i].re - mean;
    sum2 += d * d;
  }
  sum2 = WarpSum(sum2);
  physics::WaveformBackground g = physics::BackgroundLevels(w, sum, sum2);
  // The internal reflection's highest sample in [m, end), the lowest index on ties.
  const uint32_t end = physics::TargetWindowStart(w);
  uint32_t best = m;
  float best_v = m < N ? x[m].re : 0.0f;
  for (uint32_t i = m + lane; i < end; i += 32) {
    if (x[i].re > best_v || (x[i].re == best_v && i < best)) {
      best_v = x[i].re;
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
  physics::ReferencePeak(w, x, best, end, g);
  // Samples above T from the target window on, 32 at a time.
  const uint32_t begin = end;
  for (uint32_t c = 0; c < (N + 31) / 32; ++c) {
    const uint32_t i = 32 * c + lane;
    const unsigned bits = __ballot_sync(kFullMask, i < N && i >= begin && x[i].re > g.threshold_v);
    if (lane == 0) above[c] = bits;
  }
  __syncwarp();
  if (lane != 0) return 0;
  // Lane 0: the runs, as WaveformEchoes finds them.
  auto next = [&](uint32_t i, bool set) {  // first index >= i whose bit is `set`
    while (i < N) {
      const uint32_t word = set ? above[i / 32] : ~above[i / 32];
      const uint32_t bits = word & (0xffffffffu << (i & 31u));
      if (bits) return (i & ~31u) + static_cast<uint32_t>(__ffs(bits) - 1);
      i = (i & ~31u) + 32;
    }
    return N;
  };
  uint32_t count = 0, seen = 0;
  for (uint32_t i = next(begin, true); i < N;) {
    const uint32_t j = next(i, false);
    uint32_t top = i;
    for (uint32_t k = i + 1; k < j; ++k)
      if (x[k].re > x[top].re) top = k;
    if (!physics::KeepRunEcho(w, g, x, begin, i, j, top, min_range_m, max_range_m, echoes, count,
                              seen))
      break;
    i = next(j, true);
  }
  return count;
}

}  // namespace lt::cuda
