// The plane of a small cell of returns (a voxel of a wall, a car's door, the road), for the
// intensity fits that compare returns on one surface (beam_intensity_fit.cpp: lasers against
// lasers; range_gain_fit.cpp: ranges against ranges).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <Eigen/Core>

namespace lt {

struct PlanarCellOptions {
  size_t min_points = 8;           // for a plane
  double max_planar_ratio = 0.01;  // smallest / middle eigenvalue of a planar cell
  double tolerance_m = 0.05;       // a return farther from the cell's plane: another surface
  double max_rms_m = 0.02;         // the inliers' rms distance from their plane, at most
};

struct CellPlane {
  Eigen::Vector3d normal;       // unit
  std::vector<size_t> inliers;  // indices into the points given
};

// The points' plane: their covariance's least eigenvector, then again over the points within
// the tolerance of it (a corner holds a second surface whose returns would tilt the first
// pass, and their incidence is not the plane's). Empty when the inliers are not planar (thin
// as well as flat) or too few.
std::optional<CellPlane> FitCellPlane(const std::vector<Eigen::Vector3d>& points,
                                      const PlanarCellOptions& options);

}  // namespace lt
