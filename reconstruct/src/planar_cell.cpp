#include "planar_cell.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

namespace lt {

std::optional<CellPlane> FitCellPlane(const std::vector<Eigen::Vector3d>& points,
                                      const PlanarCellOptions& o) {
  std::vector<size_t> inliers(points.size());
  for (size_t k = 0; k < points.size(); ++k)
    inliers[k] = k;
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();
  bool planar = false;
  for (int pass = 0; pass < 2; ++pass) {
    if (inliers.size() < o.min_points) return std::nullopt;
    Eigen::Vector3d centre = Eigen::Vector3d::Zero();
    for (size_t k : inliers)
      centre += points[k] / double(inliers.size());
    Eigen::Matrix3d cov = Eigen::Matrix3d::Zero();
    for (size_t k : inliers) {
      const Eigen::Vector3d d = points[k] - centre;
      cov += d * d.transpose() / double(inliers.size());
    }
    // The normal: the eigenvector of the least eigenvalue (as frame_registration.cpp's).
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(cov);
    const Eigen::Vector3d values = eigen.eigenvalues();  // ascending
    normal = eigen.eigenvectors().col(0);
    std::vector<size_t> next;
    for (size_t k = 0; k < points.size(); ++k)
      if (std::fabs((points[k] - centre).dot(normal)) <= o.tolerance_m) next.push_back(k);
    inliers = std::move(next);
    // Thin as well as flat: a narrow corner (a wall's foot and a strip of floor) also fits a
    // tilted plane whose smallest eigenvalue is small beside the others.
    planar = values[0] <= o.max_planar_ratio * values[1] &&
             std::sqrt(std::max(values[0], 0.0)) <= o.max_rms_m;
  }
  if (!planar || inliers.size() < o.min_points) return std::nullopt;
  return CellPlane{normal, std::move(inliers)};
}

}  // namespace lt
