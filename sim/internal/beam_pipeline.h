// The whole life of one beam, from the scan pattern to its echo records, written once for both
// backends: the CPU passes a closest-hit function on Embree, CUDA one on its own BVH.
// Stages (DESIGN.md sec. 4): sub-ray generation (footprint, kernel sampling with weights) ->
// hits (closest, then on through transmissive and partly covering surfaces) -> the beam's
// return signal (received power at range) -> detector -> up to K echo records per beam.
// The ideal and capability detectors keep their single-hit path (seed 000, seed 003 modes).
#pragma once

#include <cstdint>

#include "internal/angular_raster.h"
#include "internal/beam_limits.h"
#include "internal/beam_record.h"
#include "internal/fog_echoes.h"
#include "internal/particle_echoes.h"
#include "internal/spray_echoes.h"
#include "lidartwin/physics/beam_footprint.h"
#include "lidartwin/physics/beam_response.h"
#include "lidartwin/physics/cover.h"
#include "lidartwin/physics/detection_probability.h"
#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/pose.h"
#include "lidartwin/physics/range_noise.h"
#include "lidartwin/physics/return_signal.h"
#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/physics/surface_response.h"
#include "lidartwin/physics/waveform.h"
#include "lidartwin/physics/waveform_ranging.h"
#include "lidartwin/sim/ray_query.h"

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
  physics::SurfaceResponse response;  // r0 included, at the sensor wavelength
};

// What the threshold and waveform detectors need besides the detector parameters
// (DetectorParams).
struct SignalChain {
  physics::LinkBudget link;
  physics::ThresholdDetector threshold;
  uint32_t max_surfaces;       // surfaces one sub-ray may meet (through glass, foliage)
  double range_resolution_m;   // quantisation, 0: none
  double outlier_probability;  // per echo, seed 001 sec. 5.2
  double signal_noise_w;       // per pulse, at the comparator (NoisyThreshold)
  double pulse_energy_jitter;  // per pulse, relative rms of the emitted energy
  physics::Overlap overlap;    // near-field overlap on every received power
  bool raster_gather;          // gather from the frame's angular raster instead of tracing
  // Waveform detector: sunlight from a target of albedo 1 filling the spot [W] (seed 002
  // eq. 4, waveform_setup.h); 0 without sun or for the threshold detector.
  double sun_w_per_albedo;
  // The link the sensor's reflectivity was calibrated through: the profile's, in its own clear
  // air. `link` adds the scene's weather; a fogged target reads darker, as on a real sensor,
  // where referring it to the fogged link would read its clear-air reflectivity.
  physics::LinkBudget calibration_link;
  // Rain and snow (particle_echoes.h): the slots a sub-ray holds for particles beside its
  // surfaces' (ParticleSlots), and the frame's particles (none in dry weather).
  uint32_t particle_slots = 0;
  ParticleView particles{};
  // The fog's own return (fog_echoes.h): slabs after the sub-rays' contributions, in the room
  // they leave (none in clear air).
  FogView fog{};
  // A dirty or wet window (physics/cover.h): its regions, and the slot a sub-ray holds for
  // the window's echo (1 where a region scatters light back, CoverSlots).
  physics::CoverView cover{};
  uint32_t cover_slots = 0;
  // Road spray (spray_echoes.h): the slots a sub-ray holds for its clusters' slabs, after its
  // particles' (SpraySlots; the clusters themselves change every frame: FrameContext::spray).
  uint32_t spray_slots = 0;
};

// Contribution slots a sub-ray has: its window echo's, its surfaces' and its particles'.
LT_HD inline uint32_t SlotsPerSubRay(const SignalChain& s) {
  return s.cover_slots + s.max_surfaces + s.particle_slots + s.spray_slots;
}

// Contributions one beam of `sub_rays` holds at most: its sub-rays' slots, then its fog slabs,
// within kMaxContributions.
LT_HD inline uint32_t BeamSlots(const SignalChain& s, uint32_t sub_rays) {
  const uint32_t n = sub_rays > 1 ? sub_rays : 1;
  const uint32_t slots = n * SlotsPerSubRay(s) + s.fog.slabs;
  return slots < kMaxContributions ? slots : kMaxContributions;
}

struct FrameContext {
  physics::ScanPattern<double> scan;
  TrajectoryView trajectory;
  physics::DetectorParams<double> detector;
  physics::BeamFootprint footprint;
  SignalChain signal;
  AngularRasterView raster;  // traced for the frame when signal.raster_gather
  uint32_t echoes_per_beam;  // record slots per beam: K for threshold, 1 otherwise
  const ObjectInfo* objects;
  uint64_t seed;
  uint32_t frame;
  double frame_start_s;
  physics::Pose<double> pose_end;
  physics::Vec3<double> beam_origin;  // the profile's beam_origin_m (BeamOrigin adds the radius)
  physics::WaveformChain waveform;    // the waveform detector's constants and tables
  // Each beam's central direction in the sensor frame (BeamDirection of its scan sample, made
  // on the host: the GPU's waveform echoes read it), or null: computed where needed.
  const physics::Vec3<double>* beam_directions = nullptr;
  // SensorProfile::beam_origin_radius_m: each beam's origin lies this far out along the head's
  // direction (spinning scans); SensorProfile::range_offset_m: added to every reported range.
  double beam_origin_radius_m = 0;
  double range_offset_m = 0;
  // Each sub-ray's clear length and weight for the fog's slabs (SubRayClear; beam i's sub-ray
  // k at i n + k of the batch): written by the GPU's sub-ray stage for its beam stage, only
  // when the fog returns (signal.fog.slabs > 0). Null on the CPU, which keeps a beam's on its
  // stack (GatherBeamSignal).
  SubRayClear* sub_ray_clear = nullptr;
  // The frame's road spray (FrameSpray, made on the host each frame; the GPU's copies on the
  // GPU): no plumes, none.
  SprayView spray{};
};

// The central direction of beam i in the sensor frame: the frame's table where it has one (two
// double sincos a beam were 2 % of the GPU's OS0-128 city frame kernel, on one lane), else from
// its scan sample, as the host made the table.
LT_HD inline physics::Vec3<double> CentralDirection(const FrameContext& c, uint32_t beam,
                                                    const physics::BeamSample<double>& b) {
  return c.beam_directions != nullptr ? c.beam_directions[beam]
                                      : physics::BeamDirection(b.azimuth_rad, b.elevation_rad);
}

// Where beam b leaves from in the sensor frame: beam_origin, and for a head whose beams leave
// off its axis (beam_origin_radius_m, Ouster's lidar_origin_to_beam_origin; physics/
// ouster_beam.h) that far out along the head's direction at b's column, its azimuth less its
// own offset.
LT_HD inline physics::Vec3<double> BeamOrigin(const FrameContext& c,
                                              const physics::BeamSample<double>& b) {
  if (c.beam_origin_radius_m == 0 || c.scan.kind != physics::ScanKind::kSpinning)
    return c.beam_origin;
  const double head = b.azimuth_rad - c.scan.spinning.azimuth_offset_rad[b.channel];
  return {c.beam_origin.x + c.beam_origin_radius_m * cos(head),
          c.beam_origin.y + c.beam_origin_radius_m * sin(head), c.beam_origin.z};
}

// The pose of a beam's origin at time t: the sensor's pose moved by `origin` (BeamOrigin). Rays
// start at its translation and ranges are measured from it; ReportedPoint puts the points back
// in the sensor frame.
LT_HD inline physics::Pose<double> EmitterPoseAt(const FrameContext& c, double t,
                                                 const physics::Vec3<double>& origin) {
  physics::Pose<double> pose =
      physics::PoseAtTime(c.trajectory.time_s, c.trajectory.poses, c.trajectory.count, t);
  pose.translation = physics::TransformPoint(pose, origin);
  return pose;
}

// One sub-ray's return and the object it came from.
struct SubRayReturn {
  physics::BeamReturn<double> ret;
  const ObjectInfo* object;
};

// ClosestHit: SurfaceHit(const Vec3<double>& origin, const Vec3<double>& unit_dir,
//                        double t_min, double t_max).
// The query of a single-hit sub-ray leaving the sensor at `pose` along dir_sensor.
LT_HD inline RayQuery SubRayQuery(const FrameContext& c, const physics::Pose<double>& pose,
                                  const physics::Vec3<double>& dir_sensor) {
  return {pose.translation, physics::Rotate(pose.rotation, dir_sensor), c.detector.min_range_m,
          c.detector.max_range_m};
}

template <typename ClosestHit>
LT_HD SubRayReturn TraceSubRay(const FrameContext& c, uint32_t beam, uint32_t sub_ray,
                               const physics::Vec3<double>& dir_sensor,
                               const physics::Pose<double>& pose,
                               const physics::Vec3<double>& origin, ClosestHit& closest_hit) {
  const RayQuery q = SubRayQuery(c, pose, dir_sensor);
  const physics::Vec3<double>& dir_world = q.unit_direction;
  const SurfaceHit hit = closest_hit(q.origin, dir_world, q.t_min, q.t_max);
  if (!hit.hit) return {{false, {0, 0, 0}, 0, 0}, nullptr};
  const ObjectInfo& o = c.objects[hit.object];
  const double shading = physics::DiffuseShading(o.response.roughness_rad,
                                                 physics::IncidenceCosine(dir_world, hit.normal));
  return {physics::DetectReturn(
              c.detector, hit.distance_m, shading, o.r0, dir_sensor,
              physics::RandomKey{c.seed, c.frame, beam, sub_ray, physics::kStreamRangeNoise}, pose,
              c.pose_end, c.trajectory.motion_correction, origin),
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

// A valid record of one point: where and when it was seen, its intensity, and the labels of
// the surface that returned it. `range` is along the beam from its origin; the record's adds
// the profile's range_offset_m (an Ouster measures from the lidar origin, n before the beam's
// origin).
LT_HD inline BeamRecord PointRecord(const FrameContext& c, uint32_t beam,
                                    const physics::BeamSample<double>& b, double t,
                                    const physics::Vec3<double>& point, double range,
                                    double intensity, const ObjectInfo& o) {
  BeamRecord r{};
  r.valid = 1;
  r.beam = beam;
  r.x_m = static_cast<float>(point.x);
  r.y_m = static_cast<float>(point.y);
  r.z_m = static_cast<float>(point.z);
  r.range_m = static_cast<float>(range + c.range_offset_m);
  r.intensity = static_cast<float>(intensity);
  r.reflectance = static_cast<float>(o.r0);
  r.channel = b.channel;
  r.column = b.column;
  r.material = o.material;
  r.instance = o.instance;
  r.semantic = o.semantic;
  r.time_s = t;
  return r;
}

// The one sub-ray of n that random selection traces (seed 003), keyed by (seed, frame, beam).
LT_HD inline uint32_t SelectedSubRay(const FrameContext& c, uint32_t beam, uint32_t n) {
  if (n <= 1) return 0;
  const physics::Philox4x32 w = physics::RandomWords(
      physics::RandomKey{c.seed, c.frame, beam, 0, physics::kStreamSubRaySelect});
  return w.v[0] % n;
}

// Where and when a beam fires: its scan sample, firing time and pose, which its echo records
// need.
struct BeamPlace {
  physics::BeamSample<double> b;
  double t;
  physics::Vec3<double> origin;  // in the sensor frame (BeamOrigin)
  physics::Pose<double> pose;
};
LT_HD inline BeamPlace PlaceBeam(const FrameContext& c, uint32_t beam) {
  BeamPlace s;
  s.b = physics::ScanBeam(c.scan, beam);
  s.t = c.frame_start_s + s.b.time_s;
  s.origin = BeamOrigin(c, s.b);
  s.pose = EmitterPoseAt(c, s.t, s.origin);
  return s;
}

// Ideal and capability detectors: one point per beam from the nearest hit of one sub-ray
// (random selection) or the average of all sub-rays (seed 003 "Beam Divergence").
// `known`: the beam's place when the caller has it (PlaceBeam's, from the CPU's trace-ahead),
// else computed here.
template <typename ClosestHit>
LT_HD BeamRecord SimulateBeamSingleHit(const FrameContext& c, uint32_t beam,
                                       ClosestHit& closest_hit, const BeamPlace* known = nullptr) {
  BeamRecord r{};
  const BeamPlace place = known ? *known : PlaceBeam(c, beam);
  const physics::BeamSample<double>& b = place.b;
  const double t = place.t;
  const physics::Pose<double>& pose = place.pose;
  const physics::Vec3<double> central = physics::BeamDirection(b.azimuth_rad, b.elevation_rad);
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  double range = 0, reflectance = 0;
  const ObjectInfo* dominant = nullptr;
  physics::Vec3<double> point{0, 0, 0};
  if (n == 1 || c.footprint.mode == physics::DivergenceMode::kRandomSelection) {
    // Random selection (seed 003): only the chosen sub-ray's output counts, so only it is traced.
    const uint32_t k = SelectedSubRay(c, beam, n);
    const SubRayReturn s = TraceSubRay(c, beam, k, SubRayDirection(c, beam, k, central), pose,
                                       place.origin, closest_hit);
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
      const SubRayReturn s = TraceSubRay(c, beam, k, SubRayDirection(c, beam, k, central), pose,
                                         place.origin, closest_hit);
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
    point = physics::ReportedPoint(range, central, pose, c.pose_end, c.trajectory.motion_correction,
                                   place.origin);
  }
  BeamRecord out =
      PointRecord(c, beam, b, t, point, range, physics::ReportedIntensity(reflectance), *dominant);
  out.return_type = physics::Code(physics::LoneEchoType(c.signal.threshold.mode));
  return out;
}

// Stage 1: sub-ray k of the beam's footprint, its direction in the sensor frame and its share
// of the beam's power.
struct SubRay {
  physics::Vec3<double> dir;
  double weight;
};
LT_HD inline SubRay FootprintSubRay(const FrameContext& c, uint32_t beam, uint32_t k, uint32_t n,
                                    const physics::BeamSample<double>& b, uint32_t shift_word) {
  if (n == 1) return {physics::BeamDirection(b.azimuth_rad, b.elevation_rad), 1.0};
  const physics::Philox4x32 w = physics::RandomWords(
      physics::RandomKey{c.seed, c.frame, beam, k, physics::kStreamSubRayDirection});
  if (c.footprint.kind == physics::FootprintKind::kCone) {
    return {physics::DirectionInCone(physics::BeamDirection(b.azimuth_rad, b.elevation_rad),
                                     c.footprint.half_angle_rad, w.v[0], w.v[1]),
            1.0 / n};
  }
  const physics::FootprintSample s =
      physics::SampleFootprint(c.footprint, k, n, w.v[0], shift_word, w.v[1]);
  return {physics::OffsetDirection(b.azimuth_rad, b.elevation_rad, s.h_rad, s.v_rad), s.weight};
}

// How far sub-rays are followed: past the reporting window by the pulse's tail.
LT_HD inline double SubRayReach(const FrameContext& c) {
  return c.detector.max_range_m + 8 * c.signal.threshold.pulse_sigma_m;
}

// The beam's per-frame constants every sub-ray needs: its place and the word that rotates its
// strata (a Philox call, which the stages after the sub-rays leave out: PlaceBeam).
struct BeamSetup : BeamPlace {
  uint32_t shift;
};
LT_HD inline BeamSetup SetUpBeam(const FrameContext& c, uint32_t beam) {
  BeamSetup s;
  static_cast<BeamPlace&>(s) = PlaceBeam(c, beam);
  s.shift = physics::RandomWords(
                physics::RandomKey{c.seed, c.frame, beam, 0, physics::kStreamFootprintShift})
                .v[0];
  return s;
}

// What the window does to a sub-ray (physics/cover.h): the share of its return that crosses it
// both ways and of sunlight that crosses it once; and where the window scatters light back,
// its echo, written to out[0] (room permitting: `written` is 1).
struct WindowPass {
  double two_way = 1, one_way = 1;
  uint32_t written = 0;
};
LT_HD inline WindowPass PassWindow(const FrameContext& c, const SubRay& sub,
                                   physics::SignalContribution* out, uint32_t room) {
  WindowPass w;
  const physics::CoverView& cover = c.signal.cover;
  if (cover.regions == 0) return w;
  const physics::CoverPass p = physics::CoverAt(cover, sub.dir);
  w.one_way = p.transmission;
  w.two_way = physics::CoverTwoWayTransmission(p.transmission);
  if (p.backscatter > 0 && c.signal.cover_slots > 0 && room > 0) {
    out[0] = {
        cover.window_range_m,
        static_cast<float>(sub.weight * physics::WindowReturnPower(c.signal.link, p.backscatter)),
        cover.object, 0.0f};
    w.written = 1;
  }
  return w;
}

// The first query of a traced threshold sub-ray: from the beam's pose, out to the reach.
LT_HD inline RayQuery SignalFirstQuery(const FrameContext& c, const BeamSetup& s,
                                       const SubRay& sub) {
  return {s.pose.translation, physics::Rotate(s.pose.rotation, sub.dir), c.detector.min_range_m,
          SubRayReach(c)};
}

// The sunlight a hit sends back into the receiver (seed 002 eq. 4): its share of the spot
// (sub-ray weight times coverage), its diffuse albedo (at most 1: a retroreflector's gain is
// for light from the sensor, not from the sun), and one pass through the atmosphere.
LT_HD inline float SunlightOf(const FrameContext& c, double share,
                              const physics::SurfaceResponse& r, double range_m) {
  if (c.signal.sun_w_per_albedo == 0) return 0.0f;
  const double albedo = r.r0 < 1 ? r.r0 : 1.0;
  return static_cast<float>(c.signal.sun_w_per_albedo * share * albedo *
                            physics::AtmosphericTransmission(c.signal.link, range_m));
}

// The rain and snow of sub-ray k (particle_echoes.h) in front of its first surface at
// clear_m, after its `count` surfaces in out[0 .. room); returns the new count. They take the
// sub-ray's slots its surfaces left (its reserve, and the surface slots it did not use), at
// most kMostParticleSlots: the same on the CPU, whose room is the beam's, as on the GPU.
LT_HD inline uint32_t AddParticles(const FrameContext& c, uint32_t beam, uint32_t k, double weight,
                                   double clear_m, physics::SignalContribution* out, uint32_t count,
                                   uint32_t room) {
  if (c.signal.particles.populations == 0) return count;
  // The sub-ray's slots but the spray's reserve.
  const uint32_t own = SlotsPerSubRay(c.signal) - c.signal.spray_slots;
  const uint32_t mine = own < room ? own : room;
  if (count >= mine) return count;
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  const uint32_t slots = mine - count < kMostParticleSlots ? mine - count : kMostParticleSlots;
  return count + ParticleEchoes(c.signal.particles, c.signal.link, c.signal.overlap, c.seed,
                                c.frame, beam, k, n, weight, c.detector.min_range_m, clear_m,
                                out + count, slots);
}

// The spray clusters a sub-ray passes through (spray_echoes.h), found once: its surfaces'
// returns are dimmed by them and their drops return light in front of its first surface.
struct SubRaySpray {
  SprayChord chord[kMostSprayChords];
  uint32_t n = 0;
};
// The chords of the sub-ray leaving along q at scene time t_s, from the minimum range (at
// least 5 cm: the volume's 1 / r^2) to q's reach; none without spray.
LT_HD inline void FindSpray(const FrameContext& c, double t_s, const RayQuery& q,
                            SubRaySpray* spray) {
  spray->n = 0;
  if (c.spray.plumes == 0) return;
  const double near = c.detector.min_range_m > 0.05 ? c.detector.min_range_m : 0.05;
  spray->n = SprayChords(c.spray, q.origin, q.unit_direction, t_s, near, q.t_max, spray->chord);
}

// The end of sub-ray k's signal: its clear length (to its first surface, clear_m) and weight
// noted for the fog's slabs in *clear (where given), its rain and snow added (AddParticles),
// then its spray's slabs in the slots left (SprayReturns); returns the new count.
LT_HD inline uint32_t FinishSubRay(const FrameContext& c, uint32_t beam, uint32_t k, double weight,
                                   double clear_m, physics::SignalContribution* out, uint32_t count,
                                   uint32_t room, SubRayClear* clear, const SubRaySpray& spray) {
  if (clear) *clear = {static_cast<float>(clear_m), static_cast<float>(weight)};
  count = AddParticles(c, beam, k, weight, clear_m, out, count, room);
  if (spray.n == 0) return count;
  const uint32_t mine = SlotsPerSubRay(c.signal) < room ? SlotsPerSubRay(c.signal) : room;
  if (count >= mine) return count;
  return count + SprayReturns(c.spray, c.signal.link, c.signal.overlap,
                              c.signal.threshold.pulse_sigma_m, spray.chord, spray.n, weight,
                              clear_m, out + count, mine - count);
}

// Stages 2-3 for sub-ray k, traced: the window's echo (PassWindow), then followed through up
// to max_surfaces surfaces, each hit adds its received power at its range (seed 004 eq. 3-5,
// seed 002 eq. 2) through the window both ways, then the rain and snow in front of the first
// (FinishSubRay, which notes its clear length in *clear where given). Writes at most
// min(SlotsPerSubRay, room) contributions to `out` and returns how many.
template <typename ClosestHit>
LT_HD uint32_t TraceSubRaySignal(const FrameContext& c, uint32_t beam, uint32_t k,
                                 const BeamSetup& s, ClosestHit& closest_hit,
                                 physics::SignalContribution* out, uint32_t room,
                                 SubRayClear* clear = nullptr) {
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  const SubRay sub = FootprintSubRay(c, beam, k, n, s.b, s.shift);
  const WindowPass window = PassWindow(c, sub, out, room);
  double weight = sub.weight;  // the share reaching the next surface
  const RayQuery first = SignalFirstQuery(c, s, sub);
  SubRaySpray spray;
  FindSpray(c, s.t, first, &spray);
  const physics::Vec3<double>& dir_world = first.unit_direction;
  const double t_max = first.t_max;
  double t_min = first.t_min;
  double clear_m = t_max;  // to the first surface
  uint32_t count = window.written;
  for (uint32_t surface = 0; surface < c.signal.max_surfaces && count < room; ++surface) {
    const SurfaceHit hit = closest_hit(s.pose.translation, dir_world, t_min, t_max);
    if (!hit.hit) break;
    if (surface == 0) clear_m = hit.distance_m;
    const physics::SurfaceResponse& r = c.objects[hit.object].response;
    const double cos_theta = physics::IncidenceCosine(dir_world, hit.normal);
    const double p = weight * window.two_way * r.coverage *
                     physics::ReceivedPower(c.signal.link, physics::MonostaticBrdf(r, cos_theta),
                                            cos_theta, hit.distance_m) *
                     physics::OverlapShare(c.signal.overlap, hit.distance_m) *
                     SprayTransmission(spray.chord, spray.n, hit.distance_m);
    out[count++] = {static_cast<float>(hit.distance_m), static_cast<float>(p), hit.object,
                    SunlightOf(c, weight * window.one_way * r.coverage, r, hit.distance_m)};
    if (!physics::SurfaceLetsLightThrough(r)) break;
    weight *= physics::ContinuationFactor<double>(r);
    // Past this surface: 1 mm on, well above the refined hit's error (ADR 0002).
    t_min = hit.distance_m + 1e-3;
  }
  return FinishSubRay(c, beam, k, sub.weight * window.two_way, clear_m, out, count, room, clear,
                      spray);
}

// Stages 2-3 for sub-ray k from the raster (seed 004 Alg. 1): the window's echo (PassWindow),
// then the sample reads its pixel's plane, the range corrected along the sample's own
// direction (seed 004 sec. II-D2). First surfaces only, then the particles in front of it
// (FinishSubRay): writes at most min(SlotsPerSubRay, room) contributions to `out` and returns
// how many.
LT_HD inline uint32_t RasterSubRaySignal(const FrameContext& c, uint32_t beam, uint32_t k,
                                         const BeamSetup& s, physics::SignalContribution* out,
                                         uint32_t room, SubRayClear* clear = nullptr) {
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  const SubRay sub = FootprintSubRay(c, beam, k, n, s.b, s.shift);
  const WindowPass window = PassWindow(c, sub, out, room);
  const double weight = sub.weight * window.two_way;  // the return's share, through the window
  const uint32_t count = window.written;
  SubRaySpray spray;
  FindSpray(c, s.t, SignalFirstQuery(c, s, sub), &spray);
  const RasterPixel* px = RasterLookup(c.raster, sub.dir);
  const double reach = SubRayReach(c);
  if (!px || px->object == kRasterNoHit || count >= room)
    return FinishSubRay(c, beam, k, weight, reach, out, count, room, clear, spray);
  const physics::Vec3<double> normal{px->normal[0], px->normal[1], px->normal[2]};
  const double vn = physics::Dot(sub.dir, normal);
  if (vn == 0) return FinishSubRay(c, beam, k, weight, reach, out, count, room, clear, spray);
  const double range = px->plane_offset_m / vn;
  if (!(range >= c.detector.min_range_m && range <= reach)) {
    // A surface nearer than the window hides everything behind it; one behind the sensor or
    // past the reach, nothing.
    const bool hidden = range > 0 && range < c.detector.min_range_m;
    return FinishSubRay(c, beam, k, weight, hidden ? range : reach, out, count, room, clear, spray);
  }
  const physics::SurfaceResponse& r = c.objects[px->object].response;
  const double cos_theta = vn < 0 ? -vn : vn;
  const double p = weight * r.coverage *
                   physics::ReceivedPower(c.signal.link, physics::MonostaticBrdf(r, cos_theta),
                                          cos_theta, range) *
                   physics::OverlapShare(c.signal.overlap, range) *
                   SprayTransmission(spray.chord, spray.n, range);
  out[count] = {static_cast<float>(range), static_cast<float>(p), px->object,
                SunlightOf(c, sub.weight * window.one_way * r.coverage, r, range)};
  return FinishSubRay(c, beam, k, weight, range, out, count + 1, room, clear, spray);
}

// Stages 2-3 for a whole beam, sub-ray after sub-ray (traced or from the raster); the
// contributions in (sub-ray, surface) order, then the fog's slabs (AddFogSlabs), the first
// kMaxContributions kept (profiles are checked to keep the sub-rays' within it). The CUDA
// backend runs the sub-rays in parallel and keeps the same order and the same cut.
// `tabled`: where the fog has its table, the slabs in front of every sub-ray (AddFogSlabs).
template <typename ClosestHit>
LT_HD uint32_t GatherBeamSignal(const FrameContext& c, uint32_t beam, const BeamSetup& s,
                                ClosestHit& closest_hit, physics::SignalContribution* out,
                                physics::TabledPulses* tabled = nullptr) {
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  // Sub-rays are at most kMaxContributions (each has a surface slot); one that the cut leaves
  // untraced sees no fog.
  SubRayClear clear[kMaxContributions];
  const bool fog = c.signal.fog.slabs > 0;
  uint32_t count = 0;
  for (uint32_t k = 0; k < n; ++k) {
    SubRayClear* mine = fog ? &clear[k] : nullptr;
    if (mine) *mine = {0.0f, 0.0f};
    if (count >= kMaxContributions) continue;
    count += c.signal.raster_gather
                 ? RasterSubRaySignal(c, beam, k, s, out + count, kMaxContributions - count, mine)
                 : TraceSubRaySignal(c, beam, k, s, closest_hit, out + count,
                                     kMaxContributions - count, mine);
  }
  if (!fog) return count;
  return AddFogSlabs(c.signal.fog, clear, n, out, count, kMaxContributions, tabled);
}

// One pixel of the frame's angular raster (seed 004 Alg. 1 input: range, normal, surface),
// traced from the beams' origin of the sensor at `pose`.
template <typename ClosestHit>
LT_HD RasterPixel TraceRasterPixel(const FrameContext& c, uint32_t i, uint32_t j,
                                   const physics::Pose<double>& pose, ClosestHit& closest_hit) {
  const physics::Vec3<double> p = RasterDirection(c.raster, i, j);
  const SurfaceHit hit =
      closest_hit(physics::TransformPoint(pose, c.beam_origin), physics::Rotate(pose.rotation, p),
                  c.detector.min_range_m, SubRayReach(c));
  if (!hit.hit) return {0, {0, 0, 0}, kRasterNoHit};
  const physics::Vec3<double> n = physics::Rotate(physics::Conjugate(pose.rotation), hit.normal);
  return {static_cast<float>(hit.distance_m * physics::Dot(p, n)),
          {static_cast<float>(n.x), static_cast<float>(n.y), static_cast<float>(n.z)},
          hit.object};
}

// Stages 4-5 for the threshold detector: echoes of the pulse-convolved signal, picked by the
// return mode, with range errors (tier 6) and labels from the dominant contribution (tier 7),
// written to out[0 .. K).
// `tabled`: the fog's slabs the beam holds from the fog's table (AddFogSlabs).
LT_HD inline void WriteEchoes(const FrameContext& c, uint32_t beam,
                              const physics::BeamSample<double>& b, double t,
                              const physics::Pose<double>& pose,
                              physics::SignalContribution* contributions, uint32_t n,
                              BeamRecord* out, physics::TabledPulses tabled = {}) {
  physics::Echo echoes[physics::kMaxEchoesDetected];
  uint32_t detected = 0;
  // Pulse energy: one draw per pulse scales every contribution.
  if (c.signal.pulse_energy_jitter > 0) {
    const physics::Philox4x32 w = physics::RandomWords(
        physics::RandomKey{c.seed, c.frame, beam, 0, physics::kStreamPulseEnergy});
    const double f = physics::PulseEnergyFactor(c.signal.pulse_energy_jitter,
                                                physics::StandardNormal<double>(w.v[0], w.v[1]));
    for (uint32_t k = 0; k < n; ++k)
      contributions[k].power_w = static_cast<float>(contributions[k].power_w * f);
    tabled.scale *= f;
  }
  // Receiver noise: one draw per pulse, detected against T - n, reported as S + n.
  physics::ThresholdDetector detector = c.signal.threshold;
  double noise_w = 0;
  if (c.signal.signal_noise_w > 0) {
    const physics::Philox4x32 w = physics::RandomWords(
        physics::RandomKey{c.seed, c.frame, beam, 0, physics::kStreamSignalNoise});
    noise_w = c.signal.signal_noise_w * physics::StandardNormal<double>(w.v[0], w.v[1]);
    detector.threshold_w = physics::NoisyThreshold(detector.threshold_w, noise_w);
  }
  // The receiver's range gate at the minimum range: echoes nearer (a dirty window's, or
  // pulses merged with it) are no candidates for the return mode and take no return number.
  const uint32_t count = physics::DetectEchoes(detector, contributions, n, echoes, &detected,
                                               c.detector.min_range_m, true, &tabled);
  uint32_t chosen[physics::kMaxEchoesDetected];
  const uint32_t m = physics::SelectEchoes(c.signal.threshold.mode, c.signal.threshold.max_echoes,
                                           echoes, count, chosen);
  physics::ReturnType types[physics::kMaxEchoesDetected];
  physics::SelectedEchoTypes(c.signal.threshold.mode, echoes, count, chosen, m, types);
  const physics::Vec3<double> central = physics::BeamDirection(b.azimuth_rad, b.elevation_rad);
  uint32_t slot = 0;
  for (uint32_t i = 0; i < m; ++i) {
    const physics::Echo& e = echoes[chosen[i]];
    double range = e.range_m;
    if (c.detector.range_noise_sigma_m > 0) {
      const physics::Philox4x32 w = physics::RandomWords(
          physics::RandomKey{c.seed, c.frame, beam, e.index, physics::kStreamEchoRangeNoise});
      range = physics::NoisyRange(range, c.detector.range_noise_sigma_m,
                                  physics::StandardNormal<double>(w.v[0], w.v[1]));
    }
    if (c.signal.outlier_probability > 0) {
      const physics::Philox4x32 w = physics::RandomWords(
          physics::RandomKey{c.seed, c.frame, beam, e.index, physics::kStreamOutlier});
      if (physics::UniformOpen01<double>(w.v[0]) < c.signal.outlier_probability) {
        range = physics::OutlierRange(c.detector.min_range_m, range,
                                      physics::UniformOpen01<double>(w.v[1]));
      }
    }
    range = physics::QuantisedRange(range, c.signal.range_resolution_m);
    if (range < c.detector.min_range_m || range > c.detector.max_range_m) continue;
    const ObjectInfo& o = c.objects[e.source];
    const physics::Vec3<double> p = physics::ReportedPoint(
        range, central, pose, c.pose_end, c.trajectory.motion_correction, BeamOrigin(c, b));
    // Calibrated reflectivity: the echo's peak power over a white Lambertian target's at the
    // same range, through the same near-field overlap, in percent (link_budget.h).
    BeamRecord& r = out[slot++];
    r = PointRecord(
        c, beam, b, t, p, range,
        physics::ReportedIntensity(e.peak_power_w + noise_w, physics::CalibratedWhiteTargetPower(
                                                                 c.signal.calibration_link,
                                                                 c.signal.overlap, e.peak_range_m)),
        o);
    r.echo_pulse_width_ns =
        static_cast<float>(physics::RangeIntervalTime(e.end_m - e.start_m) * 1e9);
    r.return_index = static_cast<uint16_t>(e.index);
    r.return_type = physics::Code(types[i]);
  }
}

// The first query of each sub-ray SimulateBeam traces for `beam`, in the order it issues
// them: what a caller can trace ahead, in packets (the CPU backend). A threshold sub-ray may
// follow with more queries, past the surfaces it meets; the raster gather issues none. Writes
// at most max(1, sub_rays) queries; returns how many. With `setup` and `has_setup`, also the
// beam's setup it computed on the way (the place alone for the single-hit detectors; none for
// the raster gather), for SimulateBeam to take rather than compute again.
LT_HD inline uint32_t FirstQueries(const FrameContext& c, uint32_t beam, RayQuery* out,
                                   BeamSetup* setup = nullptr, bool* has_setup = nullptr) {
  const uint32_t n = c.footprint.sub_rays > 1 ? c.footprint.sub_rays : 1;
  if (has_setup) *has_setup = false;
  if (!physics::ReadsReturnSignal(c.detector.model)) {
    const BeamPlace place = PlaceBeam(c, beam);
    if (setup && has_setup) {  // the place only: the single-hit detectors draw no strata shift
      static_cast<BeamPlace&>(*setup) = place;
      *has_setup = true;
    }
    const physics::Pose<double>& pose = place.pose;
    const physics::Vec3<double> central =
        physics::BeamDirection(place.b.azimuth_rad, place.b.elevation_rad);
    if (n == 1 || c.footprint.mode == physics::DivergenceMode::kRandomSelection) {
      const uint32_t k = SelectedSubRay(c, beam, n);
      out[0] = SubRayQuery(c, pose, SubRayDirection(c, beam, k, central));
      return 1;
    }
    for (uint32_t k = 0; k < n; ++k)
      out[k] = SubRayQuery(c, pose, SubRayDirection(c, beam, k, central));
    return n;
  }
  if (c.signal.raster_gather) return 0;
  const BeamSetup s = SetUpBeam(c, beam);
  if (setup && has_setup) {
    *setup = s;
    *has_setup = true;
  }
  for (uint32_t k = 0; k < n; ++k)
    out[k] = SignalFirstQuery(c, s, FootprintSubRay(c, beam, k, n, s.b, s.shift));
  return n;
}

// The beam's sunlight [W]: the sum of its hits' (seed 002 eq. 4).
LT_HD inline double BeamSunlight(const physics::SignalContribution* contributions, uint32_t n) {
  double sun_w = 0;
  for (uint32_t k = 0; k < n; ++k)
    sun_w += contributions[k].ambient_w;
  return sun_w;
}

// The label of a waveform echo that no contribution dominates (noise).
inline constexpr uint32_t kNoLabel = 0xffffffffu;

// Whether contribution k dominates an echo at `peak_range_m` better than the best so far
// (`best` its power there; ties keep the earlier one), within 4 sigma_r of it.
LT_HD inline bool EchoSourceBetter(const physics::SignalContribution& k, double peak_range_m,
                                   double half_inv_var, double& best) {
  const double d = peak_range_m - k.range_m;
  const double p = k.power_w * physics::PulseWeight(d, half_inv_var);
  if (d * d * half_inv_var < 8 && p > best) {
    best = p;
    return true;
  }
  return false;
}
LT_HD inline double EchoHalfInverseVariance(const FrameContext& c) {
  return 0.5 / (c.signal.threshold.pulse_sigma_m * c.signal.threshold.pulse_sigma_m);
}

// The contribution that dominates an echo's peak (EchoSourceBetter over all, in order), or -1.
LT_HD inline int64_t EchoSource(const FrameContext& c, const physics::Echo& e,
                                const physics::SignalContribution* contributions, uint32_t n) {
  const double half_inv_var = EchoHalfInverseVariance(c);
  double best = 0;
  int64_t source = -1;
  for (uint32_t k = 0; k < n; ++k)
    if (EchoSourceBetter(contributions[k], e.peak_range_m, half_inv_var, best)) source = k;
  return source;
}

// The echoes the return mode reports (physics::SelectEchoes), indices into `echoes`; returns
// how many.
LT_HD inline uint32_t ChosenEchoes(const FrameContext& c, const physics::Echo* echoes,
                                   uint32_t count, uint32_t* chosen) {
  return physics::SelectEchoes(c.signal.threshold.mode, c.signal.threshold.max_echoes, echoes,
                               count, chosen);
}

// The chosen echoes (ChosenEchoes) as records out[0 .. m), echo i labelled by the contribution
// sources[i] (EchoSource; -1: noise).
LT_HD inline void WriteChosenEchoes(const FrameContext& c, uint32_t beam,
                                    const physics::BeamSample<double>& b, double t,
                                    const physics::Pose<double>& pose,
                                    const physics::SignalContribution* contributions,
                                    const physics::Echo* echoes, uint32_t count,
                                    const uint32_t* chosen, const int64_t* sources, uint32_t m,
                                    BeamRecord* out) {
  const physics::Vec3<double> central = CentralDirection(c, beam, b);
  physics::ReturnType types[physics::kMaxEchoesDetected];
  physics::SelectedEchoTypes(c.signal.threshold.mode, echoes, count, chosen, m, types);
  ObjectInfo none{};
  none.material = none.instance = none.semantic = kNoLabel;
  for (uint32_t i = 0; i < m; ++i) {
    const physics::Echo& e = echoes[chosen[i]];
    const ObjectInfo& o = sources[i] < 0 ? none : c.objects[contributions[sources[i]].source];
    const physics::Vec3<double> p = physics::ReportedPoint(
        e.range_m, central, pose, c.pose_end, c.trajectory.motion_correction, BeamOrigin(c, b));
    BeamRecord& r = out[i];
    r = PointRecord(c, beam, b, t, p, e.range_m,
                    physics::WaveformIntensity(c.waveform, e.peak_power_w), o);
    r.echo_pulse_width_ns =
        static_cast<float>(physics::RangeIntervalTime(e.end_m - e.start_m) * 1e9);
    r.return_index = static_cast<uint16_t>(e.index);
    r.return_type = physics::Code(types[i]);
  }
}

// The waveform detector's echoes (waveform_ranging.h) as records: the return mode picks K,
// each labelled by the contribution that dominates the received power at its peak (within
// 4 sigma_r of it; none: noise, kNoLabel and reflectance 0), at its range along the beam, its
// intensity on the sensor's scale.
LT_HD inline void RecordWaveformEchoes(const FrameContext& c, uint32_t beam,
                                       const physics::BeamSample<double>& b, double t,
                                       const physics::Pose<double>& pose,
                                       const physics::SignalContribution* contributions, uint32_t n,
                                       const physics::Echo* echoes, uint32_t count,
                                       BeamRecord* out) {
  uint32_t chosen[physics::kMaxEchoesDetected];
  int64_t sources[physics::kMaxEchoesDetected];
  const uint32_t m = ChosenEchoes(c, echoes, count, chosen);
  for (uint32_t i = 0; i < m; ++i)
    sources[i] = EchoSource(c, echoes[chosen[i]], contributions, n);
  WriteChosenEchoes(c, beam, b, t, pose, contributions, echoes, count, chosen, sources, m, out);
}

// Stages 4-5 for the waveform detector (seed 002 sec. 5): the beam's voltage record from its
// contributions (physics/waveform.h) in `scratch` (N complex samples), its echoes
// (waveform_ranging.h) as records in out[0 .. K).
template <typename Samples>
LT_HD void WriteWaveformEchoes(const FrameContext& c, uint32_t beam,
                               const physics::BeamSample<double>& b, double t,
                               const physics::Pose<double>& pose,
                               const physics::SignalContribution* contributions, uint32_t n,
                               Samples scratch, BeamRecord* out) {
  const physics::WaveformChain& w = c.waveform;
  const physics::RandomKey key{c.seed, c.frame, beam, 0, 0};
  physics::SimulateWaveform(w, contributions, n, BeamSunlight(contributions, n), key, scratch);
  const physics::WaveformBackground g = physics::MeasureBackground(w, scratch);
  physics::Echo echoes[physics::kMaxEchoesDetected];
  uint32_t detected = 0;
  const uint32_t count = physics::WaveformEchoes(w, g, scratch, c.detector.min_range_m,
                                                 c.detector.max_range_m, echoes, &detected);
  RecordWaveformEchoes(c, beam, b, t, pose, contributions, n, echoes, count, out);
}

// One beam: writes c.echoes_per_beam record slots starting at `out`; unused slots are invalid.
// `scratch`: the waveform detector's record, c.waveform.samples complex values (unused by the
// other detectors).
// `known`: the beam's setup when the caller computed it already (FirstQueries, for the CPU's
// trace-ahead; the single-hit detectors read only its place), else computed here: the same
// values either way.
template <typename ClosestHit>
LT_HD void SimulateBeam(const FrameContext& c, uint32_t beam, ClosestHit&& closest_hit,
                        BeamRecord* out, physics::ComplexF* scratch = nullptr,
                        const BeamSetup* known = nullptr) {
  for (uint32_t k = 0; k < c.echoes_per_beam; ++k)
    out[k] = BeamRecord{};
  if (!physics::ReadsReturnSignal(c.detector.model)) {
    out[0] = SimulateBeamSingleHit(c, beam, closest_hit, known);
    return;
  }
  const BeamSetup s = known ? *known : SetUpBeam(c, beam);
  physics::SignalContribution contributions[kMaxContributions];
  physics::TabledPulses tabled;
  const uint32_t n = GatherBeamSignal(c, beam, s, closest_hit, contributions, &tabled);
  if (c.detector.model == physics::DetectorModel::kWaveform) {
    WriteWaveformEchoes(c, beam, s.b, s.t, s.pose, contributions, n, scratch, out);
  } else {
    WriteEchoes(c, beam, s.b, s.t, s.pose, contributions, n, out, tabled);
  }
}

}  // namespace lt
