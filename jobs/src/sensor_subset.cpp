#include "sensor_subset.h"

#include <cmath>

namespace lt::jobs {

std::vector<uint16_t> RecordedChannelsOf(const SensorProfile& as, const SensorProfile& recording) {
  if (as.scan != ScanKind::kSpinning || recording.scan != ScanKind::kSpinning) return {};
  if (as.columns != recording.columns || as.clockwise != recording.clockwise ||
      std::abs(as.rotation_rate_hz - recording.rotation_rate_hz) >
          1e-9 * recording.rotation_rate_hz)
    return {};
  // Where the beams leave and what their ranges count: a millimetre is a lens's own tolerance.
  constexpr double kSameOriginM = 1e-3;
  for (int k = 0; k < 3; ++k)
    if (std::abs(as.beam_origin_m[k] - recording.beam_origin_m[k]) > kSameOriginM) return {};
  if (std::abs(as.beam_origin_radius_m - recording.beam_origin_radius_m) > kSameOriginM ||
      std::abs(as.range_offset_m - recording.range_offset_m) > kSameOriginM)
    return {};
  auto at = [](const std::vector<double>& v, size_t i) { return i < v.size() ? v[i] : 0.0; };
  std::vector<bool> taken(recording.elevation_rad.size(), false);
  std::vector<uint16_t> out;
  for (size_t i = 0; i < as.elevation_rad.size(); ++i) {
    bool found = false;
    for (size_t j = 0; j < recording.elevation_rad.size() && !found; ++j) {
      if (std::abs(as.elevation_rad[i] - recording.elevation_rad[j]) > kSameLaserRad) continue;
      const double a = i < as.azimuth_offset_rad.size() ? as.azimuth_offset_rad[i] : 0;
      const double b =
          j < recording.azimuth_offset_rad.size() ? recording.azimuth_offset_rad[j] : 0;
      if (std::abs(a - b) > kSameLaserRad) continue;
      // The same firing time within 0.1 us (a column is 49-98 us).
      if (std::abs(at(as.firing_offset_s, i) - at(recording.firing_offset_s, j)) > 1e-7) continue;
      if (taken[j]) return {};  // two of its channels the same laser
      taken[j] = true;
      out.push_back(static_cast<uint16_t>(j));
      found = true;
    }
    if (!found) return {};
  }
  return out;
}

void KeepChannels(Frame& f, const std::vector<uint16_t>& channels) {
  std::vector<bool> wanted;
  for (uint16_t c : channels) {
    if (c >= wanted.size()) wanted.resize(c + 1u, false);
    wanted[c] = true;
  }
  std::vector<bool> keep(f.size(), false);
  for (size_t i = 0; i < f.size() && i < f.channel.size(); ++i)
    keep[i] = f.channel[i] < wanted.size() && wanted[f.channel[i]];
  KeepPoints(f, keep);
}

}  // namespace lt::jobs
