#include "lidartwin/reconstruct/beam_intensity_fit.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include <Eigen/Core>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/order_statistics.h"
#include "lidartwin/physics/units.h"
#include "planar_cell.h"

namespace lt {
namespace {

// One return on a shared planar cell: its cell, its laser and
// y = ln I - ln G(R) - ln cos(theta).
struct SharedReturn {
  size_t cell;
  uint16_t beam;
  double y;
  double range_m;
};

struct SharedSurfaces {
  std::vector<SharedReturn> returns;
  size_t cells = 0;
  uint16_t beams = 0;  // 1 + the largest channel seen
};

// The key of the cell holding (x, y, z) in frame `frame` on grid `grid` (0, or 1: the grid
// shifted by half a cell along every axis). 15 bits of frame, the grid bit, 16 bits per axis.
uint64_t CellKey(size_t frame, int grid, double x, double y, double z, double cell) {
  const double shift = grid ? 0.5 * cell : 0.0;
  auto q = [&](double v) {
    return static_cast<uint64_t>(std::clamp<int64_t>(
               static_cast<int64_t>(std::floor((v + shift) / cell)) + 32768, 0, 65535)) &
           0xffff;
  };
  return (static_cast<uint64_t>(frame & 0x7fff) << 49) | (static_cast<uint64_t>(grid) << 48) |
         (q(x) << 32) | (q(y) << 16) | q(z);
}

Expected<SharedSurfaces> FindSharedSurfaces(const std::vector<Frame>& frames,
                                            const IntensityReading& reading,
                                            const BeamIntensityFitOptions& o) {
  std::unordered_map<uint64_t, std::vector<std::pair<size_t, size_t>>> cells;  // (frame, point)
  bool channels = false;
  for (size_t f = 0; f < frames.size(); ++f) {
    const Frame& fr = frames[f];
    if (fr.channel.size() != fr.size() || fr.intensity.size() != fr.size()) continue;
    channels = true;
    for (size_t i = 0; i < fr.size(); ++i) {
      const double r = fr.range_m[i];
      if (!(r >= o.min_range_m && r <= o.max_range_m) || !(fr.intensity[i] > 0) ||
          !std::isfinite(fr.intensity[i]) || (!fr.return_index.empty() && fr.return_index[i] != 0))
        continue;
      // Two grids, the second shifted by half a cell: a surface that one grid's cell edges part
      // between lasers (lasers symmetric about the horizon on a wall, z = 0 an edge) is whole
      // in the other's, so every laser meets its neighbours.
      for (int grid = 0; grid < 2; ++grid)
        cells[CellKey(f, grid, fr.x_m[i], fr.y_m[i], fr.z_m[i], o.cell_m)].push_back({f, i});
    }
  }
  if (!channels) {
    return Error{
        "per-laser intensity calibration: the frames carry no channel (laser) per return, so "
        "their lasers cannot be told apart"};
  }
  SharedSurfaces out;
  const double min_cos = std::cos(o.max_incidence_deg * physics::kDegToRad);
  const PlanarCellOptions planar{o.min_cell_points, o.max_planar_ratio, o.plane_tolerance_m,
                                 o.max_plane_rms_m};
  // Visit the cells in key order: the fit does not depend on the hash map's order.
  std::vector<uint64_t> keys;
  keys.reserve(cells.size());
  for (const auto& [key, points] : cells)
    if (points.size() >= o.min_cell_points) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (uint64_t key : keys) {
    const auto& points = cells[key];
    uint16_t first_beam = 0;
    bool several = false;
    for (size_t k = 0; k < points.size(); ++k) {
      const Frame& fr = frames[points[k].first];
      const size_t i = points[k].second;
      if (k == 0) first_beam = fr.channel[i];
      several = several || fr.channel[i] != first_beam;
    }
    if (!several) continue;  // one laser alone tells nothing about the others
    std::vector<Eigen::Vector3d> at(points.size());
    for (size_t k = 0; k < points.size(); ++k) {
      const Frame& fr = frames[points[k].first];
      const size_t i = points[k].second;
      at[k] = Eigen::Vector3d(fr.x_m[i], fr.y_m[i], fr.z_m[i]);
    }
    const auto plane = FitCellPlane(at, planar);
    if (!plane) continue;
    const Eigen::Vector3d& normal = plane->normal;
    const size_t cell = out.cells++;
    for (size_t k : plane->inliers) {
      const auto [f, i] = points[k];
      const Frame& fr = frames[f];
      const double r = std::sqrt(double(fr.x_m[i]) * fr.x_m[i] + double(fr.y_m[i]) * fr.y_m[i] +
                                 double(fr.z_m[i]) * fr.z_m[i]);
      if (!(r > 0)) continue;
      const double c =
          std::fabs(fr.x_m[i] * normal[0] + fr.y_m[i] * normal[1] + fr.z_m[i] * normal[2]) / r;
      if (c < min_cos) continue;
      const double g = reading.GainAt(fr.range_m[i]);
      if (!(g > 0)) continue;
      out.returns.push_back({cell, fr.channel[i],
                             std::log(fr.intensity[i] / g / reading.Shading(c)),
                             double(fr.range_m[i])});
      out.beams = std::max<uint16_t>(out.beams, fr.channel[i] + 1);
    }
  }
  if (out.cells == 0) {
    return Error{fmt::format(
        "per-laser intensity calibration: no planar {} m cell is seen by two lasers or more "
        "(walls, cars and the ground near the sensor usually are; is the cloud in the sensor's "
        "frame, in metres?)",
        NumberText(o.cell_m))};
  }
  return out;
}

}  // namespace

double BeamIntensityGains::GainAt(size_t laser, double r) const {
  return laser < gain.size() ? InterpolateChannelGain(range_m, gain[laser], r) : 1.0;
}

ChannelIntensityGains ProfileGains(const BeamIntensityGains& gains, size_t channels,
                                   std::string source) {
  ChannelIntensityGains out;
  out.range_m = gains.range_m;
  out.gain.assign(channels, std::vector<double>(gains.range_m.size(), 1.0));
  for (size_t b = 0; b < std::min(channels, gains.gain.size()); ++b)
    for (size_t k = 0; k < gains.gain[b].size(); ++k)  // within the profile's bounds
      out.gain[b][k] = std::clamp(gains.gain[b][k], 1e-3, 1e3);
  out.source = std::move(source);
  return out;
}

Expected<BeamIntensityGains> FitBeamIntensityGains(const std::vector<Frame>& frames,
                                                   const IntensityReading& reading,
                                                   const BeamIntensityFitOptions& o) {
  auto shared = FindSharedSurfaces(frames, reading, o);
  if (!shared.ok()) return shared.error();
  const auto& rs = shared->returns;
  // The bins: logarithmic in range over the options' span (Steder et al.'s remission depends
  // on the range; a laser's near-field response is its own).
  const size_t bins = static_cast<size_t>(std::max(1, o.range_bins));
  const double log_lo = std::log(o.min_range_m), log_hi = std::log(o.max_range_m);
  auto bin_of = [&](const SharedReturn& r) {
    const double t = (std::log(r.range_m) - log_lo) / (log_hi - log_lo);
    return static_cast<size_t>(std::clamp(static_cast<int>(t * bins), 0, int(bins) - 1));
  };
  // beta[b][k]: ln of laser b's gain in range bin k; one unknown per (laser, bin).
  const size_t beams = shared->beams;
  std::vector<std::vector<double>> beta(beams, std::vector<double>(bins, 0.0));
  std::vector<std::vector<size_t>> count(beams, std::vector<size_t>(bins, 0));
  std::vector<size_t> bin(rs.size());
  for (size_t i = 0; i < rs.size(); ++i) {
    bin[i] = bin_of(rs[i]);
    ++count[rs[i].beam][bin[i]];
  }
  std::vector<double> alpha(shared->cells, 0.0);
  // Alternating least squares (the cells' and the lasers' effects in turn; each step lowers
  // the sum of squares, so it settles), then the same with medians from there, which edges and
  // mixed returns do not pull.
  std::vector<std::vector<double>> by_cell(shared->cells);
  std::vector<std::vector<double>> by_beam_bin(beams * bins);
  auto step = [&](bool median) {
    for (auto& v : by_cell)
      v.clear();
    for (size_t i = 0; i < rs.size(); ++i)
      by_cell[rs[i].cell].push_back(rs[i].y - beta[rs[i].beam][bin[i]]);
    for (size_t c = 0; c < alpha.size(); ++c)
      alpha[c] = median ? MedianOr(by_cell[c], 0.0) : MeanOr(by_cell[c], 0.0);
    for (auto& v : by_beam_bin)
      v.clear();
    for (size_t i = 0; i < rs.size(); ++i)
      by_beam_bin[rs[i].beam * bins + bin[i]].push_back(rs[i].y - alpha[rs[i].cell]);
    double change = 0;
    for (size_t k = 0; k < bins; ++k) {
      std::vector<double> determined;
      for (size_t b = 0; b < beams; ++b) {
        if (count[b][k] < o.min_bin_points) continue;  // filled in below
        const auto& v = by_beam_bin[b * bins + k];
        const double next = median ? MedianOr(v, 0.0) : MeanOr(v, 0.0);
        change = std::max(change, std::fabs(next - beta[b][k]));
        beta[b][k] = next;
        determined.push_back(next);
      }
      // The gauge of each bin: its median determined laser has gain 1 (a range trend common to
      // every laser cannot be told from the cells' reflectances).
      const double centre = MedianOr(determined, 0.0);
      for (size_t b = 0; b < beams; ++b)
        if (count[b][k] >= o.min_bin_points) beta[b][k] -= centre;
    }
    return change;
  };
  for (int it = 0; it < o.iterations; ++it)
    if (step(false) < 1e-7) break;
  for (int it = 0; it < o.iterations; ++it)
    if (step(true) < 1e-7) break;
  BeamIntensityGains out;
  out.cells = shared->cells;
  for (size_t k = 0; k < bins; ++k)
    out.range_m.push_back(std::exp(log_lo + (k + 0.5) * (log_hi - log_lo) / bins));
  out.points.assign(beams, 0);
  out.gain.assign(beams, std::vector<double>(bins, 1.0));
  out.gain_sd.assign(beams, std::vector<double>(bins, 0.0));
  for (size_t b = 0; b < beams; ++b) {
    std::vector<size_t> known;
    for (size_t k = 0; k < bins; ++k) {
      out.points[b] += count[b][k];
      if (count[b][k] < o.min_bin_points) continue;
      known.push_back(k);
      out.gain[b][k] = std::exp(beta[b][k]);
      // Robust standard error: 1.4826 x the median absolute residual over sqrt(n), in ln; each
      // return sits in a cell of both grids, so n is half the residuals.
      std::vector<double> dev;
      for (double y : by_beam_bin[b * bins + k])
        dev.push_back(std::fabs(y - beta[b][k]));
      out.gain_sd[b][k] = out.gain[b][k] * 1.4826 * MedianOr(dev, 0.0) /
                          std::sqrt(std::max(1.0, 0.5 * double(dev.size())));
    }
    // A bin the laser barely saw takes the nearest determined bin's gain (its sd stays 0).
    for (size_t k = 0; k < bins && !known.empty(); ++k) {
      if (count[b][k] >= o.min_bin_points) continue;
      size_t nearest = known[0];
      for (size_t j : known)
        if (std::abs(int(j) - int(k)) < std::abs(int(nearest) - int(k))) nearest = j;
      out.gain[b][k] = out.gain[b][nearest];
    }
  }
  return out;
}

Expected<CrossLaserSpread> MeasureCrossLaserSpread(const std::vector<Frame>& frames,
                                                   const IntensityReading& reading,
                                                   const BeamIntensityGains* gains,
                                                   const BeamIntensityFitOptions& o) {
  auto shared = FindSharedSurfaces(frames, reading, o);
  if (!shared.ok()) return shared.error();
  // Per (cell, laser): the sum, the sum of squares and the count of y - ln g_b(R).
  struct Sums {
    double sum = 0, sum2 = 0;
    size_t n = 0;
  };
  std::unordered_map<uint64_t, Sums> sums;
  for (const auto& r : shared->returns) {
    const double y = r.y - std::log(gains ? gains->GainAt(r.beam, r.range_m) : 1.0);
    Sums& s = sums[(static_cast<uint64_t>(r.cell) << 16) | r.beam];
    s.sum += y;
    s.sum2 += y * y;
    ++s.n;
  }
  // Per cell, each laser's mean and the variance of that mean (its returns' scatter over n).
  std::vector<std::vector<std::pair<double, double>>> means(shared->cells);
  std::vector<uint64_t> keys;
  for (const auto& [key, s] : sums)
    keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (uint64_t key : keys) {
    const Sums& s = sums[key];
    if (s.n < 2) continue;
    const double mean = s.sum / s.n;
    const double var = std::max(0.0, (s.sum2 - s.n * mean * mean) / (s.n - 1));
    means[key >> 16].push_back({mean, var / s.n});
  }
  // The lasers' spread is what is left of the variance of their means once the returns' own
  // scatter is taken out (one-way analysis of variance, the between-group component): the
  // intensity's noise, 8-bit rounding among it, is no laser's difference.
  double sum_var = 0, sum_raw = 0;
  CrossLaserSpread out;
  for (const auto& m : means) {
    if (m.size() < 2) continue;
    double mu = 0, noise = 0;
    for (const auto& [x, v] : m) {
      mu += x / m.size();
      noise += v / m.size();
    }
    double var = 0;
    for (const auto& [x, v] : m)
      var += (x - mu) * (x - mu) / (m.size() - 1);
    sum_raw += var;
    sum_var += var - noise;
    ++out.cells;
  }
  if (out.cells == 0) {
    return Error{"cross-laser spread: no cell is seen by two lasers with two returns each"};
  }
  out.raw_rms_ln = std::sqrt(sum_raw / out.cells);
  out.rms_ln = std::sqrt(std::max(0.0, sum_var) / out.cells);
  return out;
}

}  // namespace lt
