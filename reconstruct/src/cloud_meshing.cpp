// The merged-cloud reconstruction methods (issue 4): every frame's points in one world cloud,
// normals towards the sensor, thinned to voxels, meshed by Open3D's screened Poisson (trimmed
// by density and by distance to the points) or ball pivoting.
#include <open3d/geometry/KDTreeFlann.h>
#include <open3d/geometry/PointCloud.h>
#include <open3d/geometry/TriangleMesh.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "lidartwin/base/text_file.h"
#include "reconstruction_steps.h"

namespace lt::reconstruction {

// The grid of voxel_m over the cloud's extent: a voxel larger than the cloud leaves nothing to
// mesh, and too fine a grid overflows Open3D's voxel indices (it throws beyond 2^31 per axis).
Status CheckVoxelAgainstExtent(const open3d::geometry::PointCloud& cloud, double voxel_m) {
  const Eigen::Vector3d extent = cloud.GetMaxBound() - cloud.GetMinBound();
  const double longest = extent.maxCoeff();
  const std::string spans =
      fmt::format("the cloud spans {:.4g} x {:.4g} x {:.4g} m", extent.x(), extent.y(), extent.z());
  if (!(voxel_m < longest))
    return Error{fmt::format(
        "reconstruct: voxel_m {} m is not smaller than the cloud ({}), so its voxels would leave "
        "nothing to mesh",
        NumberText(voxel_m), spans)};
  if (longest / voxel_m > kMaxVoxelsPerAxis)
    return Error{fmt::format(
        "reconstruct: voxel_m {} m is too fine for the cloud ({}): at most {:.0f} voxels per "
        "axis, so at least {:.3g} m",
        NumberText(voxel_m), spans, kMaxVoxelsPerAxis, longest / kMaxVoxelsPerAxis)};
  return {};
}

Expected<ReconstructedSurface> MeshMergedCloud(const PosedFrames& input,
                                               const ReconstructOptions& o,
                                               const BeginStep& begin_step,
                                               ReconstructionSummary& summary) {
  const char* step = "";
  auto begin = [&](const char* what) {
    step = what;
    begin_step(what);
  };
  // 1. Merge: each point into the world at its own firing time; remember where the sensor was.
  begin(kCloudSteps[0]);
  open3d::geometry::PointCloud cloud;
  std::vector<Eigen::Vector3d> origins;
  std::vector<double> intensity;
  for (size_t k = 0; k < input.frames.size(); ++k) {
    const Frame& f = input.frames[k];
    summary.input_points += f.size();
    for (size_t i = 0; i < f.size(); ++i) {
      if (!(f.range_m[i] >= o.min_range_m && f.range_m[i] <= o.max_range_m)) continue;
      if (!std::isfinite(f.x_m[i]) || !std::isfinite(f.y_m[i]) || !std::isfinite(f.z_m[i]))
        continue;
      const physics::Pose<double> pose = PoseOfPoint(input, k, i);
      const auto w =
          physics::TransformPoint(pose, physics::Vec3<double>{f.x_m[i], f.y_m[i], f.z_m[i]});
      if (!std::isfinite(w.x) || !std::isfinite(w.y) || !std::isfinite(w.z)) continue;
      cloud.points_.emplace_back(w.x, w.y, w.z);
      origins.emplace_back(pose.translation.x, pose.translation.y, pose.translation.z);
      intensity.push_back(f.intensity.size() == f.size() ? f.intensity[i] : 0.0);
    }
  }
  summary.in_range_points = cloud.points_.size();
  if (cloud.points_.size() < kMinReconstructionPoints)
    return Error{fmt::format(
        "reconstruct: only {} usable points of {} (finite, range in [{}, {}] m); at least {} "
        "are needed",
        cloud.points_.size(), summary.input_points, NumberText(o.min_range_m),
        NumberText(o.max_range_m), kMinReconstructionPoints)};
  if (Status s = CheckVoxelAgainstExtent(cloud, o.voxel_m); !s.ok()) return s.error();

  // 2. Normals from 20 neighbours, turned towards the sensor that saw the point.
  begin(kCloudSteps[1]);
  if (Status s = Open3dStep(
          step, [&] { cloud.EstimateNormals(open3d::geometry::KDTreeSearchParamKNN(20)); });
      !s.ok())
    return s.error();
  if (cloud.normals_.size() != cloud.points_.size())
    return Error{"reconstruct: estimating normals: Open3D gave no normals"};
  for (size_t i = 0; i < cloud.points_.size(); ++i)
    if (cloud.normals_[i].dot(origins[i] - cloud.points_[i]) < 0) cloud.normals_[i] *= -1;

  // 3. Reflectance per point, from the intensity reading, where the incidence allows.
  std::vector<double> r0(cloud.points_.size(), NAN);
  for (size_t i = 0; i < cloud.points_.size(); ++i) {
    const Eigen::Vector3d to_sensor = origins[i] - cloud.points_[i];
    const double range = to_sensor.norm();
    r0[i] = o.reading.Reflectance(intensity[i], range,
                                  std::fabs(cloud.normals_[i].dot(to_sensor / range)),
                                  o.max_incidence_deg);
  }

  // 4. Thin to one point per voxel. Open3D averages positions, normals and colours; the
  // colour carries (R0 or 0, 1 where R0 is known, 0), so after averaging red / green is the
  // mean R0 over the voxel's points that have one, and green 0 means none has.
  begin(kCloudSteps[2]);
  for (size_t i = 0; i < cloud.points_.size(); ++i)
    cloud.colors_.emplace_back(std::isnan(r0[i]) ? 0.0 : r0[i], std::isnan(r0[i]) ? 0.0 : 1.0, 0);
  std::shared_ptr<open3d::geometry::PointCloud> thinned;
  if (Status s = Open3dStep(step, [&] { thinned = cloud.VoxelDownSample(o.voxel_m); }); !s.ok())
    return s.error();
  summary.used_points = thinned ? thinned->points_.size() : 0;
  if (summary.used_points < kMinReconstructionPoints)
    return Error{fmt::format(
        "reconstruct: thinning {} points to one per {} m voxel left {}; at least {} are needed "
        "(use a smaller voxel_m)",
        cloud.points_.size(), NumberText(o.voxel_m), summary.used_points,
        kMinReconstructionPoints)};

  // 5. Mesh.
  begin(kCloudSteps[3]);
  std::shared_ptr<open3d::geometry::TriangleMesh> mesh;
  std::vector<double> density;
  if (Status s = Open3dStep(
          step,
          [&] {
            if (o.method == "poisson") {
              std::tie(mesh, density) = open3d::geometry::TriangleMesh::CreateFromPointCloudPoisson(
                  *thinned, o.poisson_depth);
            } else {
              const double r = 2 * o.voxel_m;
              mesh = open3d::geometry::TriangleMesh::CreateFromPointCloudBallPivoting(
                  *thinned, {r, 2 * r, 4 * r});
            }
          });
      !s.ok())
    return s.error();
  if (!mesh || mesh->triangles_.empty())
    return Error{fmt::format("reconstruct: meshing {} points by {} gave no triangles",
                             summary.used_points, o.method)};

  begin(kCloudSteps[4]);
  if (Status s = Open3dStep(
          step,
          [&] {
            if (density.size() == mesh->vertices_.size() && o.density_quantile > 0) {
              std::vector<double> sorted = density;
              const size_t q = static_cast<size_t>(o.density_quantile * (sorted.size() - 1));
              std::nth_element(sorted.begin(), sorted.begin() + q, sorted.end());
              const double cut = sorted[q];
              std::vector<bool> remove(density.size());
              for (size_t i = 0; i < density.size(); ++i)
                remove[i] = density[i] < cut;
              mesh->RemoveVerticesByMask(remove);
            }
            // Poisson closes the surface where nothing was seen (sky, occluded space); beyond
            // the density trim, drop every vertex farther than max_gap_m from a measured point.
            if (o.max_gap_m > 0) {
              const open3d::geometry::KDTreeFlann near(*thinned);
              std::vector<bool> remove(mesh->vertices_.size());
              std::vector<int> idx;
              std::vector<double> d2;
              for (size_t i = 0; i < mesh->vertices_.size(); ++i)
                remove[i] = near.SearchHybrid(mesh->vertices_[i], o.max_gap_m, 1, idx, d2) < 1;
              mesh->RemoveVerticesByMask(remove);
            }
            mesh->RemoveDegenerateTriangles();
            mesh->RemoveUnreferencedVertices();
          });
      !s.ok())
    return s.error();
  if (mesh->triangles_.empty())
    return Error{fmt::format(
        "reconstruct: the mesh has no triangles left after trimming vertices farther than "
        "max_gap_m {} m from a point",
        NumberText(o.max_gap_m))};

  // 6. Reflectance per triangle: the nearest thinned point with a reflectance estimate to its
  // centroid (Open3D's KD-tree over the points that have one); NaN where none is near.
  open3d::geometry::PointCloud with_r0;
  std::vector<double> r0_of;
  for (size_t i = 0; i < thinned->points_.size(); ++i) {
    const Eigen::Vector3d& c = thinned->colors_[i];
    if (c.y() > 0 && std::isfinite(c.x() / c.y())) {
      with_r0.points_.push_back(thinned->points_[i]);
      r0_of.push_back(std::clamp(c.x() / c.y(), 0.0, 1.0));
    }
  }
  if (r0_of.empty()) return Error{"reconstruct: no point has a usable incidence angle"};
  ReconstructedSurface surface;
  surface.vertices.reserve(mesh->vertices_.size());
  for (const Eigen::Vector3d& v : mesh->vertices_)
    surface.vertices.push_back({v.x(), v.y(), v.z()});
  if (Status s = Open3dStep(
          "classifying reflectance",
          [&] {
            const open3d::geometry::KDTreeFlann tree(with_r0);
            std::vector<int> idx;
            std::vector<double> d2;
            for (const auto& t : mesh->triangles_) {
              const Eigen::Vector3d c =
                  (mesh->vertices_[t[0]] + mesh->vertices_[t[1]] + mesh->vertices_[t[2]]) / 3.0;
              const bool near = tree.SearchHybrid(c, 4 * o.voxel_m, 1, idx, d2) > 0;
              surface.triangles.push_back({static_cast<uint32_t>(t[0]), static_cast<uint32_t>(t[1]),
                                           static_cast<uint32_t>(t[2])});
              surface.triangle_reflectance.push_back(near ? static_cast<float>(r0_of[idx[0]])
                                                          : NAN);
            }
          });
      !s.ok())
    return s.error();
  return surface;
}

}  // namespace lt::reconstruction
