// One Ouster return as a frame point, the same from a capture's packets and an OSF scan.
#pragma once

#include <cstdint>

#include "lidartwin/base/frame.h"
#include "lidartwin/datasets/ouster.h"

namespace lt {

// XYZ by the beam model (OusterPointXyz), range, intensity (signal photons, or reflectivity
// where the profile has no signal), reflectance (reflectivity / 100: Ouster's calibrated
// reflectivity is the Lambertian percentage up to 100), channel = row, column = measurement
// id, the column's time, the return (0 first, 1 second) and its kind: Ouster's firmware
// reports the strongest return, and in its dual-return profiles the second strongest as the
// second (firmware user manual, "Dual Returns").
inline void AddOusterPoint(const OusterMetadata& m, Frame& f, uint32_t row, uint32_t column,
                           double t, uint32_t range_mm, uint32_t reflectivity, double intensity,
                           uint8_t ret) {
  const auto xyz = OusterPointXyz(m, row, column, range_mm);
  FramePoint p;
  p.x_m = static_cast<float>(xyz[0]);
  p.y_m = static_cast<float>(xyz[1]);
  p.z_m = static_cast<float>(xyz[2]);
  p.range_m = static_cast<float>(range_mm * 1e-3);
  p.intensity = static_cast<float>(intensity);
  p.reflectance = static_cast<float>(reflectivity / 100.0);
  p.channel = static_cast<uint16_t>(row);
  p.column = column;
  p.timestamp_s = t;
  p.return_index = ret;
  p.return_type =
      ret == 0 ? physics::ReturnType::kStrongest : physics::ReturnType::kSecondStrongest;
  p.beam_id = column * m.pixels_per_column + row;
  f.Append(p);
}

}  // namespace lt
