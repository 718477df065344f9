// Visibility carving (issue 12): space a frame saw through is empty, so nothing may stand
// there. Every recorded return's ray, from where the sensor was when it fired to just short of
// the return, is cast against the reconstructed surface; a triangle it crosses (facing the ray
// within max_incidence) gets a vote, and a triangle with min_votes or more is removed. That
// takes out what moved between frames (a pedestrian, a car), triangles a method bridged over a
// gap (Poisson's closed surfaces, a mesh edge across a fence) and stray geometry.
#pragma once

#include <cstddef>

#include "lidartwin/datasets/reconstructed_surface.h"
#include "lidartwin/sim/status.h"

namespace lt {

struct VisibilityCarvingOptions {
  double min_range_m = 1.0;  // returns nearer than this are not used (the vehicle)
  double max_range_m = 80.0;
  // A crossing counts only this far short of the return: margin_m + margin_fraction * range,
  // for range noise and pose error (a surface seen again sits within it, not in front).
  double margin_m = 0.10;
  double margin_fraction = 0.01;
  // A ray this oblique to a triangle proves little (a few cm of noise moves the crossing by
  // metres), so it casts no vote.
  double max_incidence_deg = 80;
  int min_votes = 2;
};

struct VisibilityCarvingSummary {
  size_t rays = 0, crossings = 0, triangles_removed = 0;
};

// Removes the voted triangles from `surface` (and their reflectances); vertices stay.
Expected<VisibilityCarvingSummary> CarveSeenThrough(ReconstructedSurface& surface,
                                                    const PosedFrames& frames,
                                                    const VisibilityCarvingOptions& options);

}  // namespace lt
