// TSDF fusion (issue 12): every frame's returns rendered into six cube-map depth images around
// the sensor and integrated into a truncated signed distance field (Curless and Levoy 1996, "A
// volumetric method for building complex models from range images"; truncated as in Newcombe
// et al. 2011, KinectFusion) held by Open3D's legacy ScalableTSDFVolume, whose zero level set
// marching cubes turns into the mesh. Averaging distances fuses the frames' surfaces and their
// noise, and the space in front of each return is carved within the truncation band.
//
// Open3D 0.16's volume integrates pinhole depth images only, and a spinning lidar is not a
// pinhole camera, so each frame becomes six 90-degree images (a cube map) in the sensor frame at
// the middle of the frame, each return moved there with the pose of its own firing time.
#include <open3d/camera/PinholeCameraIntrinsic.h>
#include <open3d/geometry/Image.h>
#include <open3d/geometry/KDTreeFlann.h>
#include <open3d/geometry/PointCloud.h>
#include <open3d/geometry/RGBDImage.h>
#include <open3d/geometry/TriangleMesh.h>
#include <open3d/pipelines/integration/ScalableTSDFVolume.h>
#include <open3d/pipelines/integration/UniformTSDFVolume.h>
#include <open3d/utility/Helper.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <unordered_set>

#include "lidartwin/base/text_file.h"
#include "reconstruction_steps.h"

namespace lt::reconstruction {
namespace {

using physics::Pose;
using physics::Vec3;

// Pixels along each side of a cube face (90 deg): 0.18 deg at the face's centre, half that at
// its edges, finer than the 0.35 deg beam spacing of the sensors we record (OS-1-128 at 1024
// columns), so each return's splat (SplatFrame) decides the coverage, not the face's pixels.
constexpr int kFacePixels = 512;
constexpr double kFaceFocalPx = kFacePixels / 2.0;  // tan(45 deg) at the face's edge
// The SDF is truncated at this many voxels: range noise of a few centimetres and a surfel's
// error across a beam's footprint stay inside the band; thin objects keep their backs.
constexpr double kTruncationVoxels = 4;
// Voxels along each side of Open3D's blocks (its volume_unit_resolution, 16 by default). Every
// block within the truncation band of a return is allocated; returns beyond ~10 m lie farther
// apart than the voxels, so smaller blocks waste fewer voxels around each isolated return.
constexpr int kBlockVoxels = 8;
// Open3D 0.16 stores each voxel as a TSDFVoxel: its grid index and an RGB colour in doubles
// beside the distance and the weight (48 bytes), whether or not the volume integrates colour.
constexpr double kBytesPerVoxel = sizeof(open3d::geometry::TSDFVoxel);
// At most this many voxels (3 GiB at 48 bytes each): a finer voxel_m than that allows costs
// memory our machines do not have. Two OS-1-128 frames at 5 cm take 45 million (2.1 GiB).
constexpr double kMaxTsdfVoxels = double(1 << 26);
constexpr size_t kMaxTsdfBlocks =
    static_cast<size_t>(kMaxTsdfVoxels / (kBlockVoxels * kBlockVoxels * kBlockVoxels));
// A return's surfel follows its normal up to this incidence; beyond it, the slope across the
// surfel (tan 85 deg = 11 times its width) would turn a small error of the normal into a large
// one of the depth.
constexpr double kMaxSurfelIncidenceDeg = 85;
// Neighbours of a return that estimate its normal: about a 5 x 4 patch of an OS-1-128's scan.
constexpr int kNormalNeighbours = 20;
// A splat covers at most this many pixels each side of its return (10 deg beam spacing at a
// face's corner); returns more than this far outside a face are not drawn on it.
constexpr double kMaxSplatPixels = 32;
constexpr double kFaceMargin = 1 + kMaxSplatPixels / kFaceFocalPx;  // in tan(angle off axis)
// A triangle's reflectance: the mean over this many returns nearest its centroid (about the
// returns whose splats cover it), each read at its incidence on the triangle.
constexpr int kReflectanceNeighbours = 4;

// The six faces of the cube map: each camera's axes (x right, y down, z forward: Open3D's
// pinhole convention) in the sensor frame, as the columns of camera -> sensor.
std::array<Eigen::Matrix3d, 6> CubeFaces() {
  std::array<Eigen::Matrix3d, 6> faces;
  const Eigen::Vector3d forward[6] = {Eigen::Vector3d::UnitX(), -Eigen::Vector3d::UnitX(),
                                      Eigen::Vector3d::UnitY(), -Eigen::Vector3d::UnitY(),
                                      Eigen::Vector3d::UnitZ(), -Eigen::Vector3d::UnitZ()};
  for (int i = 0; i < 6; ++i) {
    // "Down" in the image: the sensor's -z on the four side faces, its x on the top and bottom.
    const Eigen::Vector3d down = i < 4 ? Eigen::Vector3d(0, 0, -1) : Eigen::Vector3d(1, 0, 0);
    faces[i].col(0) = down.cross(forward[i]);  // x = y cross z: right-handed
    faces[i].col(1) = down;
    faces[i].col(2) = forward[i];
  }
  return faces;
}

Eigen::Matrix4d MatrixOf(const Pose<double>& p) {
  const auto& q = p.rotation;
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.topLeftCorner<3, 3>() = Eigen::Quaterniond(q.w, q.x, q.y, q.z).toRotationMatrix();
  m.topRightCorner<3, 1>() = Eigen::Vector3d(p.translation.x, p.translation.y, p.translation.z);
  return m;
}

// One frame's usable returns in its reference sensor frame (the pose at the middle of the
// frame, or at its start when its points carry no column).
struct FrameReturns {
  Pose<double> reference;  // reference sensor -> the volume's frame
  std::vector<Eigen::Vector3d> points;
  std::vector<Eigen::Vector3d> normals;  // unit, either orientation
  double angular_step_rad = 0;           // the spacing of neighbouring beams
};

// The angular spacing of a frame's beams [rad], the coarser of azimuth and elevation: the
// azimuth step of its columns and the elevation step of its channels where the frame has both
// fields, else the side of the mean solid angle per return over the elevations it covers.
double AngularStepOf(const Frame& f, const std::vector<size_t>& used,
                     const std::vector<Eigen::Vector3d>& points, uint32_t columns_per_frame) {
  double el_min = INFINITY, el_max = -INFINITY;
  for (const Eigen::Vector3d& p : points) {
    const double el = std::atan2(p.z(), std::hypot(p.x(), p.y()));
    el_min = std::min(el_min, el);
    el_max = std::max(el_max, el);
  }
  if (points.size() < 2 || !(el_max > el_min)) return 0;
  if (f.channel.size() == f.size() && f.column.size() == f.size()) {
    std::unordered_set<uint32_t> channels, columns;
    for (size_t i : used) {
      channels.insert(f.channel[i]);
      columns.insert(f.column[i]);
    }
    const size_t n_columns = columns_per_frame ? columns_per_frame : columns.size();
    if (channels.size() >= 2 && n_columns >= 2)
      return std::max((el_max - el_min) / static_cast<double>(channels.size() - 1),
                      2 * std::numbers::pi / static_cast<double>(n_columns));
  }
  const double band_sr = 2 * std::numbers::pi * (std::sin(el_max) - std::sin(el_min));
  return std::sqrt(band_sr / static_cast<double>(points.size()));
}

// The blocks (kBlockVoxels voxels of voxel_m a side) integration would allocate: those within
// truncation plus half a beam spacing (the splat's reach) of each return. Stops counting beyond
// `limit`. On the OS-1-128 recording at 5 cm it counts 103k blocks where Open3D allocates 87k.
size_t BlocksTouched(const std::vector<Eigen::Vector3d>& points,
                     const std::vector<float>& spacing_m, double voxel_m, size_t limit) {
  const double block_m = kBlockVoxels * voxel_m;
  std::unordered_set<Eigen::Vector3i, open3d::utility::hash_eigen<Eigen::Vector3i>> blocks;
  for (size_t i = 0; i < points.size() && blocks.size() <= limit; ++i) {
    const double pad = kTruncationVoxels * voxel_m + 0.5 * spacing_m[i];
    const Eigen::Vector3i lo = ((points[i].array() - pad) / block_m).floor().cast<int>();
    const Eigen::Vector3i hi = ((points[i].array() + pad) / block_m).floor().cast<int>();
    for (int x = lo.x(); x <= hi.x(); ++x)
      for (int y = lo.y(); y <= hi.y(); ++y)
        for (int z = lo.z(); z <= hi.z(); ++z)
          blocks.insert({x, y, z});
  }
  return blocks.size();
}

std::string Spans(const open3d::geometry::PointCloud& cloud) {
  const Eigen::Vector3d e = cloud.GetMaxBound() - cloud.GetMinBound();
  return fmt::format("the returns span {:.4g} x {:.4g} x {:.4g} m", e.x(), e.y(), e.z());
}

// The refusal of a voxel too fine for the memory the volume may take, with the finest voxel
// (voxel_m doubled until it fits) that would do. `what`: how the volume met the limit.
Error TooFine(const open3d::geometry::PointCloud& cloud, const std::vector<float>& spacing_m,
              double voxel_m, const char* what) {
  double fits = voxel_m;
  while (fits < kMaxVoxelM &&
         BlocksTouched(cloud.points_, spacing_m, fits, kMaxTsdfBlocks) > kMaxTsdfBlocks)
    fits *= 2;
  return Error{fmt::format(
      "reconstruct: voxel_m {} m is too fine for TSDF fusion ({}): the volume {} {} blocks of "
      "{}^3 voxels ({:.3g} GiB of Open3D's voxels); voxel_m {} m fits",
      NumberText(voxel_m), Spans(cloud), what, kMaxTsdfBlocks, kBlockVoxels,
      kMaxTsdfVoxels * kBytesPerVoxel / (1 << 30), NumberText(fits))};
}

// Draws a frame's returns on the six faces. Each return covers the pixels within half a beam
// spacing of it, so neighbouring returns tile the image without holes: the gnomonic projection
// stretches an angle alpha at tangents (x, y) off the axis to alpha f sqrt((1 + x^2 + y^2)
// (1 + x^2)) pixels along u (and with y along v). Across its pixels a return is a small plane
// through it along its normal (a surfel), so a surface inclined to the ray (the ground) keeps
// its slope between the returns instead of becoming steps; beyond kMaxSurfelIncidenceDeg the
// plane is taken to face the face's axis. Where two returns cover a pixel, the one more than a
// truncation band nearer occludes the other; otherwise the one whose centre is nearer the pixel
// keeps it, so no surface is pulled towards the sensor by whichever return lies nearest. The
// depth is z along the face's axis, as Open3D expects; pixels no return covers stay 0, which
// Open3D reads as no measurement.
void SplatFrame(const FrameReturns& f, const std::array<Eigen::Matrix3d, 6>& faces,
                double occlusion_m, std::array<open3d::geometry::RGBDImage, 6>& images,
                std::vector<float>& centre_px2) {
  constexpr double kCentre = (kFacePixels - 1) / 2.0;  // pixel centres at whole coordinates
  const double cos_max_incidence = std::cos(kMaxSurfelIncidenceDeg * std::numbers::pi / 180);
  const double half_step = 0.5 * f.angular_step_rad;
  centre_px2.resize(size_t{kFacePixels} * kFacePixels);
  for (int j = 0; j < 6; ++j) {
    auto& data = images[j].depth_.data_;
    std::fill(data.begin(), data.end(), uint8_t{0});
    float* depth = reinterpret_cast<float*>(data.data());
    const Eigen::Matrix3d sensor_to_camera = faces[j].transpose();
    for (size_t i = 0; i < f.points.size(); ++i) {
      const Eigen::Vector3d c = sensor_to_camera * f.points[i];
      if (!(c.z() > 0)) continue;
      const double x = c.x() / c.z(), y = c.y() / c.z();
      if (std::fabs(x) > kFaceMargin || std::fabs(y) > kFaceMargin) continue;
      // The surfel's plane n . q = n . c; its normal in the face's frame, or the face's axis.
      Eigen::Vector3d n = sensor_to_camera * f.normals[i];
      if (!(std::fabs(n.dot(c)) >= cos_max_incidence * c.norm())) n = Eigen::Vector3d::UnitZ();
      const double n_dot_c = n.dot(c);
      const double stretch = 1 + x * x + y * y;
      const double ru =
          std::min(half_step * kFaceFocalPx * std::sqrt(stretch * (1 + x * x)), kMaxSplatPixels);
      const double rv =
          std::min(half_step * kFaceFocalPx * std::sqrt(stretch * (1 + y * y)), kMaxSplatPixels);
      const double u = kFaceFocalPx * x + kCentre, v = kFaceFocalPx * y + kCentre;
      // The pixel centres within the splat, and at least the pixel the return falls in.
      const long u0 = std::max(0L, std::min(std::lround(u), static_cast<long>(std::ceil(u - ru))));
      const long u1 = std::min(kFacePixels - 1L,
                               std::max(std::lround(u), static_cast<long>(std::floor(u + ru))));
      const long v0 = std::max(0L, std::min(std::lround(v), static_cast<long>(std::ceil(v - rv))));
      const long v1 = std::min(kFacePixels - 1L,
                               std::max(std::lround(v), static_cast<long>(std::floor(v + rv))));
      for (long pv = v0; pv <= v1; ++pv)
        for (long pu = u0; pu <= u1; ++pu) {
          // The pixel's ray (a, b, 1) meets the plane at z = n . c / n . (a, b, 1).
          const Eigen::Vector3d ray((pu - kCentre) / kFaceFocalPx, (pv - kCentre) / kFaceFocalPx,
                                    1);
          const float z = static_cast<float>(n_dot_c / n.dot(ray));
          if (!(z > 0)) continue;
          const size_t p = static_cast<size_t>(pv * kFacePixels + pu);
          const float px2 = static_cast<float>((pu - u) * (pu - u) + (pv - v) * (pv - v));
          float& d = depth[p];
          const bool take =
              d == 0 || z < d - occlusion_m || (z <= d + occlusion_m && px2 < centre_px2[p]);
          if (take) d = z, centre_px2[p] = px2;
        }
    }
  }
}

}  // namespace

Expected<ReconstructedSurface> MeshByTsdf(const PosedFrames& input, const ReconstructOptions& o,
                                          const BeginStep& begin_step,
                                          ReconstructionSummary& summary) {
  const char* step = "";
  auto begin = [&](const char* what) {
    step = what;
    begin_step(what);
  };
  // 1. Returns: each into the world at its own firing time, then into its frame's reference
  // sensor frame. The volume's frame is the world moved to the first frame's sensor, since
  // Open3D integrates in float (7 digits: 6 cm steps at UTM-sized coordinates of 1e6 m).
  begin(kTsdfSteps[0]);
  const Vec3<double> offset = input.start_poses[0].translation;
  auto local = [&](Pose<double> p) {
    p.translation = p.translation - offset;
    return p;
  };
  std::vector<FrameReturns> frames(input.frames.size());
  open3d::geometry::PointCloud cloud;  // every return in the volume's frame
  std::vector<Eigen::Vector3d> origins;
  std::vector<double> intensity;
  std::vector<float> spacing_m;  // the beam spacing at each return's range
  for (size_t k = 0; k < input.frames.size(); ++k) {
    const Frame& f = input.frames[k];
    FrameReturns& fr = frames[k];
    summary.input_points += f.size();
    fr.reference = local(physics::InterpolatePose(input.start_poses[k], input.end_poses[k],
                                                  input.columns_per_frame ? 0.5 : 0.0));
    std::vector<size_t> used;
    for (size_t i = 0; i < f.size(); ++i) {
      if (!(f.range_m[i] >= o.min_range_m && f.range_m[i] <= o.max_range_m)) continue;
      if (!std::isfinite(f.x_m[i]) || !std::isfinite(f.y_m[i]) || !std::isfinite(f.z_m[i]))
        continue;
      const Pose<double> pose = local(PoseOfPoint(input, k, i));
      const auto w = physics::TransformPoint(pose, Vec3<double>{f.x_m[i], f.y_m[i], f.z_m[i]});
      const auto s = physics::InverseTransformPoint(fr.reference, w);
      if (!std::isfinite(s.x) || !std::isfinite(s.y) || !std::isfinite(s.z)) continue;
      used.push_back(i);
      fr.points.emplace_back(s.x, s.y, s.z);
      cloud.points_.emplace_back(w.x, w.y, w.z);
      origins.emplace_back(pose.translation.x, pose.translation.y, pose.translation.z);
      intensity.push_back(f.intensity.size() == f.size() ? f.intensity[i] : 0.0);
    }
    fr.angular_step_rad = AngularStepOf(f, used, fr.points, input.columns_per_frame);
    for (const Eigen::Vector3d& s : fr.points)
      spacing_m.push_back(static_cast<float>(fr.angular_step_rad * s.norm()));
  }
  summary.in_range_points = summary.used_points = cloud.points_.size();  // nothing thinned
  if (cloud.points_.size() < kMinReconstructionPoints)
    return Error{fmt::format(
        "reconstruct: only {} usable points of {} (finite, range in [{}, {}] m); at least {} "
        "are needed",
        cloud.points_.size(), summary.input_points, NumberText(o.min_range_m),
        NumberText(o.max_range_m), kMinReconstructionPoints)};
  if (Status s = CheckVoxelAgainstExtent(cloud, o.voxel_m); !s.ok()) return s.error();
  if (BlocksTouched(cloud.points_, spacing_m, o.voxel_m, kMaxTsdfBlocks) > kMaxTsdfBlocks)
    return TooFine(cloud, spacing_m, o.voxel_m, "would need more than");

  // 2. Normals from each frame's own returns (a frame's surfaces, free of the others' pose
  // errors), by Open3D's principal axes of the nearest returns.
  begin(kTsdfSteps[1]);
  for (FrameReturns& fr : frames) {
    open3d::geometry::PointCloud frame_cloud;
    frame_cloud.points_ = fr.points;
    if (Status s = Open3dStep(step,
                              [&] {
                                frame_cloud.EstimateNormals(
                                    open3d::geometry::KDTreeSearchParamKNN(kNormalNeighbours));
                              });
        !s.ok())
      return s.error();
    if (frame_cloud.normals_.size() != fr.points.size())
      return Error{"reconstruct: estimating normals: Open3D gave no normals"};
    fr.normals = std::move(frame_cloud.normals_);
  }

  // 3. Integration, face by face. Stride 1: Open3D allocates blocks around every pixel, not
  // every fourth (its default), which would miss a narrow splat. The memory bound is checked
  // again on what Open3D allocated, the estimate above being one. Open3D integrates block by
  // block, each block one OpenMP region of EstimateMaxThreads() threads (the cores, unless
  // OMP_NUM_THREADS is set; omp_set_num_threads does not reach it), which pays on an idle
  // machine and not on a busy one: OMP_NUM_THREADS=1 is faster there.
  begin(kTsdfSteps[2]);
  const double trunc_m = kTruncationVoxels * o.voxel_m;
  open3d::pipelines::integration::ScalableTSDFVolume volume(
      o.voxel_m, trunc_m, open3d::pipelines::integration::TSDFVolumeColorType::NoColor,
      kBlockVoxels, /*depth_sampling_stride=*/1);
  const open3d::camera::PinholeCameraIntrinsic intrinsic(kFacePixels, kFacePixels, kFaceFocalPx,
                                                         kFaceFocalPx, (kFacePixels - 1) / 2.0,
                                                         (kFacePixels - 1) / 2.0);
  const std::array<Eigen::Matrix3d, 6> faces = CubeFaces();
  std::array<open3d::geometry::RGBDImage, 6> images;  // no colour image: the volume has none
  for (auto& image : images)
    image.depth_.Prepare(kFacePixels, kFacePixels, 1, 4);
  std::vector<float> centre_px2;
  for (const FrameReturns& fr : frames) {
    if (fr.points.empty()) continue;
    SplatFrame(fr, faces, trunc_m, images, centre_px2);
    for (int j = 0; j < 6; ++j) {
      Eigen::Matrix4d camera_to_sensor = Eigen::Matrix4d::Identity();
      camera_to_sensor.topLeftCorner<3, 3>() = faces[j];
      // Open3D's extrinsic maps the volume's frame to the camera.
      const Eigen::Matrix4d extrinsic = (MatrixOf(fr.reference) * camera_to_sensor).inverse();
      if (Status s = Open3dStep(step, [&] { volume.Integrate(images[j], intrinsic, extrinsic); });
          !s.ok())
        return s.error();
      if (volume.volume_units_.size() > kMaxTsdfBlocks)
        return TooFine(cloud, spacing_m, o.voxel_m, "grew past");
    }
  }

  // 4. The zero level set by marching cubes; vertices shared by neighbouring cubes merged.
  begin(kTsdfSteps[3]);
  std::shared_ptr<open3d::geometry::TriangleMesh> mesh;
  if (Status s = Open3dStep(step,
                            [&] {
                              mesh = volume.ExtractTriangleMesh();
                              volume.Reset();  // the blocks' memory, before the KD-tree's
                              mesh->RemoveDuplicatedVertices();
                              mesh->RemoveDegenerateTriangles();
                              mesh->RemoveUnreferencedVertices();
                              mesh->ComputeVertexNormals();
                            });
      !s.ok())
    return s.error();
  if (!mesh || mesh->triangles_.empty())
    return Error{fmt::format(
        "reconstruct: TSDF fusion of {} returns in {} m voxels gave no surface (frames that "
        "see no surface twice within {} m?)",
        cloud.points_.size(), NumberText(o.voxel_m), NumberText(trunc_m))};

  // 5. Reflectance per triangle: the mean R0 of the returns nearest its centroid, each read at
  // its incidence on the triangle (the mean of the vertex normals), among those whose splat
  // could have made it (within the truncation band plus one beam spacing); NaN where none did.
  begin(kTsdfSteps[4]);
  ReconstructedSurface surface;
  surface.vertices.reserve(mesh->vertices_.size());
  for (const Eigen::Vector3d& v : mesh->vertices_)
    surface.vertices.push_back({v.x() + offset.x, v.y() + offset.y, v.z() + offset.z});
  if (Status s = Open3dStep(
          step,
          [&] {
            const open3d::geometry::KDTreeFlann tree(cloud);
            std::vector<int> idx;
            std::vector<double> d2;
            for (const Eigen::Vector3i& t : mesh->triangles_) {
              const Eigen::Vector3d c =
                  (mesh->vertices_[t[0]] + mesh->vertices_[t[1]] + mesh->vertices_[t[2]]) / 3.0;
              const Eigen::Vector3d n = (mesh->vertex_normals_[t[0]] + mesh->vertex_normals_[t[1]] +
                                         mesh->vertex_normals_[t[2]])
                                            .normalized();
              double sum = 0;
              int count = 0;
              tree.SearchKNN(c, kReflectanceNeighbours, idx, d2);
              for (size_t m = 0; m < idx.size(); ++m) {
                const int i = idx[m];
                if (std::sqrt(d2[m]) > trunc_m + spacing_m[i]) continue;
                const Eigen::Vector3d to_sensor = origins[i] - cloud.points_[i];
                const double range = to_sensor.norm();
                const double r0 = o.reading.Reflectance(
                    intensity[i], range, std::fabs(n.dot(to_sensor / range)), o.max_incidence_deg);
                if (std::isfinite(r0)) sum += r0, ++count;
              }
              surface.triangles.push_back({static_cast<uint32_t>(t[0]), static_cast<uint32_t>(t[1]),
                                           static_cast<uint32_t>(t[2])});
              surface.triangle_reflectance.push_back(count ? static_cast<float>(sum / count) : NAN);
            }
          });
      !s.ok())
    return s.error();
  return surface;
}

}  // namespace lt::reconstruction
