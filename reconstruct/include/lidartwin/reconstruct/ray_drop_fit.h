// Ray drop learned from a recording (issue 41): how likely a return that one frame saw is
// missing from another frame's beam in the same direction, over range and apparent
// reflectance, as a table the simulator applies (sensor_profile.h, RayDropTable). It is what a
// re-simulation needs: a simulated return stands where a neighbouring frame saw one, and the
// recorded frame drops some of them (dark and far surfaces, glass, the edges of objects).
//
// For every frame B and every pixel of B's scan that another frame A (at most frame_distance
// frames away) returned in (A's return moved into B's sensor frame by the poses, B's at the
// time that column fired, then to the nearest beam of B's scan), one
// observation: dropped or not in B, at the range from B and A's apparent reflectance
// I / G(R) (R0 cos theta as A saw it, with the laser's gain in it, as the simulator reports
// it). A column of B's scan where no channel returned is outside B (a partial revolution) and
// holds no observation. Each (B, pixel) counts once, so with independent drops a cell's count is
// binomial; its standard error sqrt(p (1 - p) / n) assumes that (real drops come in patches, and
// are more uncertain than it says).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/reconstruct/reconstructed_surface.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt {

// The scan's beams, to find the pixel a direction falls in: channel by elevation, column by
// azimuth less the channel's offset, in steps of 2 pi / columns (the phase of column 0 is
// measured from each frame's returns).
struct RayDropScan {
  std::vector<double> elevation_rad, azimuth_offset_rad;
  uint32_t columns = 0;
  BeamOrigins origins;
};

struct RayDropFitOptions {
  double min_range_m = 1.0, max_range_m = 80.0;
  int range_bins = 8;  // logarithmic, min_range_m..max_range_m
  double min_reflectance = 0.005, max_reflectance = 2.0;
  int reflectance_bins = 8;      // logarithmic
  size_t min_observations = 50;  // a cell with fewer takes its nearest determined cell's
  size_t frame_distance = 2;     // frames at most this far apart in the recording are compared
};

struct RayDropFit {
  RayDropTable table;                // at the cells' centres; decision kSample
  std::vector<double> stddev;        // per cell; 0 where not determined (filled from a neighbour)
  std::vector<size_t> observations;  // per cell
  size_t total = 0, dropped = 0;     // observations, and of those dropped
};

// Errors: fewer than two frames, frames without channels, a scan without beams, no
// observation.
Expected<RayDropFit> FitRayDrop(const PosedFrames& input, const IntensityReading& reading,
                                const RayDropScan& scan, const RayDropFitOptions& options);

}  // namespace lt
