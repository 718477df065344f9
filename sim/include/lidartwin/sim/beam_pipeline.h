// The whole life of one beam, from the scan pattern to its BeamRecord, written once for both
// backends: the CPU passes a closest-hit function on Embree, CUDA one on its own BVH.
#pragma once

#include <cstdint>

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
  const ObjectInfo* objects;
  uint64_t seed;
  uint32_t frame;
  double frame_start_s;
  physics::Pose<double> pose_end;
};

// ClosestHit: SurfaceHit(const Vec3<double>& origin, const Vec3<double>& unit_dir,
//                        double t_min, double t_max).
template <typename ClosestHit>
LT_HD BeamRecord SimulateBeam(const FrameContext& c, uint32_t beam, ClosestHit&& closest_hit) {
  BeamRecord r{};
  const physics::BeamSample<double> b = physics::ScanBeam(c.scan, beam);
  const double t = c.frame_start_s + b.time_s;
  const physics::Pose<double> pose =
      physics::PoseAtTime(c.trajectory.time_s, c.trajectory.poses, c.trajectory.count, t);
  const physics::Vec3<double> dir_sensor = physics::BeamDirection(b.azimuth_rad, b.elevation_rad);
  const physics::Vec3<double> dir_world = physics::Rotate(pose.rotation, dir_sensor);
  const SurfaceHit hit =
      closest_hit(pose.translation, dir_world, c.detector.min_range_m, c.detector.max_range_m);
  if (!hit.hit) return r;
  const ObjectInfo& o = c.objects[hit.object];
  const physics::BeamReturn<double> ret = physics::DetectReturn(
      c.detector, hit.distance_m, physics::IncidenceCosine(dir_world, hit.normal), o.r0, dir_sensor,
      physics::RandomKey{c.seed, c.frame, beam, 0, physics::kStreamRangeNoise}, pose, c.pose_end,
      c.trajectory.motion_correction);
  if (!ret.valid) return r;
  r.valid = 1;
  r.beam = beam;
  r.x_m = static_cast<float>(ret.point.x);
  r.y_m = static_cast<float>(ret.point.y);
  r.z_m = static_cast<float>(ret.point.z);
  r.range_m = static_cast<float>(ret.range_m);
  r.intensity = static_cast<float>(100.0 * ret.reflectance);
  r.reflectance = static_cast<float>(o.r0);
  r.channel = b.channel;
  r.column = b.column;
  r.material = o.material;
  r.instance = o.instance;
  r.semantic = o.semantic;
  r.time_s = t;
  return r;
}

}  // namespace lt
