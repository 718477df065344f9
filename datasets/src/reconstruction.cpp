#include "lidartwin/datasets/reconstruction.h"
#include "lidartwin/sim/text_file.h"

#include <fmt/core.h>

#include <open3d/geometry/KDTreeFlann.h>
#include <open3d/geometry/PointCloud.h>
#include <open3d/geometry/TriangleMesh.h>
#include <open3d/io/TriangleMeshIO.h>
#include <algorithm>
#include <cmath>
#include <deque>
#include <fstream>
#include <iterator>
#include <numbers>
#include <sstream>
#include <tuple>

#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/datasets/interrupt_cleanup.h"
#include "lidartwin/sim/material_library.h"
#include "lidartwin/sim/scene.h"

namespace lt {
namespace {

using physics::Pose;
using physics::Vec3;

// Orthonormal rotation check for KITTI lines: |R^T R - I| small.
bool IsRotation(const double* m) {
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double d = 0;
      for (int r = 0; r < 3; ++r)
        d += m[r * 4 + a] * m[r * 4 + b];
      if (std::fabs(d - (a == b ? 1.0 : 0.0)) > 1e-4) return false;
    }
  return true;
}

}  // namespace

Expected<std::vector<Pose<double>>> LoadKittiPoses(const std::filesystem::path& file) {
  auto text = ReadTextFile(file);
  if (!text.ok()) return text.error();
  std::istringstream in(*text);
  std::vector<Pose<double>> poses;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream ss(line);
    double m[12];
    int n = 0;
    for (double v; n < 13 && ss >> v; ++n)
      if (n < 12) m[n] = v;
    if (n != 12 || !ss.eof())
      return Error{
          fmt::format("{}: line {}: expected 12 numbers (a 3x4 pose)", file.string(), line_no)};
    for (double v : m)
      if (!std::isfinite(v))
        return Error{fmt::format("{}: line {}: not finite", file.string(), line_no)};
    if (!IsRotation(m))
      return Error{
          fmt::format("{}: line {}: the 3x3 part is not a rotation", file.string(), line_no)};
    poses.push_back({physics::QuatFromRotationMatrix(m, 4), {m[3], m[7], m[11]}});
  }
  if (poses.empty()) return Error{fmt::format("{}: no poses", file.string())};
  return poses;
}

void ReconstructOptions::Check(ConfigCheck& check) const {
  if (method != "poisson" && method != "ball-pivoting")
    check.Fail("method", "'" + method + "' (expected poisson or ball-pivoting)");
  if (poisson_depth < 4 || poisson_depth > 14)
    check.Fail("poisson_depth", "must be in 4..14, got " + std::to_string(poisson_depth));
  if (!(density_quantile >= 0 && density_quantile < 1))
    check.Fail("density_quantile", "must be in [0, 1), got " + NumberText(density_quantile));
  if (!(voxel_m > 0 && std::isfinite(voxel_m)))
    check.Fail("voxel_m", "must be positive, got " + NumberText(voxel_m));
  else if (!(voxel_m >= kMinVoxelM && voxel_m <= kMaxVoxelM))
    check.Fail("voxel_m", fmt::format("must be in [{:g}, {:g}] m, got {}", kMinVoxelM, kMaxVoxelM,
                                      NumberText(voxel_m)));
  if (!(max_gap_m >= 0 && std::isfinite(max_gap_m)))
    check.Fail("max_gap_m", "must be >= 0 (0: no cut), got " + NumberText(max_gap_m));
  if (!(min_range_m >= 0 && std::isfinite(min_range_m)))
    check.Fail("min_range_m", "must be >= 0, got " + NumberText(min_range_m));
  if (!(max_range_m > min_range_m && std::isfinite(max_range_m)))
    check.Fail("max_range_m", "must exceed min_range_m, got " + NumberText(max_range_m));
  else if (max_range_m > kMaxRangeM)
    check.Fail("max_range_m",
               fmt::format("must be at most {:g} m, got {}", kMaxRangeM, NumberText(max_range_m)));
  if (!(max_incidence_deg > 0 && max_incidence_deg < 90))
    check.Fail("max_incidence_deg", "must be in (0, 90), got " + NumberText(max_incidence_deg));
  // Material names carry the class as two digits (surface_r07).
  if (reflectance_bins < 1 || reflectance_bins > 100)
    check.Fail("reflectance_bins", "must be in 1..100, got " + std::to_string(reflectance_bins));
}

Status ReconstructOptions::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("reconstruct options");
}

namespace {

// Runs one Open3D call: an exception out of it (Open3D's LogError throws, allocations may
// fail) becomes an error naming the step.
template <typename F>
Status Open3dStep(const char* step, F&& f) {
  try {
    f();
    return {};
  } catch (const std::exception& e) {
    return Error{fmt::format("reconstruct: {} failed in Open3D: {}", step, e.what())};
  }
}

constexpr const char* kSteps[] = {
    "merging frames",    "estimating normals",      "thinning to voxels", "meshing",
    "trimming the mesh", "classifying reflectance", "writing the scene"};
constexpr int kStepCount = static_cast<int>(std::size(kSteps));

// The grid of voxel_m over the cloud's extent: a voxel larger than the cloud leaves nothing to
// mesh, and too fine a grid overflows Open3D's voxel indices (it throws beyond 2^31 per axis).
Status CheckVoxelAgainstExtent(const open3d::geometry::PointCloud& cloud, double voxel_m) {
  const Eigen::Vector3d extent = cloud.GetMaxBound() - cloud.GetMinBound();
  const double longest = extent.maxCoeff();
  const std::string spans =
      fmt::format("the cloud spans {:.4g} x {:.4g} x {:.4g} m", extent.x(), extent.y(), extent.z());
  if (!(voxel_m < longest))
    return Error{fmt::format(
        "reconstruct: voxel_m {} m is not smaller than the cloud ({}), so thinning would leave "
        "nothing to mesh",
        NumberText(voxel_m), spans)};
  if (longest / voxel_m > kMaxVoxelsPerAxis)
    return Error{fmt::format(
        "reconstruct: voxel_m {} m is too fine for the cloud ({}): at most {:.0f} voxels per "
        "axis, so at least {:.3g} m",
        NumberText(voxel_m), spans, kMaxVoxelsPerAxis, longest / kMaxVoxelsPerAxis)};
  return {};
}

// Reconstruct's work; every Open3D call goes through Open3dStep so that a throw names its step.
Expected<ReconstructionSummary> ReconstructUnguarded(const PosedFrames& input,
                                                     const ReconstructOptions& o,
                                                     const std::filesystem::path& out_dir,
                                                     const ReconstructProgress& on_step) {
  if (input.frames.empty()) return Error{"reconstruct: no frames"};
  if (input.start_poses.size() != input.frames.size() ||
      input.end_poses.size() != input.frames.size())
    return Error{fmt::format("reconstruct: {} frames but {} poses", input.frames.size(),
                             input.start_poses.size())};
  if (Status s = o.Validate(); !s.ok()) return s.error();
  int step = 0;
  auto begin_step = [&](int k) {
    step = k;
    if (on_step) on_step(k, kStepCount, kSteps[k]);
  };

  // 1. Merge: each point into the world at its own firing time; remember where the sensor was.
  begin_step(0);
  open3d::geometry::PointCloud cloud;
  std::vector<Eigen::Vector3d> origins;
  std::vector<double> intensity;
  ReconstructionSummary summary;
  const double kDeg = std::numbers::pi / 180;
  for (size_t k = 0; k < input.frames.size(); ++k) {
    const Frame& f = input.frames[k];
    summary.input_points += f.size();
    for (size_t i = 0; i < f.size(); ++i) {
      if (!(f.range_m[i] >= o.min_range_m && f.range_m[i] <= o.max_range_m)) continue;
      if (!std::isfinite(f.x_m[i]) || !std::isfinite(f.y_m[i]) || !std::isfinite(f.z_m[i]))
        continue;
      const double in_frame = input.columns_per_frame && f.column.size() == f.size()
                                  ? double(f.column[i]) / input.columns_per_frame
                                  : 0.0;
      const Pose<double> pose = physics::InterpolatePose(input.start_poses[k], input.end_poses[k],
                                                         std::min(in_frame, 1.0));
      const auto w = physics::TransformPoint(pose, Vec3<double>{f.x_m[i], f.y_m[i], f.z_m[i]});
      if (!std::isfinite(w.x) || !std::isfinite(w.y) || !std::isfinite(w.z)) continue;
      cloud.points_.emplace_back(w.x, w.y, w.z);
      origins.emplace_back(pose.translation.x, pose.translation.y, pose.translation.z);
      intensity.push_back(f.intensity.size() == f.size() ? f.intensity[i] : 0.0);
    }
  }
  if (cloud.points_.size() < kMinReconstructionPoints)
    return Error{fmt::format(
        "reconstruct: only {} usable points of {} (finite, range in [{}, {}] m); at least {} "
        "are needed",
        cloud.points_.size(), summary.input_points, NumberText(o.min_range_m),
        NumberText(o.max_range_m), kMinReconstructionPoints)};
  if (Status s = CheckVoxelAgainstExtent(cloud, o.voxel_m); !s.ok()) return s.error();

  // 2. Normals from 20 neighbours, turned towards the sensor that saw the point.
  begin_step(1);
  if (Status s = Open3dStep(
          kSteps[step], [&] { cloud.EstimateNormals(open3d::geometry::KDTreeSearchParamKNN(20)); });
      !s.ok())
    return s.error();
  if (cloud.normals_.size() != cloud.points_.size())
    return Error{"reconstruct: estimating normals: Open3D gave no normals"};
  for (size_t i = 0; i < cloud.points_.size(); ++i)
    if (cloud.normals_[i].dot(origins[i] - cloud.points_[i]) < 0) cloud.normals_[i] *= -1;

  // 3. Reflectance per point: R0 = I / (100 cos(theta)) where the incidence allows.
  std::vector<double> r0(cloud.points_.size(), NAN);
  for (size_t i = 0; i < cloud.points_.size(); ++i) {
    const Eigen::Vector3d to_sensor = (origins[i] - cloud.points_[i]).normalized();
    const double c = std::fabs(cloud.normals_[i].dot(to_sensor));
    if (c >= std::cos(o.max_incidence_deg * kDeg) && std::isfinite(intensity[i]))
      r0[i] = std::clamp(intensity[i] / (100.0 * c), 0.005, 1.0);
  }

  // 4. Thin to one point per voxel. Open3D averages positions, normals and colours; the
  // colour carries (R0 or 0, 1 where R0 is known, 0), so after averaging red / green is the
  // mean R0 over the voxel's points that have one, and green 0 means none has.
  begin_step(2);
  for (size_t i = 0; i < cloud.points_.size(); ++i)
    cloud.colors_.emplace_back(std::isnan(r0[i]) ? 0.0 : r0[i], std::isnan(r0[i]) ? 0.0 : 1.0, 0);
  std::shared_ptr<open3d::geometry::PointCloud> thinned;
  if (Status s = Open3dStep(kSteps[step], [&] { thinned = cloud.VoxelDownSample(o.voxel_m); });
      !s.ok())
    return s.error();
  summary.used_points = thinned ? thinned->points_.size() : 0;
  if (summary.used_points < kMinReconstructionPoints)
    return Error{fmt::format(
        "reconstruct: thinning {} points to one per {} m voxel left {}; at least {} are needed "
        "(use a smaller voxel_m)",
        cloud.points_.size(), NumberText(o.voxel_m), summary.used_points,
        kMinReconstructionPoints)};

  // 5. Mesh.
  begin_step(3);
  std::shared_ptr<open3d::geometry::TriangleMesh> mesh;
  std::vector<double> density;
  if (Status s = Open3dStep(
          kSteps[step],
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

  begin_step(4);
  if (Status s = Open3dStep(
          kSteps[step],
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
  // centroid (Open3D's KD-tree over the points that have one).
  begin_step(5);
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
  std::vector<double> sorted_r0 = r0_of;
  std::nth_element(sorted_r0.begin(), sorted_r0.begin() + sorted_r0.size() / 2, sorted_r0.end());
  const double median_r0 = sorted_r0[sorted_r0.size() / 2];
  std::vector<std::vector<Eigen::Vector3i>> by_class(o.reflectance_bins);
  std::vector<double> class_sum(o.reflectance_bins, 0.0);
  if (Status s = Open3dStep(
          kSteps[step],
          [&] {
            const open3d::geometry::KDTreeFlann tree(with_r0);
            std::vector<int> idx;
            std::vector<double> d2;
            for (const auto& t : mesh->triangles_) {
              const Eigen::Vector3d c =
                  (mesh->vertices_[t[0]] + mesh->vertices_[t[1]] + mesh->vertices_[t[2]]) / 3.0;
              double r = median_r0;  // triangles far from any measured point get the median
              if (tree.SearchHybrid(c, 4 * o.voxel_m, 1, idx, d2) > 0) r = r0_of[idx[0]];
              const int bin =
                  std::clamp(static_cast<int>(r * o.reflectance_bins), 0, o.reflectance_bins - 1);
              by_class[bin].push_back(t);
              class_sum[bin] += r;
            }
          });
      !s.ok())
    return s.error();

  // 7. Write one mesh per class, the materials and the scene.
  begin_step(6);
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return Error{fmt::format("{}: cannot create: {}", out_dir.string(), ec.message())};
  MaterialLibrary materials;
  SceneDescription scene;
  scene.materials = "materials.yaml";  // beside the scene, as are the meshes
  // Every file is written to its temporary first and all are moved into place at the end: a
  // failure or an interruption leaves the earlier reconstruction as it was.
  std::deque<AtomicOutput> pending;
  for (int b = 0; b < o.reflectance_bins; ++b) {
    if (by_class[b].empty()) continue;
    const double mean = class_sum[b] / static_cast<double>(by_class[b].size());
    const std::string name = fmt::format("surface_r{:02d}", b);
    const auto ply = out_dir / (name + ".ply");
    if (Status s = CheckOutputTarget(ply); !s.ok()) return s.error();
    AtomicOutput& out = pending.emplace_back(ply);
    auto tmp = out.temp_path();
    tmp += ".ply";  // Open3D picks the writer by extension
    RegisterTemporaryPath(tmp);
    bool written = false;
    size_t vertices = 0;
    if (Status s = Open3dStep("writing a mesh",
                              [&] {
                                open3d::geometry::TriangleMesh part;
                                part.vertices_ = mesh->vertices_;
                                part.triangles_ = by_class[b];
                                part.RemoveUnreferencedVertices();
                                vertices = part.vertices_.size();
                                written = open3d::io::WriteTriangleMesh(tmp.string(), part,
                                                                        /*write_ascii=*/false);
                                // Open3D reports success after its PLY writer failed to write
                                // (a full disk): read the file back and count.
                                open3d::geometry::TriangleMesh back;
                                written = written &&
                                          open3d::io::ReadTriangleMesh(tmp.string(), back) &&
                                          back.vertices_.size() == vertices &&
                                          back.triangles_.size() == by_class[b].size();
                              });
        !s.ok() || !written) {
      std::filesystem::remove(tmp, ec);
      UnregisterTemporaryPath(tmp);
      return Error{fmt::format("{}: cannot write the mesh{}", ply.string(),
                               s.ok() ? " (disk full?)" : " (" + s.message() + ")")};
    }
    std::filesystem::rename(tmp, out.temp_path(), ec);
    UnregisterTemporaryPath(tmp);
    if (ec) {
      const std::string why = ec.message();
      std::filesystem::remove(tmp, ec);
      return Error{fmt::format("{}: cannot move into place: {}", ply.string(), why)};
    }
    summary.written.push_back(ply);
    Material material;
    material.name = name;
    material.wavelength_nm = {kFlatSpectrumWavelengthNm};
    material.reflectance = {mean};
    material.source = fmt::format("estimated from {} triangles", by_class[b].size());
    materials.materials.push_back(std::move(material));
    SceneObjectDescription object;
    object.name = name;
    object.type = "mesh";
    object.file = name + ".ply";
    object.material = name;
    object.semantic_class = 1;
    object.instance_id = static_cast<uint32_t>(b + 1);
    scene.objects.push_back(std::move(object));
    summary.reflectance_classes.emplace_back(mean, by_class[b].size());
  }
  // Through the writers of the two schemas (house rule 13); what they write must load.
  LT_CHECK(materials.Validate().ok() && scene.Validate().ok());
  const std::string materials_text = SaveMaterialLibrary(
      materials,
      "Reflectances estimated by `lidartwin reconstruct` (R0 = I / (100 cos theta), seed 000\n"
      "eq. 4), one material per reflectance class: the mean over the class's triangles.");
  const std::string scene_text =
      SaveScene(scene, "Reconstructed by `lidartwin reconstruct` from recorded frames.");
  for (const auto& [file, text] : {std::pair{out_dir / "materials.yaml", &materials_text},
                                   std::pair{out_dir / "scene.yaml", &scene_text}}) {
    if (Status s = CheckOutputTarget(file); !s.ok()) return s.error();
    AtomicOutput& out = pending.emplace_back(file);
    std::ofstream stream(out.temp_path(), std::ios::binary);
    stream << *text;
    stream.close();
    if (!stream) return Error{file.string() + ": write failed (disk full?)"};
    summary.written.push_back(file);
  }
  for (AtomicOutput& out : pending) {
    if (Status s = out.Commit(); !s.ok()) return s.error();
  }
  summary.vertices = mesh->vertices_.size();
  summary.triangles = mesh->triangles_.size();
  return summary;
}

}  // namespace

Expected<ReconstructionSummary> Reconstruct(const PosedFrames& input, const ReconstructOptions& o,
                                            const std::filesystem::path& out_dir,
                                            const ReconstructProgress& on_step) {
  // Open3D reports failures by throwing (its LogError throws std::runtime_error) and may run
  // out of memory; nothing of either may leave this function (STYLE.md rule 6).
  try {
    return ReconstructUnguarded(input, o, out_dir, on_step);
  } catch (const std::exception& e) {
    return Error{fmt::format("reconstruct: {}", e.what())};
  }
}

}  // namespace lt
