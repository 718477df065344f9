// The threshold detector's echo search by a whole warp for one beam (physics::DetectEchoes,
// return_signal.h, with every grid point marched): the lanes take 32 grid points at a time, and
// every sum over the contributions (totals, the weak level, the searches' Newton steps, the
// dominant source) a contribution a lane, added up across the warp. One thread a beam spent
// most of its time waiting on the other beams of its warp: in fog, rain and snow 6 of 32 lanes
// were active on average (`ncu`, ADR 0032 "The frame's time").
//
// The echoes are those of DetectEchoes up to the rounding of sums taken in another order (the
// grid points' sums are taken in the same order, so the march sees the same values): the
// backends' parity tests hold them to 1 um. Every lane calls every function here with the same
// arguments and gets the same result; the contributions are in the warp's shared memory.
#pragma once

#include <cstdint>

#include "lidartwin/physics/return_signal.h"
#include "waveform_warp.cuh"

namespace lt::cuda {

// The warp's sum of v, the same on every lane (a tree to lane 0, then broadcast: a butterfly
// would leave lanes with sums rounded differently, and their branches would part).
__device__ inline double WarpTotal(double v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(kFullMask, v, o);
  return __shfl_sync(kFullMask, v, 0);
}

__device__ inline double WarpMaximum(double v) {
  for (int o = 16; o > 0; o >>= 1)
    v = fmax(v, __shfl_xor_sync(kFullMask, v, o));
  return v;
}

// xi^ and its derivatives at x (physics::PulseSignalDerivatives), a contribution a lane.
__device__ inline physics::SignalDerivatives WarpSignalDerivatives(
    const physics::SignalContribution* c, uint32_t n, double sigma, double x, uint32_t first,
    double cut) {
  const uint32_t lane = threadIdx.x & 31u;
  physics::SignalDerivatives s{0, 0, 0};
  const double inv_s2 = 1 / (sigma * sigma);
  for (uint32_t k = first + lane; k < n; k += 32) {
    const double d = x - c[k].range_m;
    if (d > cut) continue;
    if (d < -cut) break;
    const double g = c[k].power_w * physics::PulseWeight(d, 0.5 * inv_s2);
    s.f += g;
    s.d1 -= d * inv_s2 * g;
    s.d2 += (d * d * inv_s2 - 1) * inv_s2 * g;
  }
  return {WarpTotal(s.f), WarpTotal(s.d1), WarpTotal(s.d2)};
}

// xi^ at x (physics::PulseSignal), a contribution a lane.
__device__ inline double WarpSignal(const physics::SignalContribution* c, uint32_t n, double sigma,
                                    double x, uint32_t first, double cut) {
  const uint32_t lane = threadIdx.x & 31u;
  const double half_inv_var = 0.5 / (sigma * sigma);
  double s = 0;
  for (uint32_t k = first + lane; k < n; k += 32) {
    const double d = x - c[k].range_m;
    if (d > cut) continue;
    if (d < -cut) break;
    s += c[k].power_w * physics::PulseWeight(d, half_inv_var);
  }
  return WarpTotal(s);
}

// How many of the sorted contributions lie nearer than r.
__device__ inline uint32_t WarpCountBefore(const physics::SignalContribution* c, uint32_t n,
                                           double r) {
  const uint32_t lane = threadIdx.x & 31u;
  uint32_t m = 0;
  for (uint32_t k = lane; k < n; k += 32)
    m += c[k].range_m < r;
  return __reduce_add_sync(kFullMask, m);
}

// physics::WeakPowerLevel, each level's sum taken across the warp.
__device__ inline double WarpWeakPowerLevel(const physics::SignalContribution* c, uint32_t n,
                                            double threshold_w) {
  const uint32_t lane = threadIdx.x & 31u;
  const double budget = threshold_w / 2;
  double level = threshold_w / (2 * n);
  for (double next = 2 * level; next <= budget && next > level; next *= 2) {
    double sum = 0;
    for (uint32_t k = lane; k < n; k += 32)
      sum += c[k].power_w <= next ? c[k].power_w : 0;
    if (WarpTotal(sum) > budget) break;
    level = next;
  }
  return level;
}

// detail::FinishEcho: the contribution that dominates xi^ at the peak (the nearest of equals,
// as the serial search keeps the first).
__device__ inline physics::Echo WarpFinishEcho(const physics::ThresholdDetector& d,
                                               const physics::SignalContribution* c, uint32_t n,
                                               double r0, double r1, double peak, double peak_power,
                                               uint32_t first, double cut) {
  const uint32_t lane = threadIdx.x & 31u;
  const double half_inv_var = 0.5 / (d.pulse_sigma_m * d.pulse_sigma_m);
  double best = -1;
  uint32_t best_k = n;
  for (uint32_t k = first + lane; k < n && c[k].range_m <= peak + cut; k += 32) {
    const double p = c[k].power_w * physics::PulseWeight(peak - c[k].range_m, half_inv_var);
    if (p > best) {
      best = p;
      best_k = k;
    }
  }
  const double most = WarpMaximum(best);
  const uint32_t k = __reduce_min_sync(kFullMask, best == most ? best_k : n);
  return physics::detail::EchoAt(d, r0, r1, peak, peak_power, k < n ? c[k].source : 0);
}

__device__ inline physics::Echo WarpMakeEcho(const physics::ThresholdDetector& d,
                                             const physics::SignalContribution* c, uint32_t n,
                                             double r0, double r1, double x_m, double h, double f_l,
                                             double f_m, double f_r, uint32_t first, double cut) {
  const double sigma = d.pulse_sigma_m;
  const double peak = physics::detail::PeakOf(
      [&](double x) { return WarpSignalDerivatives(c, n, sigma, x, first, cut); }, x_m, h, f_l, f_m,
      f_r, r0, r1);
  return WarpFinishEcho(d, c, n, r0, r1, peak, WarpSignal(c, n, sigma, peak, first, cut), first,
                        cut);
}

// An echo found by the march, kept as DetectEchoes keeps it: not below the range gate, the
// nearest dropped when kMaxEchoesDetected are held. Lane 0 holds the echoes.
__device__ inline void KeepEcho(const physics::Echo& e, double gate_m, physics::Echo* out,
                                uint32_t* count, uint32_t* seen) {
  if (e.range_m < gate_m) return;
  if ((threadIdx.x & 31u) == 0) {
    if (*count == physics::kMaxEchoesDetected) {
      for (uint32_t m = 1; m < *count; ++m)
        out[m - 1] = out[m];
    }
    const uint32_t at = *count < physics::kMaxEchoesDetected ? *count : *count - 1;
    out[at] = e;
    out[at].index = *seen;
  }
  if (*count < physics::kMaxEchoesDetected) ++*count;
  ++*seen;
}

// The march over one segment [begin, end] (DetectEchoes' grid, every point marched): 32 points a
// round, one a lane; the echoes' crossings and peaks are searched by the warp.
class WarpMarch {
 public:
  __device__ WarpMarch(const physics::ThresholdDetector& d, const physics::SignalContribution* c,
                       uint32_t n, double cut, double begin, double end)
      : d_(d), c_(c), n_(n), cut_(cut), begin_(begin), end_(end) {
    h_ = d.pulse_sigma_m / 4;
    steps_ = static_cast<uint32_t>((end - begin) / h_) + 1;
  }

  __device__ void Run(double gate_m, physics::Echo* out, uint32_t* count, uint32_t* seen) {
    const uint32_t lane = threadIdx.x & 31u;
    const double t = d_.threshold_w, sigma = d_.pulse_sigma_m;
    uint32_t first = 0;
    for (base_ = 0; base_ <= steps_; base_ += 32) {
      // Contributions more than the cut behind the round's first point (or the last round's
      // last point, where a crossing may lie) are summed by no point of it.
      const double from = base_ == 0 ? begin_ : x_last_;
      first += WarpCountBefore(c_ + first, n_ - first, from - cut_);
      const uint32_t s = base_ + lane;
      f_ = s <= steps_ ? physics::PulseSignal(c_, n_, sigma, X(lane), first, cut_) : 0;
      valid_ = __ballot_sync(kFullMask, s <= steps_);
      up_ = __ballot_sync(kFullMask, s <= steps_ && f_ > t);
      uint32_t p = 0;
      if (base_ == 0) {  // the first point sets the state (below T at a window's edge)
        const double f0 = F(0);
        above_ = f0 > t;
        r0_ = begin_;
        best_x_ = begin_;
        best_f_ = best_left_ = best_right_ = f0;
        p = 1;
      }
      Walk(p, first, gate_m, out, count, seen);
      const uint32_t last = 31 - __clz(valid_);
      x_last_ = X(last);
      f_last_ = F(last);
    }
  }

 private:
  // Grid point j of this round (-1: the last round's last) and xi^ there.
  __device__ double X(int j) const {
    if (j < 0) return x_last_;
    const uint32_t s = base_ + static_cast<uint32_t>(j);
    return s == steps_ ? end_ : begin_ + s * h_;
  }
  __device__ double F(int j) const {
    const double f = __shfl_sync(kFullMask, f_, j < 0 ? 0 : j);
    return j < 0 ? f_last_ : f;
  }
  __device__ bool Valid(uint32_t j) const { return j < 32 && ((valid_ >> j) & 1u); }
  // Lanes j .. 31 of a mask.
  __device__ static uint32_t From(uint32_t j) { return j >= 32 ? 0u : ~0u << j; }

  // The round's points from lane p on: rising and falling crossings, the echoes' grid maxima
  // (the first of equals, as DetectEchoes' strict comparison keeps it).
  __device__ void Walk(uint32_t p, uint32_t first, double gate_m, physics::Echo* out,
                       uint32_t* count, uint32_t* seen) {
    const uint32_t lane = threadIdx.x & 31u;
    const double t = d_.threshold_w, sigma = d_.pulse_sigma_m;
    while (Valid(p)) {
      if (best_is_prev_) {  // the point after the grid maximum
        best_right_ = F(p);
        best_is_prev_ = false;
      }
      if (!above_) {
        const uint32_t rising = up_ & From(p);
        if (rising == 0) return;
        const int r = __ffs(rising) - 1;
        r0_ = physics::detail::CrossingOf(
            [&](double x) { return WarpSignalDerivatives(c_, n_, sigma, x, first, cut_); }, t,
            X(r - 1), X(r), F(r - 1), F(r));
        above_ = true;
        best_x_ = X(r);
        best_f_ = F(r);
        best_left_ = F(r - 1);
        best_is_prev_ = true;
        p = r + 1;
        continue;
      }
      // Above T from p up to the first point at or below it (q), or to the round's end.
      const uint32_t below = valid_ & ~up_ & From(p);
      const uint32_t q = below ? __ffs(below) - 1 : 32;
      const bool run = lane >= p && lane < q && Valid(lane);
      const double most = WarpMaximum(run ? f_ : -1.0);
      if (__any_sync(kFullMask, run) && most > best_f_) {
        const int j = __ffs(__ballot_sync(kFullMask, run && f_ == most)) - 1;
        best_x_ = X(j);
        best_f_ = most;
        best_left_ = F(j - 1);
        best_is_prev_ = false;
        if (Valid(j + 1)) {
          best_right_ = F(j + 1);
        } else {
          best_is_prev_ = true;  // the next round's first point
        }
      }
      if (below == 0) return;
      above_ = false;
      const double r1 = physics::detail::CrossingOf(
          [&](double x) { return WarpSignalDerivatives(c_, n_, sigma, x, first, cut_); }, t,
          X(static_cast<int>(q) - 1), X(static_cast<int>(q)), F(static_cast<int>(q) - 1),
          F(static_cast<int>(q)));
      const uint32_t echo_first = WarpCountBefore(c_, n_, r0_ - cut_);
      KeepEcho(WarpMakeEcho(d_, c_, n_, r0_, r1, best_x_, h_, best_left_, best_f_, best_right_,
                            echo_first, cut_),
               gate_m, out, count, seen);
      p = q + 1;
    }
  }

  const physics::ThresholdDetector& d_;
  const physics::SignalContribution* c_;
  uint32_t n_;
  double cut_, begin_, end_, h_;
  uint32_t steps_;
  // The round: its first point's index, this lane's xi^, the lanes with a point, above T.
  uint32_t base_ = 0;
  double f_ = 0;
  uint32_t valid_ = 0, up_ = 0;
  double x_last_ = 0, f_last_ = 0;
  // The echo being marched (DetectEchoes' state).
  bool above_ = false, best_is_prev_ = false;
  double r0_ = 0, best_x_ = 0, best_f_ = 0, best_left_ = 0, best_right_ = 0;
};

// physics::DetectEchoes by the calling warp; `c` in shared memory, sorted here; the echoes in
// lane 0's `out`, their count on every lane.
__device__ inline uint32_t WarpDetectEchoes(const physics::ThresholdDetector& d,
                                            physics::SignalContribution* c, uint32_t n,
                                            physics::Echo* out, uint32_t* detected, double gate_m) {
  const uint32_t lane = threadIdx.x & 31u;
  *detected = 0;
  if (n == 0) return 0;
  if (lane == 0) physics::SortByRange(c, n);
  __syncwarp();
  double sum = 0, p_max = 0;
  for (uint32_t k = lane; k < n; k += 32) {
    sum += c[k].power_w;
    p_max = fmax(p_max, static_cast<double>(c[k].power_w));
  }
  const double total = WarpTotal(sum);
  const double t = d.threshold_w;
  if (!(total > t)) return 0;
  const double sigma = d.pulse_sigma_m;
  const double cut = physics::PulseCut(sigma, WarpMaximum(p_max), t);
  if (physics::detail::IsTightCluster(c, n, sigma)) {
    double weighted = 0;
    for (uint32_t k = lane; k < n; k += 32)
      weighted += c[k].power_w * c[k].range_m;
    const double r_m = WarpTotal(weighted) / total;
    const double f = WarpSignal(c, n, sigma, r_m, 0, cut);
    if (!(f > t)) return 0;
    const double hw = physics::detail::TightClusterHalfWidth(sigma, f, t);
    const physics::Echo e = WarpFinishEcho(d, c, n, r_m - hw, r_m + hw, r_m, f, 0, cut);
    if (e.range_m < gate_m) return 0;
    if (lane == 0) {
      out[0] = e;
      out[0].index = 0;
    }
    *detected = 1;
    return 1;
  }
  const double weak = WarpWeakPowerLevel(c, n, t);
  double strong = 0;
  for (uint32_t k = lane; k < n; k += 32)
    strong += c[k].power_w > weak ? c[k].power_w : 0;
  const physics::detail::Windows windows(sigma, t, total, weak, WarpTotal(strong));
  uint32_t count = 0, seen = 0;
  for (uint32_t k = windows.Next(c, n, 0); k < n;) {
    double begin, end;
    k = windows.Segment(c, n, k, &begin, &end);
    WarpMarch(d, c, n, cut, begin, end).Run(gate_m, out, &count, &seen);
  }
  *detected = seen;
  return count;
}

}  // namespace lt::cuda
