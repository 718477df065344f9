#include "lidartwin/reconstruct/intensity_neighbourhood.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "radius_neighbours.h"

namespace lt {
namespace {

bool InRange(const Frame& f, size_t i, const IntensityNeighbourhoodOptions& o) {
  return f.range_m[i] >= o.min_range_m && f.range_m[i] <= o.max_range_m &&
         std::isfinite(f.x_m[i]) && std::isfinite(f.y_m[i]) && std::isfinite(f.z_m[i]) &&
         std::isfinite(f.intensity[i]);
}

}  // namespace

std::vector<float> RingMedianIntensity(const Frame& f, int places, double range_share) {
  std::vector<float> out = f.intensity;
  // Without each return's laser there are no rings to read along.
  if (places <= 0 || f.intensity.size() != f.size() || f.range_m.size() != f.size() ||
      f.channel.size() != f.size() || !(range_share >= 0))
    return out;
  // The rings: returns by (channel, return index), in column order (azimuth without columns).
  std::map<std::pair<uint16_t, uint8_t>, std::vector<std::pair<double, uint32_t>>> rings;
  const bool columns = f.column.size() == f.size();
  for (size_t i = 0; i < f.size(); ++i) {
    if (!std::isfinite(f.intensity[i]) || !std::isfinite(f.range_m[i]) ||
        !std::isfinite(f.x_m[i]) || !std::isfinite(f.y_m[i]))
      continue;
    const uint16_t channel = f.channel[i];
    const uint8_t echo = f.return_index.size() == f.size() ? f.return_index[i] : 0;
    const double place = columns ? double(f.column[i]) : std::atan2(f.y_m[i], f.x_m[i]);
    rings[{channel, echo}].emplace_back(place, static_cast<uint32_t>(i));
  }
  std::vector<float> near;
  for (auto& [key, ring] : rings) {
    std::sort(ring.begin(), ring.end());
    const auto n = static_cast<ptrdiff_t>(ring.size());
    for (ptrdiff_t k = 0; k < n; ++k) {
      const uint32_t i = ring[k].second;
      const double range = f.range_m[i];
      near.assign(1, f.intensity[i]);
      for (ptrdiff_t j = std::max<ptrdiff_t>(0, k - places); j <= std::min(n - 1, k + places);
           ++j) {
        const uint32_t q = ring[j].second;
        if (j != k && std::fabs(f.range_m[q] - range) <= range_share * range)
          near.push_back(f.intensity[q]);
      }
      // The median: the middle reading, or the mean of the middle two.
      const size_t half = near.size() / 2;
      std::nth_element(near.begin(), near.begin() + static_cast<ptrdiff_t>(half), near.end());
      double median = near[half];
      if (near.size() % 2 == 0)
        median = 0.5 * (median + *std::max_element(near.begin(),
                                                   near.begin() + static_cast<ptrdiff_t>(half)));
      out[i] = static_cast<float>(median);
    }
  }
  return out;
}

Expected<IntensityNeighbourhood> ChooseIntensityNeighbourhood(
    const PosedFrames& frames, const IntensityReading& reading,
    const IntensityNeighbourhoodOptions& o) {
  if (frames.frames.size() < 2)
    return Error{"intensity neighbourhood: two frames or more are needed to compare readings"};
  if (o.candidate_places.empty() || !(o.match_radius_m > 0))
    return Error{"intensity neighbourhood: no candidates, or a match radius not above 0"};
  for (const Frame& f : frames.frames)
    if (f.intensity.size() != f.size())
      return Error{"intensity neighbourhood: a frame carries no intensities"};
  const size_t candidates = o.candidate_places.size();
  IntensityNeighbourhood out;
  out.candidates = o.candidate_places;
  std::vector<double> sum(candidates, 0.0);
  // Each frame's world points in range, and its intensities under each candidate.
  struct Seen {
    std::vector<Eigen::Vector3d> points;
    std::vector<uint32_t> index;  // into the frame
    std::vector<std::vector<float>> read;
  };
  std::vector<Seen> seen(frames.frames.size());
  for (size_t k = 0; k < frames.frames.size(); ++k) {
    const Frame& f = frames.frames[k];
    for (size_t i = 0; i < f.size(); ++i) {
      if (!InRange(f, i, o)) continue;
      const auto w = physics::TransformPoint(PoseOfPoint(frames, k, i),
                                             physics::Vec3<double>{f.x_m[i], f.y_m[i], f.z_m[i]});
      seen[k].points.emplace_back(w.x, w.y, w.z);
      seen[k].index.push_back(static_cast<uint32_t>(i));
    }
    for (int places : o.candidate_places)
      seen[k].read.push_back(RingMedianIntensity(f, places, o.range_share));
  }
  std::vector<uint32_t> nearest;
  for (size_t k = 0; k + 1 < frames.frames.size(); ++k)
    for (const auto& [a, b] : {std::pair{k, k + 1}, std::pair{k + 1, k}}) {
      if (seen[a].points.empty()) continue;
      const RadiusNeighbours grid(seen[a].points, o.match_radius_m);
      const Frame &fa = frames.frames[a], &fb = frames.frames[b];
      for (size_t q = 0; q < seen[b].points.size(); q += std::max<size_t>(1, o.query_stride)) {
        grid.Nearest(seen[b].points[q], 1, nearest);
        if (nearest.empty()) continue;
        const uint32_t i = seen[b].index[q], j = seen[a].index[nearest[0]];
        const double carry = reading.GainAt(fb.range_m[i]) / reading.GainAt(fa.range_m[j]);
        if (!std::isfinite(carry)) continue;
        ++out.pairs;
        for (size_t c = 0; c < candidates; ++c)
          sum[c] += std::fabs(double(fb.intensity[i]) - carry * seen[a].read[c][j]);
      }
    }
  out.mean_error.resize(candidates, NAN);
  if (out.pairs == 0) {
    out.places = o.candidate_places.front();
    return out;
  }
  size_t best = 0;
  for (size_t c = 0; c < candidates; ++c)
    out.mean_error[c] = sum[c] / double(out.pairs);
  for (size_t c = 1; c < candidates; ++c)
    if (out.mean_error[c] < (1 - o.min_gain) * out.mean_error[0] &&
        out.mean_error[c] < out.mean_error[best])
      best = c;
  out.places = out.pairs >= o.min_pairs ? o.candidate_places[best] : o.candidate_places.front();
  return out;
}

}  // namespace lt
