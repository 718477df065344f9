// Range-image meshing (issue 12): each recorded frame becomes a surface by connecting
// neighbouring returns of the same scan, ring to ring, into triangles, unless a depth
// discontinuity or a grazing angle separates them. It keeps exactly what the frame saw, at
// the sensor's own resolution, and nothing it did not (sky, occluded space): no surface is
// invented and none is smoothed away, unlike Poisson.
#pragma once

#include "lidartwin/base/status.h"
#include "lidartwin/reconstruct/reconstructed_surface.h"

namespace lt {

// RangeImageMeshOptions::own_face_max_incidence_deg for a sensor that barely moved.
inline constexpr double kStillOwnFaceMaxIncidenceDeg = 89;

struct RangeImageMeshOptions {
  double min_range_m = 1.0;
  double max_range_m = 80.0;
  // An edge joins two returns only if one plane seen at up to this incidence could hold both:
  // |R_a - R_b| <= min(R_a, R_b) tan(max_incidence) alpha + range_tolerance_m, with alpha the
  // angle between the two beams (the surface rule of calib/src/real_data/surface_normals.cpp).
  double max_incidence_deg = 80;
  double range_tolerance_m = 0.05;  // range noise (a few cm) plus the beam's footprint
  // Along a ring an edge may span this many azimuth steps, so one dropped return is bridged
  // and a longer gap (sky, glass, a dark object) is not.
  double max_gap_steps = 2.5;
  // Consensus: every return moves along its ray to the mean range of the frames' meshes
  // crossing that ray within this window (0: off), which fuses the frames' surfaces and halves
  // the noise variance with two frames (the nearest of two noisy layers would be hit first).
  double consensus_window_m = 0.10;
  // Surfels: a return no triangle covers (foliage, a pole thinner than the beam spacing, the
  // edge of a surface) becomes a square facing the sensor that saw it, one beam spacing wide
  // and one ring spacing high at its range, so it fills exactly its pixel of that scan; on a
  // smooth surface it spans half-way to its neighbours instead, lying on the surface.
  // kForUnmeshed adds them to the mesh; kOnly makes every return a surfel (method surfels).
  enum class Surfels { kNone, kForUnmeshed, kOnly };
  Surfels surfels = Surfels::kForUnmeshed;
  // kForUnmeshed: a return met by fewer mesh triangles than this gets a surfel too (an edge or
  // a lone triangle covers little of its pixel). On the OS-1-128 (docs/validation.md): 1 ->
  // return agreement 0.896, 2 -> 0.907, 4 -> 0.934, the median range error growing by 0.1 cm
  // and the p90 by 1.5 cm over that span; 2 meets the 0.90 target at least cost.
  int min_fan_triangles = 2;
  // A return on the mesh's edge (a triangle side no other triangle shares: the top and bottom
  // rings, a wall's end, the rim of a hole) gets a surfel too: the mesh joins returns at their
  // beams' centres, so it covers at most half of such a return's pixel, and a simulated beam a
  // little off the recorded one passes by. One fold each (docs/validation.md): OS-1-128 frame 1
  // return agreement 0.916 -> 0.941 (p90 +1 cm), VLP-16 bag 0.763 -> 0.925, XT16 0.817 -> 0.906,
  // Pandar40P 0.806 -> 0.883; the sparser the rings, the more of a scan is edge.
  bool surfels_at_mesh_edges = true;
  // A surfel lies on the surface instead of facing the sensor where the ranges of its
  // neighbours left-right and below-above run on smoothly through it: second differences
  // within range_tolerance_m + surfel_smoothness * R, or within surfel_bend times the mean
  // step to the two neighbours (ground at grazing incidence, which the mesh's incidence limit
  // leaves out, bends by ~9 cm at 16 m on an OS-1-128's 0.35 deg rings, and by a fifth of its
  // 3-4 m steps at 36 m). Tuned on the OS-1-128 (docs/validation.md): a test of collinearity
  // in space instead also flattened mixed pixels across depth edges and lost 0.02 return
  // agreement.
  double surfel_smoothness = 0.02;
  double surfel_bend = 0.5;
  // Ground fill: the ground under each frame's sensor, hidden in its blind cone, as a disc in
  // the plane fitted to the nearest returns (within ground_max_range_m) of its three lowest
  // rings, reaching in each direction out to the lowest ring at its height (2026-12-02; a
  // direction where the ring has no return near the plane: ground_margin_m beyond the nearest
  // tenth of the rings' returns). Another frame a little way off sees that ground; the
  // reconstruction otherwise has a hole there (on the OS-1-128, 0.25 m per frame: +0.013
  // return agreement at the ends of the capture). A flat disc wider than the ring stands in
  // front of the real ground's own mesh, where the road is not flat: a circle 1 m beyond the
  // nearest tenth cost 2 cm of p90, 0.3 m 0.6 cm (the OS-1-128's three folds, 2026-11-30). No disc
  // when the returns fit no plane (RMS over 5 cm, tilt over 15 deg, fewer than 50 of them).
  // None when the sensor moved less than ground_min_travel_m over two frames or more (a desk
  // capture; a frame meshed alone keeps its disc):
  // no frame sees under another, and the disc stood in front of what the lowest rings saw (a
  // Helios's desk at 1-1.2 m, 0.7 m below: its beams at -34 to -40 deg simulated 0.6-1.3 cm
  // short; return agreement 0.898 -> 0.920, intensity error 2.15 -> 1.49 on its frame 2).
  bool fill_ground = true;
  double ground_max_range_m = 20;
  double ground_margin_m = 0;
  double ground_min_travel_m = 0.1;
  // The reflectance reading for each vertex (its normal from the triangles around it).
  IntensityReading reading;
  double reflectance_max_incidence_deg = 75;
  // A return read through the face the simulator's ray will meet (a corner's region, a
  // surfel): R0 = I / (G cos theta) comes back as G R0 cos theta through the same cos theta for
  // a beam from where the return was seen, so for a sensor that barely moved the reading holds
  // at any incidence short of grazing (89); the limit above guards readings through a shared
  // normal. A sensor that moved far sees grazing faces at other angles, where a reading through
  // a noisy normal goes astray: there, the same limit (75). On the XT16 bag (still), frame 1
  // reproduced from itself alone erred by 1.45 counts at 75 (every face beyond it fell back to
  // its neighbours' mean, grazing ground surfels to the scene's median) and by 0.84 at 89; on
  // the HDL-32E capture (driving), its frame 1 by 12.4 at 75 and 13.2 at 89.
  double own_face_max_incidence_deg = 75;
  BeamOrigins beam_origins;  // of the recording's sensor (reconstructed_surface.h)
  // Each triangle split into four at its edges' midpoints, its corners reading their own
  // return's R0 (range_image_mesh.cpp, SplitAtVertices); false: one R0 per triangle, the mean
  // of its corners'.
  bool reflectance_at_vertices = true;
};

// Meshes every frame and concatenates the surfaces. Rings are the frame's channels ordered by
// their median elevation and each ring's returns by azimuth (both measured from the points, so
// any spinning lidar's layout works: Ouster's staggered columns, Velodyne's interleaved
// lasers). Triangles are formed by the classic two-ring strip advance. An error when a frame
// has no channel field or fewer than two rings. A surfel's reflectance is read at normal
// incidence (it faces the sensor, so it returns what the surface returned from there).
Expected<ReconstructedSurface> MeshRangeImages(const PosedFrames& input,
                                               const RangeImageMeshOptions& options);

}  // namespace lt
