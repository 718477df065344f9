#include "lidartwin/reconstruct/surface_registration.h"

#include <fmt/core.h>

#include <Eigen/Dense>
#include <cmath>

#include "lidartwin/base/parallel_for.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/reconstruct/mesh_caster.h"
#include "lidartwin/sim/ray_query.h"

namespace lt {
namespace {

using physics::Vec3;

constexpr size_t kPacket = 64;          // returns cast together
constexpr double kMinMotionSpan = 0.5;  // of the frame, for a correction at each end
constexpr size_t kAlignOnFrames = 4;    // a frame is aligned on the surface of this many before

// One return: where its beam left from and where it came back, in the sensor's frame, and
// its place in the frame (0 at its start, 1 at its end), at which its pose is interpolated.
struct Ray {
  Vec3<double> origin, point;
  double in_frame;
};

// A rotation by the vector w (axis times angle [rad]).
physics::Quat<double> FromRotationVector(const Vec3<double>& w) {
  const double angle = std::sqrt(Dot(w, w));
  if (angle < 1e-15) return {1, 0, 0, 0};
  const double s = std::sin(angle / 2) / angle;
  return {std::cos(angle / 2), s * w.x, s * w.y, s * w.z};
}

// One return's row of the normal equations: the residual and its gradient with respect to
// (rotation vector about `centre`, translation), both in the world.
struct Row {
  bool paired = false;
  double residual = 0;       // from the hit's plane [m]
  double along_beam_m = 0;   // from the hit along the beam, what a range comparison sees [m]
  double jacobian[12] = {};  // the start's step, then the end's
};

}  // namespace

Expected<SurfaceRegistration> RegisterToSurface(const PosedFrames& scan,
                                                const BeamOrigins& beam_origins,
                                                const RayCaster& surface,
                                                const SurfaceRegistrationOptions& o) {
  if (scan.frames.size() != 1 || scan.start_poses.size() != 1 || scan.end_poses.size() != 1)
    return Error{"surface registration: the scan must be one posed frame"};
  const Frame& f = scan.frames[0];
  std::vector<Ray> rays;
  for (size_t i = 0; i < f.size(); ++i) {
    const double r = f.range_m[i];
    if (!(r >= o.min_range_m && r <= o.max_range_m)) continue;
    if (!f.return_index.empty() && f.return_index[i] != 0) continue;
    const Vec3<double> p{f.x_m[i], f.y_m[i], f.z_m[i]};
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) continue;
    const double in_frame = scan.columns_per_frame && f.column.size() == f.size()
                                ? std::min(1.0, double(f.column[i]) / scan.columns_per_frame)
                                : 0.0;
    rays.push_back({beam_origins.Of(p), p, in_frame});
  }
  SurfaceRegistration out;
  out.returns = rays.size();
  // Every k-th return, at most max_returns of them, spread over the whole frame.
  if (o.max_returns > 0 && rays.size() > o.max_returns) {
    const size_t stride = (rays.size() + o.max_returns - 1) / o.max_returns;
    size_t kept = 0;
    for (size_t i = 0; i < rays.size(); i += stride)
      rays[kept++] = rays[i];
    rays.resize(kept);
  }
  out.used = rays.size();
  // Rotations about the sensor's place at the frame's start, so that they and the translation
  // are of like size in the normal equations.
  const physics::Pose<double>&start = scan.start_poses[0], &end = scan.end_poses[0];
  const Vec3<double> centre = start.translation;
  const double cos_max = std::cos(o.max_incidence_deg * physics::kPi / 180);
  // The farthest a return lies from the centre [m]: its range from the sensor, which moves
  // at most from start to end in the frame.
  const Vec3<double> travel = end.translation - centre;
  double reach = 0;
  for (const Ray& ray : rays)
    reach = std::max(reach, std::sqrt(Dot(ray.point, ray.point)));
  reach += std::sqrt(Dot(travel, travel));
  // The corrections at the frame's start and end; a return's is interpolated between them at
  // its place in the frame (one correction unless fit_motion).
  physics::Pose<double> c_start{{1, 0, 0, 0}, {0, 0, 0}}, c_end = c_start;
  // The motion needs each return's place in the frame, and returns over half of it at least: a
  // partial frame's (a capture's first or last) would fix one end and extrapolate the other.
  double first_place = 1, last_place = 0;
  for (const Ray& ray : rays) {
    first_place = std::min(first_place, ray.in_frame);
    last_place = std::max(last_place, ray.in_frame);
  }
  const bool motion = o.fit_motion && scan.columns_per_frame && f.column.size() == f.size() &&
                      last_place - first_place >= kMinMotionSpan;
  const int unknowns = motion ? 12 : 6;
  std::vector<Row> rows(rays.size());
  for (int iteration = 0; iteration < o.max_iterations; ++iteration) {
    // Each return's beam from where the corrections put it, cast in packets of neighbouring
    // returns (RayCaster::ClosestBatch: the same hits as one at a time).
    // Each return where the corrected poses put it, as PoseOfPoint will once they are
    // applied: interpolated between C_start * start and C_end * end at its place in the frame
    // (which is not C interpolated times the pose interpolated when the frame turns).
    const physics::Pose<double> corrected_start = physics::ComposePoses(c_start, start),
                                corrected_end = physics::ComposePoses(c_end, end);
    ParallelFor((rays.size() + kPacket - 1) / kPacket, [&](size_t packet) {
      const size_t begin = packet * kPacket, stop = std::min(rays.size(), begin + kPacket);
      RayQuery queries[kPacket];
      RayHit hits[kPacket];
      double ranges[kPacket];
      for (size_t i = begin; i < stop; ++i) {
        const physics::Pose<double> pose =
            physics::InterpolatePose(corrected_start, corrected_end, rays[i].in_frame);
        const Vec3<double> from = physics::TransformPoint(pose, rays[i].origin);
        const Vec3<double> d = physics::TransformPoint(pose, rays[i].point) - from;
        const double range = std::sqrt(Dot(d, d));
        ranges[i - begin] = range;
        queries[i - begin] = {from, range > 0 ? (1 / range) * d : Vec3<double>{1, 0, 0},
                              std::max(0.0, range - o.window_m), range + o.window_m};
      }
      surface.ClosestBatch(queries, stop - begin, hits);
      for (size_t i = begin; i < stop; ++i) {
        Row& row = rows[i];
        row.paired = false;
        const RayQuery& q = queries[i - begin];
        const RayHit& hit = hits[i - begin];
        const double range = ranges[i - begin];
        if (!(range > 0) || !hit.hit || std::fabs(Dot(hit.normal, q.unit_direction)) < cos_max)
          continue;
        const Vec3<double> n = hit.normal;
        const Vec3<double> to = q.origin + range * q.unit_direction;
        const Vec3<double> on_surface = q.origin + hit.distance_m * q.unit_direction;
        row.paired = true;
        row.residual = Dot(n, to - on_surface);
        row.along_beam_m = range - hit.distance_m;
        // d residual / d t = n and d residual / d w = (a x n) (the plane held fixed), a the
        // lever arm from the centre. With fit_motion a step of the start's correction moves
        // the return by (1 - s) of itself, about the start's place, so its lever arm is the
        // return's offset from its own sensor place carried to the start's: to - centre -
        // s (end - start); the end's, to - centre + (1 - s) (end - start) (first order in the
        // steps; s the return's place in the frame).
        const double s = motion ? rays[i].in_frame : 0.0;
        const Vec3<double> travelled = corrected_end.translation - corrected_start.translation;
        for (int side = 0; side < (motion ? 2 : 1); ++side) {
          const double share = side ? s : 1 - s;
          const Vec3<double> a = to - centre + (side ? 1 - s : -s) * travelled;
          const Vec3<double> axn = Cross(a, n);
          const double j[6] = {axn.x, axn.y, axn.z, n.x, n.y, n.z};
          for (int k = 0; k < 6; ++k)
            row.jacobian[6 * side + k] = share * j[k];
        }
      }
    });
    Eigen::MatrixXd h = Eigen::MatrixXd::Zero(unknowns, unknowns);
    Eigen::VectorXd g = Eigen::VectorXd::Zero(unknowns);
    size_t paired = 0, inliers = 0;
    double sum_sq = 0;
    for (const Row& row : rows) {  // in order: the same sums on every run
      if (!row.paired) continue;
      ++paired;
      const double u = row.residual / o.scale_m;
      const double w = 1 / (1 + u * u);
      if (std::fabs(row.along_beam_m) <= 3 * o.scale_m) {
        ++inliers;
        sum_sq += row.along_beam_m * row.along_beam_m;
      }
      Eigen::VectorXd jr(unknowns);
      for (int k = 0; k < unknowns; ++k)
        jr[k] = row.jacobian[k];
      h.noalias() += w * jr * jr.transpose();
      g.noalias() += w * row.residual * jr;
    }
    out.paired = paired;
    out.rms_m = inliers ? std::sqrt(sum_sq / inliers) : 0;
    out.iterations = iteration + 1;
    const size_t needed =
        std::max<size_t>(100, static_cast<size_t>(std::ceil(o.min_paired_share * rays.size())));
    if (paired < needed)
      return Error{fmt::format(
          "surface registration: {} of the frame's {} returns meet the surface within {} m of "
          "their range ({} needed)",
          paired, rays.size(), o.window_m, needed)};
    const Eigen::LDLT<Eigen::MatrixXd> solver(h);
    const Eigen::VectorXd step = solver.solve(-g);
    // The plane normals must constrain every direction: the smallest pivot against the
    // largest (a frame of one wall slides along it).
    const Eigen::VectorXd pivots = solver.vectorD().cwiseAbs();
    if (solver.info() != Eigen::Success || !step.allFinite() ||
        !(pivots.minCoeff() > 1e-9 * pivots.maxCoeff()))
      return Error{
          "surface registration: the surfaces the frame meets do not fix its place in every "
          "direction"};
    double moved = 0;
    for (int end = 0; end < (motion ? 2 : 1); ++end) {
      const Vec3<double> w{step[6 * end], step[6 * end + 1], step[6 * end + 2]};
      const Vec3<double> t{step[6 * end + 3], step[6 * end + 4], step[6 * end + 5]};
      // The step as a pose: x -> R (x - centre) + centre + t.
      const physics::Quat<double> r = FromRotationVector(w);
      const physics::Pose<double> delta{r, centre + t - physics::Rotate(r, centre)};
      physics::Pose<double>& c = end ? c_end : c_start;
      c = physics::ComposePoses(delta, c);
      // Largest move of a return: |t| plus the turn times the farthest reach.
      moved = std::max(moved, std::sqrt(Dot(t, t)) + std::sqrt(Dot(w, w)) * reach);
    }
    if (!motion) c_end = c_start;
    if (moved < o.converged_m) break;
  }
  out.start_correction = c_start;
  out.end_correction = c_end;
  // How far each correction carries the sensor's own place (not the world's origin, about
  // which a turn of the frame would read as a move) and how far it turns it.
  for (const auto& [c, pose] : {std::pair{&c_start, &start}, std::pair{&c_end, &end}}) {
    const Vec3<double> shift = physics::TransformPoint(*c, pose->translation) - pose->translation;
    out.moved_m = std::max(out.moved_m, std::sqrt(Dot(shift, shift)));
    out.turned_deg = std::max(out.turned_deg, TurnedDeg({1, 0, 0, 0}, c->rotation));
  }
  if (!(out.moved_m <= o.max_move_m && out.turned_deg <= o.max_turn_deg))
    return Error{fmt::format(
        "surface registration: the surface would move the frame {:.3f} m and turn it {:.2f} deg "
        "(at most {:g} m and {:g} deg): it meets that surface elsewhere than it was seen",
        out.moved_m, out.turned_deg, o.max_move_m, o.max_turn_deg)};
  return out;
}

std::vector<FrameAlignment> AlignFramesOnSurfaces(PosedFrames& frames,
                                                  const RangeImageMeshOptions& mesh,
                                                  const SurfaceRegistrationOptions& options) {
  std::vector<FrameAlignment> out(frames.frames.size());
  for (size_t k = 1; k < frames.frames.size(); ++k) {
    // The surface of the frames just before (at most kAlignOnFrames): a drive's earlier frames
    // see little of what frame k sees, and meshing all of them for every k grew with the
    // square of the frames.
    const auto from = static_cast<ptrdiff_t>(k > kAlignOnFrames ? k - kAlignOnFrames : 0);
    const auto to = static_cast<ptrdiff_t>(k);
    PosedFrames before;
    before.frames.assign(frames.frames.begin() + from, frames.frames.begin() + to);
    before.start_poses.assign(frames.start_poses.begin() + from, frames.start_poses.begin() + to);
    before.end_poses.assign(frames.end_poses.begin() + from, frames.end_poses.begin() + to);
    before.columns_per_frame = frames.columns_per_frame;
    auto surface = MeshRangeImages(before, mesh);
    if (!surface.ok()) {
      out[k].registration_error = surface.message();
      continue;
    }
    const MeshCaster seen =
        CasterOfMesh(std::move(surface->vertices), std::move(surface->triangles));
    if (!seen.caster) {
      out[k].registration_error = "out of memory for the surface's ray caster";
      continue;
    }
    PosedFrames scan;
    scan.frames = {frames.frames[k]};
    scan.start_poses = {frames.start_poses[k]};
    scan.end_poses = {frames.end_poses[k]};
    scan.columns_per_frame = frames.columns_per_frame;
    auto placed = RegisterToSurface(scan, mesh.beam_origins, *seen.caster, options);
    if (!placed.ok()) {
      out[k].registration_error = placed.message();
      continue;
    }
    frames.start_poses[k] = physics::ComposePoses(placed->start_correction, frames.start_poses[k]);
    frames.end_poses[k] = physics::ComposePoses(placed->end_correction, frames.end_poses[k]);
    out[k].registration = *placed;
  }
  return out;
}

}  // namespace lt
