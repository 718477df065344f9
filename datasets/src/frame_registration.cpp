#include "lidartwin/datasets/frame_registration.h"

#include <fmt/core.h>
#include <omp.h>
#include <open3d/geometry/KDTreeSearchParam.h>
#include <open3d/geometry/PointCloud.h>
#include <open3d/pipelines/registration/Registration.h>
#include <open3d/pipelines/registration/TransformationEstimation.h>

#include <cmath>
#include <exception>
#include <memory>
#include <string>

#include "lidartwin/datasets/reconstruction.h"

namespace lt {
namespace {

using open3d::geometry::PointCloud;
using physics::Pose;

namespace registration = open3d::pipelines::registration;

// Neighbourhood of the normals at each scale: within kNormalRadiusVoxels voxels, at most
// kNormalNeighbours points (enough for a plane fit, few enough to stay on one surface).
constexpr double kNormalRadiusVoxels = 2;
constexpr int kNormalNeighbours = 30;

// Runs one Open3D call: an exception out of it (Open3D's LogError throws, allocations may
// fail) becomes an error naming the step.
template <typename F>
Status Open3dStep(const std::string& step, F&& f) {
  try {
    f();
    return {};
  } catch (const std::exception& e) {
    return Error{fmt::format("estimate poses: {} failed in Open3D: {}", step, e.what())};
  }
}

// Open3D's ICP gathers correspondences and sums its normal equations in OpenMP threads and
// merges their partial results in whichever order the threads finish, so with more than one
// thread its result changes in the last bits from run to run, and ICP's iterations can carry
// that further. One thread makes it deterministic (STYLE.md rule 8). omp_set_num_threads sets
// the calling thread's own setting, so other threads of the program are not affected.
class OneOpenMpThread {
 public:
  OneOpenMpThread() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneOpenMpThread() { omp_set_num_threads(saved_); }
  OneOpenMpThread(const OneOpenMpThread&) = delete;
  OneOpenMpThread& operator=(const OneOpenMpThread&) = delete;

 private:
  int saved_;
};

Eigen::Matrix4d MatrixOf(const Pose<double>& p) {
  const auto& q = p.rotation;
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.block<3, 3>(0, 0) = Eigen::Quaterniond(q.w, q.x, q.y, q.z).normalized().toRotationMatrix();
  m.block<3, 1>(0, 3) = Eigen::Vector3d(p.translation.x, p.translation.y, p.translation.z);
  return m;
}

Pose<double> PoseOf(const Eigen::Matrix4d& m) {
  double r[9];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      r[a * 3 + b] = m(a, b);
  return {physics::QuatFromRotationMatrix(r, 3), {m(0, 3), m(1, 3), m(2, 3)}};
}

// A frame at every scale: thinned to one point per voxel, with normals.
using Pyramid = std::vector<std::shared_ptr<PointCloud>>;

Expected<Pyramid> BuildPyramid(const Frame& f, size_t k, const RegistrationOptions& o) {
  PointCloud usable;
  usable.points_.reserve(f.size());
  const bool has_range = f.range_m.size() == f.size();
  for (size_t i = 0; i < f.size(); ++i) {
    const Eigen::Vector3d p(f.x_m[i], f.y_m[i], f.z_m[i]);
    if (!p.allFinite()) continue;
    const double range = has_range ? f.range_m[i] : p.norm();
    if (!(range >= o.min_range_m && range <= o.max_range_m)) continue;
    usable.points_.push_back(p);
  }
  if (usable.points_.size() < kMinRegistrationPoints)
    return Error{fmt::format(
        "estimate poses: frame {} has only {} usable points of {} (finite, range in [{}, {}] "
        "m); at least {} are needed",
        k, usable.points_.size(), f.size(), NumberText(o.min_range_m), NumberText(o.max_range_m),
        kMinRegistrationPoints)};

  Pyramid pyramid;
  for (double voxel : o.voxel_m) {
    std::shared_ptr<PointCloud> cloud;
    const std::string step = fmt::format("thinning frame {} to {} m voxels", k, NumberText(voxel));
    if (Status s = Open3dStep(step, [&] { cloud = usable.VoxelDownSample(voxel); }); !s.ok())
      return s.error();
    const size_t n = cloud ? cloud->points_.size() : 0;
    if (n < kMinRegistrationPoints)
      return Error{fmt::format(
          "estimate poses: frame {} thinned to {} m voxels keeps {} of its {} usable points; at "
          "least {} are needed (use finer voxel_m)",
          k, NumberText(voxel), n, usable.points_.size(), kMinRegistrationPoints)};
    if (Status s = Open3dStep(
            fmt::format("estimating the normals of frame {} at {} m voxels", k, NumberText(voxel)),
            [&] {
              cloud->EstimateNormals(open3d::geometry::KDTreeSearchParamHybrid(
                  kNormalRadiusVoxels * voxel, kNormalNeighbours));
            });
        !s.ok())
      return s.error();
    if (cloud->normals_.size() != n)
      return Error{fmt::format("estimate poses: Open3D gave no normals for frame {}", k)};
    pyramid.push_back(std::move(cloud));
  }
  return pyramid;
}

// Frame `to` registered to frame `from`, coarse to fine, from the initial guess `guess`.
Expected<PairRegistration> RegisterPair(const Pyramid& from_frame, const Pyramid& to_frame,
                                        size_t from, const Pose<double>& guess,
                                        const RegistrationOptions& o) {
  const registration::TransformationEstimationPointToPlane point_to_plane;
  // Open3D stops when fitness and RMSE change by less than these between iterations (absolute
  // changes, despite the names); its defaults.
  const registration::ICPConvergenceCriteria criteria(1e-6, 1e-6, o.max_iterations);
  Eigen::Matrix4d transformation = MatrixOf(guess);
  registration::RegistrationResult result;
  for (size_t s = 0; s < o.voxel_m.size(); ++s) {
    const double distance = o.max_correspondence_factor * o.voxel_m[s];
    const std::string step = fmt::format("ICP of frames {} and {} at {} m voxels", from, from + 1,
                                         NumberText(o.voxel_m[s]));
    if (Status st = Open3dStep(step,
                               [&] {
                                 // source: the later frame; target (with normals): the earlier.
                                 result = registration::RegistrationICP(
                                     *to_frame[s], *from_frame[s], distance, transformation,
                                     point_to_plane, criteria);
                               });
        !st.ok())
      return st.error();
    if (!result.transformation_.allFinite())
      return Error{fmt::format("estimate poses: {} gave a non-finite transformation", step)};
    transformation = result.transformation_;
  }
  if (!(result.fitness_ >= o.min_fitness))
    return Error{fmt::format(
        "estimate poses: frames {} and {}: ICP fitness {:.3f} is below min_fitness {} (the "
        "share of frame {}'s points within {} m of frame {} after ICP): the frames may not "
        "overlap or ICP did not converge",
        from, from + 1, result.fitness_, NumberText(o.min_fitness), from + 1,
        NumberText(o.max_correspondence_factor * o.voxel_m.back()), from)};
  PairRegistration pair;
  pair.from = from;
  pair.to = from + 1;
  pair.fitness = result.fitness_;
  pair.inlier_rmse_m = result.inlier_rmse_;
  pair.motion = PoseOf(transformation);
  return pair;
}

Expected<PoseEstimate> EstimatePosesUnguarded(const std::vector<Frame>& frames,
                                              const RegistrationOptions& o) {
  if (frames.size() < 2)
    return Error{fmt::format("estimate poses: needs at least two frames, got {}", frames.size())};
  if (Status s = o.Validate(); !s.ok()) return s.error();

  const OneOpenMpThread one_thread;
  PoseEstimate estimate;
  estimate.poses.push_back({{1, 0, 0, 0}, {0, 0, 0}});
  Pose<double> motion{{1, 0, 0, 0}, {0, 0, 0}};  // the initial guess: the last pair's motion
  auto previous = BuildPyramid(frames[0], 0, o);
  if (!previous.ok()) return previous.error();
  for (size_t k = 1; k < frames.size(); ++k) {
    auto current = BuildPyramid(frames[k], k, o);
    if (!current.ok()) return current.error();
    auto pair = RegisterPair(*previous, *current, k - 1, motion, o);
    if (!pair.ok()) return pair.error();
    motion = pair->motion;
    estimate.poses.push_back(physics::ComposePoses(estimate.poses.back(), motion));
    estimate.pairs.push_back(*pair);
    previous = std::move(current);
  }
  return estimate;
}

}  // namespace

void RegistrationOptions::Check(ConfigCheck& check) const {
  if (!(min_range_m >= 0 && std::isfinite(min_range_m)))
    check.Fail("min_range_m", "must be >= 0, got " + NumberText(min_range_m));
  if (!(max_range_m > min_range_m && std::isfinite(max_range_m)))
    check.Fail("max_range_m", "must exceed min_range_m, got " + NumberText(max_range_m));
  else if (max_range_m > kMaxRangeM)
    check.Fail("max_range_m",
               fmt::format("must be at most {:g} m, got {}", kMaxRangeM, NumberText(max_range_m)));
  if (voxel_m.empty()) check.Fail("voxel_m", "needs at least one voxel size");
  for (size_t i = 0; i < voxel_m.size(); ++i) {
    const std::string key = fmt::format("voxel_m[{}]", i);
    if (!(voxel_m[i] >= kMinVoxelM && voxel_m[i] <= kMaxVoxelM))
      check.Fail(key, fmt::format("must be in [{:g}, {:g}] m, got {}", kMinVoxelM, kMaxVoxelM,
                                  NumberText(voxel_m[i])));
    else if (i > 0 && !(voxel_m[i] < voxel_m[i - 1]))
      check.Fail(key, fmt::format("must be smaller than voxel_m[{}] (scales run coarse to fine), "
                                  "got {} after {}",
                                  i - 1, NumberText(voxel_m[i]), NumberText(voxel_m[i - 1])));
  }
  if (max_iterations < 1 || max_iterations > 1000)
    check.Fail("max_iterations", "must be in 1..1000, got " + std::to_string(max_iterations));
  if (!(max_correspondence_factor > 0 && max_correspondence_factor <= 100))
    check.Fail("max_correspondence_factor",
               "must be in (0, 100], got " + NumberText(max_correspondence_factor));
  if (!(min_fitness >= 0 && min_fitness <= 1))
    check.Fail("min_fitness", "must be in [0, 1], got " + NumberText(min_fitness));
}

Status RegistrationOptions::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("registration options");
}

Expected<PoseEstimate> EstimatePoses(const std::vector<Frame>& frames,
                                     const RegistrationOptions& options) {
  // Open3D reports failures by throwing and may run out of memory; Open3dStep names the step
  // of its calls, and this catches what is left (our own allocations), so that nothing leaves
  // this function (STYLE.md rule 6).
  try {
    return EstimatePosesUnguarded(frames, options);
  } catch (const std::exception& e) {
    return Error{fmt::format("estimate poses: {}", e.what())};
  }
}

}  // namespace lt
