// The second way to gather a beam's signal (seed 004 sec. II-C1, Alg. 1 "beam iteration"): the
// scene is traced once per frame on a regular angular raster of the sensor frame, and every
// beam then reads its footprint's samples from the raster instead of tracing them. A sample
// whose direction v falls in a pixel takes that pixel's surface with the range corrected along
// v by the pixel's normal (seed 004 sec. II-D2: r_corr = p^T n / (v^T n) r, p the pixel
// centre's direction), so planes come out exact and only samples near edges can pick the
// neighbouring surface: the rasterisation error the paper describes. Single bounce: a pixel
// holds its first surface only (no glass or foliage continuation).
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/physics/vec3.h"

namespace lt {

inline constexpr uint32_t kRasterNoHit = 0xffffffffu;

// What a pixel saw, in the sensor frame: the plane of its surface (unit normal n and offset
// D = r p.n, so the range along any direction v on that plane is D / v.n) and its object.
struct RasterPixel {
  float plane_offset_m;
  float normal[3];
  uint32_t object;  // kRasterNoHit: nothing within range
};

// Pixel (i, j) covers azimuths [az0 + i daz, az0 + (i + 1) daz) and elevations likewise;
// `wraps`: the azimuths cover the full circle, so i is taken modulo naz.
struct AngularRasterView {
  const RasterPixel* pixels;  // naz * nel, row j = elevation
  uint32_t naz, nel;
  double az0_rad, el0_rad, daz_rad, del_rad;
  bool wraps;
};

// Unit direction through the centre of pixel (i, j).
LT_HD inline physics::Vec3<double> RasterDirection(const AngularRasterView& r, uint32_t i,
                                                   uint32_t j) {
  return physics::BeamDirection(r.az0_rad + (i + 0.5) * r.daz_rad,
                                r.el0_rad + (j + 0.5) * r.del_rad);
}

// The pixel a sensor-frame unit direction falls in, or nullptr outside the raster.
LT_HD inline const RasterPixel* RasterLookup(const AngularRasterView& r,
                                             const physics::Vec3<double>& v) {
  using std::asin;
  using std::atan2;
  using std::floor;
  const double el = asin(v.z < -1 ? -1.0 : (v.z > 1 ? 1.0 : v.z));
  const double fj = floor((el - r.el0_rad) / r.del_rad);
  if (fj < 0 || fj >= r.nel) return nullptr;
  double a = atan2(v.y, v.x) - r.az0_rad;
  if (r.wraps) {
    const double two_pi = 2 * physics::kPi;
    a -= two_pi * floor(a / two_pi);
  }
  const double fi = floor(a / r.daz_rad);
  if (fi < 0) return nullptr;
  uint32_t i = static_cast<uint32_t>(fi);
  if (r.wraps) {
    i %= r.naz;
  } else if (i >= r.naz) {
    return nullptr;
  }
  return &r.pixels[static_cast<size_t>(fj) * r.naz + i];
}

}  // namespace lt
