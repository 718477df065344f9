// Reconstruct's steps, one file each (issue 12): the merged-cloud methods (Open3D Poisson and
// ball pivoting, cloud_meshing.cpp), TSDF fusion (tsdf_fusion.cpp) and the scene writer
// (reconstructed_scene_writer.cpp). The range-image mesher and visibility carving have public
// headers of their own.
#pragma once

#include <fmt/core.h>

#include <exception>
#include <filesystem>
#include <functional>

#include "lidartwin/reconstruct/reconstruction.h"

namespace open3d::geometry {
class PointCloud;
}

namespace lt::reconstruction {

// Called with each step's name as it begins.
using BeginStep = std::function<void(const char* what)>;

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

// The steps MeshMergedCloud announces, in order.
inline constexpr const char* kCloudSteps[] = {"merging frames", "estimating normals",
                                              "thinning to voxels", "meshing", "trimming the mesh"};

// Poisson or ball pivoting over the merged points of every frame; each triangle's reflectance
// from the nearest thinned point that has one. Sets summary.input_points, in_range_points and
// used_points.
Expected<ReconstructedSurface> MeshMergedCloud(const PosedFrames& input,
                                               const ReconstructOptions& o,
                                               const BeginStep& begin_step,
                                               ReconstructionSummary& summary);

// Refuses a voxel_m not smaller than the cloud's longest side, or finer than kMaxVoxelsPerAxis
// along it (the message names voxel_m, the extent and the limit).
Status CheckVoxelAgainstExtent(const open3d::geometry::PointCloud& cloud, double voxel_m);

// The steps MeshByTsdf announces, in order.
inline constexpr const char* kTsdfSteps[] = {"placing returns in the world", "estimating normals",
                                             "integrating depth images", "extracting the surface",
                                             "estimating reflectance"};

// TSDF fusion (Open3D's ScalableTSDFVolume, voxel_m voxels, truncation at 4 voxels) of each
// frame's returns drawn as surfels into six cube-map depth images around its sensor; marching
// cubes gives
// the surface, each triangle's reflectance the mean over the returns nearest it. Refuses a
// voxel_m whose volume would exceed 2^26 voxels (3 GiB), naming the voxel_m that fits. Sets
// summary.input_points, in_range_points and used_points.
Expected<ReconstructedSurface> MeshByTsdf(const PosedFrames& input, const ReconstructOptions& o,
                                          const BeginStep& begin_step,
                                          ReconstructionSummary& summary);

// Splits the surface into o.reflectance_bins classes (a triangle without a reflectance gets
// the median), and writes one PLY per class, materials.yaml and scene.yaml into out_dir, all
// or nothing. Fills summary.written, reflectance_classes, vertices and triangles.
Status WriteReconstructedScene(const ReconstructedSurface& surface, const ReconstructOptions& o,
                               const std::filesystem::path& out_dir,
                               ReconstructionSummary& summary);

}  // namespace lt::reconstruction
