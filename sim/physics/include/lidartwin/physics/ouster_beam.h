// Ouster's beam model (Ouster sensor user manual, "Lidar range to XYZ", the same in the
// firmware 2.x and 3.x manuals): where a measured range puts the point in the lidar frame.
// A column's encoder angle is theta_e = 2 pi (1 - m / W) (m the measurement column, W columns
// per frame: the head turns clockwise seen from above); the beam of row r looks theta_a =
// -2 pi beam_azimuth_r / 360 off the encoder and phi = 2 pi beam_altitude_r / 360 above the
// horizon; it leaves from a beam origin n = lidar_origin_to_beam_origin_mm from the lidar axis,
// which turns with the head (beam_to_lidar_transform's x and z translation), and the range is
// measured from the lidar origin, so the part of it inside the beam origin's offset, n, is taken
// off first:
//   x = (d - n) cos(theta_e + theta_a) cos(phi) + o_x cos(theta_e)
//   y = (d - n) sin(theta_e + theta_a) cos(phi) + o_x sin(theta_e)
//   z = (d - n) sin(phi) + o_z
// The decoder (datasets/ouster) applies this and then lidar_to_sensor_transform. The simulator
// traces the same directions, each from its beam's own origin: the profile's beam_origin_m
// (lidar_to_sensor's translation) plus beam_origin_radius_m (n) along the head's direction at
// its column, and reports the range from there plus n (sim/internal/beam_pipeline.h
// BeamOrigin, PointRecord; datasets/recording/sensor_import.cpp). Left out, the OS-0-128's
// 27 mm put its beams at -30 deg one channel (0.7 deg) off at 1.2 m.
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/units.h"
#include "lidartwin/physics/vec3.h"

namespace lt::physics {

// Where an Ouster beam starts and how it is measured (all millimetres, from the metadata's
// beam_intrinsics).
struct OusterBeamOrigin {
  double x_mm = 0;       // beam_to_lidar_transform's x translation (lidar_origin_to_beam_origin)
  double z_mm = 0;       // its z translation (0 on the older metadata)
  double offset_mm = 0;  // lidar_origin_to_beam_origin_mm: range measured from the lidar origin
};

// The encoder angle [rad] of measurement column `column` of `columns` per frame.
inline double OusterEncoderAngle(uint32_t column, uint32_t columns) {
  return 2 * kPi * (1.0 - static_cast<double>(column) / columns);
}

// The point [mm, lidar frame] of range `range_mm` on the beam of azimuth `beam_azimuth_deg` and
// altitude `beam_altitude_deg` (the metadata's beam tables) at encoder angle `encoder_rad`.
inline Vec3<double> OusterLidarPoint(double range_mm, double encoder_rad, double beam_azimuth_deg,
                                     double beam_altitude_deg, const OusterBeamOrigin& origin) {
  const double theta_a = -2 * kPi * beam_azimuth_deg / 360.0;
  const double phi = 2 * kPi * beam_altitude_deg / 360.0;
  const double r = range_mm - origin.offset_mm;
  return {r * std::cos(encoder_rad + theta_a) * std::cos(phi) + origin.x_mm * std::cos(encoder_rad),
          r * std::sin(encoder_rad + theta_a) * std::cos(phi) + origin.x_mm * std::sin(encoder_rad),
          r * std::sin(phi) + origin.z_mm};
}

}  // namespace lt::physics
