// A dirty or wet cover (issue 43): the sensor's window, region by region, lets a share T of
// the light through each way and scatters a share of the emitted pulse straight back into the
// receiver. Both are plain optics of a thin layer on the window: a return crosses it twice, on
// the way out and on the way back, so every contribution of a beam through the region is
// scaled by T^2 (the two passes of the link budget's T_opt, seed 002 eq. 2, for a second
// window); sunlight crosses it once, T. The light the layer sends back is a pulse at the
// window's range, the same kind of return as the waveform detector's internal reflection (seed
// 002 sec. 5.1, P_int "a configured pulse at a fixed delay"): it adds to that reflection, and
// for the threshold detector its tail above the threshold hides targets near the sensor.
// docs/physics.md, "Weather".
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/physics/vec3.h"

namespace lt::physics {

// Regions one cover has at most.
inline constexpr uint32_t kMostCoverRegions = 8;

// One region of the window, as the directions through it in the sensor's frame: azimuth in
// [azimuth_min, azimuth_min + azimuth_span) (modulo 2 pi, so a region may straddle +-pi) and
// elevation in [elevation_min, elevation_max) (closed at the zenith), radians. Half-open, so
// that regions sharing an edge do not both cover it; the bounds are floats, 1e-7 rad apart from
// the degrees given.
struct CoverRegion {
  float azimuth_min_rad, azimuth_span_rad;
  float elevation_min_rad, elevation_max_rad;
  float transmission;  // one way, (0, 1]
  float backscatter;   // share of the emitted power it sends into the receiver, [0, 1e-2]
};

// The window's regions (none: a clean window) and where along the beam the window is.
struct CoverView {
  uint32_t regions = 0;
  CoverRegion region[kMostCoverRegions] = {};
  float window_range_m = 0;
  uint32_t object = 0;  // its entry in the frame's objects: labels of the window's echoes
};

// What the window does to light leaving along `dir_sensor` (a unit vector in the sensor's
// frame): the one-way transmission and the backscattered share. Regions that overlap are
// layers on top of each other: their transmissions multiply, their backscatter adds.
struct CoverPass {
  double transmission = 1;
  double backscatter = 0;
};
template <typename T>
LT_HD CoverPass CoverAt(const CoverView& v, const Vec3<T>& dir_sensor) {
  CoverPass p;
  if (v.regions == 0) return p;
  using std::asin;
  using std::atan2;
  const double z = dir_sensor.z < -1 ? -1.0 : (dir_sensor.z > 1 ? 1.0 : double(dir_sensor.z));
  const double elevation = asin(z);
  const double azimuth = atan2(double(dir_sensor.y), double(dir_sensor.x));
  for (uint32_t i = 0; i < v.regions; ++i) {
    const CoverRegion& r = v.region[i];
    const bool below_top = elevation < r.elevation_max_rad ||
                           (elevation == r.elevation_max_rad && r.elevation_max_rad >= kPi / 2);
    if (elevation < r.elevation_min_rad || !below_top) continue;
    double from = azimuth - r.azimuth_min_rad;  // in [0, 2 pi) after the wrap
    from -= 2 * kPi * std::floor(from / (2 * kPi));
    if (from >= r.azimuth_span_rad) continue;
    p.transmission *= r.transmission;
    p.backscatter += r.backscatter;
  }
  return p;
}

// A return's two passes through the window: T^2.
LT_HD inline double CoverTwoWayTransmission(double transmission) {
  return transmission * transmission;
}

// The power [W] the window's layer sends into the detector: the backscattered share b of the
// emitted peak P_tx, through the receiver's optics T_opt as every return (seed 002 eq. 2's
// P_tx T_opt, with the geometry of a target replaced by the share b a window measurement gives).
LT_HD inline double WindowReturnPower(const LinkBudget& l, double backscatter) {
  return backscatter * l.peak_power_w * l.optics_transmission;
}

}  // namespace lt::physics
