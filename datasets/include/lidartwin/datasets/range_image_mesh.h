// Range-image meshing (issue 12): each recorded frame becomes a surface by connecting
// neighbouring returns of the same scan, ring to ring, into triangles, unless a depth
// discontinuity or a grazing angle separates them. It keeps exactly what the frame saw, at
// the sensor's own resolution, and nothing it did not (sky, occluded space): no surface is
// invented and none is smoothed away, unlike Poisson.
#pragma once

#include "lidartwin/datasets/reconstructed_surface.h"
#include "lidartwin/sim/status.h"

namespace lt {

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
  // The reflectance reading for each vertex (its normal from the triangles around it).
  IntensityReading reading;
  double reflectance_max_incidence_deg = 75;
};

// Meshes every frame and concatenates the surfaces. Rings are the frame's channels ordered by
// their median elevation and each ring's returns by azimuth (both measured from the points, so
// any spinning lidar's layout works: Ouster's staggered columns, Velodyne's interleaved
// lasers). Triangles are formed by the classic two-ring strip advance. An error when a frame
// has no channel field or fewer than two rings.
Expected<ReconstructedSurface> MeshRangeImages(const PosedFrames& input,
                                               const RangeImageMeshOptions& options);

}  // namespace lt
