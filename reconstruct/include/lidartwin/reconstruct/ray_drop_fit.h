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

// The directions the frames mostly returned nothing from (sensor_profile.h, BlockedDirections):
// the pixels of the scan (channel, column in the sensor frame) that more than half of the frames
// which scanned their column, and at least two, left empty, or returned nearer than
// min_range_m in: what a reconstruction from min_range_m on leaves out (the operator, the
// vehicle, the near walls of a small room) blocked the recorded beam, and nothing the simulator
// is given would block its own (the PandarQT64's desk capture: 45-70 % of its returns within
// 1 m, docs/validation.md). The sky is among them (where the
// simulator returns nothing anyway); what counts is the holes in what the scan saw, which can
// be large (the vehicle under the lowest beams). Poses play no part: what blocks the beams is fixed
// to the sensor (its mount, the vehicle) or, for a sensor that moved little, a surface that never
// returns (glass, black paint). A channel no frame returned on is left out (a laser the recording
// lacks). On the OS-1-128's frames 0 and 2, 620 of the 1,155 pixels of the lowest seven channels
// behind the sensor are empty in both, and 98 % of them in frame 1 too (docs/validation.md).
// A pixel a frame left empty among returns, with at most chance_drop_neighbours of its eight
// neighbours (in the same directions on the rings above and below) empty too, is that frame's
// chance drop and counts as scanned, not empty: how many is learned between the frames (up to
// the count at which, in pixels one frame left empty, the next one returned more often than
// not; -1: none).
struct BlockedDirectionsFit {
  BlockedDirections blocked;
  size_t pixels = 0;  // blocked
  int chance_drop_neighbours = -1;
};

// Errors: fewer than two frames, frames without channels, a scan without beams.
Expected<BlockedDirectionsFit> FindBlockedDirections(const std::vector<Frame>& frames,
                                                     const RayDropScan& scan,
                                                     double min_range_m = 0);

}  // namespace lt
