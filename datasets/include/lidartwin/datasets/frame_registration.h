// Sensor poses for a recording that has none: each frame registered to the one before it by
// Open3D's point-to-plane ICP, coarse to fine, and the frame-to-frame motions chained
// (frame_registration.cpp). The poses feed Reconstruct (reconstruction.h) where a recording
// comes without a trajectory.
//
// Each frame is registered as a rigid cloud: the motion during a sweep (every point is in the
// sensor frame at its own firing time) is not undone. Under constant velocity the motion from
// one frame's start to the next's is the motion between any two points of the sweeps at the
// same phase, so the chained poses are the frames' start poses up to the distortion each
// sweep carries; at 1 m/s and 10 Hz that is a 10 cm smear over a sweep.
#pragma once

#include <cstddef>
#include <vector>

#include "lidartwin/physics/pose.h"
#include "lidartwin/sim/config_check.h"
#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/status.h"

namespace lt {

// Fewer usable points than this in a frame (after the range filter, and at each voxel scale)
// constrain no six degrees of freedom worth trusting.
constexpr size_t kMinRegistrationPoints = 100;

struct RegistrationOptions {
  double min_range_m = 1.0;  // drop points nearer than this (the vehicle, the operator)
  double max_range_m = 80.0;
  // Voxel sizes of the scales, coarse to fine: each frame thinned to one point per voxel,
  // normals from neighbours within 2 voxels (at most 30), ICP at each scale started from the
  // last scale's result.
  std::vector<double> voxel_m = {0.5, 0.25, 0.1};
  int max_iterations = 30;                 // ICP iterations per scale, at most
  double max_correspondence_factor = 3.0;  // correspondence distance = factor * voxel
  // The share of a frame's points (at the finest scale) within the correspondence distance of
  // the previous frame after ICP; below it the pair is an error: the frames do not overlap or
  // ICP did not converge.
  double min_fitness = 0.3;

  // Keys by field: 0 <= min_range_m < max_range_m <= kMaxRangeM; voxel_m one or more sizes in
  // [kMinVoxelM, kMaxVoxelM], strictly decreasing; max_iterations 1..1000;
  // max_correspondence_factor in (0, 100]; min_fitness in [0, 1].
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

// ICP of one pair of consecutive frames, at the finest scale.
struct PairRegistration {
  size_t from = 0, to = 0;   // frame indices, to = from + 1
  double fitness = 0;        // share of frame `to`'s points with a correspondence in `from`
  double inlier_rmse_m = 0;  // RMS distance of those correspondences
  physics::Pose<double> motion{{1, 0, 0, 0}, {0, 0, 0}};  // frame `to` in frame `from`
};

struct PoseEstimate {
  // sensor -> world at each frame's start; poses[0] is the identity (the world is frame 0).
  std::vector<physics::Pose<double>> poses;
  std::vector<PairRegistration> pairs;  // pairs[k] registers frame k + 1 to frame k
};

// Registers frames k and k + 1 for every k, the previous pair's motion the initial guess
// (constant velocity; the identity for the first pair), and chains the motions:
// poses[k + 1] = poses[k] * pairs[k].motion. Errors: fewer than two frames, a frame with fewer
// than kMinRegistrationPoints usable points (finite, range within [min_range_m, max_range_m])
// at any scale, a pair below min_fitness, and any failure inside Open3D (naming the step).
// Deterministic: Open3D's ICP runs on one OpenMP thread (frame_registration.cpp says why).
Expected<PoseEstimate> EstimatePoses(const std::vector<Frame>& frames,
                                     const RegistrationOptions& options);

}  // namespace lt
