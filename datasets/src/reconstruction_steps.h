// Reconstruct's steps, one file each (issue 12): the merged-cloud methods (Open3D Poisson and
// ball pivoting, cloud_meshing.cpp) and the scene writer (reconstructed_scene_writer.cpp). The
// range-image mesher and visibility carving have public headers of their own.
#pragma once

#include <fmt/core.h>

#include <exception>
#include <filesystem>
#include <functional>

#include "lidartwin/datasets/reconstruction.h"

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
// from the nearest thinned point that has one. Sets summary.input_points and used_points.
Expected<ReconstructedSurface> MeshMergedCloud(const PosedFrames& input,
                                               const ReconstructOptions& o,
                                               const BeginStep& begin_step,
                                               ReconstructionSummary& summary);

// Splits the surface into o.reflectance_bins classes (a triangle without a reflectance gets
// the median), and writes one PLY per class, materials.yaml and scene.yaml into out_dir, all
// or nothing. Fills summary.written, reflectance_classes, vertices and triangles.
Status WriteReconstructedScene(const ReconstructedSurface& surface, const ReconstructOptions& o,
                               const std::filesystem::path& out_dir,
                               ReconstructionSummary& summary);

}  // namespace lt::reconstruction
