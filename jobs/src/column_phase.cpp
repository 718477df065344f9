#include "column_phase.h"

#include <cmath>
#include <vector>

#include "lidartwin/base/order_statistics.h"
#include "lidartwin/physics/units.h"

namespace lt::jobs {
namespace {

// The median offset with every head turned by `turned` [rad] from the profile's.
std::optional<double> MedianOffset(const SensorProfile& p, const Frame& f, double turned) {
  const size_t channels = p.elevation_rad.size();
  std::vector<double> offsets;
  for (size_t i = 0; i < f.size(); ++i) {
    if ((!f.return_index.empty() && f.return_index[i] != 0) || f.channel[i] >= channels ||
        f.column[i] >= p.columns)
      continue;
    const physics::BeamSample<double> b =
        p.Beam(f.column[i] * static_cast<uint32_t>(channels) + f.channel[i]);
    const double head = b.azimuth_rad - p.azimuth_offset_rad[b.channel] + turned;
    const double x = f.x_m[i] - p.beam_origin_m[0] - p.beam_origin_radius_m * std::cos(head);
    const double y = f.y_m[i] - p.beam_origin_m[1] - p.beam_origin_radius_m * std::sin(head);
    offsets.push_back(std::remainder(std::atan2(y, x) - b.azimuth_rad, 2 * physics::kPi));
  }
  if (offsets.size() < 100) return std::nullopt;
  // Around their circular mean first: offsets near +-pi would otherwise split into two clusters
  // whose median lies between them.
  double sx = 0, sy = 0;
  for (double a : offsets)
    sx += std::cos(a), sy += std::sin(a);
  const double centre = std::atan2(sy, sx);
  for (double& a : offsets)
    a = std::remainder(a - centre, 2 * physics::kPi);
  return std::remainder(centre + Median(offsets), 2 * physics::kPi);
}

}  // namespace

std::optional<double> ColumnPhaseOffset(const SensorProfile& profile, const Frame& frame) {
  if (frame.column.size() != frame.size() || frame.channel.size() != frame.size())
    return std::nullopt;
  // The beams' origins from the profile's heads, then from the heads turned as found, until the
  // offset holds: a Helios frame cut 4.7 deg into the rotation (its lens 3 mm off) was found 0.7
  // deg off at first, 0.1 deg at the second pass (its returns at 0.1-0.2 m turn most).
  auto offset = MedianOffset(profile, frame, 0);
  if (!offset || profile.beam_origin_radius_m == 0) return offset;
  for (int pass = 0; pass < 8; ++pass) {
    const double next = *MedianOffset(profile, frame, *offset);
    const bool held = std::abs(std::remainder(next - *offset, 2 * physics::kPi)) < 1e-5;
    offset = next;
    if (held) break;
  }
  return offset;
}

}  // namespace lt::jobs
