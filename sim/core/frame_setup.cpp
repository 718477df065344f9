#include "internal/frame_setup.h"

#include "internal/waveform_setup.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "internal/weather_setup.h"
#include "lidartwin/sim/weather_check.h"

namespace lt {

SignalChain FrameSignalChain(const SensorProfile& p, const SceneDescription& scene,
                             uint32_t first_weather_object) {
  SignalChain chain{p.detector.link,
                    p.Threshold(),
                    p.detector.max_surfaces_per_sub_ray,
                    p.detector.range_resolution_m,
                    p.detector.outlier_probability,
                    p.detector.signal_noise_w,
                    p.detector.pulse_energy_jitter,
                    p.detector.overlap,
                    p.raster_gather,
                    SunPowerPerAlbedo(p, scene.sunlight),
                    p.detector.link};
  chain.link.extinction_per_m += WeatherExtinctionPerM(p, scene.weather);
  chain.particle_slots = ParticleSlots(p, scene.weather);
  chain.particles = FrameParticles(p, scene.weather, chain.link, first_weather_object);
  // The fog's object comes after the particles' (AppendWeatherObjects).
  chain.fog =
      FrameFog(p, scene.weather, chain.link, first_weather_object + chain.particles.populations);
  // The cover's object comes last (AppendWeatherObjects).
  chain.cover = FrameCover(
      p, scene.weather,
      first_weather_object + chain.particles.populations + (FogReturns(scene.weather) ? 1 : 0));
  chain.cover_slots = CoverSlots(scene.weather);
  chain.spray_slots = SpraySlots(p, scene.weather);
  return chain;
}

Status CheckWeather(const SensorProfile& p, const SceneDescription& scene) {
  const WeatherDescription& w = scene.weather;
  if (!w.Any()) return {};
  if (!p.detector.ReadsReturnSignal()) {
    return Error{"the scene's weather (" + w.Keys() +
                 ") needs a detector that reads the return signal (threshold or waveform): the "
                 "profile '" +
                 p.name + "' has the " +
                 (p.detector.kind == DetectorKind::kIdeal ? "ideal" : "capability") + " detector"};
  }
  // Scenes built in code meet the same checks as those read from a file.
  ConfigCheck check;
  w.Check(check);
  if (!check.ok()) return check.ToStatus("scene");
  // The window's echo and the spray's slabs take slots in each sub-ray beside its surfaces
  // (CoverSlots, SpraySlots).
  const uint32_t n = std::max<uint32_t>(1, p.footprint.sub_rays);
  auto no_room = [&](const std::string& key, const std::string& what) {
    return Error{key + ": " + what + " need a contribution slot in each sub-ray beside its " +
                 "surfaces, but the profile '" + p.name + "' fills a beam's " +
                 std::to_string(kMaxContributions) + " with " + std::to_string(n) +
                 " sub-rays of " + std::to_string(p.detector.max_surfaces_per_sub_ray) +
                 " surfaces each"};
  };
  if (CoverSlots(w) > 0 &&
      n * (p.detector.max_surfaces_per_sub_ray + CoverSlots(w)) > kMaxContributions) {
    return no_room("weather.cover", "the echoes of a window that scatters light back");
  }
  if (w.spray && SpraySlots(p, w) == 0) return no_room("weather.spray", "the spray's returns");
  return {};
}

namespace {

// How far from its beam direction a footprint sample can point [rad].
double FootprintReach(const SensorProfile& p) {
  const physics::BeamFootprint& f = p.footprint;
  if (f.sub_rays <= 1) return 0;
  switch (f.kind) {
    case physics::FootprintKind::kCone:
      return f.half_angle_rad;
    case physics::FootprintKind::kGaussian: {
      // Phi^-1 of the stratified coordinates stays within 7.1 sigma (u >= 1e-12).
      double reach = 0;
      for (uint32_t s = 0; s < f.spot_count; ++s) {
        const auto& g = f.spots[s];
        reach = std::max(reach, std::hypot(std::abs(g.h_offset_rad) + 7.1 * g.sigma_h_rad,
                                           std::abs(g.v_offset_rad) + 7.1 * g.sigma_v_rad));
      }
      return reach;
    }
    case physics::FootprintKind::kTable: {
      const auto& k = p.kernel;
      const double h = std::max(std::abs(k.h0_rad), std::abs(k.h0_rad + k.nh * k.dh_rad));
      const double v = std::max(std::abs(k.v0_rad), std::abs(k.v0_rad + k.nv * k.dv_rad));
      return std::hypot(h, v);
    }
  }
  return 0;
}

}  // namespace

Expected<AngularRasterView> PlanRaster(const SensorProfile& p) {
  const physics::ScanPattern<double> scan = p.Pattern();
  const uint32_t beams = p.BeamCount();
  // Azimuths folded into [-pi, pi); a span over pi means the beams go round.
  double az_min = physics::kPi, az_max = -physics::kPi;
  double el_min = physics::kPi, el_max = -physics::kPi;
  for (uint32_t i = 0; i < beams; ++i) {
    const auto b = physics::ScanBeam(scan, i);
    const double a =
        b.azimuth_rad -
        2 * physics::kPi * std::floor((b.azimuth_rad + physics::kPi) / (2 * physics::kPi));
    az_min = std::min(az_min, a);
    az_max = std::max(az_max, a);
    el_min = std::min(el_min, b.elevation_rad);
    el_max = std::max(el_max, b.elevation_rad);
  }
  // A sample at angle a off a beam at elevation e moves its azimuth by up to a / cos(e').
  const double reach = FootprintReach(p);
  const double res = p.raster_resolution_rad;
  AngularRasterView r{};
  r.el0_rad = std::max(-physics::kPi / 2, el_min - reach - res);
  const double el_top = std::min(physics::kPi / 2, el_max + reach + res);
  r.nel = static_cast<uint32_t>(std::ceil((el_top - r.el0_rad) / res));
  r.del_rad = (el_top - r.el0_rad) / r.nel;
  const double cos_edge = std::cos(std::max(std::abs(r.el0_rad), std::abs(el_top)));
  const double az_reach = cos_edge > 1e-3 ? (reach + res) / cos_edge : 2 * physics::kPi;
  if (az_max - az_min + 2 * az_reach >= physics::kPi) {
    r.wraps = true;
    r.az0_rad = 0;
    r.naz = static_cast<uint32_t>(std::ceil(2 * physics::kPi / res));
    r.daz_rad = 2 * physics::kPi / r.naz;
  } else {
    r.az0_rad = az_min - az_reach;
    r.naz = static_cast<uint32_t>(std::ceil((az_max - az_min + 2 * az_reach) / res));
    r.daz_rad = (az_max - az_min + 2 * az_reach) / r.naz;
  }
  const uint64_t pixels = uint64_t{r.naz} * r.nel;
  if (pixels > kMaxRasterPixels) {
    return Error{p.source_file + ": beam.raster_resolution_mrad " + std::to_string(res * 1e3) +
                 " gives a raster of " + std::to_string(r.naz) + " x " + std::to_string(r.nel) +
                 " pixels, more than " + std::to_string(kMaxRasterPixels) +
                 "; use a coarser resolution"};
  }
  return r;
}

Status CheckRasterGather(const SensorProfile& p, const Scene& scene, const Trajectory& t) {
  if (!p.raster_gather) return {};
  if (scene.HasMovingObjects()) {
    return Error{p.source_file +
                 ": beam.gather: raster needs a static scene (the raster is traced once "
                 "per frame); this scene has moving objects: use gather: sub_rays"};
  }
  for (const auto& pose : t.poses) {
    const auto& a = pose;
    const auto& b = t.poses.front();
    if (a.translation.x != b.translation.x || a.translation.y != b.translation.y ||
        a.translation.z != b.translation.z || a.rotation.w != b.rotation.w ||
        a.rotation.x != b.rotation.x || a.rotation.y != b.rotation.y ||
        a.rotation.z != b.rotation.z) {
      return Error{p.source_file +
                   ": beam.gather: raster needs a static sensor (the raster is traced "
                   "from one pose per frame); the trajectory moves: use gather: sub_rays"};
    }
  }
  return {};
}

std::vector<ObjectInfo> ObjectInfos(const Scene& scene, double wavelength_nm) {
  std::vector<ObjectInfo> out;
  out.reserve(scene.objects.size());
  for (const SceneObject& o : scene.objects) {
    const Material& m = scene.materials.materials[o.material_id];
    const double r0 = m.ReflectanceAt(wavelength_nm);
    const physics::SurfaceResponse response{r0,
                                            m.specular_albedo,
                                            m.specular_exponent,
                                            m.retroreflective_peak_sr,
                                            m.retroreflective_max_entrance_deg * physics::kDegToRad,
                                            m.transmittance,
                                            m.coverage,
                                            m.roughness_deg * physics::kDegToRad};
    out.push_back({r0, o.material_id, o.instance_id, o.semantic_class, response});
  }
  WetObjects(scene, wavelength_nm, out);
  AppendWeatherObjects(scene, wavelength_nm, out);
  return out;
}

std::vector<BeamSlice> MotionSlices(const physics::ScanPattern<double>& scan, uint32_t beams,
                                    double frame_start_s, uint32_t slices) {
  std::vector<BeamSlice> out;
  if (beams == 0) return out;
  slices = std::max(1u, std::min(slices, beams));
  for (uint32_t k = 0; k < slices; ++k) {
    const auto begin = static_cast<uint32_t>(uint64_t{beams} * k / slices);
    const auto end = static_cast<uint32_t>(uint64_t{beams} * (k + 1) / slices);
    const double t0 = physics::ScanBeam(scan, begin).time_s;
    const double t1 = physics::ScanBeam(scan, end - 1).time_s;
    out.push_back({begin, end, frame_start_s + 0.5 * (t0 + t1)});
  }
  return out;
}

Frame FrameHeader(uint32_t index, double start_s, double period_s, const Trajectory& trajectory) {
  Frame f;
  f.index = index;
  f.start_time_s = start_s;
  f.end_time_s = start_s + period_s;
  f.pose_start = trajectory.At(start_s);
  f.pose_end = trajectory.At(start_s + period_s);
  f.motion_corrected = trajectory.motion_correction;
  return f;
}

}  // namespace lt
