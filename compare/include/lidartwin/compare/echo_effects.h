// What the sensor model does to targets, measured on a frame: how far an object's points
// reach beyond its true outline (blooming, seed 004 sec. I-B), and the beams that see one
// object through another (glass, foliage: several echoes per beam).
#pragma once

#include <cstdint>

#include "lidartwin/base/frame.h"
#include "lidartwin/sim/scene.h"

namespace lt {

// Azimuth and elevation spans [deg] seen from the sensor origin; count 0 when empty.
struct AngularExtent {
  double azimuth_min_deg = 0, azimuth_max_deg = 0;
  double elevation_min_deg = 0, elevation_max_deg = 0;
  size_t count = 0;
  double Width() const { return azimuth_max_deg - azimuth_min_deg; }
  double Height() const { return elevation_max_deg - elevation_min_deg; }
};

// The points of one instance (sensor frame; the frame should be static or motion corrected).
AngularExtent PointExtent(const Frame& frame, uint32_t instance);
// The object's vertices, seen from a sensor at the world origin with identity attitude. The
// azimuth span must stay below 180 deg (no wrap-around handling).
AngularExtent ObjectExtent(const SceneObject& object);

// Beams with an echo on `front` and a later echo on `behind`, and those echoes' mean range and
// intensity.
struct ThroughEchoes {
  size_t beams = 0;
  double front_range_m = 0, front_intensity = 0;
  double behind_range_m = 0, behind_intensity = 0;
};
ThroughEchoes CountThroughEchoes(const Frame& frame, uint32_t front, uint32_t behind);

}  // namespace lt
