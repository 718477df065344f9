// The whole life of one beam, from the scan pattern to its BeamRecord, written once for both
// backends: the CPU passes a closest-hit function on Embree, CUDA one on its own BVH.
#pragma once

#include <cstdint>

#include "lidartwin/physics/beam_footprint.h"
#include "lidartwin/physics/beam_response.h"
#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/pose.h"
#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/sim/beam_record.h"

namespace lt {

// A trajectory as plain arrays (host or device memory).
struct TrajectoryView {
  const double* time_s;
  const physics::Pose<double>* poses;
  int count;
  bool motion_correction;
};

// What the closest-hit function reports (distance and normal in double, world frame).
struct SurfaceHit {
  bool hit;
  double distance_m;
  physics::Vec3<double> normal;
  uint32_t object;
};

// Per-object data the beam needs after a hit.
struct ObjectInfo {
  double r0;  // reflectance at the sensor wavelength
  uint32_t material;
  uint32_t instance;
  uint32_t semantic;
};

struct FrameContext {
  physics::ScanPattern<double> scan;
  TrajectoryView trajectory;
  physics::DetectorParams<double> detector;
  physics::BeamFootprint footprint;
  const ObjectInfo* objects;
  uint64_t seed;
  uint32_t frame;
  double frame_start_s;
  physics::Pose<double> pose_end;
};

// One sub-ray's return and the object it came from.
struct SubRayReturn {
  physics::BeamReturn<double> ret;
  const ObjectInfo* object;
};

// ClosestHit: SurfaceHit(const Vec3<double>& origin, const Vec3<double>& unit_dir,
//                        double t_min, double t_max).
template <typename ClosestHit>
LT_HD SubRayReturn TraceSubRay(const FrameContext& c, uint32_t beam, uint32_t sub_ray,
                               const physics::Vec3<double>& dir_sensor,
                               const physics::Pose<double>& pose, ClosestHit& closest_hit) {
  const physics::Vec3<double> dir_world = physics::Rotate(pose.rotation, dir_sensor);
  const SurfaceHit hit =
      closest_hit(pose.translation, dir_world, c.detector.min_range_m, c.detector.max_range_m);
  if (!hit.hit) return {{false, {0, 0, 0}, 0, 0}, nullptr};
  const ObjectInfo& o = c.objects[hit.object];
  return {physics::DetectReturn(
              c.detector, hit.distance_m, physics::IncidenceCosine(dir_world, hit.normal), o.r0,
              dir_sensor,
              physics::RandomKey{c.seed, c.frame, beam, sub_ray, physics::kStreamRangeNoise}, pose,
              c.pose_end, c.trajectory.motion_correction),
          &o};
}

// Direction of sub-ray k: the central ray when the beam has one sub-ray, else a draw inside
// the divergence cone keyed by (seed, frame, beam, k).
LT_HD inline physics::Vec3<double> SubRayDirection(const FrameContext& c, uint32_t beam, uint32_t k,
                                                   const physics::Vec3<double>& central) {
  if (c.footprint.sub_rays <= 1) return central;
  const physics::Philox4x32 w = physics::RandomWords(
      physics::RandomKey{c.seed, c.frame, beam, k, physics::kStreamSubRayDirection});
  return physics::DirectionInCone(central, c.footprint.half_angle_rad, w.v[0], w.v[1]);
}

template <typename ClosestHit>
LT_HD BeamRecord SimulateBeam(const FrameContext& c, uint32_t beam, ClosestHit&& closest_hit) {
  BeamRecord r{};
  const physics::BeamSample<double> b = physics::ScanBeam(c.scan, beam);
  const double t = c.frame_start_s + b.time_s;
  const physics::Pose<double> pose =
      physics::PoseAtTime(c.trajectory.time_s, c.trajectory.poses, c.trajectory.count, t);
  const physics::Vec3<double> central = physics::BeamDirection(b.azimuth_rad, b.elevation_rad);
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  double range = 0, reflectance = 0;
  const ObjectInfo* dominant = nullptr;
  physics::Vec3<double> point{0, 0, 0};
  if (n == 1 || c.footprint.mode == physics::DivergenceMode::kRandomSelection) {
    // Random selection (seed 003): only the chosen sub-ray's output counts, so only it is traced.
    uint32_t k = 0;
    if (n > 1) {
      const physics::Philox4x32 w = physics::RandomWords(
          physics::RandomKey{c.seed, c.frame, beam, 0, physics::kStreamSubRaySelect});
      k = w.v[0] % n;
    }
    const SubRayReturn s =
        TraceSubRay(c, beam, k, SubRayDirection(c, beam, k, central), pose, closest_hit);
    if (!s.ret.valid) return r;
    range = s.ret.range_m;
    reflectance = s.ret.reflectance;
    dominant = s.object;
    point = s.ret.point;
  } else {
    // Average (seed 003): the mean range of the sub-rays that returned, reported along the
    // central ray; the mean intensity over all sub-rays (one that returns nothing adds no
    // light, so a partly covered footprint is dimmer); labels from the sub-ray with the
    // strongest return, the one that dominates the echo.
    uint32_t returned = 0;
    double best = -1;
    for (uint32_t k = 0; k < n; ++k) {
      const SubRayReturn s =
          TraceSubRay(c, beam, k, SubRayDirection(c, beam, k, central), pose, closest_hit);
      if (!s.ret.valid) continue;
      ++returned;
      range += s.ret.range_m;
      reflectance += s.ret.reflectance;
      if (s.ret.reflectance > best) {
        best = s.ret.reflectance;
        dominant = s.object;
      }
    }
    if (returned == 0) return r;
    range /= returned;
    reflectance /= n;
    point =
        physics::ReportedPoint(range, central, pose, c.pose_end, c.trajectory.motion_correction);
  }
  r.valid = 1;
  r.beam = beam;
  r.x_m = static_cast<float>(point.x);
  r.y_m = static_cast<float>(point.y);
  r.z_m = static_cast<float>(point.z);
  r.range_m = static_cast<float>(range);
  r.intensity = static_cast<float>(100.0 * reflectance);
  r.reflectance = static_cast<float>(dominant->r0);
  r.channel = b.channel;
  r.column = b.column;
  r.material = dominant->material;
  r.instance = dominant->instance;
  r.semantic = dominant->semantic;
  r.time_s = t;
  return r;
}

}  // namespace lt
