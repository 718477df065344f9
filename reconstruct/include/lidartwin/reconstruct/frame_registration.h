// Sensor poses for a recording that has none: each frame registered to the one before it by
// Open3D's point-to-plane ICP, coarse to fine, and the frame-to-frame motions chained
// (frame_registration.cpp). The poses feed Reconstruct (reconstruction.h) where a recording
// comes without a trajectory.
//
// A spinning lidar's frame is a rolling-shutter cloud: every point is in the sensor frame at
// its own firing time, so a sensor moving 1.3 m per revolution (an HDL-32E at 11.7 Hz on a
// car at 56 km/h) smears its frame by 1.3 m from the first point to the last. EstimatePoses
// undoes that when the frames say when each point fired (Frame::timestamp_s, else
// Frame::column): it registers the frames as they are, takes the motion within each frame
// from the motions to its neighbours (constant velocity), re-expresses every point in the
// sensor frame at the middle of its frame (deskew) and registers again, deskew_rounds times.
//
// Points whose neighbourhood is a line are left out of ICP: a sparse spinning lidar draws the
// ground as rings, one scan line each, metres apart, so a ground point's neighbours lie on its
// ring, the plane fitted to them may stand on edge, and ICP then pulls the rings of the two
// frames onto each other, which the sensor carries along: towards no motion at all.
#pragma once

#include <cstddef>
#include <vector>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/physics/pose.h"

namespace lt {

// Fewer usable points than this in a frame (after the range filter, and at each voxel scale)
// constrain no six degrees of freedom worth trusting.
constexpr size_t kMinRegistrationPoints = 100;

struct RegistrationOptions {
  double min_range_m = 1.0;  // drop points nearer than this (the vehicle, the operator)
  double max_range_m = 80.0;
  // Voxel sizes of the scales, coarse to fine: each frame thinned to one point per voxel, a
  // plane fitted to each point's neighbours within 2 voxels (at most 30), ICP at each scale
  // started from the last scale's result.
  std::vector<double> voxel_m = {0.5, 0.25, 0.1};
  int max_iterations = 30;                 // ICP iterations per scale, at most
  double max_correspondence_factor = 3.0;  // correspondence distance = factor * voxel
  // PairRegistration::fitness below this, in any round, is an error: the frames do not
  // overlap or ICP did not converge. Measured: OS-1-128 0.98, HDL-32E driving 0.82-0.85; the
  // VLP-16 capture, whose first frame is a third of a revolution, 0.52 with a motion of 2.6 m
  // and 18 deg between frames 0.1 s apart, which is no motion a vehicle makes.
  double min_fitness = 0.6;
  // A point whose neighbours spread across their longest direction by less than this share
  // of their spread along it (sigma2 / sigma1, the square roots of the covariance's two
  // largest eigenvalues) lies on a line, whose plane is undetermined: it is left out of ICP
  // (the header comment says why). 0 keeps every point with at least 3 neighbours.
  double min_width_ratio = 0.4;
  // Rounds of deskewing and registering again after the first registration; 0 registers the
  // frames as they are. Without firing times (see EstimatePoses) there is one round only.
  int deskew_rounds = 2;

  // Keys by field: 0 <= min_range_m < max_range_m <= kMaxRangeM; voxel_m one or more sizes in
  // [kMinVoxelM, kMaxVoxelM], strictly decreasing; max_iterations 1..1000;
  // max_correspondence_factor in (0, 100]; min_fitness in [0, 1]; min_width_ratio in [0, 1);
  // deskew_rounds 0..10.
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

// ICP of one pair of consecutive frames, at the finest scale, in the last round.
struct PairRegistration {
  size_t from = 0, to = 0;  // frame indices, to = from + 1
  // The share of the smaller frame's points (at the finest scale: those with a plane) within
  // the finest correspondence distance of the other frame's after ICP: the smaller frame is
  // ICP's source, so that a partial revolution (a capture's first or last frame) is not held
  // to its share of a revolution.
  double fitness = 0;
  double inlier_rmse_m = 0;  // RMS distance of those correspondences
  // Scales kept, coarse to fine: fewer than voxel_m.size() where a finer scale ran away (moved
  // the points by more than the coarser scale's correspondence distance) and was dropped.
  size_t scales = 0;
  // Frame `to`'s mid-frame sensor pose in frame `from`'s (the frames' own poses, as they
  // stand, when they carry no firing times).
  physics::Pose<double> motion{{1, 0, 0, 0}, {0, 0, 0}};
};

// What tells when each point of a frame fired, as EstimatePoses found it.
enum class FiringClock {
  kNone,       // no firing times, or motion-corrected frames: registered as they are
  kTimestamp,  // Frame::timestamp_s
  kColumn,     // Frame::column: each frame one revolution, the frames back to back
};

struct PoseEstimate {
  // sensor -> world at the middle of each frame (halfway between its first and last firing
  // times or columns); poses[0] is the identity (the world is frame 0's mid-frame sensor
  // frame). With FiringClock::kNone, the pose of the frame's points as they stand (for
  // motion-corrected frames that is the frame's end).
  std::vector<physics::Pose<double>> poses;
  // sensor -> world at each frame's first and last firing, under constant velocity within
  // the frame (the pose at fraction s of the frame interpolated between them: translation
  // linear, rotation slerp), for Frame::pose_start / pose_end; both equal poses[k] with
  // FiringClock::kNone.
  std::vector<physics::Pose<double>> start_poses, end_poses;
  std::vector<PairRegistration> pairs;  // pairs[k] registers frame k + 1 to frame k
  FiringClock clock = FiringClock::kNone;
  int rounds = 0;  // registrations of every pair: 1 + the deskew rounds run
};

// Registers frames k and k + 1 for every k, the previous pair's motion the initial guess
// (constant velocity; the identity for the first pair), and chains the motions:
// poses[k + 1] = poses[k] * pairs[k].motion. Then, where the frames carry firing times, each
// deskew round re-expresses every frame's points in its mid-frame sensor frame under the
// motion the last round found (the motion within frame k: the mean of pairs k - 1 and k,
// scaled from their frames' mid-time spacing to frame k's span) and registers each pair again
// from its own last motion.
//
// Firing times: Frame::timestamp_s when every frame has one per point and its latest exceeds
// its earliest, and the frames' mid times increase; else Frame::column when every frame has
// one per point with more than one value (each frame then taken to be one revolution, the
// frames back to back); else none. None also when any frame is marked motion_corrected (its
// points are in one sensor frame already).
//
// Errors: fewer than two frames, a frame with fewer than kMinRegistrationPoints usable points
// (finite, range within [min_range_m, max_range_m]) or, at any scale, points with a plane, a
// pair below min_fitness in any round, and any failure inside Open3D (naming the step).
// Deterministic: Open3D's ICP runs on one OpenMP thread (frame_registration.cpp says why).
Expected<PoseEstimate> EstimatePoses(const std::vector<Frame>& frames,
                                     const RegistrationOptions& options);

// "none", "timestamp_s", "column": for messages.
const char* FiringClockName(FiringClock clock);

struct PosedFrames;  // reconstructed_surface.h

// A frame placed in a map, as a SLAM system places a scan: the rigid correction C (in the world)
// such that C * start_pose and C * end_pose lay the frame of `scan` (one posed frame, each point
// at the pose of its firing) on the points of `map` (posed frames), by point-to-plane ICP at
// the finest of options.voxel_m from no correction. The map's planes come from its frames
// together, where pairwise registration saw each neighbour alone. Errors: fewer than
// kMinRegistrationPoints points or points with a plane on either side, a fitness below
// options.min_fitness, a failure inside Open3D. Deterministic as EstimatePoses.
struct MapRegistration {
  physics::Pose<double> correction{{1, 0, 0, 0}, {0, 0, 0}};
  double fitness = 0, inlier_rmse_m = 0;
};
Expected<MapRegistration> RegisterToMap(const PosedFrames& scan, const PosedFrames& map,
                                        const RegistrationOptions& options);

}  // namespace lt
