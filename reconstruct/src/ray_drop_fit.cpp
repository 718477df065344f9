#include "lidartwin/reconstruct/ray_drop_fit.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "lidartwin/physics/units.h"

namespace lt {
namespace {

using physics::Vec3;

// The pixels of one frame's scan: which returned (the first return of a beam, at min_range_m or
// beyond: what reproduce compares, jobs/src/compared_returns.h), which columns the frame
// scanned, and the phase of column 0. With reference_phase (per channel, NaN for none) a
// channel's phase is moved by whole columns to within half a column of it, so that pixel k of
// every frame is one direction (frames whose firings drift by more than half a column from
// revolution to revolution would otherwise number it k in one and k + 1 in another).
class ScanPixels {
 public:
  ScanPixels(const RayDropScan& scan, const Frame& f, uint32_t columns_per_frame,
             double min_range_m = 0, const std::vector<double>* reference_phase = nullptr)
      : scan_(scan) {
    const size_t channels = scan.elevation_rad.size();
    step_ = 2 * physics::kPi / scan.columns;
    const auto usable = [&](size_t i) {
      return f.channel[i] < channels && f.range_m[i] > 0 && std::isfinite(f.range_m[i]);
    };
    // The phase of each channel: the circular mean of its returns' fractional columns (they sit
    // at one phase, which rounding must not cut through; a profile's azimuth offsets measured
    // from the points, or none, leave each channel its own).
    std::vector<double> sx(channels, 0), sy(channels, 0);
    has_phase_.assign(channels, false);
    for (size_t i = 0; i < f.size(); ++i) {
      if (!usable(i)) continue;
      const double u = Column(f.channel[i], {f.x_m[i], f.y_m[i], f.z_m[i]}, 0);
      sx[f.channel[i]] += std::cos(2 * physics::kPi * u);
      sy[f.channel[i]] += std::sin(2 * physics::kPi * u);
      has_phase_[f.channel[i]] = true;
    }
    phase_.resize(channels);
    for (size_t c = 0; c < channels; ++c) {
      phase_[c] = std::atan2(sy[c], sx[c]) / (2 * physics::kPi);
      if (reference_phase && has_phase_[c] && std::isfinite((*reference_phase)[c]))
        phase_[c] -= std::round(phase_[c] - (*reference_phase)[c]);
    }
    returned_.assign(channels * scan.columns, false);
    std::vector<bool> any_return(scan.columns, false);
    // Where in the frame each column was fired (its returns' mean fraction of the frame), for
    // the pose a direction is looked up from.
    std::vector<double> sum(scan.columns, 0);
    std::vector<size_t> count(scan.columns, 0);
    for (size_t i = 0; i < f.size(); ++i) {
      if (!usable(i)) continue;
      const size_t pixel = Index(f.channel[i], {f.x_m[i], f.y_m[i], f.z_m[i]});
      const bool first = f.return_index.size() != f.size() || f.return_index[i] == 0;
      if (first && f.range_m[i] >= min_range_m) returned_[pixel] = true;
      any_return[pixel % scan.columns] = true;
      if (columns_per_frame && f.column.size() == f.size()) {
        sum[pixel % scan.columns] += std::min(1.0, double(f.column[i]) / columns_per_frame);
        ++count[pixel % scan.columns];
      }
    }
    fraction_.assign(scan.columns, 0.0);
    for (size_t k = 0; k < scan.columns; ++k)
      if (count[k]) fraction_[k] = sum[k] / count[k];
    scanned_ = ScannedColumns(any_return);
    const auto [lo, hi] = std::minmax_element(scan.elevation_rad.begin(), scan.elevation_rad.end());
    spacing_ = channels > 1 ? (*hi - *lo) / (channels - 1) : 0.01;
  }

  // The pixel of the beam nearest the direction of p (sensor frame), or SIZE_MAX outside the
  // scan's elevations (by more than half their spacing at the ends).
  size_t PixelOf(const Vec3<double>& p) const {
    const Vec3<double> o = scan_.origins.Of(p);
    const Vec3<double> d = p - o;
    const double el = std::atan2(d.z, std::hypot(d.x, d.y));
    const auto& e = scan_.elevation_rad;
    size_t best = 0;
    for (size_t c = 1; c < e.size(); ++c)
      if (std::fabs(e[c] - el) < std::fabs(e[best] - el)) best = c;
    if (std::fabs(e[best] - el) > 0.5 * spacing_ + 1e-9) return SIZE_MAX;
    return Index(static_cast<uint16_t>(best), p);
  }
  bool Returned(size_t pixel) const { return returned_[pixel]; }
  // Whether the frame scanned the pixel's column at all: a column without a return on any
  // channel lies outside a partial frame (a capture's first or last revolution), not dropped.
  bool Scanned(size_t pixel) const { return scanned_[pixel % scan_.columns]; }
  size_t Pixels() const { return returned_.size(); }
  // The fraction of the frame at which the pixel's column was fired (0 where unknown).
  double Fraction(size_t pixel) const { return fraction_[pixel % scan_.columns]; }
  // Whether the channel returned in this frame (its phase is then measured).
  bool HasPhase(size_t c) const { return has_phase_[c]; }
  double Phase(size_t c) const { return phase_[c]; }

 private:
  // Column of channel c's beam towards p, in columns, less `phase`.
  double Column(uint16_t c, const Vec3<double>& p, double phase) const {
    const Vec3<double> d = p - scan_.origins.Of(p);
    const double az = std::atan2(d.y, d.x) - scan_.azimuth_offset_rad[c];
    return az / step_ - phase;
  }
  size_t Index(uint16_t c, const Vec3<double>& p) const {
    const long k = std::lround(Column(c, p, phase_[c]));
    const long n = static_cast<long>(scan_.columns);
    return static_cast<size_t>(c) * scan_.columns + static_cast<size_t>(((k % n) + n) % n);
  }

  // The columns a frame scanned: all but the longest circular run of columns where no channel
  // returned, when that run is over a quarter turn (a capture's first or last revolution, cut
  // short). A shorter run lies inside the revolution: a mast, a window or the sky across every
  // channel, which the frame scanned and saw nothing in.
  static std::vector<bool> ScannedColumns(const std::vector<bool>& any_return) {
    const size_t n = any_return.size();
    std::vector<bool> scanned(n, true);
    size_t best_len = 0, best_start = 0;
    const auto first = std::find(any_return.begin(), any_return.end(), true);
    if (first == any_return.end()) return std::vector<bool>(n, false);
    const size_t origin = static_cast<size_t>(first - any_return.begin());
    for (size_t k = 0; k < n;) {  // runs of empty columns, walking once round from a return
      if (any_return[(origin + k) % n]) {
        ++k;
        continue;
      }
      size_t len = 0;
      while (k + len < n && !any_return[(origin + k + len) % n])
        ++len;
      if (len > best_len) best_len = len, best_start = origin + k;
      k += len;
    }
    if (4 * best_len > n)
      for (size_t j = 0; j < best_len; ++j)
        scanned[(best_start + j) % n] = false;
    return scanned;
  }

  const RayDropScan& scan_;
  double step_ = 0, spacing_ = 0;
  std::vector<double> phase_, fraction_;
  std::vector<bool> has_phase_, returned_, scanned_;
};

// The scan's channels that returned in some frame (a finite reference phase) in order of
// elevation: its rings, neighbour beside neighbour (a Velodyne's lasers interleave; a laser the
// recording lacks is no ring).
std::vector<size_t> RingsByElevation(const RayDropScan& scan,
                                     const std::vector<double>& reference) {
  std::vector<size_t> ring;
  for (size_t c = 0; c < scan.elevation_rad.size(); ++c)
    if (std::isfinite(reference[c])) ring.push_back(c);
  std::stable_sort(ring.begin(), ring.end(), [&](size_t a, size_t b) {
    return scan.elevation_rad[a] < scan.elevation_rad[b];
  });
  return ring;
}

// [from, to] added to sorted, disjoint intervals in [-pi, pi), split where it crosses pi; a
// piece narrower than 1e-9 rad (a split at a rounding's distance from pi) is left out, as
// degrees written and read back could close it.
void AddInterval(double from, double to, std::vector<AzimuthInterval>& out) {
  constexpr double kSliver = 1e-9;
  const double a = BlockedDirections::Wrapped(from), b = a + (to - from);
  const auto add = [&](double x, double y) {
    if (y - x > kSliver) out.push_back({x, y});
  };
  if (b > physics::kPi) {
    add(a, physics::kPi);
    add(-physics::kPi, b - 2 * physics::kPi);
  } else {
    add(a, b);
  }
}

// Sorted, with overlapping and touching intervals merged.
std::vector<AzimuthInterval> Merged(std::vector<AzimuthInterval> in) {
  std::sort(in.begin(), in.end(), [](const AzimuthInterval& x, const AzimuthInterval& y) {
    return x.from_rad < y.from_rad;
  });
  std::vector<AzimuthInterval> out;
  for (const AzimuthInterval& i : in) {
    if (!out.empty() && i.from_rad <= out.back().to_rad + 1e-12)
      out.back().to_rad = std::max(out.back().to_rad, i.to_rad);
    else
      out.push_back(i);
  }
  return out;
}

// The cell of a value among `bins` logarithmic bins of [lo, hi], clamped.
size_t LogBin(double v, double lo, double hi, int bins) {
  const double t = std::log(v / lo) / std::log(hi / lo);
  return static_cast<size_t>(std::clamp(static_cast<int>(std::floor(t * bins)), 0, bins - 1));
}

// The centres of `bins` logarithmic bins of [lo, hi].
std::vector<double> LogCentres(double lo, double hi, int bins) {
  std::vector<double> c(static_cast<size_t>(bins));
  for (int k = 0; k < bins; ++k)
    c[static_cast<size_t>(k)] = lo * std::pow(hi / lo, (k + 0.5) / bins);
  return c;
}

}  // namespace

Expected<RayDropFit> FitRayDrop(const PosedFrames& input, const IntensityReading& reading,
                                const RayDropScan& scan, const RayDropFitOptions& o) {
  if (input.frames.size() < 2)
    return Error{"ray drop: one frame tells nothing of another's drops; at least two are needed"};
  if (scan.elevation_rad.empty() || scan.columns == 0 ||
      scan.azimuth_offset_rad.size() != scan.elevation_rad.size())
    return Error{"ray drop: the scan has no beams (a spinning scan's channels and columns)"};
  for (const Frame& f : input.frames)
    if (f.channel.size() != f.size() || f.intensity.size() != f.size())
      return Error{"ray drop: a frame carries no channel or intensity per return"};
  std::vector<ScanPixels> pixels;
  for (const Frame& f : input.frames)
    pixels.emplace_back(scan, f, input.columns_per_frame);
  const size_t rb = static_cast<size_t>(o.range_bins), ab = static_cast<size_t>(o.reflectance_bins);
  std::vector<size_t> n(rb * ab, 0), d(rb * ab, 0);
  RayDropFit out;
  for (size_t b = 0; b < input.frames.size(); ++b) {
    std::vector<bool> seen(pixels[b].Pixels(), false);  // each (B, pixel) once
    for (size_t a = 0; a < input.frames.size(); ++a) {
      // The frames nearest in the recording: a drop is judged against what the sensor saw
      // from about there, and the work stays linear in the frames.
      if (a == b || std::max(a, b) - std::min(a, b) > o.frame_distance) continue;
      const Frame& f = input.frames[a];
      for (size_t i = 0; i < f.size(); ++i) {
        const double r = f.range_m[i];
        if (!(r >= o.min_range_m && r <= o.max_range_m)) continue;
        if (!f.return_index.empty() && f.return_index[i] != 0) continue;
        const double apparent = reading.Reflectance(f.intensity[i], r, 1.0, 89.9);
        if (!std::isfinite(apparent)) continue;
        const Vec3<double> world = physics::TransformPoint(
            PoseOfPoint(input, a, i), Vec3<double>{f.x_m[i], f.y_m[i], f.z_m[i]});
        // B's pixel from its pose at the start, then from its pose when that column fired
        // (a sensor driving 1 m a frame moves a point 10 m away by several columns).
        Vec3<double> in_b = physics::InverseTransformPoint(input.start_poses[b], world);
        size_t pixel = pixels[b].PixelOf(in_b);
        for (int round = 0; round < 2 && pixel != SIZE_MAX && input.columns_per_frame; ++round) {
          const auto pose = physics::InterpolatePose(input.start_poses[b], input.end_poses[b],
                                                     pixels[b].Fraction(pixel));
          in_b = physics::InverseTransformPoint(pose, world);
          pixel = pixels[b].PixelOf(in_b);
        }
        const double range_b = std::sqrt(Dot(in_b, in_b));
        if (!(range_b >= o.min_range_m && range_b <= o.max_range_m)) continue;
        if (pixel == SIZE_MAX || seen[pixel] || !pixels[b].Scanned(pixel)) continue;
        seen[pixel] = true;
        const size_t cell = LogBin(range_b, o.min_range_m, o.max_range_m, o.range_bins) * ab +
                            LogBin(std::clamp(apparent, o.min_reflectance, o.max_reflectance),
                                   o.min_reflectance, o.max_reflectance, o.reflectance_bins);
        ++n[cell];
        const bool dropped = !pixels[b].Returned(pixel);
        d[cell] += dropped;
        ++out.total;
        out.dropped += dropped;
      }
    }
  }
  if (out.total == 0)
    return Error{
        fmt::format("ray drop: no return of one frame lies in another's scan within [{}, {}] m",
                    o.min_range_m, o.max_range_m)};
  out.table.range_m = LogCentres(o.min_range_m, o.max_range_m, o.range_bins);
  out.table.reflectance = LogCentres(o.min_reflectance, o.max_reflectance, o.reflectance_bins);
  out.table.probability.assign(rb * ab, 0.0);
  out.stddev.assign(rb * ab, 0.0);
  out.observations = n;
  std::vector<size_t> known;
  for (size_t c = 0; c < n.size(); ++c) {
    if (n[c] < o.min_observations) continue;
    known.push_back(c);
    const double p = double(d[c]) / double(n[c]);
    out.table.probability[c] = p;
    out.stddev[c] = std::sqrt(p * (1 - p) / double(n[c]));
  }
  // A cell too few observations fell in takes its nearest determined cell's probability, a
  // reflectance bin counting half a range bin (the signal, which the rate follows, falls with
  // range faster than across neighbouring reflectances), or the overall rate.
  const double overall = double(out.dropped) / double(out.total);
  for (size_t c = 0; c < n.size(); ++c) {
    if (n[c] >= o.min_observations) continue;
    double best = INFINITY;
    out.table.probability[c] = overall;
    for (size_t k : known) {
      const double dist =
          std::hypot(double(k / ab) - double(c / ab), 0.5 * (double(k % ab) - double(c % ab)));
      if (dist < best) best = dist, out.table.probability[c] = out.table.probability[k];
    }
  }
  return out;
}

Expected<BlockedDirectionsFit> FindBlockedDirections(const std::vector<Frame>& frames,
                                                     const RayDropScan& scan, double min_range_m) {
  if (frames.size() < 2)
    return Error{
        "blocked directions: one frame cannot tell a drop from a hole; at least two "
        "are needed"};
  const size_t channels = scan.elevation_rad.size(), columns = scan.columns;
  if (channels == 0 || columns == 0 || scan.azimuth_offset_rad.size() != channels)
    return Error{
        "blocked directions: the scan has no beams (a spinning scan's channels and "
        "columns)"};
  for (const Frame& f : frames)
    if (f.channel.size() != f.size() || f.range_m.size() != f.size())
      return Error{"blocked directions: a frame carries no channel per return"};
  // Every frame's pixels on one grid: each channel's phase that of the first frame returning on
  // it, to within half a column.
  std::vector<ScanPixels> pixels;
  std::vector<double> reference(channels, NAN);
  for (const Frame& f : frames) {
    pixels.emplace_back(scan, f, 0, min_range_m, &reference);
    for (size_t c = 0; c < channels; ++c)
      if (std::isnan(reference[c]) && pixels.back().HasPhase(c))
        reference[c] = pixels.back().Phase(c);
  }
  // Per pixel: the frames that scanned its column, and those that returned there.
  std::vector<uint32_t> scanned(channels * columns, 0), returned(channels * columns, 0);
  for (const ScanPixels& p : pixels)
    for (size_t i = 0; i < channels * columns; ++i) {
      scanned[i] += p.Scanned(i);
      returned[i] += p.Returned(i);
    }
  // A pixel a frame left empty among returns is that frame's chance drop on a surface it saw,
  // not a direction it cannot see: it counts as scanned but not as empty. How many of its
  // eight neighbours (on its ring and the rings above and below, in the same directions) may be
  // empty for that is learned between the frames themselves: each frame's empty pixels against
  // the next frame's and the one before's returns there, by their count of empty neighbours.
  // Where the other frame returned more often than not, up to that count, such pixels are
  // chance drops (the OS-1-128's frames: up to 3 of 8, the other frame returning in 51-61 % of
  // the pixels with 3 and 42-49 % with 4; docs/validation.md). The ends of a blocked line one
  // pixel wide fall under it too.
  const std::vector<size_t> ring = RingsByElevation(scan, reference);
  // The columns of the rings above and below that look the same way as column k of ring r:
  // channels stagger in azimuth (an Ouster's beams by +-1.4 and +-4.2 deg, 4 to 12 columns of
  // 1,024), so the pixel above is seldom the same column.
  const double step = 2 * physics::kPi / columns;
  const auto shift = [&](size_t r, size_t r2) {
    const size_t c = ring[r], c2 = ring[r2];
    return std::lround(reference[c] - reference[c2] +
                       (scan.azimuth_offset_rad[c] - scan.azimuth_offset_rad[c2]) / step);
  };
  std::vector<long> shift_down(ring.size(), 0), shift_up(ring.size(), 0);
  for (size_t r = 0; r < ring.size(); ++r) {
    if (r > 0) shift_down[r] = shift(r, r - 1);
    if (r + 1 < ring.size()) shift_up[r] = shift(r, r + 1);
  }
  const long n_columns = static_cast<long>(columns);
  const auto empty_neighbours = [&](const ScanPixels& p, size_t r, size_t k) {
    int empty = 0;
    for (int dr = -1; dr <= 1; ++dr)
      for (int dk = -1; dk <= 1; ++dk) {
        if (dr == 0 && dk == 0) continue;
        const long rr = long(r) + dr;
        if (rr < 0 || rr >= long(ring.size())) continue;  // beyond the scan: not a hole
        const long along = dr < 0 ? shift_down[r] : dr > 0 ? shift_up[r] : 0;
        const long kk = ((long(k) + along + dk) % n_columns + n_columns) % n_columns;
        empty += !p.Returned(ring[size_t(rr)] * columns + size_t(kk));
      }
    return empty;
  };
  // Between neighbouring frames: per count of empty neighbours, how often the other frame
  // returned in a pixel this one left empty, and did not.
  std::array<std::array<size_t, 2>, 9> seen_again{};
  for (size_t a = 0; a < pixels.size(); ++a)
    for (size_t b : {a + 1, a - 1}) {
      if (b >= pixels.size()) continue;  // a - 1 wraps past 0 to SIZE_MAX
      for (size_t r = 0; r < ring.size(); ++r)
        for (size_t k = 0; k < columns; ++k) {
          const size_t i = ring[r] * columns + k;
          if (!pixels[a].Scanned(i) || !pixels[b].Scanned(i) || pixels[a].Returned(i)) continue;
          ++seen_again[size_t(empty_neighbours(pixels[a], r, k))][pixels[b].Returned(i) ? 1 : 0];
        }
    }
  constexpr size_t kMinPixels = 30;  // a count with fewer pixels decides nothing
  int chance = -1;
  while (chance < 8) {
    const auto& next = seen_again[size_t(chance + 1)];
    if (next[0] + next[1] < kMinPixels || next[1] <= next[0]) break;
    ++chance;
  }
  std::vector<uint32_t> drops(channels * columns, 0);
  if (chance >= 0)
    for (const ScanPixels& p : pixels)
      for (size_t r = 0; r < ring.size(); ++r)
        for (size_t k = 0; k < columns; ++k) {
          const size_t i = ring[r] * columns + k;
          drops[i] += p.Scanned(i) && !p.Returned(i) && empty_neighbours(p, r, k) <= chance;
        }
  BlockedDirectionsFit out;
  out.chance_drop_neighbours = chance;
  out.blocked.channel.resize(channels);
  for (size_t c = 0; c < channels; ++c) {
    // A channel no frame returned on (a laser left out of the recording: no reference phase)
    // tells nothing.
    if (std::isnan(reference[c])) continue;
    std::vector<AzimuthInterval> intervals;
    for (size_t k = 0; k < columns; ++k) {
      const size_t i = c * columns + k;
      const size_t n = scanned[i], empty = n - returned[i] - drops[i];
      if (n < 2 || 2 * empty <= n) continue;
      // The pixel's centre on the common grid.
      const double centre = (double(k) + reference[c]) * step + scan.azimuth_offset_rad[c];
      AddInterval(centre - 0.5 * step, centre + 0.5 * step, intervals);
      ++out.pixels;
    }
    out.blocked.channel[c] = Merged(std::move(intervals));
  }
  return out;
}

}  // namespace lt
