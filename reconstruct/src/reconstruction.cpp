#include "lidartwin/reconstruct/reconstruction.h"

#include "lidartwin/base/cancellation.h"
#include "lidartwin/base/config_check.h"
#include "lidartwin/base/message_text.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/sim/material_library.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <numbers>
#include <sstream>
#include <vector>

#include "lidartwin/reconstruct/range_image_mesh.h"
#include "lidartwin/reconstruct/visibility_carving.h"
#include "reconstruction_steps.h"

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
    // Word by word through strtod, which reads nan, inf and overflowing values (>> refuses
    // them, and the line would read as too short).
    std::istringstream ss(line);
    double m[12];
    int n = 0;
    for (std::string word; ss >> word; ++n) {
      char* end = nullptr;
      const double v = std::strtod(word.c_str(), &end);
      if (end == word.c_str() || *end != '\0')
        return Error{fmt::format("{}: line {}: value {} '{}' is not a number", file.string(),
                                 line_no, n + 1, ShortenedForMessage(word))};
      if (!std::isfinite(v))
        return Error{fmt::format("{}: line {}: value {} ('{}') is not finite", file.string(),
                                 line_no, n + 1, ShortenedForMessage(word))};
      if (n < 12) m[n] = v;
    }
    if (n != 12)
      return Error{fmt::format("{}: line {}: expected 12 numbers (a 3x4 pose), got {}",
                               file.string(), line_no, n)};
    if (!IsRotation(m))
      return Error{
          fmt::format("{}: line {}: the 3x3 part is not a rotation", file.string(), line_no)};
    if (const std::string far = PositionLimitProblem(m[3], m[7], m[11]); !far.empty())
      return Error{fmt::format("{}: line {}: the translation {}", file.string(), line_no, far)};
    poses.push_back({physics::QuatFromRotationMatrix(m, 4), {m[3], m[7], m[11]}});
  }
  if (poses.empty()) return Error{fmt::format("{}: no poses", file.string())};
  return poses;
}

void ReconstructOptions::Check(ConfigCheck& check) const {
  if (std::find(std::begin(kReconstructMethods), std::end(kReconstructMethods), method) ==
      std::end(kReconstructMethods))
    check.Fail("method",
               "'" + method + "' (expected range-image, surfels, poisson, ball-pivoting or tsdf)");
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
  if (!(own_face_max_incidence_deg > 0 && own_face_max_incidence_deg < 90))
    check.Fail("own_face_max_incidence_deg",
               "must be in (0, 90), got " + NumberText(own_face_max_incidence_deg));
  // Material names carry the class as three digits (surface_r007).
  if (reflectance_bins < 1 || reflectance_bins > 1000)
    check.Fail("reflectance_bins", "must be in 1..1000, got " + std::to_string(reflectance_bins));
  // Written into the materials as roughness_deg, which they hold in [0, 90).
  if (!(reading.roughness_rad >= 0 && reading.roughness_rad < std::numbers::pi / 2))
    check.Fail("reading.roughness_rad",
               "must be in [0, pi/2) rad, got " + NumberText(reading.roughness_rad));
  if (!(reading.max_reflectance >= 1 && reading.max_reflectance <= kMaxApparentReflectance))
    check.Fail("reading.max_reflectance", "must be in [1, " + NumberText(kMaxApparentReflectance) +
                                              "], got " + NumberText(reading.max_reflectance));
}

Status ReconstructOptions::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("reconstruct options");
}

namespace {

using reconstruction::kCloudSteps;
using reconstruction::kTsdfSteps;

// The steps Reconstruct announces for a method, in order.
std::vector<const char*> StepsOf(const ReconstructOptions& o) {
  std::vector<const char*> steps;
  if (o.method == "range-image" || o.method == "surfels")
    steps.push_back(o.method == "surfels" ? "making surfels" : "meshing range images");
  else if (o.method == "tsdf")
    steps.assign(std::begin(kTsdfSteps), std::end(kTsdfSteps));
  else
    steps.assign(std::begin(kCloudSteps), std::end(kCloudSteps));
  if (o.carve) steps.push_back("carving what the frames saw through");
  steps.push_back("writing the scene");
  return steps;
}

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
  const std::vector<const char*> steps = StepsOf(o);
  int step = 0;
  auto begin_step = [&](const char* what) {
    if (on_step) on_step(step, static_cast<int>(steps.size()), what);
    ++step;
  };
  // A caller's request to stop (base/cancellation.h), heeded between the steps: a step itself
  // (Open3D's meshing) runs to its end.

  ReconstructionSummary summary;
  Expected<ReconstructedSurface> surface = Error{""};
  if (o.method == "range-image" || o.method == "surfels") {
    begin_step(steps[0]);
    RangeImageMeshOptions mo;
    mo.surfels = o.method == "surfels" ? RangeImageMeshOptions::Surfels::kOnly
                                       : RangeImageMeshOptions::Surfels::kForUnmeshed;
    mo.min_range_m = o.min_range_m;
    mo.max_range_m = o.max_range_m;
    mo.reading = o.reading;
    mo.reflectance_max_incidence_deg = o.max_incidence_deg;
    mo.own_face_max_incidence_deg = o.own_face_max_incidence_deg;
    mo.beam_origins = o.beam_origins;
    for (const Frame& f : input.frames) {
      summary.input_points += f.size();
      for (size_t i = 0; i < f.size(); ++i)
        summary.in_range_points += f.range_m[i] >= o.min_range_m && f.range_m[i] <= o.max_range_m &&
                                   std::isfinite(f.x_m[i]) && std::isfinite(f.y_m[i]) &&
                                   std::isfinite(f.z_m[i]);
    }
    surface = MeshRangeImages(input, mo);
    if (!surface.ok()) return Error{"reconstruct: " + surface.message()};
    // Not the surface's vertices: surfels and ground discs add several per point.
    summary.used_points = summary.in_range_points;
  } else if (o.method == "tsdf") {
    surface = reconstruction::MeshByTsdf(input, o, begin_step, summary);
    if (!surface.ok()) return surface.error();
  } else {
    surface = reconstruction::MeshMergedCloud(input, o, begin_step, summary);
    if (!surface.ok()) return surface.error();
  }
  if (Status s = CheckCancelled(); !s.ok()) return s.error();
  if (o.carve) {
    begin_step("carving what the frames saw through");
    VisibilityCarvingOptions co;
    co.min_range_m = o.min_range_m;
    co.max_range_m = o.max_range_m;
    auto carved = CarveSeenThrough(*surface, input, co);
    if (!carved.ok()) return Error{"reconstruct: " + carved.message()};
    summary.carved_triangles = carved->triangles_removed;
    if (surface->triangles.empty())
      return Error{fmt::format(
          "reconstruct: visibility carving removed all {} triangles: every surface was seen "
          "through by another frame (frames that do not overlap, or wrong poses?)",
          carved->triangles_removed)};
  }
  if (Status s = CheckCancelled(); !s.ok()) return s.error();
  begin_step("writing the scene");
  if (Status s = reconstruction::WriteReconstructedScene(*surface, o, out_dir, summary); !s.ok())
    return s.error();
  if (o.keep_surface)
    summary.surface = std::make_shared<const ReconstructedSurface>(std::move(*surface));
  return summary;
}

}  // namespace

Expected<ReconstructionSummary> WriteReconstruction(const ReconstructedSurface& surface,
                                                    const ReconstructOptions& o,
                                                    const std::filesystem::path& out_dir) {
  if (Status s = o.Validate(); !s.ok()) return s.error();
  if (surface.triangles.empty()) return Error{"reconstruct: the surface has no triangles"};
  ReconstructionSummary summary;
  try {
    if (Status s = reconstruction::WriteReconstructedScene(surface, o, out_dir, summary); !s.ok())
      return s.error();
  } catch (const std::exception& e) {
    return Error{fmt::format("reconstruct: {}", e.what())};
  }
  return summary;
}

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
