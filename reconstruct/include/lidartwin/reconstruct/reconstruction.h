// Scene reconstruction from recorded frames (DESIGN.md sec. 7, issues 4 and 12). Methods:
//   range-image   each frame's neighbouring returns joined into triangles, a surfel for each
//                 return no triangle covers (range_image_mesh.h)
//   surfels       every return a square facing its sensor, one pixel of its scan in size
//   poisson       points of all frames merged in the world (each at its own firing time),
//                 normals towards the sensor, Open3D's screened Poisson, low-density trimming
//   ball-pivoting the same merged points, Open3D's ball pivoting
//   tsdf          each frame's returns drawn into cube-map depth images around its sensor,
//                 fused in Open3D's truncated signed distance volume, marching cubes
// then visibility carving (visibility_carving.h: what a frame saw through is removed), and
// each surface's reflectance estimated by inverting the intensity model. The result is a
// scene the simulator loads. docs/validation.md compares the methods on real recordings.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/physics/pose.h"
#include "lidartwin/reconstruct/reconstructed_surface.h"

namespace lt {

// Limits of ReconstructOptions (documented in the usage of `lidartwin reconstruct`).
constexpr double kMinVoxelM = 1e-3;  // below a millimetre no lidar resolves anything
constexpr double kMaxVoxelM = 100;
constexpr double kMaxRangeM = 10000;
// Voxel indices along one axis of the cloud's extent: Open3D keeps them as int (it throws
// beyond 2^31), and a finer grid than this only costs memory for no detail a lidar has.
constexpr double kMaxVoxelsPerAxis = 1 << 20;
// Fewer points than this (after filtering, and after thinning) make no mesh worth the name;
// Poisson and ball pivoting misbehave on a handful of points.
constexpr size_t kMinReconstructionPoints = 100;

// The most memory a batch reconstruction (Reconstruct, every frame held) may plan [bytes], and
// what it takes for `points` points of the frames chosen: a base (libraries, the output's
// classes) and, a point, the frames held twice (read, then picked), the meshing's working
// arrays and triangles, and the fusion's and carving's one-frame casters. 315 bytes a point
// were measured at 25 HDL-32E frames (bench/RESULTS.md, issue 36); 400 leaves a margin.
inline constexpr uint64_t kBatchReconstructionBudgetBytes = uint64_t{768} << 20;
constexpr uint64_t BatchReconstructionBytes(uint64_t points) {
  return (uint64_t{96} << 20) + 400 * points;
}

// The methods ReconstructOptions::method accepts, the default first.
inline constexpr const char* kReconstructMethods[] = {"range-image", "surfels", "poisson",
                                                      "ball-pivoting", "tsdf"};

struct ReconstructOptions {
  std::string method = kReconstructMethods[0];
  int poisson_depth = 10;          // octree depth: cell = scene extent / 2^depth
  double density_quantile = 0.05;  // Poisson vertices below this density quantile are removed
  double voxel_m = 0.05;           // merged points thinned to one per voxel; tsdf's voxel
  double max_gap_m = 0.3;          // mesh vertices farther than this from any point are cut
  double min_range_m = 1.0;        // drop points nearer than this (the vehicle, the operator)
  double max_range_m = 80.0;
  // How an intensity becomes R0 (reconstructed_surface.h): by default a calibrated
  // reflectivity in percent, I = 100 R0 cos(theta), seed 000 eq. (4). Incidence beyond
  // max_incidence_deg is not used.
  IntensityReading reading;
  double max_incidence_deg = 75;
  // Through a return's own face (range_image_mesh.h): up to 89 deg where every simulated
  // viewpoint is near one the frames were seen from (a sensor that barely moved), else as above.
  double own_face_max_incidence_deg = 75;
  BeamOrigins beam_origins;  // of the recording's sensor (reconstructed_surface.h)
  bool carve = true;         // visibility carving (visibility_carving.h) after meshing
  // Surfaces are split into this many reflectance classes of equal ratio between
  // kMinReadReflectance and 1, a material each: 300 are 1.8 % wide, a class's mean within 0.9 %
  // of its members. 40 classes (14 % wide) left the XT16 bag's frame 2 at an intensity error of
  // 3.38 counts, 100 at 2.87, 300 at 2.73 (floor 1.35); 1000 gain little more.
  int reflectance_bins = 300;
  // Hand the surface written back in ReconstructionSummary::surface (reproduce places the
  // held-out frame on it without reading the scene's files back).
  bool keep_surface = false;

  // Keys by field: method one of kReconstructMethods, poisson_depth 4..14, density_quantile in
  // [0, 1), voxel_m in [kMinVoxelM, kMaxVoxelM], max_gap_m finite >= 0, 0 <= min_range_m <
  // max_range_m <= kMaxRangeM, max_incidence_deg in (0, 90), reflectance_bins 1..1000.
  // Reconstruct calls it; it also bounds the voxels per axis of the cloud it is given
  // (kMaxVoxelsPerAxis) and refuses a voxel larger than the cloud.
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

struct ReconstructionSummary {
  size_t input_points = 0;     // every point of the frames
  size_t in_range_points = 0;  // of those, finite and within [min_range_m, max_range_m]
  // What the mesher took: one point per voxel_m voxel (poisson, ball-pivoting; the only
  // methods that thin), else the points in range.
  size_t used_points = 0;
  size_t vertices = 0, triangles = 0;                          // the surface written
  size_t carved_triangles = 0;                                 // removed by visibility carving
  std::vector<std::pair<double, size_t>> reflectance_classes;  // reflectance, triangles
  std::vector<std::filesystem::path> written;  // every file written, in order (scene.yaml last)
  std::shared_ptr<const ReconstructedSurface> surface;  // with keep_surface: what was written
};

// Called as each step begins: (step index from 0, number of steps, what it does).
using ReconstructProgress = std::function<void(int step, int steps, const char* what)>;

// Writes out_dir/scene.yaml, out_dir/materials.yaml and one PLY mesh per reflectance class.
// Never throws: an exception out of Open3D (or out of memory) becomes an error naming the step.
Expected<ReconstructionSummary> Reconstruct(const PosedFrames& input,
                                            const ReconstructOptions& options,
                                            const std::filesystem::path& out_dir,
                                            const ReconstructProgress& on_step = {});

// Writes a surface made elsewhere (IncrementalReconstruction) as Reconstruct writes its own:
// reflectance classes, one PLY per class, materials.yaml and scene.yaml, all or nothing.
Expected<ReconstructionSummary> WriteReconstruction(const ReconstructedSurface& surface,
                                                    const ReconstructOptions& options,
                                                    const std::filesystem::path& out_dir);

// KITTI odometry poses: one line per frame, 12 numbers (a 3x4 row-major [R | t]).
Expected<std::vector<physics::Pose<double>>> LoadKittiPoses(const std::filesystem::path& file);

}  // namespace lt
