// Return signal and the `threshold` detector (model tiers 4 and 5).
//
// Each sub-ray hit adds its received power at its range into the beam's signal xi_b(r)
// (seed 004 eq. 3-5: xi_b(r) = sum over the footprint of (kappa eta)(Phi) rho(Phi)
// delta(r - r(Phi))). The receiver sees the signal convolved with the emitted pulse,
// xi^ = varpi * xi (seed 004 sec. II-C), here a Gaussian pulse of unit peak:
//   xi^(r) = sum_k P_k exp(-(r - r_k)^2 / (2 sigma_r^2)),
// sigma_r = c sigma_t / 2 the pulse's standard deviation in range. Echoes are the maximal
// intervals [r0, r1] where xi^ > T (seed 004 sec. II-C); each has a range (its peak, its
// leading edge r0 or its centre), a peak power and its echo pulse width r1 - r0 (in time,
// 2 (r1 - r0) / c). For an isolated pulse of peak a the width is, analytically,
//   EPW = 2 sigma_r sqrt(2 ln(a / T)),
// so it grows with the amplitude; slanted targets spread the contributions in range and
// widen it further (seed 004 Fig. 6 C).
//
// Pure and allocation-free: the caller owns the contribution and echo arrays.
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

inline constexpr uint32_t kMaxEchoesDetected = 16;  // per beam, before the return mode picks K
inline constexpr uint32_t kMaxEchoesReported = 8;   // K of a profile: 1..8

// One sub-ray hit's power at its range. `source` identifies the contributing object.
// Single precision keeps a beam's array small in GPU local memory (12 bytes a contribution);
// float ranges resolve 4 um at 50 m.
struct SignalContribution {
  float range_m;
  float power_w;
  uint32_t source;
};

enum class EchoRange : uint32_t { kPeak, kLeadingEdge, kCentre };
enum class ReturnMode : uint32_t { kFirst, kLast, kStrongest, kDual };

struct ThresholdDetector {
  double pulse_sigma_m;  // sigma_r [m]
  double threshold_w;    // T [W]
  EchoRange range;
  ReturnMode mode;
  uint32_t max_echoes;  // K
  // Leading edge: the range is r0 plus the offset that makes an echo of this peak power exact,
  // sigma_r sqrt(2 ln(P_walk / T)); weaker echoes then appear farther and stronger ones
  // nearer, the time-walk of seed 001 sec. 5.2.
  double walk_reference_power_w;
};

struct Echo {
  double range_m;         // reported range (peak, leading edge or centre)
  double peak_range_m;    // argmax of xi^ in the interval
  double peak_power_w;    // max of xi^ in the interval [W]
  double start_m, end_m;  // r0, r1
  uint32_t source;        // the contribution that dominates xi^ at the peak
  uint32_t index;         // 0 for the nearest echo of the beam, 1 for the next, ...
};

// Pulse shape varpi(x) = exp(-x^2 / (2 sigma^2)).
template <typename T>
LT_HD T GaussianPulse(T x, T sigma) {
  using std::exp;
  return exp(-x * x / (2 * sigma * sigma));
}

// Analytic echo pulse width [m] of an isolated Gaussian pulse of peak a above threshold t.
template <typename T>
LT_HD T GaussianEchoWidth(T sigma, T a, T t) {
  using std::log;
  using std::sqrt;
  return a > t ? 2 * sigma * sqrt(2 * log(a / t)) : T(0);
}

// Sorts contributions by range (insertion sort: n is at most a few hundred, mostly in order).
LT_HD inline void SortByRange(SignalContribution* c, uint32_t n) {
  for (uint32_t i = 1; i < n; ++i) {
    const SignalContribution x = c[i];
    uint32_t j = i;
    while (j > 0 && c[j - 1].range_m > x.range_m) {
      c[j] = c[j - 1];
      --j;
    }
    c[j] = x;
  }
}

// xi^(x) over the sorted contributions; those farther than 8 sigma (relative weight < 1.3e-14)
// are skipped.
LT_HD inline double PulseSignal(const SignalContribution* c, uint32_t n, double sigma, double x) {
  double s = 0;
  const double cut = 8 * sigma;
  for (uint32_t k = 0; k < n; ++k) {
    const double d = x - c[k].range_m;
    if (d > cut) continue;
    if (d < -cut) break;
    s += c[k].power_w * GaussianPulse(d, sigma);
  }
  return s;
}

namespace detail {

// The threshold crossing between a (below) and b (above), or the other way, by bisection.
LT_HD inline double Crossing(const SignalContribution* c, uint32_t n, double sigma, double t,
                             double a, double b) {
  const bool rising = PulseSignal(c, n, sigma, a) <= t;
  for (int it = 0; it < 48; ++it) {
    const double m = 0.5 * (a + b);
    if ((PulseSignal(c, n, sigma, m) > t) == rising) {
      b = m;
    } else {
      a = m;
    }
  }
  return 0.5 * (a + b);
}

// The maximum of xi^ in [a, b] around a grid maximum, by golden-section search.
LT_HD inline double PeakIn(const SignalContribution* c, uint32_t n, double sigma, double a,
                           double b) {
  const double g = 0.6180339887498949;
  double x1 = b - g * (b - a), x2 = a + g * (b - a);
  double f1 = PulseSignal(c, n, sigma, x1), f2 = PulseSignal(c, n, sigma, x2);
  for (int it = 0; it < 48; ++it) {
    if (f1 < f2) {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + g * (b - a);
      f2 = PulseSignal(c, n, sigma, x2);
    } else {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - g * (b - a);
      f1 = PulseSignal(c, n, sigma, x1);
    }
  }
  return 0.5 * (a + b);
}

LT_HD inline Echo MakeEcho(const ThresholdDetector& d, const SignalContribution* c, uint32_t n,
                           double r0, double r1, double peak_lo, double peak_hi) {
  using std::log;
  using std::sqrt;
  const double sigma = d.pulse_sigma_m;
  const double peak = PeakIn(c, n, sigma, peak_lo > r0 ? peak_lo : r0, peak_hi < r1 ? peak_hi : r1);
  Echo e{};
  e.peak_range_m = peak;
  e.peak_power_w = PulseSignal(c, n, sigma, peak);
  e.start_m = r0;
  e.end_m = r1;
  double best = -1;
  for (uint32_t k = 0; k < n; ++k) {
    const double p = c[k].power_w * GaussianPulse(peak - c[k].range_m, sigma);
    if (p > best) {
      best = p;
      e.source = c[k].source;
    }
  }
  switch (d.range) {
    case EchoRange::kPeak:
      e.range_m = peak;
      break;
    case EchoRange::kCentre:
      e.range_m = 0.5 * (r0 + r1);
      break;
    case EchoRange::kLeadingEdge:
      e.range_m = r0 + (d.walk_reference_power_w > d.threshold_w
                            ? sigma * sqrt(2 * log(d.walk_reference_power_w / d.threshold_w))
                            : 0.0);
      break;
  }
  return e;
}

}  // namespace detail

// All echoes of a beam in range order (at most kMaxEchoesDetected; beyond that the nearest
// are dropped so the last ones survive). Sorts `c` by range. Returns the number of echoes in
// `out` and the number detected in total in *detected.
//
// The signal is sampled on a grid of step sigma_r / 8 over the windows [r_k - L, r_k + L],
// L = sigma_r sqrt(2 ln(P_sum / T)): outside every window xi^ <= P_sum varpi(L) = T, so no
// echo is missed there; crossings are refined by bisection and peaks by golden section on
// the exact xi^. An echo whose peak exceeds T by less than about 0.2 % (its interval is
// narrower than the grid step) can fall between grid points and be missed.
LT_HD inline uint32_t DetectEchoes(const ThresholdDetector& d, SignalContribution* c, uint32_t n,
                                   Echo* out, uint32_t* detected) {
  using std::log;
  using std::sqrt;
  *detected = 0;
  if (n == 0) return 0;
  SortByRange(c, n);
  double total = 0;
  for (uint32_t k = 0; k < n; ++k)
    total += c[k].power_w;
  const double t = d.threshold_w;
  if (!(total > t)) return 0;
  const double sigma = d.pulse_sigma_m;
  const double h = sigma / 8;
  // L plus one grid step, so that xi^ is strictly below T at the ends of every segment.
  const double half = sigma * sqrt(2 * log(total / t)) + h;
  uint32_t count = 0, seen = 0;
  uint32_t k = 0;
  while (k < n) {
    // One segment: contributions whose windows overlap.
    const double seg_begin = c[k].range_m - half;
    double seg_end = c[k].range_m + half;
    while (k + 1 < n && c[k + 1].range_m - half <= seg_end) {
      ++k;
      seg_end = c[k].range_m + half;
    }
    ++k;
    // March the grid; the first point is below T (xi^ <= T at the window edge).
    double x_prev = seg_begin;
    double f_prev = PulseSignal(c, n, sigma, x_prev);
    bool above = f_prev > t;
    double r0 = seg_begin, best_x = seg_begin, best_f = f_prev;
    // The last point is seg_end itself, where xi^ <= T again: it is at least L from every
    // contribution (the next segment's windows start beyond it).
    const auto steps = static_cast<uint32_t>((seg_end - seg_begin) / h) + 1;
    for (uint32_t s = 1; s <= steps; ++s) {
      const double x = s == steps ? seg_end : seg_begin + s * h;
      const double f = PulseSignal(c, n, sigma, x);
      if (!above && f > t) {
        above = true;
        r0 = detail::Crossing(c, n, sigma, t, x_prev, x);
        best_x = x;
        best_f = f;
      } else if (above && f > best_f) {
        best_x = x;
        best_f = f;
      }
      if (above && !(f > t)) {
        above = false;
        const double r1 = detail::Crossing(c, n, sigma, t, x_prev, x);
        const Echo e = detail::MakeEcho(d, c, n, r0, r1, best_x - h, best_x + h);
        if (count == kMaxEchoesDetected) {
          for (uint32_t m = 1; m < count; ++m)
            out[m - 1] = out[m];
          --count;
        }
        out[count] = e;
        out[count].index = seen;
        ++count;
        ++seen;
      }
      x_prev = x;
    }
  }
  *detected = seen;
  return count;
}

// The echoes the return mode reports, at most K, in range order, written to `chosen` as
// indices into `echoes`:
//   first: the K nearest; last: the K farthest; strongest: the K of highest peak power;
//   dual: the strongest and the last (Velodyne's dual return; when the last is the
//   strongest, the second strongest instead), then further ones by strength.
LT_HD inline uint32_t SelectEchoes(ReturnMode mode, uint32_t k_max, const Echo* echoes,
                                   uint32_t count, uint32_t* chosen) {
  const uint32_t k = k_max < count ? k_max : count;
  if (k == 0) return 0;
  if (mode == ReturnMode::kFirst) {
    for (uint32_t i = 0; i < k; ++i)
      chosen[i] = i;
    return k;
  }
  if (mode == ReturnMode::kLast) {
    for (uint32_t i = 0; i < k; ++i)
      chosen[i] = count - k + i;
    return k;
  }
  bool taken[kMaxEchoesDetected] = {};
  uint32_t m = 0;
  if (mode == ReturnMode::kDual) {
    taken[count - 1] = true;
    chosen[m++] = count - 1;
  }
  while (m < k) {
    int best = -1;
    for (uint32_t i = 0; i < count; ++i) {
      if (!taken[i] && (best < 0 || echoes[i].peak_power_w > echoes[best].peak_power_w)) {
        best = static_cast<int>(i);
      }
    }
    taken[best] = true;
    chosen[m++] = static_cast<uint32_t>(best);
  }
  // Range order.
  for (uint32_t i = 1; i < m; ++i) {
    const uint32_t x = chosen[i];
    uint32_t j = i;
    while (j > 0 && chosen[j - 1] > x) {
      chosen[j] = chosen[j - 1];
      --j;
    }
    chosen[j] = x;
  }
  return m;
}

}  // namespace lt::physics
