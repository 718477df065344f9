#include "internal/fog_table.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lt {

FogTable::FogTable(const FogView& fog, const physics::ThresholdDetector& d) {
  if (fog.slabs == 0) return;
  const uint32_t n = fog.slabs;
  const double sigma = d.pulse_sigma_m;
  const double h = sigma / 4;  // DetectEchoes' grid step
  range_m.resize(n);
  power_w.resize(n);
  power_sum_w.assign(n + 1, 0.0);
  power_max_w.assign(n + 1, 0.0f);
  for (uint32_t j = 0; j < n; ++j) {
    range_m[j] = fog.slab[j].range_m;
    power_w[j] = fog.slab[j].power_w;
    power_sum_w[j + 1] = power_sum_w[j] + power_w[j];
    power_max_w[j + 1] = std::max(power_max_w[j], power_w[j]);
  }
  // The cut of a beam whose share is up to twice a full beam's (pulse energy jitter): every
  // term left out stays under 1e-6 T (PulseCut).
  const double cut = physics::PulseCut(sigma, 2.0 * power_max_w[n], d.threshold_w);
  const auto first = static_cast<int64_t>(std::floor((range_m.front() - cut) / h));
  const auto last = static_cast<int64_t>(std::ceil((range_m.back() + cut) / h));
  const auto points = static_cast<uint32_t>(last - first + 1);
  point_first.resize(points);
  point_sums.assign(points + 1, 0);
  const double half_inv_var = 0.5 / (sigma * sigma);
  uint32_t lo = 0;
  for (uint32_t p = 0; p < points; ++p) {
    // The point's pulses: those TabledPulses::Derivatives sums there, by the same comparisons.
    const double x = static_cast<double>(first + p) * h;
    while (lo < n && range_m[lo] < x - cut)
      ++lo;
    point_first[p] = lo;
    double sum = 0;
    for (uint32_t j = lo; j < n && x - range_m[j] >= -cut; ++j) {
      sum += power_w[j] * physics::PulseWeight(x - range_m[j], half_inv_var);
      sums_w.push_back(sum);
    }
    point_sums[p + 1] = static_cast<uint32_t>(sums_w.size());
    full_w.push_back(point_sums[p + 1] > point_sums[p] ? sums_w.back() : 0.0);
  }
  for (int b = 0; b < 2; ++b) {
    const uint32_t size = physics::TableBlockSize(b);
    block_max_w[b].resize(points);
    block_min_w[b].resize(points);
    for (uint32_t p = 0; p < points; ++p) {
      double hi = 0, lo = 1e300;
      for (uint32_t q = p; q < p + size; ++q) {
        const double v = q < points ? full_w[q] : 0.0;
        hi = std::max(hi, v);
        lo = std::min(lo, v);
      }
      block_max_w[b][p] = hi;
      block_min_w[b][p] = lo;
    }
  }
  // covered[J]: the points whose pulses all lie among the first J, a prefix (a point's last
  // pulse, point_first + its count, never falls along the lattice); zeroed[J]: the first point
  // whose pulses all lie past them (point_first only grows).
  covered.resize(n + 1);
  zeroed.resize(n + 1);
  for (uint32_t used = 0; used <= n; ++used) {
    uint32_t p = 0;
    while (p < points && point_first[p] + (point_sums[p + 1] - point_sums[p]) <= used)
      ++p;
    covered[used] = p;
    p = 0;
    while (p < points && point_first[p] < used)
      ++p;
    zeroed[used] = p;
  }
  for (uint32_t used = 1; used <= n; ++used) {
    std::vector<float> powers(power_w.begin(), power_w.begin() + used);
    std::sort(powers.begin(), powers.end());
    double sum = 0;
    for (float p : powers) {
      sorted_power_w.push_back(p);
      sum += p;
      sorted_sum_w.push_back(sum);
    }
  }
  shape_.pulses = n;
  shape_.step_m = h;
  shape_.cut_m = cut;
  shape_.first = first;
  shape_.points = points;
  shape_.source = fog.object;
  view_ = ViewOf([](const auto& array) { return array.data(); });
}

const physics::PulseTableView* FogTableCache::For(const FogView& fog,
                                                  const physics::ThresholdDetector& d) {
  const bool same = table_ && fog.slabs == fog_.slabs && fog.object == fog_.object &&
                    d.pulse_sigma_m == detector_.pulse_sigma_m &&
                    d.threshold_w == detector_.threshold_w &&
                    std::memcmp(fog.slab, fog_.slab, sizeof(FogSlab) * fog.slabs) == 0;
  if (!same) {
    table_ = std::make_unique<FogTable>(fog, d);
    fog_ = fog;
    detector_ = d;
  }
  return table_->View();
}

}  // namespace lt
