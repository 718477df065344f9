// The world's small planar cells and the returns each frame of a posed recording put on them:
// what the fits that compare one surface seen from several places work on (range_gain_fit.cpp:
// ranges against ranges; roughness_fit.cpp: incidences against incidences).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "lidartwin/reconstruct/reconstructed_surface.h"
#include "planar_cell.h"

namespace lt {

// One return on a cell: where it was, where it was seen from, its range and intensity.
struct SeenReturn {
  Eigen::Vector3d at, from;
  double range_m, intensity;
  size_t frame;
};

// A cell's returns and its plane (FitCellPlane over them: indices into `seen`).
struct ViewedCell {
  std::vector<SeenReturn> seen;
  CellPlane plane;
  // cos(theta) of seen[j]: the angle between its ray and the plane's normal.
  double CosIncidence(size_t j) const;
  // The median of each frame's values (value[j] for seen[j]; NaN: left out), smallest and
  // largest across the frames; {inf, 0} when none.
  std::pair<double, double> FrameMedianSpan(const std::vector<double>& value) const;
};

// The planar cells (edge cell_m, in the world frame) of the frames' first returns with a
// positive, finite intensity in [min_range_m, max_range_m], in the order of their keys (a fit
// over them does not depend on a map's order).
std::vector<ViewedCell> ViewedPlanarCells(const PosedFrames& input, double cell_m,
                                          double min_range_m, double max_range_m);

}  // namespace lt
