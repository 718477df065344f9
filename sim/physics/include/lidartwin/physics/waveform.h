// The full-waveform detector (model tier 5, seed 002 sec. 5): one beam's received power
// sampled at dt, photons, SiPM, circuit and ranging.
//   P_tot[i] = P_int[i] + P_rx[i] + P_sun                          (eq. 3, 5)
//   n[i] = Poisson(eta P_tot[i] dt / E_ph + r_dark dt)             (eq. 6, 7; photon_counting.h)
//   q[i] = S_i N (1 - exp(-n[i] / N))                              (eq. 8, 9; sipm.h)
//   v_c[i] = v_c0 + IDFT{H(f) DFT{q[i] G e / dt}}[i] + thermal     (eq. 10; circuit.h, fft.h)
// then ranging (waveform_ranging.h). The background's photons (sunlight, dark counts: one mean
// for every bin) are drawn apart from the pulses', a segment of bins at a time where sparse
// (photon_counting.h); a sum of independent Poisson counts is the Poisson count of the sum. Time
// runs from the start of the record: a pretrigger of N_pre samples holds only background, the
// pulse's centre leaves at t_e = N_pre dt + 4 sigma_t, the internal reflection arrives at t_e +
// tau_int and a target at range r at t_e + 2 r / c. Every term is the same function on the CPU and
// the GPU; the draws are keyed by (seed, frame, beam, and the bin, or the background's segment
// of BackgroundSegmentBins(N) bins), so both backends draw the same photons.
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/circuit_recursion.h"
#include "lidartwin/physics/fft.h"
#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/internal_reflection.h"
#include "lidartwin/physics/philox.h"
#include "lidartwin/physics/photon_counting.h"
#include "lidartwin/physics/return_signal.h"
#include "lidartwin/physics/sipm.h"
#include "lidartwin/physics/units.h"

namespace lt::physics {

inline constexpr uint32_t kMinWaveformSamples = 64;
inline constexpr uint32_t kMaxWaveformSamples = 16384;  // < 2^16: photon draw keys (above)

// The detector's constants, with views of the per-sensor tables (host or device memory).
struct WaveformChain {
  double dt_s;                  // sample interval
  uint32_t samples;             // N, a power of two
  uint32_t pretrigger_samples;  // N_pre: background only, for the baseline and noise estimate
  double pulse_sigma_s;         // emitted Gaussian pulse
  double internal_delay_s;      // tau_int: internal reflection after the pulse leaves
  double internal_power_w;      // its peak power at the detector
  double photon_energy_j;       // E_ph at the laser's wavelength
  double efficiency;            // eta, photon detection efficiency
  double dark_rate_hz;          // r_dark
  Sipm sipm;
  double cell_charge_c;    // G e, charge of one fully charged cell
  double baseline_v;       // v_c0
  double thermal_noise_v;  // rms per sample at the output, 0: none
  bool shot_noise;         // false: n[i] is its mean (noise-free chain, for tests and studies)
  // Ranging (waveform_ranging.h).
  double threshold_v;        // minimum height above the baseline of a target peak
  double noise_factor;       // the threshold is at least this times the pretrigger's rms
  double internal_window_s;  // after t_e + tau_int: the internal reflection's window
  double full_scale_v;       // peak height that maps to intensity_max
  double intensity_max;      // the sensor's integer scale (4096 for the Cube 1)
  const ComplexF* transfer;  // H(f_k) for k < N [ohm]: circuit.h, pulse included
  const ComplexF* twiddles;  // Twiddle(k, N), k < N / 2
  // The same circuit as recursions (circuit_recursion.h), which the GPU runs in place of the
  // transforms where count > 0; the CPU always takes the transform.
  CircuitRecursion sections;
  // For the GPU's chain: SipmRecovery(sipm, dt_s), set by MakeWaveformChain (a chain made
  // otherwise, or whose sipm or dt_s is changed after, must set it again; the CPU computes its
  // own), and GapPowers(sipm_recovery, sections, samples) in device memory for the passes over
  // the bins with photons alone (gap_powers.h), or null (the passes then visit every bin).
  float sipm_recovery;
  const float* gap_powers;
  // The internal reflection's power and photon distributions per bin (internal_reflection.h),
  // the same for every beam: set by the simulators from MakeWaveformTables on both backends,
  // so that both draw its photons alike; bins == 0 (a chain made by hand): computed per beam.
  InternalReflectionTable internal;
};

// Time of the emitted pulse's centre from the start of the record, t_e [s].
LT_HD inline double EmissionTime(const WaveformChain& w) {
  return w.pretrigger_samples * w.dt_s + 4 * w.pulse_sigma_s;
}

// The samples a Gaussian pulse centred at `t_s` reaches: those within 8 sigma of its centre
// (a relative weight of 1.3e-14 beyond), [first, last]; empty when first > last.
struct SampleSpan {
  int64_t first, last;
};
LT_HD inline SampleSpan PulseSpan(const WaveformChain& w, double t_s) {
  const double reach = 8 * w.pulse_sigma_s;
  const double per_s = 1 / w.dt_s;  // one division for both ends (the GPU hoists it)
  double first = std::ceil((t_s - reach) * per_s);
  double last = std::floor((t_s + reach) * per_s);
  if (first < 0) first = 0;
  if (last > w.samples - 1.0) last = w.samples - 1.0;
  if (!(first <= last)) return {1, 0};
  return {static_cast<int64_t>(first), static_cast<int64_t>(last)};
}

// That pulse's power at sample i [W]; half_inv_var = 1 / (2 sigma_t^2).
LT_HD inline float PulseSample(const WaveformChain& w, double peak_w, double t_s, int64_t i,
                               double half_inv_var) {
  const double d = static_cast<double>(i) * w.dt_s - t_s;
  return static_cast<float>(peak_w * PulseWeight(d, half_inv_var));
}

// Adds a Gaussian pulse of peak `peak_w` centred at `t_s` to the power in x[0 .. N).im.
template <typename Samples>
LT_HD void AddPulse(const WaveformChain& w, double peak_w, double t_s, Samples x) {
  const SampleSpan s = PulseSpan(w, t_s);
  const double half_inv_var = 0.5 / (w.pulse_sigma_s * w.pulse_sigma_s);
  for (int64_t i = s.first; i <= s.last; ++i)
    x[static_cast<uint32_t>(i)].im += PulseSample(w, peak_w, t_s, i, half_inv_var);
}

// Mean photons of a bin from the background alone, sunlight `sun_w` [W] and dark counts
// (eq. 6): what every bin receives besides the pulses, and what the SiPM rests under
// (SipmRestingSensitivity).
LT_HD inline double BackgroundMean(const WaveformChain& w, double sun_w) {
  return MeanPhotonCount<double>(sun_w, w.dt_s, w.photon_energy_j, w.efficiency, w.dark_rate_hz);
}

// The background's share of each bin's own draw: 0 where it is drawn by segments
// (photon_counting.h, SegmentBackgroundPhotons: shot noise and a sparse background), else
// all of it.
LT_HD inline double BinBackgroundMean(const WaveformChain& w, double background_mean) {
  return w.shot_noise && background_mean < kSparseBackgroundMean ? 0.0 : background_mean;
}

// Photons of bin i drawn on their own (eq. 6-7): those of the pulses' power there, plus
// `bin_background` (BinBackgroundMean); a Poisson draw, or the mean without shot noise.
// `words`: PhotonWords(beam_key, i) (shared by the four bins 4 j .. 4 j + 3), read only when
// the bin has photons to draw.
// A bin that holds the internal reflection alone (its tabulated power, no background of its
// own) is drawn from its table by word (i mod 4) of `words`, as inversion would draw it.
LT_HD inline float BinPhotons(const WaveformChain& w, const RandomKey& beam_key, uint32_t i,
                              float pulse_w, double bin_background, const Philox4x32& words) {
  if (w.shot_noise && bin_background == 0) {
    const InternalBin* b = InternalBinAt(w.internal, i);
    if (b != nullptr && b->first != kUntabulated && pulse_w == b->power_w)
      return static_cast<float>(
          PoissonByTable(w.internal.thresholds + b->first, b->count, words.v[i & 3u]));
  }
  const double mean =
      MeanPhotonCount<double>(pulse_w, w.dt_s, w.photon_energy_j, w.efficiency, 0.0) +
      bin_background;
  return w.shot_noise ? static_cast<float>(PhotonCount(mean, beam_key, i, words))
                      : static_cast<float>(mean);
}

// Whether bin i has photons of its own to draw (BinPhotons): a pulse reaches it, or the
// background is drawn bin by bin.
LT_HD inline bool BinDraws(float pulse_w, double bin_background) {
  return pulse_w > 0 || bin_background > 0;
}

// Thermal noise is drawn a segment of S = ThermalSegmentBins(N) consecutive bins at a time
// (segment g: bins S g .. S g + S - 1): one Philox call keyed (seed, frame, beam, g,
// kStreamThermalSegment) seeds a xoshiro128+ generator (ThermalSegment), whose words give the
// segment's normals in pairs. A record's bulk of random words is its thermal noise (one normal a
// bin), and Philox4x32-10 costs a GPU about 19 instructions a word against xoshiro's 7 (on an
// H100 the noise's words were a fifth of the chain's instructions at 2048 samples). S = N / 32,
// a GPU lane's block (waveform_beam.cuh): each lane seeds one generator a record and draws its
// block's noise as it writes the voltages. (Segments of at most 32 bins, as before, cost the
// lanes one Philox call per 32 bins: two a lane at 2048 samples, four at 4096.)
LT_HD constexpr uint32_t ThermalSegmentBins(uint32_t N) {
  return N / 32;
}
// The segments a record of N bins uses: 32 (N is a power of two, at least 64).
LT_HD constexpr uint32_t ThermalSegments(uint32_t N) {
  return N / ThermalSegmentBins(N);
}
// Box-Muller for thermal noise, the record's bulk of normals (a waveform draws one a bin): on
// the GPU by the hardware's approximate base-2 logarithm, square root, sine and cosine
// (PTX lg2/sqrt/sin/cos.approx.ftz: one MUFU instruction each; the arguments are never
// subnormal, so flushing them changes nothing), a few times cheaper than the exact functions.
// u = (w + 1/2) 2^-32 as one fused multiply-add, float(w) 2^-32 + 2^-33, and the angle
// 2 pi u2 - pi likewise. The words are the same on both backends; the normals differ by at most
// 2.5e-4 of the rms (2.17e-4 measured; the approximate logarithm's absolute error, 2^-22.6, is a
// large relative error in -2 ln u as u nears 1) and the angle by about 5e-7 (its range taken to
// [-pi, pi), where sin.approx's bound, 2^-20.9, holds: cos and sin of a - pi, negated); checked on
// pairs of words across their whole range by CudaWaveform.ThermalNormalsMatchTheCpu. (`ncu`: 25
// instructions a pair by the CUDA intrinsics __log2f, rsqrtf and __sincosf, whose subnormal
// handling and range steps the PTX forms leave out, against 12.)
#if defined(__CUDACC__)
// The pair's radius r and the cosine and sine of its angle a - pi: z1 = r c, z2 = r s (the
// angle's cosine and sine negated, r taken negative).
__device__ inline void ThermalPolarPair(uint32_t w1, uint32_t w2, float& r, float& c, float& s) {
  const float u1 = fmaf(__uint2float_rn(w1), 2.3283064365386963e-10f, 1.1641532182693481e-10f);
  float log2_u;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(log2_u) : "f"(u1));
  // -2 ln u, at least 0: the approximate logarithm's error (2^-22.6) could make it a little
  // negative where u rounds to just below 1, and sqrt.approx of that is NaN.
  const float x = fmaxf(0.0f, -1.3862943611198906f * log2_u);
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  r = -r;
  // 2 pi (w2 + 1/2) 2^-32 - pi.
  const float a = fmaf(__uint2float_rn(w2), 1.4629180792671596e-09f, -static_cast<float>(kPi));
  asm("sin.approx.ftz.f32 %0, %1;" : "=f"(s) : "f"(a));
  asm("cos.approx.ftz.f32 %0, %1;" : "=f"(c) : "f"(a));
}
#endif
LT_HD inline void ThermalNormalPair(uint32_t w1, uint32_t w2, float& z1, float& z2) {
#if defined(__CUDA_ARCH__)
  float r, c, s;
  ThermalPolarPair(w1, w2, r, c, s);
  z1 = r * c;
  z2 = r * s;
#else
  StandardNormalPair<float>(w1, w2, z1, z2);
#endif
}

// One segment's thermal noise [V]: xoshiro128+ (D. Blackman, S. Vigna, "Scrambled linear
// pseudorandom number generators", ACM TOMS 47(4), 2021: 128 bits of state; the authors' choice
// for floating-point numbers, whose upper bits it gives at full quality: only its lowest bits
// have low linear complexity, and a normal's float uniform reads them only for words below
// 2^24, u below 2^-8: one word in 256, the radius's tail beyond 3.3 sigma), its state the
// segment's Philox words (an all-zero state, whose outputs would all be zero, is taken as
// (1, 0, 0, 0): probability 2^-128). Each pair of words is a Box-Muller pair of normals times
// the rms. (xoshiro128**, its scrambled sibling, costs two instructions more a word: its
// multiplications and rotation, 4 % of the chain's instructions at 2048 samples.) Checked
// against an independent implementation's outputs and for normal moments and independence
// across bins, segments and beams in tests/physics/waveform_test.cpp.
class ThermalSegment {
 public:
  LT_HD ThermalSegment(const WaveformChain& w, const RandomKey& beam_key, uint32_t segment)
      : rms_(static_cast<float>(w.thermal_noise_v)) {
    RandomKey k = beam_key;
    k.stream = kStreamThermalSegment;
    k.sub_ray = segment;
    const Philox4x32 seed = RandomWords(k);
    for (int m = 0; m < 4; ++m)
      s_[m] = seed.v[m];
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
  }
  // A stream from a given state (for the tests' known answers).
  LT_HD ThermalSegment(uint32_t s0, uint32_t s1, uint32_t s2, uint32_t s3, float rms)
      : s_{s0, s1, s2, s3}, rms_(rms) {}
  // The next word of the stream.
  LT_HD uint32_t Next() {
    const uint32_t result = s_[0] + s_[3];
    const uint32_t t = s_[1] << 9;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 11);
    return result;
  }
  // The next two bins' noise [V].
  LT_HD void NextPair(float& a, float& b) {
    const uint32_t w1 = Next();
    const uint32_t w2 = Next();
    float z1, z2;
    ThermalNormalPair(w1, w2, z1, z2);
    a = rms_ * z1;
    b = rms_ * z2;
  }
#if defined(__CUDACC__)
  // The GPU's voltage pass: `base` plus the next two bins' noise [V], the rms and the base in
  // the normals' last multiply-adds (three instructions for the pair where NextPair and two
  // additions take six; NextPair's values to a rounding).
  __device__ void NextPairOn(float base, float& a, float& b) {
    const uint32_t w1 = Next();
    const uint32_t w2 = Next();
    float r, c, s;
    ThermalPolarPair(w1, w2, r, c, s);
    const float scaled = rms_ * r;
    a = fmaf(scaled, c, base);
    b = fmaf(scaled, s, base);
  }
#endif

 private:
  LT_HD static uint32_t Rotl(uint32_t x, int k) {
    return (x << k) | (x >> (32 - k));
  }
  uint32_t s_[4];
  float rms_;
};

// Stage 1, eq. (3)/(5): the pulses' power [W] into x[0 .. N).im, the internal reflection and
// the contributions (each a pulse at its round-trip time). The constant sunlight of P_tot is
// kept apart: its photons are the background's (DetectorCurrent).
template <typename Samples>
LT_HD void ReceivedPowerSamples(const WaveformChain& w, const SignalContribution* c, uint32_t n,
                                Samples x) {
  for (uint32_t i = 0; i < w.samples; ++i)
    x[i].im = 0.0f;
  const double t_e = EmissionTime(w);
  if (w.internal.bins > 0) {
    for (uint32_t b = 0; b < w.internal.bins; ++b)
      x[w.internal.first_bin + b].im += w.internal.bin[b].power_w;
  } else if (w.internal_power_w > 0) {
    AddPulse(w, w.internal_power_w, t_e + w.internal_delay_s, x);
  }
  for (uint32_t k = 0; k < n; ++k) {
    const double t = t_e + RangeIntervalTime(static_cast<double>(c[k].range_m));
    AddPulse(w, c[k].power_w, t, x);
  }
}

// Stages 2-3, eq. (6)-(9): photons of the pulses' power in x[i].im and of the background
// (sunlight `sun_w` and dark counts), then the SiPM's charge; the input current of the circuit
// q[i] G e / dt [A] replaces them as a real sequence for the transform.
template <typename Samples>
LT_HD void DetectorCurrent(const WaveformChain& w, double sun_w, const RandomKey& beam_key,
                           Samples x) {
  const double background = BackgroundMean(w, sun_w);
  const double bin_background = BinBackgroundMean(w, background);
  Philox4x32 words{};
  uint32_t words_of = 0xffffffffu;  // the group of four whose words are in `words`
  for (uint32_t i = 0; i < w.samples; ++i) {
    const float pulse_w = x[i].im;
    float photons = 0.0f;
    if (BinDraws(pulse_w, bin_background)) {
      if (w.shot_noise && (i >> 2) != words_of) {
        words = PhotonWords(beam_key, i);
        words_of = i >> 2;
      }
      photons = BinPhotons(w, beam_key, i, pulse_w, bin_background, words);
    }
    x[i].re = photons;
  }
  if (bin_background == 0) {
    const uint32_t B = BackgroundSegmentBins(w.samples);
    for (uint32_t g = 0; g < w.samples / B; ++g)
      SegmentBackgroundPhotons(background, B, beam_key, g,
                               [&](uint32_t b) { x[g * B + b].re += 1.0f; });
  }
  const float recovery = SipmRecovery(w.sipm, w.dt_s);
  SipmState state{SipmRestingSensitivity(w.sipm, recovery, static_cast<float>(background))};
  const double amps_per_cell = w.cell_charge_c / w.dt_s;
  for (uint32_t i = 0; i < w.samples; ++i) {
    const float q = SipmCharge(w.sipm, recovery, x[i].re, state);
    x[i] = {static_cast<float>(q * amps_per_cell), 0.0f};
  }
}

// Stage 4, eq. (10): v_c = v_c0 + IDFT(H DFT(i_d)) + thermal noise, the voltage left in
// x[i].re (x[i].im is scratch).
template <typename Samples>
LT_HD void CircuitVoltage(const WaveformChain& w, const RandomKey& beam_key, Samples x) {
  Fft(x, w.samples, w.twiddles, false);
  for (uint32_t k = 0; k < w.samples; ++k)
    x[k] = Mul(static_cast<ComplexF>(x[k]), w.transfer[k]);
  Fft(x, w.samples, w.twiddles, true);
  const float base = static_cast<float>(w.baseline_v);
  for (uint32_t i = 0; i < w.samples; ++i)
    x[i].re += base;
  if (w.thermal_noise_v > 0) {
    const uint32_t S = ThermalSegmentBins(w.samples);
    for (uint32_t g = 0; g < ThermalSegments(w.samples); ++g) {
      ThermalSegment noise(w, beam_key, g);
      for (uint32_t i = g * S; i < (g + 1) * S; i += 2) {
        float a, b;
        noise.NextPair(a, b);
        x[i].re += a;
        x[i + 1].re += b;
      }
    }
  }
}

// Stages 1-4 for one beam: the voltage samples in x[0 .. N).re.
template <typename Samples>
LT_HD void SimulateWaveform(const WaveformChain& w, const SignalContribution* c, uint32_t n,
                            double sun_w, const RandomKey& beam_key, Samples x) {
  ReceivedPowerSamples(w, c, n, x);
  DetectorCurrent(w, sun_w, beam_key, x);
  CircuitVoltage(w, beam_key, x);
}

}  // namespace lt::physics
