#include "lidartwin/reconstruct/frame_registration.h"

#include <fmt/core.h>
#include <omp.h>
#include <open3d/geometry/PointCloud.h>
#include <open3d/pipelines/registration/Registration.h>
#include <open3d/pipelines/registration/TransformationEstimation.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <exception>
#include <future>
#include <memory>
#include <string>

#include "lidartwin/base/beside_this_thread.h"
#include "lidartwin/reconstruct/reconstruction.h"
#include "radius_neighbours.h"

namespace lt {
namespace {

using open3d::geometry::PointCloud;
using physics::Pose;

namespace registration = open3d::pipelines::registration;

// Neighbourhood of a point's plane at each scale: within kNormalRadiusVoxels voxels, at most
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

// When each point of every frame fired: the clock EstimatePoses uses (frame_registration.h)
// and, per frame, the clock's reading at its first and last firing and its middle.
struct FrameSpan {
  double first = 0, last = 0;  // clock readings: seconds, or columns
  double mid = 0;              // on a clock shared by all frames: seconds, or revolutions
  double span = 0;             // last - first on that shared clock
};

struct Timing {
  FiringClock clock = FiringClock::kNone;
  std::vector<FrameSpan> frames;
};

// The fraction of its frame's span at which point i fired, in [0, 1].
double FiringFraction(const Frame& f, const Timing& timing, size_t k, size_t i) {
  const FrameSpan& s = timing.frames[k];
  const double reading =
      timing.clock == FiringClock::kTimestamp ? f.timestamp_s[i] : double(f.column[i]);
  return (reading - s.first) / (s.last - s.first);
}

Timing FindTiming(const std::vector<Frame>& frames) {
  Timing timing;
  for (const Frame& f : frames)
    if (f.motion_corrected) return timing;  // already in one sensor frame each
  // Timestamps: one per point, finite, with a positive span, the frames' mid times increasing.
  std::vector<FrameSpan> spans;
  for (const Frame& f : frames) {
    if (f.timestamp_s.size() != f.size() || f.size() == 0) break;
    FrameSpan s{f.timestamp_s[0], f.timestamp_s[0], 0, 0};
    bool finite = true;
    for (double t : f.timestamp_s) {
      finite = finite && std::isfinite(t);
      s.first = std::fmin(s.first, t);
      s.last = std::fmax(s.last, t);
    }
    if (!finite || !(s.last > s.first)) break;
    s.mid = 0.5 * (s.first + s.last);
    s.span = s.last - s.first;
    if (!spans.empty() && !(s.mid > spans.back().mid)) break;
    spans.push_back(s);
  }
  if (spans.size() == frames.size()) return {FiringClock::kTimestamp, std::move(spans)};
  // Columns: one per point with more than one value; frame k spans revolution [k, k + 1].
  spans.clear();
  for (size_t k = 0; k < frames.size(); ++k) {
    const Frame& f = frames[k];
    if (f.column.size() != f.size() || f.size() == 0) break;
    const auto [lo, hi] = std::minmax_element(f.column.begin(), f.column.end());
    if (!(*hi > *lo)) break;
    spans.push_back({double(*lo), double(*hi), double(k) + 0.5, 1.0});
  }
  if (spans.size() == frames.size()) return {FiringClock::kColumn, std::move(spans)};
  return timing;
}

const Pose<double> kIdentity{{1, 0, 0, 0}, {0, 0, 0}};

// The pose at fraction u of a motion under constant velocity: translation linear, rotation
// slerp; u may lie outside [0, 1] (extrapolated).
Pose<double> PartOf(const Pose<double>& motion, double u) {
  return physics::InterpolatePose(kIdentity, motion, u);
}

// The motion within each frame, from its first firing to its last, seen from its middle:
// the motions to its neighbours (mid-frame to mid-frame), each scaled from the spacing of the
// two frames' mid times to the frame's own span, and the two averaged (constant velocity
// across the frame's neighbours).
std::vector<Pose<double>> SweepMotions(const std::vector<Pose<double>>& motions,
                                       const Timing& timing) {
  const size_t n = motions.size() + 1;
  std::vector<Pose<double>> sweeps(n, kIdentity);
  if (timing.clock == FiringClock::kNone) return sweeps;
  auto scaled = [&](size_t pair, size_t k) {
    const double spacing = timing.frames[pair + 1].mid - timing.frames[pair].mid;
    return PartOf(motions[pair], timing.frames[k].span / spacing);
  };
  for (size_t k = 0; k < n; ++k) {
    if (k == 0) {
      sweeps[k] = scaled(0, k);
    } else if (k + 1 == n) {
      sweeps[k] = scaled(k - 1, k);
    } else {
      sweeps[k] = physics::InterpolatePose(scaled(k - 1, k), scaled(k, k), 0.5);
    }
  }
  return sweeps;
}

// Frame k's usable points (finite, range within [min_range_m, max_range_m]), each moved from
// the sensor frame at its firing to the sensor frame at the frame's middle under the motion
// `sweep` across the frame (none with FiringClock::kNone).
Expected<PointCloud> UsablePoints(const Frame& f, size_t k, const Timing& timing,
                                  const Pose<double>& sweep, const RegistrationOptions& o) {
  PointCloud usable;
  usable.points_.reserve(f.size());
  const bool has_range = f.range_m.size() == f.size();
  const bool deskew = timing.clock != FiringClock::kNone;
  for (size_t i = 0; i < f.size(); ++i) {
    const Eigen::Vector3d p(f.x_m[i], f.y_m[i], f.z_m[i]);
    if (!p.allFinite()) continue;
    const double range = has_range ? f.range_m[i] : p.norm();
    if (!(range >= o.min_range_m && range <= o.max_range_m)) continue;
    if (!deskew) {
      usable.points_.push_back(p);
      continue;
    }
    const Pose<double> at_mid = PartOf(sweep, FiringFraction(f, timing, k, i) - 0.5);
    const physics::Vec3<double> q = physics::TransformPoint(at_mid, {p.x(), p.y(), p.z()});
    usable.points_.emplace_back(q.x, q.y, q.z);
  }
  if (usable.points_.size() < kMinRegistrationPoints)
    return Error{fmt::format(
        "estimate poses: frame {} has only {} usable points of {} (finite, range in [{}, {}] "
        "m); at least {} are needed",
        k, usable.points_.size(), f.size(), NumberText(o.min_range_m), NumberText(o.max_range_m),
        kMinRegistrationPoints)};
  return usable;
}

// The points of `cloud` whose neighbours (within `radius`, the nearest `max_neighbours`)
// span a plane, with its normal: the eigenvector of the neighbours' covariance with the least
// eigenvalue. Points with fewer than 3 neighbours (themselves included) or on a line (sigma2
// < min_width_ratio * sigma1) are dropped.
std::shared_ptr<PointCloud> PointsWithPlanes(const PointCloud& cloud, double radius,
                                             int max_neighbours, double min_width_ratio) {
  const RadiusNeighbours neighbours(cloud.points_, radius);
  const double min_ratio2 = min_width_ratio * min_width_ratio;  // on eigenvalues: variances
  // Each point's normal (NaN: none), found in the grid's order and kept in the cloud's.
  std::vector<Eigen::Vector3d> normals(cloud.points_.size(), Eigen::Vector3d::Constant(NAN));
  neighbours.ForEachPoint(max_neighbours, [&](uint32_t n, const std::vector<uint32_t>& indices) {
    const int m = static_cast<int>(indices.size());
    if (m < 3) return;
    Eigen::Vector3d mean = Eigen::Vector3d::Zero();
    for (int j = 0; j < m; ++j)
      mean += cloud.points_[indices[j]];
    mean /= m;
    Eigen::Matrix3d covariance = Eigen::Matrix3d::Zero();
    for (int j = 0; j < m; ++j) {
      const Eigen::Vector3d d = cloud.points_[indices[j]] - mean;
      covariance += d * d.transpose();
    }
    covariance /= m;
    // The closed form for 3 x 3: a few times faster than the iterative solver, accurate to
    // far below the spread of lidar points about their planes.
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen;
    eigen.computeDirect(covariance);
    const Eigen::Vector3d& variances = eigen.eigenvalues();  // ascending
    if (!(variances(2) > 0) || variances(1) < min_ratio2 * variances(2)) return;
    normals[n] = eigen.eigenvectors().col(0);
  });
  auto out = std::make_shared<PointCloud>();
  for (size_t n = 0; n < cloud.points_.size(); ++n)
    if (!std::isnan(normals[n].x())) {
      out->points_.push_back(cloud.points_[n]);
      out->normals_.push_back(normals[n]);
    }
  return out;
}

// A frame at every scale: thinned to one point per voxel, the points with a plane (and its
// normal).
using Pyramid = std::vector<std::shared_ptr<PointCloud>>;

Expected<Pyramid> BuildPyramid(const PointCloud& usable, size_t k, const RegistrationOptions& o) {
  Pyramid pyramid;
  for (double voxel : o.voxel_m) {
    std::shared_ptr<PointCloud> thinned, cloud;
    const std::string step = fmt::format("thinning frame {} to {} m voxels", k, NumberText(voxel));
    if (Status s = Open3dStep(step, [&] { thinned = usable.VoxelDownSample(voxel); }); !s.ok())
      return s.error();
    if (Status s = Open3dStep(
            fmt::format("fitting the planes of frame {} at {} m voxels", k, NumberText(voxel)),
            [&] {
              cloud = PointsWithPlanes(*thinned, kNormalRadiusVoxels * voxel, kNormalNeighbours,
                                       o.min_width_ratio);
            });
        !s.ok())
      return s.error();
    if (cloud->points_.size() < kMinRegistrationPoints)
      return Error{fmt::format(
          "estimate poses: frame {} thinned to {} m voxels keeps {} points with a plane (of {} "
          "thinned, {} usable); at least {} are needed (use finer voxel_m or a lower "
          "min_width_ratio)",
          k, NumberText(voxel), cloud->points_.size(), thinned->points_.size(),
          usable.points_.size(), kMinRegistrationPoints)};
    pyramid.push_back(std::move(cloud));
  }
  return pyramid;
}

// RMS distance by which the points of `cloud` move between transformations a and b.
double RmsDisplacement(const PointCloud& cloud, const Eigen::Matrix4d& a,
                       const Eigen::Matrix4d& b) {
  const Eigen::Matrix3d dr = b.block<3, 3>(0, 0) - a.block<3, 3>(0, 0);
  const Eigen::Vector3d dt = b.block<3, 1>(0, 3) - a.block<3, 1>(0, 3);
  double sum2 = 0;
  for (const Eigen::Vector3d& p : cloud.points_)
    sum2 += (dr * p + dt).squaredNorm();
  return cloud.points_.empty() ? 0 : std::sqrt(sum2 / cloud.points_.size());
}

// Frame `to` registered to frame `from`, coarse to fine, from the initial guess `guess`.
//
// The frame with fewer points at the finest scale is ICP's source, the other (whose planes
// ICP uses) its target: the fitness is then the share of the smaller frame's points that
// found a match, which a partial revolution (a capture's first or last frame) does not
// bound by its share of the revolution.
//
// A finer scale refines the coarser one's result: if it moves the source's points by more
// than the coarser scale's correspondence distance (RMS), it ran away (too few planes, or
// planes that leave a direction free, at that scale) and it and the finer scales are dropped.
Expected<PairRegistration> RegisterPair(const Pyramid& from_frame, const Pyramid& to_frame,
                                        size_t from, const Pose<double>& guess, int round,
                                        const RegistrationOptions& o) {
  const bool swap = from_frame.back()->points_.size() < to_frame.back()->points_.size();
  const Pyramid& source = swap ? from_frame : to_frame;
  const Pyramid& target = swap ? to_frame : from_frame;
  const registration::TransformationEstimationPointToPlane point_to_plane;
  // Open3D stops when fitness and RMSE change by less than these between iterations (absolute
  // changes, despite the names); its defaults.
  const registration::ICPConvergenceCriteria criteria(1e-6, 1e-6, o.max_iterations);
  // source -> target: `to` in `from`, or its inverse.
  Eigen::Matrix4d transformation = MatrixOf(swap ? physics::InversePose(guess) : guess);
  registration::RegistrationResult result;
  size_t scales = 0;
  for (size_t s = 0; s < o.voxel_m.size(); ++s) {
    const double distance = o.max_correspondence_factor * o.voxel_m[s];
    const std::string step = fmt::format("ICP of frames {} and {} at {} m voxels", from, from + 1,
                                         NumberText(o.voxel_m[s]));
    registration::RegistrationResult r;
    if (Status st = Open3dStep(step,
                               [&] {
                                 r = registration::RegistrationICP(*source[s], *target[s], distance,
                                                                   transformation, point_to_plane,
                                                                   criteria);
                               });
        !st.ok())
      return st.error();
    if (!r.transformation_.allFinite())
      return Error{fmt::format("estimate poses: {} gave a non-finite transformation", step)};
    if (s > 0 && RmsDisplacement(*source[s], transformation, r.transformation_) >
                     o.max_correspondence_factor * o.voxel_m[s - 1])
      break;
    transformation = r.transformation_;
    result = r;
    ++scales;
  }
  if (scales < o.voxel_m.size()) {
    // The fitness and RMSE at the finest scale, of the last scale kept.
    if (Status st = Open3dStep(fmt::format("evaluating frames {} and {}", from, from + 1),
                               [&] {
                                 result = registration::EvaluateRegistration(
                                     *source.back(), *target.back(),
                                     o.max_correspondence_factor * o.voxel_m.back(),
                                     transformation);
                               });
        !st.ok())
      return st.error();
  }
  if (!(result.fitness_ >= o.min_fitness))
    return Error{fmt::format(
        "estimate poses: frames {} and {}: ICP fitness {:.3f} is below min_fitness {} (the "
        "share of frame {}'s points within {} m of frame {} after ICP, round {}): the frames may "
        "not overlap or ICP did not converge",
        from, from + 1, result.fitness_, NumberText(o.min_fitness), swap ? from : from + 1,
        NumberText(o.max_correspondence_factor * o.voxel_m.back()), swap ? from + 1 : from,
        round + 1)};
  PairRegistration pair;
  pair.from = from;
  pair.to = from + 1;
  pair.fitness = result.fitness_;
  pair.inlier_rmse_m = result.inlier_rmse_;
  pair.scales = scales;
  pair.motion = PoseOf(swap ? Eigen::Matrix4d(transformation.inverse()) : transformation);
  return pair;
}

// Every pair registered once, frame k's points deskewed under sweeps[k]. The initial guess of
// pair k: in round 0 the motion just found for pair k - 1 (the identity for pair 0), later
// guesses[k].
// The frames' pyramids and their pairs as a pipeline on two cores: frame k + 1's pyramid is
// built while the pair (k - 1, k) registers, frames 0 and 1 side by side (a 3-frame OS-1-128
// fold's ICP took 6.3 s on one core). Each pair starts from the one before (round 0) or from the
// round before's motion, as on one core, and every step is the same computation, so the poses
// are the same to the bit. Memory holds three pyramids.
Expected<std::vector<PairRegistration>> RegisterAll(const std::vector<Frame>& frames,
                                                    const Timing& timing,
                                                    const std::vector<Pose<double>>& sweeps,
                                                    const std::vector<Pose<double>>& guesses,
                                                    int round, const RegistrationOptions& o) {
  auto build = [&](size_t k) -> Expected<Pyramid> {
    const OneOpenMpThread one_thread;  // on the worker's own thread too
    try {
      auto usable = UsablePoints(frames[k], k, timing, sweeps[k], o);
      if (!usable.ok()) return usable.error();
      return BuildPyramid(*usable, k, o);
    } catch (const std::exception& e) {  // an allocation failing
      return Error{fmt::format("estimate poses: frame {}: {}", k, e.what())};
    }
  };
  const auto policy = BesideThisThread();
  std::future<Expected<Pyramid>> next;
  if (frames.size() > 1) next = std::async(policy, build, size_t{1});
  Expected<Pyramid> previous = build(0);
  if (!previous.ok()) return previous.error();
  std::vector<PairRegistration> pairs;
  for (size_t k = 1; k < frames.size(); ++k) {
    Expected<Pyramid> current = next.get();
    if (!current.ok()) return current.error();
    if (k + 1 < frames.size()) next = std::async(policy, build, k + 1);
    const Pose<double>& guess =
        round > 0 ? guesses[k - 1] : (pairs.empty() ? kIdentity : pairs.back().motion);
    auto pair = RegisterPair(*previous, *current, k - 1, guess, round, o);
    if (!pair.ok()) return pair.error();  // the next build is waited for as `next` goes
    pairs.push_back(*pair);
    previous = std::move(current);
  }
  return pairs;
}

Expected<PoseEstimate> EstimatePosesUnguarded(const std::vector<Frame>& frames,
                                              const RegistrationOptions& o) {
  if (frames.size() < 2)
    return Error{fmt::format("estimate poses: needs at least two frames, got {}", frames.size())};
  if (Status s = o.Validate(); !s.ok()) return s.error();

  const OneOpenMpThread one_thread;
  const Timing timing = FindTiming(frames);
  const int rounds = timing.clock == FiringClock::kNone ? 1 : 1 + o.deskew_rounds;
  // Round 0 registers the frames as they are; each later round deskews them under the
  // motions the round before found and starts every pair from its own last motion.
  std::vector<Pose<double>> sweeps(frames.size(), kIdentity), motions;
  std::vector<PairRegistration> pairs;
  for (int round = 0; round < rounds; ++round) {
    if (round > 0) sweeps = SweepMotions(motions, timing);
    auto registered = RegisterAll(frames, timing, sweeps, motions, round, o);
    if (!registered.ok()) return registered.error();
    pairs = std::move(*registered);
    motions.clear();
    for (const PairRegistration& pair : pairs)
      motions.push_back(pair.motion);
  }
  PoseEstimate estimate;
  estimate.clock = timing.clock;
  estimate.rounds = rounds;
  estimate.poses.push_back(kIdentity);
  for (const PairRegistration& pair : pairs)
    estimate.poses.push_back(physics::ComposePoses(estimate.poses.back(), pair.motion));
  // The motion within each frame from the final motions: the poses at its first and last
  // firing, half of it before and after the middle.
  const std::vector<Pose<double>> final_sweeps = SweepMotions(motions, timing);
  for (size_t k = 0; k < frames.size(); ++k) {
    estimate.start_poses.push_back(
        physics::ComposePoses(estimate.poses[k], PartOf(final_sweeps[k], -0.5)));
    estimate.end_poses.push_back(
        physics::ComposePoses(estimate.poses[k], PartOf(final_sweeps[k], 0.5)));
  }
  estimate.pairs = std::move(pairs);
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
  if (!(min_width_ratio >= 0 && min_width_ratio < 1))
    check.Fail("min_width_ratio", "must be in [0, 1), got " + NumberText(min_width_ratio));
  if (deskew_rounds < 0 || deskew_rounds > 10)
    check.Fail("deskew_rounds", "must be in 0..10, got " + std::to_string(deskew_rounds));
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

namespace {

// The first returns of posed frames within the options' ranges, each moved into the world by
// the pose of its firing.
PointCloud WorldPoints(const PosedFrames& in, const RegistrationOptions& o) {
  PointCloud c;
  for (size_t k = 0; k < in.frames.size(); ++k) {
    const Frame& f = in.frames[k];
    for (size_t i = 0; i < f.size(); ++i) {
      if (!f.return_index.empty() && f.return_index[i] != 0) continue;
      const physics::Vec3<double> p{f.x_m[i], f.y_m[i], f.z_m[i]};
      const double range = f.range_m.size() == f.size() ? f.range_m[i] : std::sqrt(Dot(p, p));
      if (!(range >= o.min_range_m && range <= o.max_range_m)) continue;
      const physics::Vec3<double> w = physics::TransformPoint(PoseOfPoint(in, k, i), p);
      if (std::isfinite(w.x) && std::isfinite(w.y) && std::isfinite(w.z))
        c.points_.emplace_back(w.x, w.y, w.z);
    }
  }
  return c;
}

Expected<MapRegistration> RegisterToMapUnguarded(const PosedFrames& scan, const PosedFrames& map,
                                                 const RegistrationOptions& options) {
  if (Status s = options.Validate(); !s.ok()) return s.error();
  const OneOpenMpThread one_thread;
  RegistrationOptions fine = options;
  fine.voxel_m = {options.voxel_m.back()};
  const PointCloud scan_points = WorldPoints(scan, fine), map_points = WorldPoints(map, fine);
  for (const auto& [what, cloud] : {std::pair{"the frame", &scan_points}, {"the map", &map_points}})
    if (cloud->points_.size() < kMinRegistrationPoints)
      return Error{
          fmt::format("register to the map: {} has {} usable points; at least {} are needed", what,
                      cloud->points_.size(), kMinRegistrationPoints)};
  auto source = BuildPyramid(scan_points, 0, fine);
  if (!source.ok()) return source.error();
  auto target = BuildPyramid(map_points, 1, fine);
  if (!target.ok()) return target.error();
  const double distance = fine.max_correspondence_factor * fine.voxel_m.back();
  registration::RegistrationResult r;
  if (Status st =
          Open3dStep("ICP of the frame to the map",
                     [&] {
                       r = registration::RegistrationICP(
                           *source->back(), *target->back(), distance, Eigen::Matrix4d::Identity(),
                           registration::TransformationEstimationPointToPlane(),
                           registration::ICPConvergenceCriteria(1e-6, 1e-6, fine.max_iterations));
                     });
      !st.ok())
    return st.error();
  if (!r.transformation_.allFinite())
    return Error{"register to the map: ICP gave a non-finite transformation"};
  if (!(r.fitness_ >= options.min_fitness))
    return Error{fmt::format("register to the map: ICP fitness {:.3f} is below min_fitness {}",
                             r.fitness_, NumberText(options.min_fitness))};
  MapRegistration out;
  out.correction = PoseOf(r.transformation_);
  out.fitness = r.fitness_;
  out.inlier_rmse_m = r.inlier_rmse_;
  return out;
}

}  // namespace

Expected<MapRegistration> RegisterToMap(const PosedFrames& scan, const PosedFrames& map,
                                        const RegistrationOptions& options) {
  try {
    return RegisterToMapUnguarded(scan, map, options);
  } catch (const std::exception& e) {
    return Error{fmt::format("register to the map: {}", e.what())};
  }
}

const char* FiringClockName(FiringClock clock) {
  switch (clock) {
    case FiringClock::kTimestamp:
      return "timestamp_s";
    case FiringClock::kColumn:
      return "column";
    case FiringClock::kNone:
      break;
  }
  return "none";
}

}  // namespace lt
