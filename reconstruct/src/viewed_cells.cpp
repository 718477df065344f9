#include "viewed_cells.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <unordered_map>

#include "lidartwin/base/order_statistics.h"

namespace lt {
namespace {

// The world cell holding p: 21 bits per axis (+-0.4 m x 2^20: +-420 km).
uint64_t WorldCellKey(const physics::Vec3<double>& p, double cell_m) {
  auto q = [&](double v) {
    return static_cast<uint64_t>(std::clamp<int64_t>(
        static_cast<int64_t>(std::floor(v / cell_m)) + (1 << 20), 0, (1 << 21) - 1));
  };
  return (q(p.x) << 42) | (q(p.y) << 21) | q(p.z);
}

}  // namespace

double ViewedCell::CosIncidence(size_t j) const {
  const Eigen::Vector3d ray = seen[j].at - seen[j].from;
  return std::fabs(ray.dot(plane.normal)) / ray.norm();
}

std::pair<double, double> ViewedCell::FrameMedianSpan(const std::vector<double>& value) const {
  std::map<size_t, std::vector<double>> by_frame;
  for (size_t j = 0; j < seen.size() && j < value.size(); ++j)
    if (std::isfinite(value[j])) by_frame[seen[j].frame].push_back(value[j]);
  double lowest = INFINITY, highest = 0;
  for (auto& [frame, values] : by_frame) {
    const double m = Median(values);
    lowest = std::min(lowest, m);
    highest = std::max(highest, m);
  }
  return {lowest, highest};
}

std::vector<ViewedCell> ViewedPlanarCells(const PosedFrames& input, double cell_m,
                                          double min_range_m, double max_range_m) {
  std::unordered_map<uint64_t, std::vector<SeenReturn>> cells;
  for (size_t k = 0; k < input.frames.size(); ++k) {
    const Frame& f = input.frames[k];
    if (f.intensity.size() != f.size()) continue;
    for (size_t i = 0; i < f.size(); ++i) {
      const double r = f.range_m[i];
      if (!(r >= min_range_m && r <= max_range_m) || !(f.intensity[i] > 0) ||
          !std::isfinite(f.intensity[i]) || (!f.return_index.empty() && f.return_index[i] != 0))
        continue;
      const auto pose = PoseOfPoint(input, k, i);
      const auto w =
          physics::TransformPoint(pose, physics::Vec3<double>{f.x_m[i], f.y_m[i], f.z_m[i]});
      cells[WorldCellKey(w, cell_m)].push_back(
          {Eigen::Vector3d(w.x, w.y, w.z),
           Eigen::Vector3d(pose.translation.x, pose.translation.y, pose.translation.z), r,
           f.intensity[i], k});
    }
  }
  const PlanarCellOptions planar;
  std::vector<uint64_t> keys;
  for (const auto& [key, seen] : cells)
    if (seen.size() >= planar.min_points) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  std::vector<ViewedCell> out;
  for (uint64_t key : keys) {
    std::vector<SeenReturn>& seen = cells[key];
    std::vector<Eigen::Vector3d> at(seen.size());
    for (size_t j = 0; j < seen.size(); ++j)
      at[j] = seen[j].at;
    auto plane = FitCellPlane(at, planar);
    if (!plane) continue;
    out.push_back({std::move(seen), std::move(*plane)});
  }
  return out;
}

}  // namespace lt
