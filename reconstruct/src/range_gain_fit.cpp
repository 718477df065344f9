#include "range_gain_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <Eigen/Core>

#include "lidartwin/base/order_statistics.h"
#include "lidartwin/physics/units.h"
#include "viewed_cells.h"

namespace lt {
namespace {

// A return on a cell seen from two ranges: its cell, its range and range bin, and
// ln I - ln cos(theta) (or the rough surface's shading in its place).
struct ViewedReturn {
  size_t cell, bin;
  double range_m, y;
};

// k per range bin (0 where the bin holds fewer than min_returns_per_bin returns), alternated
// with the cells' ln rho: by means until they settle, then by medians from there (which edges,
// mixed returns and movers do not pull); the gauge is the determined bins' median k = 0.
std::vector<double> BinCorrections(const std::vector<ViewedReturn>& rs,
                                   const std::vector<double>& y, const std::vector<size_t>& count,
                                   size_t cells, size_t bins, const RecordingFitOptions& o) {
  std::vector<double> k(bins, 0.0), rho(cells, 0.0);
  std::vector<std::vector<double>> by_cell(cells), by_bin(bins);
  auto step = [&](bool median) {
    for (auto& v : by_cell)
      v.clear();
    for (size_t i = 0; i < rs.size(); ++i)
      by_cell[rs[i].cell].push_back(y[i] - k[rs[i].bin]);
    for (size_t c = 0; c < rho.size(); ++c)
      rho[c] = median ? MedianOr(by_cell[c], 0.0) : MeanOr(by_cell[c], 0.0);
    for (auto& v : by_bin)
      v.clear();
    for (size_t i = 0; i < rs.size(); ++i)
      by_bin[rs[i].bin].push_back(y[i] - rho[rs[i].cell]);
    double change = 0;
    std::vector<double> determined;
    for (size_t b = 0; b < bins; ++b) {
      if (count[b] < o.min_returns_per_bin) continue;
      const double next = median ? MedianOr(by_bin[b], 0.0) : MeanOr(by_bin[b], 0.0);
      change = std::max(change, std::fabs(next - k[b]));
      k[b] = next;
      determined.push_back(next);
    }
    const double centre = MedianOr(determined, 0.0);
    for (size_t b = 0; b < bins; ++b)
      if (count[b] >= o.min_returns_per_bin) k[b] -= centre;
    return change;
  };
  for (int it = 0; it < o.gain_iterations; ++it)
    if (step(false) < 1e-7) break;
  for (int it = 0; it < o.gain_iterations; ++it)
    if (step(true) < 1e-7) break;
  return k;
}

}  // namespace

RangeGainCorrection FitRangeGainAcrossViewpoints(const std::vector<ViewedCell>& cells,
                                                 const IntensityReading& reading,
                                                 const RecordingFitOptions& o) {
  RangeGainCorrection out;
  out.ln_correction.assign(reading.gain.size(), 0.0);
  if (reading.gain.empty()) return out;
  const double log_lo = std::log(o.min_range_m), log_hi = std::log(o.max_range_m);
  const size_t bins = static_cast<size_t>(std::max(1, o.range_bins));
  auto bin_of = [&](double range_m) {
    const double t = (std::log(range_m) - log_lo) / (log_hi - log_lo);
    return static_cast<size_t>(std::clamp(static_cast<int>(t * bins), 0, int(bins) - 1));
  };
  const double min_cos = std::cos(o.gain_max_incidence_deg * physics::kDegToRad);
  std::vector<ViewedReturn> rs;
  for (const ViewedCell& viewed : cells) {
    const auto& seen = viewed.seen;
    // Seen from two ranges: the frames' median ranges to the cell differ by a tenth at least.
    std::vector<double> ranges(seen.size());
    for (size_t j = 0; j < seen.size(); ++j)
      ranges[j] = seen[j].range_m;
    const auto [nearest, farthest] = viewed.FrameMedianSpan(ranges);
    if (!(farthest >= o.gain_min_range_ratio * nearest)) continue;
    const size_t cell = out.cells, first = rs.size();
    size_t lowest = bins, highest = 0;
    for (size_t j : viewed.plane.inliers) {
      const SeenReturn& s = seen[j];
      const double c = viewed.CosIncidence(j);
      if (!(c >= min_cos)) continue;
      rs.push_back(
          {cell, bin_of(s.range_m), s.range_m, std::log(s.intensity / reading.Shading(c))});
      lowest = std::min(lowest, rs.back().bin);
      highest = std::max(highest, rs.back().bin);
    }
    // Only a cell whose returns lie in two range bins or more relates them; one inside a bin
    // would absorb that bin's correction, whatever it is.
    if (rs.size() > first && highest > lowest) {
      ++out.cells;
    } else {
      rs.resize(first);
    }
  }
  // The bins the cells link, by union-find: only the largest linked group has one gauge; a bin
  // outside it takes its nearest determined bin's correction, as a bin without returns does.
  std::vector<size_t> parent(bins);
  for (size_t b = 0; b < bins; ++b)
    parent[b] = b;
  const auto root = [&](size_t b) {
    while (parent[b] != b)
      b = parent[b] = parent[parent[b]];
    return b;
  };
  for (size_t i = 1; i < rs.size(); ++i)
    if (rs[i].cell == rs[i - 1].cell) parent[root(rs[i].bin)] = root(rs[i - 1].bin);
  std::vector<size_t> group_returns(bins, 0);
  for (const ViewedReturn& r : rs)
    ++group_returns[root(r.bin)];
  const size_t main_group = static_cast<size_t>(
      std::max_element(group_returns.begin(), group_returns.end()) - group_returns.begin());
  std::erase_if(rs, [&](const ViewedReturn& r) { return root(r.bin) != main_group; });
  const size_t cell_ids = out.cells;  // ids stay as they were; the cells left are reported
  out.cells = 0;
  for (size_t i = 0; i < rs.size(); ++i)
    out.cells += i == 0 || rs[i].cell != rs[i - 1].cell;
  out.returns = rs.size();
  std::vector<size_t> count(bins, 0);
  for (const ViewedReturn& r : rs)
    ++count[r.bin];
  std::vector<size_t> known;
  for (size_t b = 0; b < bins; ++b)
    if (count[b] >= o.min_returns_per_bin) known.push_back(b);
  out.bins_determined = static_cast<int>(known.size());
  // Two determined bins at least: one alone is the gauge, and says nothing of G's shape.
  if (known.size() < 2) return out;
  // The correction is a bin's mean, and G is linear between the bins' median ranges: a G0 far
  // from the sensor's inside a bin leaves part of it, so the fit runs again from the corrected
  // G until it barely moves (the drive in the tests: 7 passes to 0.5 %).
  IntensityReading g = reading;
  std::vector<double> y(rs.size());
  for (int pass = 0; pass < o.gain_passes; ++pass) {
    for (size_t i = 0; i < rs.size(); ++i)
      y[i] = rs[i].y - std::log(g.GainAt(rs[i].range_m));
    const std::vector<double> k = BinCorrections(rs, y, count, cell_ids, bins, o);
    double largest = 0;
    for (size_t n = 0; n < g.gain.size(); ++n) {
      const size_t b = bin_of(g.gain_range_m[n]);
      size_t nearest = known[0];
      for (size_t j : known)
        if (std::abs(int(j) - int(b)) < std::abs(int(nearest) - int(b))) nearest = j;
      g.gain[n] *= std::exp(k[nearest]);
      out.ln_correction[n] += k[nearest];
      largest = std::max(largest, std::fabs(k[nearest]));
    }
    if (largest < o.gain_settled_ln) break;
  }
  return out;
}

}  // namespace lt
