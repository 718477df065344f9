// A recorded frame placed on a reconstructed surface along its own beams (issue 41): the rigid
// correction C (world) that brings each return of the frame onto the surface its beam meets,
// found by projective point-to-plane Gauss-Newton (each beam cast against the surface from
// where C puts it, the residual the return's distance from the hit's plane; Chen and Medioni,
// IVC 10 (1992), with the projective correspondences of Newcombe et al., KinectFusion, ISMAR
// 2011, eq. 16). Held-out frames are compared with their simulation beam by beam along the
// same rays, so this is the placement that comparison measures: point-to-plane ICP against the
// reconstruction frames' points needs each map point's plane from its neighbours, which rings
// 1.4 deg apart (a 32-beam sensor) do not give (docs/validation.md).
#pragma once

#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/reconstruct/range_image_mesh.h"
#include "lidartwin/reconstruct/reconstructed_surface.h"
#include "lidartwin/sim/ray_caster.h"

namespace lt {

struct SurfaceRegistrationOptions {
  double min_range_m = 1.0;  // returns used: first returns within [min_range_m, max_range_m]
  double max_range_m = 80.0;
  // A return pairs with its beam's hit within this distance of it along the beam [m].
  double window_m = 0.25;
  // Residuals weighed by Cauchy's function w = 1 / (1 + (r / scale)^2): returns off the
  // surface by much more than the sensor's noise (edges, foliage, what moved) count little.
  // 1.5 cm (about the OS-1-128's noise) against 3 and 6 cm: a median |range error| of 2.99
  // against 3.06 and 3.06 cm on its frame 1 from the 32-beam subset with one correction; with
  // fit_motion every scale from 1 to 6 cm gave the same within the quantile sketch's step
  // (docs/validation.md).
  double scale_m = 0.015;
  // Hits seen beyond this incidence are left out (their planes' normals are the least sure).
  // The ground seen at grazing incidence holds the frame's height and tilt: on the OS-1-128
  // (ICP poses) 75 deg left the p90 at 10.6 cm, 85 at 10.1 and 89 at 10.0.
  double max_incidence_deg = 89;
  int max_iterations = 50;
  // Every k-th return of the frame is used, at most this many (0: all): 12 unknowns need far
  // fewer than the 10^5 returns of an OS-1-128 frame, and each iteration casts them all.
  size_t max_returns = 30000;
  // A correction of its own at the frame's start and at its end, each return's interpolated
  // at its column's place in the frame (scan.columns_per_frame): the motion within the frame
  // corrected too, where a sensor's poses came from pairwise registration. One correction where
  // the frame has no columns, or returns over less than half of it (a partial frame).
  bool fit_motion = false;
  // Converged when a step moves every return by less than this [m]: a thirtieth of scale_m. The
  // steps shrink by about 0.6 an iteration (the correspondences move with the frame), about 12
  // iterations from a centimetre off.
  double converged_m = 5e-4;
  // Refused: fewer than this share of the returns used (or fewer than 100) paired with the
  // surface in an iteration; a correction moving the sensor's place by more than max_move_m or
  // turning it by more than max_turn_deg. A frame placed by its poses within centimetres
  // pairs most of its returns; one the surface pulls far off met another surface there.
  double min_paired_share = 0.1;
  double max_move_m = 0.2, max_turn_deg = 1.0;
};

struct SurfaceRegistration {
  // C at the frame's start and at its end (alike unless fit_motion): start_correction *
  // start_pose and end_correction * end_pose place the frame.
  physics::Pose<double> start_correction{{1, 0, 0, 0}, {0, 0, 0}};
  physics::Pose<double> end_correction{{1, 0, 0, 0}, {0, 0, 0}};
  size_t returns = 0;  // the frame's returns in range
  size_t used = 0;     // of those, every k-th (max_returns)
  size_t paired = 0;   // of those used, paired with a hit in the last iteration
  // RMS of the paired returns' distances from their hits along the beam within 3 scale_m,
  // last iteration: the range noise left.
  double rms_m = 0;
  int iterations = 0;
  // The larger of the two corrections' moves of the sensor's place at the frame's start and
  // end [m], and of their turns [deg].
  double moved_m = 0, turned_deg = 0;
};

// scan: one posed frame (each return at the pose of its firing, PoseOfPoint) whose returns
// left from beam_origins. Errors: too few of the returns used paired with the surface, a
// singular step (every paired plane alike: one wall leaves the frame free along it), a
// correction beyond the options' bounds.
// Deterministic: the sums run in the returns' order.
Expected<SurfaceRegistration> RegisterToSurface(const PosedFrames& scan,
                                                const BeamOrigins& beam_origins,
                                                const RayCaster& surface,
                                                const SurfaceRegistrationOptions& options);

// Frames aligned with each other before they are fused into one surface: frame k (k >= 1) placed
// by RegisterToSurface on the surface that `mesh` makes of the (at most) four frames before it,
// already aligned, so the first frame holds the world still. Pairwise registration leaves the
// frames of a drive a little askew; fused, their surfaces lie in front of each other by that much,
// and a ray meets the nearer (on the OS-1-128 the far ground of two frames, docs/validation.md).
// One entry per frame, the first's identity; a frame that cannot be placed keeps its poses and its
// entry holds the reason (registration_error).
struct FrameAlignment {
  SurfaceRegistration registration;
  std::string registration_error;  // empty: placed
};
std::vector<FrameAlignment> AlignFramesOnSurfaces(PosedFrames& frames,
                                                  const RangeImageMeshOptions& mesh,
                                                  const SurfaceRegistrationOptions& options);

}  // namespace lt
