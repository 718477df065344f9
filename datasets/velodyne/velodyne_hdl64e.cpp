#include "velodyne_hdl64e.h"

#include <algorithm>
#include <cmath>

namespace lt {

void Hdl64eTwoPointCorrection(const VelodyneLaser& l, double dist, double cv, double sv, double rot,
                              double& vx, double& vy, double& vz) {
  constexpr double kFarM = 25.04, kNearXM = 2.40, kNearYM = 1.93;
  const double cx =
      (l.dist_correction_m - l.dist_correction_x_m) * (std::abs(vx) - kNearXM) / (kFarM - kNearXM) +
      l.dist_correction_x_m - l.dist_correction_m;
  const double cy =
      (l.dist_correction_m - l.dist_correction_y_m) * (std::abs(vy) - kNearYM) / (kFarM - kNearYM) +
      l.dist_correction_y_m - l.dist_correction_m;
  const double dx = dist + cx, dy = dist + cy;
  vx = (dx * cv - l.vert_offset_m * sv) * std::sin(rot) - l.horiz_offset_m * std::cos(rot);
  vy = (dy * cv - l.vert_offset_m * sv) * std::cos(rot) + l.horiz_offset_m * std::sin(rot);
  vz = dy * sv + l.vert_offset_m * cv;
}

float Hdl64eCorrectedIntensity(const VelodyneLaser& l, uint16_t raw, uint8_t intensity) {
  const auto g = [](double q) { return 256 * (1 - q) * (1 - q); };
  const double focal = l.focal_distance_m * 100 / 13100;
  const double i = intensity + l.focal_slope * std::abs(g(focal) - g(raw / 65535.0));
  return static_cast<float>(std::clamp(i, l.min_intensity, l.max_intensity));
}

}  // namespace lt
