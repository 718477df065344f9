// How many of its ring's neighbours a return's intensity is read with before the scene takes
// its reflectance from it (issue 41). One revolution's reading of a spot is one noisy sample:
// through foliage at 1.3 m a revolution (the HDL-32E drive) the next revolution reads the same
// place by as much as its neighbours differ, and the median of the ring's returns on the same
// surface is the more likely reading (ADR 0029's most likely frame). A calibrated sensor's
// reflectivity (the OS-1-128's) differs between neighbours by what the surface holds, and a
// median blurs it. Which of the two a recording is, is learned from its reconstruction frames:
// each frame's readings predict the next frame's at the same places, raw and as medians, and
// the neighbourhood that predicts them best is taken.
#pragma once

#include <cstddef>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/reconstruct/reconstructed_surface.h"

namespace lt {

// Each return's intensity as the median of the intensities of its ring's returns (same
// channel and return index, in column order, or azimuth order without columns) up to `places`
// either side whose range is within range_share of its own, itself included: the same
// surface, not what lies behind an edge. places 0, or a frame without channels: the
// intensities as they are. Returns without a finite intensity, range or place stay as they are
// and are no one's neighbour.
std::vector<float> RingMedianIntensity(const Frame& frame, int places, double range_share);

struct IntensityNeighbourhoodOptions {
  std::vector<int> candidate_places = {0, 2, 4, 7};  // the first is the fallback
  double range_share = 0.05;
  // A return of one frame and one of the next within this distance of each other (world) read
  // the same place [m]; only returns within [min_range_m, max_range_m] are used.
  double match_radius_m = 0.1;
  double min_range_m = 1.0, max_range_m = 80.0;
  // Every k-th return of a frame is predicted: a fifth of an OS-1-128 frame's 130,000 tells
  // 5 % from 1 % as well as all of them, in a fifth of the time. 5 divides no laser count, so a
  // frame stored column by column is sampled on every laser.
  size_t query_stride = 5;
  size_t min_pairs = 1000;  // fewer: the first candidate, undecided
  // Another candidate is taken over the first only where it predicts better by this share (a
  // model is not made less simple for a gain within what the pairing's own slack may give);
  // the HDL-32E's and the KITTI drive's medians predicted 8-11 % better and simulated 11 % and
  // 7 % better (docs/validation.md).
  double min_gain = 0.05;
};

struct IntensityNeighbourhood {
  int places = 0;                  // the chosen candidate
  std::vector<int> candidates;     // as given
  std::vector<double> mean_error;  // per candidate: mean |I - predicted| [intensity units]
  size_t pairs = 0;                // returns of one frame paired with the next frame's
};

// For every two consecutive frames, both ways: each return of one paired with the nearest
// return of the other (within match_radius_m, at the poses of their firing), its intensity
// predicted from the other's ring median under each candidate, carried to its range by the
// reading's gain (I G(R_b) / G(R_a)). The candidate of the least mean error is chosen among
// those that beat the first by min_gain. Errors: fewer than two frames, frames without
// intensities. Deterministic.
Expected<IntensityNeighbourhood> ChooseIntensityNeighbourhood(
    const PosedFrames& frames, const IntensityReading& reading,
    const IntensityNeighbourhoodOptions& options);

}  // namespace lt
