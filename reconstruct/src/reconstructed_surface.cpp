#include "lidartwin/reconstruct/reconstructed_surface.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lidartwin/physics/surface_response.h"

namespace lt {

physics::Pose<double> PoseOfPoint(const PosedFrames& input, size_t k, size_t i) {
  const Frame& f = input.frames[k];
  const double in_frame = input.columns_per_frame && f.column.size() == f.size()
                              ? double(f.column[i]) / input.columns_per_frame
                              : 0.0;
  return physics::InterpolatePose(input.start_poses[k], input.end_poses[k],
                                  std::min(in_frame, 1.0));
}

double TurnedDeg(const physics::Quat<double>& from, const physics::Quat<double>& to) {
  const double dot = from.w * to.w + from.x * to.x + from.y * to.y + from.z * to.z;
  return 2 * std::acos(std::min(1.0, std::fabs(dot))) * 180 / std::numbers::pi;
}

physics::Vec3<double> BeamOrigins::Of(const physics::Vec3<double>& p) const {
  if (radius_m == 0) return offset_m;
  const double head = std::atan2(p.y - offset_m.y, p.x - offset_m.x);
  return {offset_m.x + radius_m * std::cos(head), offset_m.y + radius_m * std::sin(head),
          offset_m.z};
}

double IntensityReading::GainAt(double range_m) const {
  if (gain.empty()) return 100.0;  // calibrated reflectivity: percent of a white target
  if (range_m <= gain_range_m.front()) return gain.front();
  if (range_m >= gain_range_m.back()) return gain.back();
  const auto it = std::upper_bound(gain_range_m.begin(), gain_range_m.end(), range_m);
  const size_t b = static_cast<size_t>(it - gain_range_m.begin());
  const double s = (range_m - gain_range_m[b - 1]) / (gain_range_m[b] - gain_range_m[b - 1]);
  return gain[b - 1] + s * (gain[b] - gain[b - 1]);
}

double IntensityReading::Shading(double cos_incidence) const {
  return physics::DiffuseShading(roughness_rad, cos_incidence);
}

double IntensityReading::Reflectance(double intensity, double range_m, double cos_incidence,
                                     double max_incidence_deg) const {
  const double cos_max = std::cos(max_incidence_deg * std::numbers::pi / 180);
  if (!(cos_incidence >= cos_max) || !std::isfinite(intensity)) return NAN;
  const double g = GainAt(range_m);
  if (!(g > 0)) return NAN;
  return std::clamp(intensity / (g * Shading(cos_incidence)), kMinReadReflectance,
                    std::max(1.0, max_reflectance));
}

}  // namespace lt
