// Ranging on the circuit's voltage (seed 002 sec. 5.5): thresholds separate the internal
// reflection, the noise and the target peaks; a target's range comes from its peak's time
// relative to the internal reflection's peak, its intensity from its peak voltage, mapped
// linearly to the sensor's integer scale.
//   - Baseline B and noise rms s from the pretrigger samples (background only).
//   - The internal reflection: the highest sample from the pulse's emission to the end of its
//     window, t_e + tau_int + internal_window; its peak time t_ref.
//   - Targets: the maximal runs of samples above T = B + max(threshold_v, k s) after that
//     window; each peak time t_pk (sub-sample, below) gives
//       r = c (t_pk - t_ref + tau_int) / 2,
//     so every delay the pulse shares with the internal reflection (the circuit's, the
//     SiPM's) cancels; its height h = v(t_pk) - B gives the intensity
//       I = min(I_max, round(I_max h / h_full)).
//   - A peak's sub-sample position is the vertex of the Gaussian (a parabola in log v) through
//     the highest sample and its two neighbours, or of the parabola in v where a neighbour
//     is not above the baseline.
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/fft.h"
#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/return_signal.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/physics/waveform.h"

namespace lt::physics {

struct WaveformBackground {
  double baseline_v;   // B
  double noise_v;      // s
  double threshold_v;  // T, absolute
  double reference_s;  // t_ref, the internal reflection's peak time
};

// Sub-sample offset of a peak from its highest sample, in samples (-0.5 .. 0.5), and its
// height there above `base`: a, b, c are the samples before, at and after the maximum.
struct PeakFit {
  double offset;
  double height;
};
LT_HD inline PeakFit FitPeak(double a, double b, double c, double base) {
  using std::exp;
  using std::log;
  a -= base;
  b -= base;
  c -= base;
  if (a > 0 && b > 0 && c > 0) {
    // The parabola through the logarithms (a Gaussian through the three samples), by two
    // logarithms of ratios rather than three differenced: ln a - 2 ln b + ln c = ln(a c / b^2),
    // ln a - ln c = ln(a / c), without the cancellation of the differences. In float: the
    // samples are floats (a record's voltages), so the ratios carry float precision whatever
    // the arithmetic, and float logarithms cost a GPU a tenth of double ones (the fits were
    // 9 % of the chain's instructions at 1024 samples on an H100).
    const float fa = static_cast<float>(a), fb = static_cast<float>(b), fc = static_cast<float>(c);
#if defined(__CUDA_ARCH__)
    // The GPU by the hardware's base-2 logarithm and power (PTX lg2/ex2.approx: one MUFU
    // instruction each, 2^-22.6 absolute for the logarithm; the samples' heights are never
    // subnormal): the same fit in base 2, the ratio d unchanged and e^(ln 2 y) = 2^y. `ncu` put
    // the library's float logarithms, exponential and divisions at about 230 warp instructions
    // a beam. Offsets within about 1e-6 of a sample of the CPU's (four logarithms' 2^-22.6 over
    // |den|, about 0.5 in base 2 for the pulses' widths), heights within about 1e-6.
    float la, lb, lc;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(la) : "f"(fa));
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(lb) : "f"(fb));
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(lc) : "f"(fc));
    const float den = (la - lb) + (lc - lb);
    if (den < 0) {
      const float lac = la - lc;
      const float d = 0.5f * __fdividef(lac, den);
      float scale;
      asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(scale) : "f"(-0.25f * lac * d));
      return {d, fb * scale};
    }
#else
    // The CPU by the library's: offsets agree with the GPU's to about 1e-6 of a sample.
    const float den = log(fa / fb * (fc / fb));
    if (den < 0) {
      const float lac = log(fa / fc);
      const float d = 0.5f * lac / den;
      return {d, fb * exp(-0.25f * lac * d)};
    }
#endif
  }
  const double den = a - 2 * b + c;
  if (!(den < 0)) return {0, b};
  const double d = 0.5 * (a - c) / den;
  return {d, b - 0.25 * (a - c) * d};
}

// The index of the first sample after the internal reflection's window.
LT_HD inline uint32_t TargetWindowStart(const WaveformChain& w) {
  const double t = EmissionTime(w) + w.internal_delay_s + w.internal_window_s;
  const double i = std::ceil(t / w.dt_s);
  return i >= w.samples ? w.samples : static_cast<uint32_t>(i);
}

// The background from the pretrigger's mean (the baseline B) and rms s: the threshold
// T = B + max(threshold_v, noise_factor s), the reference at its nominal time (ReferencePeak
// refines it).
LT_HD inline WaveformBackground BackgroundOfLevels(const WaveformChain& w, double baseline_v,
                                                   double noise_v) {
  WaveformBackground g{};
  g.baseline_v = baseline_v;
  g.noise_v = noise_v;
  const double k_noise = w.noise_factor * g.noise_v;
  g.threshold_v = g.baseline_v + (w.threshold_v > k_noise ? w.threshold_v : k_noise);
  g.reference_s = EmissionTime(w) + w.internal_delay_s;
  return g;
}
// The same from the pretrigger's sum and its sum of squared deviations from the mean.
LT_HD inline WaveformBackground BackgroundLevels(const WaveformChain& w, double sum,
                                                 double sum_sq_dev) {
  const uint32_t m = w.pretrigger_samples;
  return BackgroundOfLevels(w, m > 0 ? sum / m : w.baseline_v,
                            m > 1 ? std::sqrt(sum_sq_dev / (m - 1)) : 0.0);
}

// The internal reflection's peak time from its highest sample `best` in its window
// [pretrigger, end): kept nominal without an internal reflection, or when it does not rise
// above T.
template <typename Samples>
LT_HD void ReferencePeak(const WaveformChain& w, Samples x, uint32_t best, uint32_t end,
                         WaveformBackground& g) {
  if (w.internal_power_w > 0 && best < end && x[best].re > g.threshold_v && best > 0 &&
      best + 1 < w.samples) {
    const PeakFit p = FitPeak(x[best - 1].re, x[best].re, x[best + 1].re, g.baseline_v);
    g.reference_s = (best + p.offset) * w.dt_s;
  }
}

// The background (pretrigger mean and rms), the threshold and the internal reflection's peak
// time of the voltage in x[0 .. N).re. Without an internal reflection (or when it does not rise
// above T) the reference is its nominal time, t_e + tau_int plus nothing of the chain's delay.
template <typename Samples>
LT_HD WaveformBackground MeasureBackground(const WaveformChain& w, Samples x) {
  const uint32_t m = w.pretrigger_samples;
  double sum = 0, sum2 = 0;
  for (uint32_t i = 0; i < m; ++i)
    sum += x[i].re;
  const double mean = m > 0 ? sum / m : 0.0;
  for (uint32_t i = 0; i < m; ++i) {
    const double d = x[i].re - mean;
    sum2 += d * d;
  }
  WaveformBackground g = BackgroundLevels(w, sum, sum2);
  const uint32_t end = TargetWindowStart(w);
  uint32_t best = m;
  for (uint32_t i = m; i < end; ++i)
    if (x[i].re > x[best].re) best = i;
  ReferencePeak(w, x, best, end, g);
  return g;
}

// Range [m] of a time [s] on the record, relative to the internal reflection.
LT_HD inline double WaveformRange(const WaveformChain& w, const WaveformBackground& g, double t_s) {
  return 0.5 * kSpeedOfLight_m_s * (t_s - g.reference_s + w.internal_delay_s);
}

// Intensity on the sensor's integer scale from a peak's height above the baseline [V].
LT_HD inline double WaveformIntensity(const WaveformChain& w, double height_v) {
  using std::floor;
  const double i = floor(w.intensity_max * height_v / w.full_scale_v + 0.5);
  return i < 0 ? 0.0 : (i > w.intensity_max ? w.intensity_max : i);
}

// The echo of the run [i, j) of samples above T (i >= begin, the target window's start), top its
// highest sample: its peak's range and height, the ranges of its threshold crossings. Its
// index is left to KeepEcho.
template <typename Samples>
LT_HD Echo RunEcho(const WaveformChain& w, const WaveformBackground& g, Samples x, uint32_t begin,
                   uint32_t i, uint32_t j, uint32_t top) {
  // The crossings' fractions of a sample in float: the samples are floats, and a float division
  // is a third of a double one's instructions on a GPU (the two were 100 warp instructions a
  // beam at 2048 samples on an H100, with three or four runs a beam in the Cube 1's sunlight).
  const double t = g.threshold_v;
  auto fraction = [](double above_lower, float rise) {  // of the sample step `rise`
    return static_cast<double>(static_cast<float>(above_lower) / rise);
  };
  const double start = i > begin ? (i - 1) + fraction(t - x[i - 1].re, x[i].re - x[i - 1].re)
                                 : static_cast<double>(i);
  const double end =
      j < w.samples ? (j - 1) + fraction(x[j - 1].re - t, x[j - 1].re - x[j].re) : j - 1.0;
  PeakFit p{0, x[top].re - g.baseline_v};
  if (top > 0 && top + 1 < w.samples) {
    p = FitPeak(x[top - 1].re, x[top].re, x[top + 1].re, g.baseline_v);
  }
  Echo e{};
  e.peak_range_m = WaveformRange(w, g, (top + p.offset) * w.dt_s);
  e.range_m = e.peak_range_m;
  e.peak_power_w = p.height;
  e.start_m = WaveformRange(w, g, start * w.dt_s);
  e.end_m = WaveformRange(w, g, end * w.dt_s);
  return e;
}

// Echo e of the next run in range order appended to out[0 .. count) when its peak lies in
// [min_range_m, max_range_m] (beyond kMaxEchoesDetected the nearest is dropped), its index the
// count of such echoes before it (`seen`). False when the peak lies beyond max_range_m: later
// runs lie farther still.
LT_HD inline bool KeepEcho(Echo e, double min_range_m, double max_range_m, Echo* out,
                           uint32_t& count, uint32_t& seen) {
  if (e.peak_range_m < min_range_m) return true;
  if (e.peak_range_m > max_range_m) return false;
  e.index = seen++;
  if (count == kMaxEchoesDetected) {
    for (uint32_t m = 1; m < count; ++m)
      out[m - 1] = out[m];
    --count;
  }
  out[count++] = e;
  return true;
}

// RunEcho's echo of the run [i, j) kept as KeepEcho keeps it.
template <typename Samples>
LT_HD bool KeepRunEcho(const WaveformChain& w, const WaveformBackground& g, Samples x,
                       uint32_t begin, uint32_t i, uint32_t j, uint32_t top, double min_range_m,
                       double max_range_m, Echo* out, uint32_t& count, uint32_t& seen) {
  return KeepEcho(RunEcho(w, g, x, begin, i, j, top), min_range_m, max_range_m, out, count, seen);
}

// The target echoes of the voltage in x[0 .. N).re whose peaks lie in the reporting window
// [min_range_m, max_range_m], in range order (at most kMaxEchoesDetected; beyond that the
// nearest are dropped, as DetectEchoes does). Each echo's peak_power_w holds its height above
// the baseline [V], its range_m and peak_range_m the peak's range, start_m and end_m the ranges
// of the threshold crossings (linear between samples); `source` is left 0. Returns the number
// in `out`, the number detected in the window in *detected.
template <typename Samples>
LT_HD uint32_t WaveformEchoes(const WaveformChain& w, const WaveformBackground& g, Samples x,
                              double min_range_m, double max_range_m, Echo* out,
                              uint32_t* detected) {
  uint32_t count = 0, seen = 0;
  const uint32_t begin = TargetWindowStart(w);
  uint32_t i = begin;
  while (i < w.samples) {
    if (!(x[i].re > g.threshold_v)) {
      ++i;
      continue;
    }
    // A run [i, j) above T.
    uint32_t j = i, top = i;
    while (j < w.samples && x[j].re > g.threshold_v) {
      if (x[j].re > x[top].re) top = j;
      ++j;
    }
    if (!KeepRunEcho(w, g, x, begin, i, j, top, min_range_m, max_range_m, out, count, seen)) break;
    i = j;
  }
  *detected = seen;
  return count;
}

}  // namespace lt::physics
