// Pulses that many beams share, summed once on the threshold detector's lattice (issue 43,
// ADR 0032 step 1).
//
// The fog's slabs are the same pulses on every beam whose sub-rays all reach past them, scaled
// by the beam's share; in fog, rain and snow they were about half of the detector's work, each
// beam summing the same slabs' terms at its own grid points. Here their sum
//   F_J(x_m) = sum over j < J of P_j exp(-(x_m - r_j)^2 / (2 sigma_r^2))
// (return_signal.h's xi^ over the slabs alone) is tabulated at the points x_m = m h of a lattice
// fixed in range, h = sigma_r / 4 the detector's grid step, for every J at once: each point
// keeps the running sums over the pulses within the cut of it. A beam that holds the first J
// pulses at scale s reads s F_J(x_m) with one load where it marched those terms; its grid lies
// on the same lattice (DetectEchoes). Between points (the searches) the terms are summed as
// before, a few evaluations a beam. Both backends read one table made on the host, so their
// grid values are the same numbers.
//
// A plain view: the owner (sim's FogTable) keeps the arrays, on the host or the device.
#pragma once

#include <cstdint>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/pulse_terms.h"

namespace lt::physics {

struct PulseTableView {
  uint32_t pulses = 0;             // 0: no table
  double step_m = 0;               // h, the detector's grid step sigma_r / 4 [m]
  double cut_m = 0;                // pulses farther than this from x are left out of a sum at x [m]
  int64_t first = 0;               // the lattice index of point 0 (x = first h)
  uint32_t points = 0;             // lattice points held
  uint32_t source = 0;             // the pulses' source (labels)
  const float* range_m = nullptr;  // [pulses], nearest first
  const float* power_w = nullptr;  // [pulses]
  const double* power_sum_w = nullptr;    // [pulses + 1]: sum of power_w[0 .. J)
  const float* power_max_w = nullptr;     // [pulses + 1]: max of power_w[0 .. J)
  const uint32_t* point_first = nullptr;  // [points]: the first pulse within the cut of a point
  const uint32_t* point_sums = nullptr;   // [points + 1]: where a point's running sums begin
  const double* sums_w = nullptr;  // sums_w[point_sums[p] + i]: pulses first .. first + i at p
  // All of the pulses: F at each point, and its largest and least over the blocks of
  // TableBlockSize(b) points from each point on (points past the table count as 0). The march's
  // bounds over a block of its grid read them in two loads where a beam holds every pulse near
  // the block.
  const double* full_w = nullptr;                     // [points]
  const double* block_max_w[2] = {nullptr, nullptr};  // [points] each
  const double* block_min_w[2] = {nullptr, nullptr};
  // For J held pulses: the points [0, covered[J]) have every pulse within their cut among the
  // J (there F_J = F), and from zeroed[J] on none (there F_J = 0).
  const uint32_t* covered = nullptr;  // [pulses + 1]
  const uint32_t* zeroed = nullptr;   // [pulses + 1]
  // For J held pulses, their powers in ascending order and the running sums of those, at
  // J (J - 1) / 2: the detector's weak levels ask how much of a beam's pulses lies under a
  // power, which a binary search answers where a pass over the J pulses did.
  const float* sorted_power_w = nullptr;  // [pulses (pulses + 1) / 2]
  const double* sorted_sum_w = nullptr;   // [pulses (pulses + 1) / 2]
};

// The block sizes of PulseTableView's bounds (b = 0, 1): DetectEchoes' kFineBlock and
// kCoarseBlock.
LT_HD constexpr uint32_t TableBlockSize(int b) {
  return b == 0 ? 4 : 16;
}

// The share of a table a beam holds: pulses [0, used) at `scale` (Of).
struct TabledPulses {
  const PulseTableView* table = nullptr;
  uint32_t used = 0;
  double scale = 0;
  int64_t covered = 0, zeroed = 0;  // the table's covered[used] and zeroed[used]

  LT_HD static TabledPulses Of(const PulseTableView* table, uint32_t used, double scale) {
    return {table, used, scale, table->covered[used], table->zeroed[used]};
  }

  LT_HD bool Any() const { return table != nullptr && used > 0; }

  // s F_J at lattice index m (0 off the table).
  LT_HD double AtPoint(int64_t m) const {
    const int64_t p = m - table->first;
    if (p < 0 || p >= static_cast<int64_t>(table->points) || p >= zeroed) return 0;
    if (p < covered) return scale * table->full_w[p];
    const uint32_t lo = table->point_first[p];
    const uint32_t begin = table->point_sums[p], held = table->point_sums[p + 1] - begin;
    if (used <= lo || held == 0) return 0;
    const uint32_t k = used - lo < held ? used - lo : held;
    return scale * table->sums_w[begin + k - 1];
  }

  // The largest and least of AtPoint over the lattice points [m_a, m_b].
  LT_HD void Bound(int64_t m_a, int64_t m_b, double* upper, double* lower) const {
    const int64_t p_a = m_a - table->first, p_b = m_b - table->first;
    if (p_b < 0 || p_a >= zeroed || p_a >= static_cast<int64_t>(table->points)) {
      *upper = *lower = 0;
      return;
    }
    if (p_a >= 0 && p_b < covered) {
      for (int b = 0; b < 2; ++b) {
        if (p_b - p_a + 1 == TableBlockSize(b)) {
          *upper = scale * table->block_max_w[b][p_a];
          *lower = scale * table->block_min_w[b][p_a];
          return;
        }
      }
    }
    double hi = 0, lo = 1e300;
    for (int64_t m = m_a; m <= m_b; ++m) {
      const double v = AtPoint(m);
      hi = v > hi ? v : hi;
      lo = v < lo ? v : lo;
    }
    *upper = hi;
    *lower = m_b >= m_a ? lo : 0;
  }

  // The sum of the held pulses' scaled powers that are at most `level` (scale P_j <= level).
  LT_HD double SumAtMost(double level) const {
    const uint32_t at = used * (used - 1) / 2;
    uint32_t lo = 0, hi = used;  // the first sorted power above the level
    while (lo < hi) {
      const uint32_t mid = (lo + hi) / 2;
      if (scale * table->sorted_power_w[at + mid] <= level) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo == 0 ? 0.0 : scale * table->sorted_sum_w[at + lo - 1];
  }

  // The first pulse within the cut before x (a binary search: the pulses are sorted).
  LT_HD uint32_t FirstNear(double x) const {
    uint32_t lo = 0, hi = used;
    while (lo < hi) {
      const uint32_t mid = (lo + hi) / 2;
      if (table->range_m[mid] < x - table->cut_m) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  // Calls f(d, P_j) for each held pulse j within the cut of x, d = x - r_j [m], in the order of
  // their ranges (the order the sums above have always taken).
  template <class F>
  LT_HD void ForEachNear(double x, F&& f) const {
    for (uint32_t j = FirstNear(x); j < used; ++j) {
      const double d = x - table->range_m[j];
      if (d < -table->cut_m) break;
      f(d, static_cast<double>(table->power_w[j]));
    }
  }

  // xi^ of the held pulses and its first two derivatives at any x, summed term by term
  // (PulseSignalDerivatives' formulas).
  LT_HD SignalDerivatives Derivatives(double x, double sigma) const {
    SignalDerivatives s{0, 0, 0};
    const double inv_s2 = 1 / (sigma * sigma);
    ForEachNear(x, [&](double d, double power) {
      const double g = power * PulseWeight(d, 0.5 * inv_s2);
      s.f += g;
      s.d1 -= d * inv_s2 * g;
      s.d2 += (d * d * inv_s2 - 1) * inv_s2 * g;
    });
    s.f *= scale;
    s.d1 *= scale;
    s.d2 *= scale;
    return s;
  }

  // xi^ of the held pulses at any x.
  LT_HD double At(double x, double sigma) const {
    double s = 0;
    const double half_inv_var = 0.5 / (sigma * sigma);
    ForEachNear(x, [&](double d, double power) { s += power * PulseWeight(d, half_inv_var); });
    return scale * s;
  }

  // The largest single held pulse's term at x (an echo's label).
  LT_HD double StrongestTermAt(double x, double sigma) const {
    double best = 0;
    const double half_inv_var = 0.5 / (sigma * sigma);
    ForEachNear(x, [&](double d, double power) {
      const double p = scale * power * PulseWeight(d, half_inv_var);
      best = p > best ? p : best;
    });
    return best;
  }
};

}  // namespace lt::physics
