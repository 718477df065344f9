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
#include "lidartwin/physics/pulse_table.h"
#include "lidartwin/physics/pulse_terms.h"
#include "lidartwin/physics/return_type.h"
#include "lidartwin/physics/units.h"

namespace lt::physics {

inline constexpr uint32_t kMaxEchoesDetected = 16;  // per beam, before the return mode picks K
inline constexpr uint32_t kMaxEchoesReported = 8;   // K of a profile: 1..8

// One sub-ray hit's power at its range. `source` identifies the contributing object;
// ambient_w is the sunlight the hit sends back (waveform detector, seed 002 eq. 4; 0 for the
// threshold detector). Single precision keeps a beam's array small in GPU local memory (16
// bytes a contribution); float ranges resolve 4 um at 50 m.
struct SignalContribution {
  float range_m;
  float power_w;
  uint32_t source;
  float ambient_w;
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

// The pulse's standard deviation in range [m] from its FWHM duration [s]: a time t spans the
// range c t / 2, and a Gaussian's FWHM is 2 sqrt(2 ln 2) sigma.
template <typename T>
LT_HD T PulseSigmaRange(T fwhm_s) {
  return T(0.5) * static_cast<T>(kSpeedOfLight_m_s) * fwhm_s / static_cast<T>(kFwhmPerSigma);
}

// The round-trip time [s] a range interval [m] spans, 2 dr / c (the echo pulse width in time),
// as a product with 2 / c: a double division is a dozen GPU instructions, and the waveform
// detector takes this for every contribution in every lane.
template <typename T>
LT_HD T RangeIntervalTime(T range_interval_m) {
  return range_interval_m * static_cast<T>(2 / kSpeedOfLight_m_s);
}

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

// The distance beyond which contributions are left out of xi^: 8 sigma (a relative weight of
// 1.3e-14), or farther when the strongest contribution is so far above T that even that much
// of it would matter (each left-out term stays below 1e-6 T).
LT_HD inline double PulseCut(double sigma, double p_max, double threshold) {
  using std::log;
  using std::sqrt;
  const double ratio = 1e6 * p_max / threshold;
  const double wide = ratio > 1 ? sigma * sqrt(2 * log(ratio)) : 0.0;
  return wide > 8 * sigma ? wide : 8 * sigma;
}

// xi^(x) over the sorted contributions; those farther than `cut` (0: 8 sigma) are skipped.
// `first` may name the first contribution that can lie within the cut of x.
LT_HD inline double PulseSignal(const SignalContribution* c, uint32_t n, double sigma, double x,
                                uint32_t first = 0, double cut = 0) {
  double s = 0;
  if (cut == 0) cut = 8 * sigma;
  const double half_inv_var = 0.5 / (sigma * sigma);
  for (uint32_t k = first; k < n; ++k) {
    const double d = x - c[k].range_m;
    if (d > cut) continue;
    if (d < -cut) break;
    s += c[k].power_w * PulseWeight(d, half_inv_var);
  }
  return s;
}

// xi^ and its first two derivatives at x, from one exponential per contribution:
// d/dx P g(x - r) = -P (x - r) / sigma^2 g, d2/dx2 = P ((x - r)^2 / sigma^4 - 1 / sigma^2) g.
LT_HD inline SignalDerivatives PulseSignalDerivatives(const SignalContribution* c, uint32_t n,
                                                      double sigma, double x, uint32_t first,
                                                      double cut) {
  SignalDerivatives s{0, 0, 0};
  const double inv_s2 = 1 / (sigma * sigma);
  for (uint32_t k = first; k < n; ++k) {
    const double d = x - c[k].range_m;
    if (d > cut) continue;
    if (d < -cut) break;
    const double g = c[k].power_w * PulseWeight(d, 0.5 * inv_s2);
    s.f += g;
    s.d1 -= d * inv_s2 * g;
    s.d2 += (d * d * inv_s2 - 1) * inv_s2 * g;
  }
  return s;
}

namespace detail {

// A Newton step smaller than this ends a search [m]: 1 um, a thousandth of the finest range
// counter (Ouster's 1 mm), and above the noise floor of single-precision terms (1e-7 sigma_r).
inline constexpr double kSearchTolerance_m = 1e-6;

// PulseSignalDerivatives plus the beam's tabled pulses, if any.
LT_HD inline SignalDerivatives SignalDerivativesAt(const SignalContribution* c, uint32_t n,
                                                   double sigma, double x, uint32_t first,
                                                   double cut, const TabledPulses* tab) {
  SignalDerivatives s = PulseSignalDerivatives(c, n, sigma, x, first, cut);
  if (tab) {
    const SignalDerivatives f = tab->Derivatives(x, sigma);
    s.f += f.f;
    s.d1 += f.d1;
    s.d2 += f.d2;
  }
  return s;
}

// The threshold crossing inside [a, b] (xi^ = f_a, f_b there, on opposite sides of T): Newton
// steps from the linear interpolation of the two, replaced by bisection whenever they leave
// the bracket (safeguarded Newton, Numerical Recipes rtsafe). Usually two or three steps.
LT_HD inline double Crossing(const SignalContribution* c, uint32_t n, double sigma, double t,
                             double a, double b, double f_a, double f_b, uint32_t first, double cut,
                             const TabledPulses* tab = nullptr) {
  const bool rising = f_a <= t;
  double lo = a, hi = b;
  double x = f_b != f_a ? a + (t - f_a) / (f_b - f_a) * (b - a) : 0.5 * (a + b);
  if (!(x > lo && x < hi)) x = 0.5 * (lo + hi);
  for (int it = 0; it < 60 && hi - lo > kSearchTolerance_m; ++it) {
    const SignalDerivatives s = SignalDerivativesAt(c, n, sigma, x, first, cut, tab);
    if ((s.f > t) == rising) {
      hi = x;
    } else {
      lo = x;
    }
    const double newton = s.d1 != 0 ? x - (s.f - t) / s.d1 : lo - 1;
    const bool inside = newton > lo && newton < hi;
    if (inside && std::fabs(newton - x) < kSearchTolerance_m) return newton;
    x = inside ? newton : 0.5 * (lo + hi);
  }
  return x;
}

// The maximum of xi^ around the grid maximum x_m (grid step h, neighbours' values f_l and f_r
// not above f_m): Newton on xi^' with xi^'' from the vertex of the parabola through the three
// samples, kept inside [x_m - h, x_m + h] by bisection on the sign of xi^'.
LT_HD inline double PeakIn(const SignalContribution* c, uint32_t n, double sigma, double x_m,
                           double h, double f_l, double f_m, double f_r, double lo_limit,
                           double hi_limit, uint32_t first, double cut,
                           const TabledPulses* tab = nullptr) {
  double lo = x_m - h > lo_limit ? x_m - h : lo_limit;
  double hi = x_m + h < hi_limit ? x_m + h : hi_limit;
  const double curvature = f_l - 2 * f_m + f_r;
  double x = curvature < 0 ? x_m + 0.5 * h * (f_l - f_r) / curvature : x_m;
  if (!(x > lo && x < hi)) x = 0.5 * (lo + hi);
  for (int it = 0; it < 60 && hi - lo > kSearchTolerance_m; ++it) {
    const SignalDerivatives s = SignalDerivativesAt(c, n, sigma, x, first, cut, tab);
    if (s.d1 > 0) {
      lo = x;
    } else {
      hi = x;
    }
    const double newton = s.d2 < 0 ? x - s.d1 / s.d2 : lo - 1;
    const bool inside = newton > lo && newton < hi;
    if (inside && std::fabs(newton - x) < kSearchTolerance_m) return newton;
    x = inside ? newton : 0.5 * (lo + hi);
  }
  return x;
}

// An echo with its peak found: the reported range by the range mode, and the labels of the
// contribution that dominates xi^ at the peak. That one lies within the cut: xi^ there is at
// T or above (to the searches' 1 um), so its largest term is about T / n or more, far above the
// 1e-6 T that every term beyond the cut stays below (PulseCut); the search ends there.
LT_HD inline Echo FinishEcho(const ThresholdDetector& d, const SignalContribution* c, uint32_t n,
                             double r0, double r1, double peak, double peak_power, uint32_t first,
                             double cut, const TabledPulses* tab = nullptr) {
  using std::log;
  using std::sqrt;
  const double sigma = d.pulse_sigma_m;
  Echo e{};
  e.peak_range_m = peak;
  e.peak_power_w = peak_power;
  e.start_m = r0;
  e.end_m = r1;
  double best = -1;
  const double half_inv_var = 0.5 / (sigma * sigma);
  for (uint32_t k = first; k < n && c[k].range_m <= peak + cut; ++k) {
    const double p = c[k].power_w * PulseWeight(peak - c[k].range_m, half_inv_var);
    if (p > best) {
      best = p;
      e.source = c[k].source;
    }
  }
  if (tab && tab->StrongestTermAt(peak, sigma) > best) e.source = tab->table->source;
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

LT_HD inline Echo MakeEcho(const ThresholdDetector& d, const SignalContribution* c, uint32_t n,
                           double r0, double r1, double x_m, double h, double f_l, double f_m,
                           double f_r, uint32_t first, double cut,
                           const TabledPulses* tab = nullptr) {
  const double sigma = d.pulse_sigma_m;
  const double peak = PeakIn(c, n, sigma, x_m, h, f_l, f_m, f_r, r0, r1, first, cut, tab);
  const double power =
      PulseSignal(c, n, sigma, peak, first, cut) + (tab ? tab->At(peak, sigma) : 0.0);
  return FinishEcho(d, c, n, r0, r1, peak, power, first, cut, tab);
}

// Contributions closer together than this fraction of sigma_r make one pulse (see
// DetectEchoes).
inline constexpr double kTightClusterFraction = 1.0 / 64;

// Bounds of xi^ (PulseSignal with its cut) at every point of [a, b]: each contribution
// weighed at its nearest distance to the interval (upper) or at its farthest (lower; only those
// inside the cut of every point count). The pulse shape falls with the distance, so no point of
// [a, b] is above `upper` or below `lower`, up to the float exponential's rounding (2 ulp,
// 2.4e-7 relative a term, on the host and the device), which kBoundMargin covers.
struct SignalBounds {
  double upper, lower;
};
inline constexpr double kBoundMargin = 1e-5;
LT_HD inline SignalBounds BoundSignal(const SignalContribution* c, uint32_t n, double sigma,
                                      double a, double b, uint32_t first, double cut,
                                      bool want_lower = true) {
  SignalBounds s{0, 0};
  const double half_inv_var = 0.5 / (sigma * sigma);
  for (uint32_t k = first; k < n; ++k) {
    const double r = c[k].range_m;
    if (r < a - cut) continue;
    if (r > b + cut) break;
    const double near = r < a ? a - r : r > b ? r - b : 0.0;
    const double far = r - a > b - r ? r - a : b - r;
    // exp(-0) is 1 on the host and the device alike: a term inside [a, b] needs none.
    s.upper += c[k].power_w * (near > 0 ? PulseWeight(near, half_inv_var) : 1.0);
    if (want_lower && far <= cut) s.lower += c[k].power_w * PulseWeight(far, half_inv_var);
  }
  s.upper *= 1 + kBoundMargin;
  s.lower *= 1 - kBoundMargin;
  return s;
}

// Grid points of the march in DetectEchoes tried as one block to pass over (16 points, 3.75
// sigma_r from the first to the last), and, where such a block cannot be, as blocks of 4.
inline constexpr uint32_t kCoarseBlock = 16;
inline constexpr uint32_t kFineBlock = 4;
static_assert(TableBlockSize(0) == kFineBlock && TableBlockSize(1) == kCoarseBlock,
              "a table's blocks are the march's");

// Whether the march can pass over its grid points in [a, b] without a change: below the
// threshold all through (no crossing, nothing to note), or, inside an echo, above it all through
// and nowhere above the echo's highest grid point so far (best_f; no crossing, no new maximum).
// With tabled pulses, [a, b] are the lattice points m_a .. m_b, whose table values bound them.
LT_HD inline bool NothingChangesIn(const SignalContribution* c, uint32_t n, double sigma, double t,
                                   double a, double b, uint32_t first, double cut, bool above,
                                   double best_f, const TabledPulses* tab = nullptr,
                                   int64_t m_a = 0, int64_t m_b = 0) {
  SignalBounds s = BoundSignal(c, n, sigma, a, b, first, cut, above);
  if (tab) {
    double upper = 0, lower = 0;
    tab->Bound(m_a, m_b, &upper, &lower);
    s.upper += upper * (1 + kBoundMargin);
    s.lower += lower * (1 - kBoundMargin);
  }
  return above ? s.lower > t && s.upper <= best_f : s.upper <= t;
}

}  // namespace detail

// The largest power level l among T / (2 n) 2^i (i = 0, 1, ...; at most T / 2) such that the
// contributions of at most l sum to at most T / 2: those are the weak ones DetectEchoes needs no
// window for. T / (2 n) always qualifies (n of them sum to T / 2); a level that lets many
// weak contributions through (a fog's slabs, 1/r^2 apart) spares the grid more. 2^i steps keep
// it to a few passes over the contributions.
// Tabled pulses (`tab`, pulse_table.h) count among the contributions at their scaled powers.
LT_HD inline double WeakPowerLevel(const SignalContribution* c, uint32_t n, double threshold_w,
                                   const TabledPulses* tab = nullptr) {
  const double budget = threshold_w / 2;
  double level = threshold_w / (2 * (n + (tab ? tab->used : 0)));
  // next > level: a threshold of 0 (or one that underflows) must not loop for ever.
  for (double next = 2 * level; next <= budget && next > level; next *= 2) {
    double sum = 0;
    for (uint32_t k = 0; k < n && sum <= budget; ++k)
      sum += c[k].power_w <= next ? c[k].power_w : 0;
    if (tab) sum += tab->SumAtMost(next);
    if (sum > budget) break;  // the sums only grow with the level
    level = next;
  }
  return level;
}

namespace detail {

// An echo the march has found but not yet searched: the grid brackets of its two crossings
// (the rising one's a == b when the segment began above T: its start is r0) and its grid
// maximum with the two neighbours' values. DetectEchoes searches them when four are waiting and
// when the march ends: on the GPU a warp's beams then search side by side, where each beam's
// searches had started at its own grid point and run with 4 of a warp's 32 threads (`ncu`).
struct PendingEcho {
  double rise_a, rise_b, rise_fa, rise_fb;
  double fall_a, fall_b, fall_fa, fall_fb;
  double best_x, best_left, best_f, best_right;
  uint32_t rise_first, fall_first;
};
inline constexpr uint32_t kPendingEchoes = 4;

// The pending echoes' searches (Crossing, MakeEcho), kept as the march finds them: in order,
// not before the range gate, the nearest dropped when kMaxEchoesDetected are held.
struct EchoKeeper {
  LT_HD EchoKeeper(const ThresholdDetector& detector, const SignalContribution* contributions,
                   uint32_t contribution_count, double cut_m, double gate, Echo* echoes,
                   const TabledPulses* tabled)
      : d(detector),
        c(contributions),
        n(contribution_count),
        cut(cut_m),
        gate_m(gate),
        out(echoes),
        tab(tabled) {}
  const ThresholdDetector& d;
  const SignalContribution* c;
  uint32_t n;
  double cut, gate_m;
  Echo* out;
  const TabledPulses* tab;
  uint32_t count = 0, seen = 0, pending = 0;
  PendingEcho wait[kPendingEchoes];  // [0, pending) are waiting

  LT_HD void Add(const PendingEcho& p) {
    wait[pending++] = p;
    if (pending == kPendingEchoes) Resolve();
  }
  LT_HD void Resolve() {
    const double sigma = d.pulse_sigma_m, t = d.threshold_w;
    for (uint32_t i = 0; i < pending; ++i) {
      const PendingEcho& p = wait[i];
      const double r0 = p.rise_a == p.rise_b
                            ? p.rise_a
                            : Crossing(c, n, sigma, t, p.rise_a, p.rise_b, p.rise_fa, p.rise_fb,
                                       p.rise_first, cut, tab);
      const double r1 = Crossing(c, n, sigma, t, p.fall_a, p.fall_b, p.fall_fa, p.fall_fb,
                                 p.fall_first, cut, tab);
      // The peak lies after r0; its window starts at most the cut before r0.
      uint32_t echo_first = 0;
      while (echo_first < n && c[echo_first].range_m < r0 - cut)
        ++echo_first;
      const Echo e = MakeEcho(d, c, n, r0, r1, p.best_x, sigma / 4, p.best_left, p.best_f,
                              p.best_right, echo_first, cut, tab);
      if (e.range_m < gate_m) continue;
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
    pending = 0;
  }
};

}  // namespace detail

// All echoes of a beam in range order (at most kMaxEchoesDetected; beyond that the nearest
// are dropped so the last ones survive). Sorts `c` by range. Returns the number of echoes in
// `out` and the number detected in total in *detected. Echoes whose range is below gate_m (the
// receiver's range gate, its minimum range: a sensor blanks its receiver there) are not
// echoes at all: not kept, not counted, not numbered, so a dirty window's strong echo never
// takes a target's place or its number.
//
// The signal is sampled on a grid of step sigma_r / 4 over the windows [r_k - L, r_k + L],
// L = sigma_r sqrt(2 ln(P_sum / T)): outside every window xi^ <= P_sum varpi(L) = T, so no
// echo is missed there; crossings and peaks are refined on the exact xi^ by safeguarded
// Newton steps (to 1 um). An echo whose peak exceeds T by less than about 0.8 % (its
// interval is narrower than the grid step) can fall between grid points and be missed.
// Weak contributions, whose powers sum to at most T / 2 (WeakPowerLevel: rain drops,
// snowflakes and the fog's far slabs, mostly), add at most T / 2 anywhere, so they need no
// window of their own: when there are any, the windows are set around the others alone, from
// twice their sum (outside them the others add at most T / 2), which keeps the grid off the
// metres of weak particles and thin fog in front of a surface.
// Inside the windows the march passes over blocks of grid points where bounds of the signal
// (detail::BoundSignal) show that nothing can change: below T all through, or inside an echo
// above T and below its highest point so far. Passing over changes no echo, to the bit;
// pass_over = false marches every point (the reference the tests hold it to).
// `tabled`: pulses the beam holds from a table many beams share (pulse_table.h: the fog's slabs
// in front of every sub-ray), counted as contributions of their own; at the grid's points
// their sum is read from the table, so the grid then lies on its lattice, x = m sigma_r / 4,
// and its segments' ends move out to the lattice points beyond them.
LT_HD inline uint32_t DetectEchoes(const ThresholdDetector& d, SignalContribution* c, uint32_t n,
                                   Echo* out, uint32_t* detected, double gate_m = -1e300,
                                   bool pass_over = true, const TabledPulses* tabled = nullptr) {
  using std::ceil;
  using std::floor;
  using std::log;
  using std::sqrt;
  *detected = 0;
  const TabledPulses* tab = tabled && tabled->Any() ? tabled : nullptr;
  if (n == 0 && !tab) return 0;
  SortByRange(c, n);
  double total = 0;
  for (uint32_t k = 0; k < n; ++k)
    total += c[k].power_w;
  if (tab) total += tab->scale * tab->table->power_sum_w[tab->used];
  const double t = d.threshold_w;
  if (!(total > t)) return 0;
  const double sigma = d.pulse_sigma_m;
  double p_max = 0;
  for (uint32_t k = 0; k < n; ++k)
    p_max = c[k].power_w > p_max ? c[k].power_w : p_max;
  if (tab) {
    const double m = tab->scale * tab->table->power_max_w[tab->used];
    p_max = m > p_max ? m : p_max;
  }
  const double cut = PulseCut(sigma, p_max, t);
  if (!tab && c[n - 1].range_m - c[0].range_m <= detail::kTightClusterFraction * sigma) {
    // A tight cluster (a surface near normal incidence, every sub-ray at nearly one range):
    // one pulse at the power-weighted mean range r_m, of peak xi^(r_m) and half-width
    // sigma sqrt(2 ln(xi^(r_m) / T)). With a spread s <= sigma / 64 this differs from the
    // searched interval by at most s^2 / (8 sigma), 2e-5 sigma, and is exact for one
    // contribution; it spares the grid and the searches for most beams.
    double weighted = 0;
    for (uint32_t k = 0; k < n; ++k)
      weighted += c[k].power_w * c[k].range_m;
    const double r_m = weighted / total;
    const double f = PulseSignal(c, n, sigma, r_m, 0, cut);
    if (!(f > t)) return 0;
    const double hw = sigma * sqrt(2 * log(f / t));
    out[0] = detail::FinishEcho(d, c, n, r_m - hw, r_m + hw, r_m, f, 0, cut);
    if (out[0].range_m < gate_m) return 0;
    out[0].index = 0;
    *detected = 1;
    return 1;
  }
  // With tabled pulses the grid lies on their table's lattice, x = m h (its step is sigma / 4).
  const double h = tab ? tab->table->step_m : sigma / 4;
  const double weak = WeakPowerLevel(c, n, t, tab);
  const float* tabled_range = tab ? tab->table->range_m : nullptr;
  const uint32_t tabled_count = tab ? tab->used : 0;
  double strong = 0;  // the sum of the contributions above `weak`
  for (uint32_t k = 0; k < n; ++k)
    strong += c[k].power_w > weak ? c[k].power_w : 0;
  if (tab) strong += tab->scale * tab->table->power_sum_w[tabled_count] - tab->SumAtMost(weak);
  // Without weak contributions strong is the total; with them it exceeds T / 2 (the total
  // exceeds T), so the logarithm is positive either way.
  const double bound = strong < total ? 2 * strong : total;
  // L plus one grid step, so that xi^ is strictly below T at the ends of every segment.
  const double half = sigma * sqrt(2 * log(bound / t)) + h;
  // The windows in range order, each an interval of centres [lo, hi]: the next contribution
  // from k on that has a window, and the tabled pulses' windows as one, from the first with a
  // window to the last (between them the march meets no crossing where no window is near,
  // which passing over its blocks makes cheap: the same echoes).
  auto windowed = [&](uint32_t k) {
    while (k < n && !(bound == total || c[k].power_w > weak))
      ++k;
    return k;
  };
  auto has_window = [&](uint32_t j) {
    return bound == total || tab->scale * tab->table->power_w[j] > weak;
  };
  uint32_t tabled_first = 0, tabled_last = 0;
  while (tabled_first < tabled_count && !has_window(tabled_first))
    ++tabled_first;
  bool tabled_pending = tabled_first < tabled_count;
  if (tabled_pending) {
    tabled_last = tabled_count - 1;
    while (!has_window(tabled_last))
      --tabled_last;
  }
  uint32_t k = windowed(0);
  auto tabled_next = [&]() {
    return tabled_pending && (k >= n || tabled_range[tabled_first] < c[k].range_m);
  };
  // The next window (false when none is left), and past it.
  auto peek = [&](double* lo, double* hi) {
    if (tabled_next()) {
      *lo = tabled_range[tabled_first];
      *hi = tabled_range[tabled_last];
      return true;
    }
    if (k < n) *lo = *hi = c[k].range_m;
    return k < n;
  };
  auto advance = [&]() {
    if (tabled_next()) {
      tabled_pending = false;
    } else {
      k = windowed(k + 1);
    }
  };
  // A segment's ends: on the lattice (outwards, so still at least L from every window) with
  // tabled pulses, else at the windows' edges.
  auto lattice_below = [&](double x) { return static_cast<int64_t>(floor(x / h)); };
  auto lattice_above = [&](double x) { return static_cast<int64_t>(ceil(x / h)); };
  detail::EchoKeeper keeper(d, c, n, cut, gate_m, out, tab);
  double lo = 0, hi = 0;
  bool more = peek(&lo, &hi);
  while (more) {
    // One segment: contributions whose windows overlap.
    advance();
    double seg_begin = lo - half;
    double seg_end = hi + half;
    int64_t m0 = 0, m_end = 0;
    if (tab) {
      m0 = lattice_below(seg_begin);
      m_end = lattice_above(seg_end);
    }
    while ((more = peek(&lo, &hi)) &&
           (tab ? lattice_below(lo - half) <= m_end : lo - half <= seg_end)) {
      advance();
      seg_end = hi + half > seg_end ? hi + half : seg_end;
      if (tab) m_end = lattice_above(seg_end);
    }
    if (tab) {
      seg_begin = static_cast<double>(m0) * h;
      seg_end = static_cast<double>(m_end) * h;
    }
    // The grid's points: s steps from the segment's begin (on the lattice: point m0 + s).
    auto grid_x = [&](uint32_t s) {
      return tab ? static_cast<double>(m0 + s) * h : seg_begin + s * h;
    };
    auto grid_f = [&](uint32_t s, double x, uint32_t first) {
      const double f = PulseSignal(c, n, sigma, x, first, cut);
      return tab ? f + tab->AtPoint(m0 + s) : f;
    };
    // March the grid; the first point is below T (xi^ <= T at the window edge). `first`
    // follows the grid: contributions more than the cut behind it are never summed again.
    uint32_t first = 0;
    double x_prev = seg_begin;
    double f_prev = grid_f(0, x_prev, 0);
    bool above = f_prev > t;
    // The echo's rising bracket (none when the segment begins above T), its grid maximum and
    // the maximum's two neighbours' values, for the peak's first guess.
    detail::PendingEcho echo{seg_begin, seg_begin, f_prev, f_prev, 0,      0, 0,
                             0,         seg_begin, f_prev, f_prev, f_prev, 0, 0};
    double best_x = seg_begin, best_f = f_prev;
    bool best_is_prev = false;
    // The last point is seg_end itself, where xi^ <= T again: it is at least L from every
    // contribution (the next segment's windows start beyond it).
    const auto steps = tab ? static_cast<uint32_t>(m_end - m0)
                           : static_cast<uint32_t>((seg_end - seg_begin) / h) + 1;
    // Blocks of grid points that, by the signal's bounds, would change nothing are passed over
    // to their last point, which is marched as before: the echoes are the same to the bit. A
    // block of kCoarseBlock that cannot be passed is tried as blocks of kFineBlock (up to
    // fine_until), and one of those is marched point by point (up to march_until). The point
    // after a new grid maximum is always marched: it is the maximum's right neighbour.
    uint32_t fine_until = 0, march_until = 0;
    for (uint32_t s = 1; s <= steps; ++s) {
      if (pass_over && s > march_until && !best_is_prev) {
        auto unchanged = [&](uint32_t points) {
          return s + points - 1 < steps &&
                 detail::NothingChangesIn(c, n, sigma, t, grid_x(s), grid_x(s + points - 1), first,
                                          cut, above, best_f, tab, m0 + s, m0 + s + points - 1);
        };
        uint32_t skip = 0;
        if (s > fine_until) {
          if (unchanged(detail::kCoarseBlock)) {
            skip = detail::kCoarseBlock - 1;
          } else {
            fine_until = s + detail::kCoarseBlock - 1;
          }
        }
        if (skip == 0) {
          if (unchanged(detail::kFineBlock)) {
            skip = detail::kFineBlock - 1;
          } else {
            march_until = s + detail::kFineBlock - 1;
          }
        }
        s += skip;
      }
      const double x = s == steps ? seg_end : grid_x(s);
      // The window may start where the previous grid point's window started (after a block
      // passed over, that point is the one before the block: `first` only lags, which is safe).
      while (first < n && c[first].range_m < x_prev - cut)
        ++first;
      const double f = grid_f(s, x, first);
      if (best_is_prev) echo.best_right = f;
      best_is_prev = false;
      if (!above && f > t) {
        above = true;
        echo.rise_a = x_prev;
        echo.rise_b = x;
        echo.rise_fa = f_prev;
        echo.rise_fb = f;
        echo.rise_first = first;
        best_x = x;
        best_f = f;
        echo.best_left = f_prev;
        best_is_prev = true;
      } else if (above && f > best_f) {
        best_x = x;
        best_f = f;
        echo.best_left = f_prev;
        best_is_prev = true;
      }
      if (above && !(f > t)) {
        above = false;
        if (best_x == x_prev) echo.best_right = f;  // the grid maximum was the last point above T
        echo.fall_a = x_prev;
        echo.fall_b = x;
        echo.fall_fa = f_prev;
        echo.fall_fb = f;
        echo.fall_first = first;
        echo.best_x = best_x;
        echo.best_f = best_f;
        keeper.Add(echo);
      }
      x_prev = x;
      f_prev = f;
    }
  }
  keeper.Resolve();
  *detected = keeper.seen;
  return keeper.count;
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

// The kind of a beam's only echo in a return mode: what SelectedEchoTypes gives one echo of
// one (the tiers that report one return a beam).
LT_HD constexpr ReturnType LoneEchoType(ReturnMode mode) {
  return mode == ReturnMode::kFirst       ? ReturnType::kFirst
         : mode == ReturnMode::kLast      ? ReturnType::kLast
         : mode == ReturnMode::kStrongest ? ReturnType::kStrongest
                                          : ReturnType::kIdentical;
}

// The kind (return_type.h) of each of the m echoes SelectEchoes chose, in its order, among the
// `count` detected: what a sensor in that return mode calls the return it reports.
//   first: the nearest kFirst, the next kSecond; last: the farthest kLast;
//   strongest: the strongest kStrongest, the next kSecondStrongest;
//   dual: its two as nearer/farther and stronger/weaker (NearFarTypes, nebula's Velodyne
//   labels); a lone echo kIdentical (a dual-return sensor reports it twice).
// A single echo in a single-return mode is its mode's kind; further echoes are kUnknown.
LT_HD inline void SelectedEchoTypes(ReturnMode mode, const Echo* echoes, uint32_t count,
                                    const uint32_t* chosen, uint32_t m, ReturnType* types) {
  // Rank by strength among all detected echoes: how many are stronger (a tie to the nearer, as
  // SelectEchoes breaks it).
  auto stronger_than = [&](uint32_t i) {
    uint32_t n = 0;
    for (uint32_t j = 0; j < count; ++j)
      n += echoes[j].peak_power_w > echoes[i].peak_power_w ||
           (echoes[j].peak_power_w == echoes[i].peak_power_w && j < i);
    return n;
  };
  for (uint32_t k = 0; k < m; ++k) {
    const uint32_t i = chosen[k];
    ReturnType t = ReturnType::kUnknown;
    if (mode == ReturnMode::kFirst) {
      // By the echo's place among all detected (more than the array holds drop the nearest).
      const uint32_t seen = echoes[i].index;
      t = seen == 0 ? ReturnType::kFirst : seen == 1 ? ReturnType::kSecond : ReturnType::kUnknown;
    } else if (mode == ReturnMode::kLast) {
      t = i + 1 == count ? ReturnType::kLast : ReturnType::kUnknown;  // the farthest is kept
    } else if (mode == ReturnMode::kStrongest) {
      const uint32_t rank = stronger_than(i);
      t = rank == 0   ? ReturnType::kStrongest
          : rank == 1 ? ReturnType::kSecondStrongest
                      : ReturnType::kUnknown;
    } else if (m == 1) {
      t = ReturnType::kIdentical;
    }
    types[k] = t;
  }
  if (mode == ReturnMode::kDual && m >= 2) {
    // SelectEchoes's dual pair: the last echo (in range order, the last chosen) and the
    // strongest of the others; further ones by strength stay kUnknown.
    const uint32_t far = m - 1;
    uint32_t near = 0;
    for (uint32_t k = 1; k < far; ++k)
      if (stronger_than(chosen[k]) < stronger_than(chosen[near])) near = k;
    NearFarTypes(echoes[chosen[near]].range_m, echoes[chosen[far]].range_m,
                 echoes[chosen[near]].peak_power_w, echoes[chosen[far]].peak_power_w, &types[near],
                 &types[far]);
  }
}

}  // namespace lt::physics
