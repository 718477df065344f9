#include "detection_range.h"

#include <cmath>
#include <string>

#include "lidartwin/physics/pose.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/sim/simulator.h"

namespace lt::jobs {
namespace {

constexpr uint32_t kPlate = 1;

// Whether one frame of `beam` reports the plate at range_m.
Expected<bool> Sees(const SensorProfile& beam, double reflectance,
                    const WeatherDescription& weather, uint64_t seed, double range_m) {
  // 20 m wide: the footprint (a few mrad) is covered out to kilometres.
  const Scene scene = PlateAhead(range_m, 20, reflectance, kPlate, weather);
  const Trajectory still = Trajectory::Static();
  auto sim = CreateSimulator(Backend::kCpu, scene, beam, still, {seed, 0});
  if (!sim.ok()) return sim.error();
  auto f = (*sim)->Simulate(0);
  if (!f.ok()) return f.error();
  for (size_t i = 0; i < f->size(); ++i)
    if (f->instance_id[i] == kPlate) return true;
  return false;
}

}  // namespace

SensorProfile OneBeamAhead(const SensorProfile& profile) {
  SensorProfile beam = profile;
  beam.name = profile.name + " (one beam ahead)";
  beam.scan = ScanKind::kSpinning;
  beam.elevation_rad = {0};
  beam.azimuth_offset_rad = {0};
  beam.firing_offset_s = {0};
  beam.columns = 1;
  if (!(beam.rotation_rate_hz > 0)) beam.rotation_rate_hz = 10;
  beam.start_azimuth_rad = 0;
  beam.blocked_directions = {};
  beam.ray_drop = {};  // a learned drop table would make the range a draw
  beam.beam_origin_m = {0, 0, 0};
  beam.beam_origin_radius_m = 0;
  beam.range_offset_m = 0;
  return beam;
}

Scene PlateAhead(double range_m, double size_m, double reflectance, uint32_t instance_id,
                 const WeatherDescription& weather) {
  Scene s;
  s.materials.materials.push_back(Material{.name = kPlateMaterial,
                                           .wavelength_nm = {kFlatSpectrumWavelengthNm},
                                           .reflectance = {reflectance},
                                           .source = "a diffuse Lambertian plate"});
  SceneObject o;
  o.name = "plate";
  o.type = "plate";
  o.instance_id = instance_id;
  o.semantic_class = 64;
  o.mesh = MakePlate(size_m, size_m);
  o.pose = {physics::QuatFromRollPitchYaw(0.0, 0.0, physics::kPi), {range_m, 0, 0}};
  for (auto& v : o.mesh.vertices) {
    const auto w = physics::TransformPoint(o.pose, physics::Vec3<double>{v[0], v[1], v[2]});
    v = {w.x, w.y, w.z};
  }
  s.objects.push_back(std::move(o));
  s.description.weather = weather;
  return s;
}

Expected<double> DetectionRangeM(const SensorProfile& beam, double reflectance,
                                 const WeatherDescription& weather, uint64_t seed,
                                 double tolerance_m) {
  // Just past the minimum range (a plate there is not cut by it) and the maximum.
  double lo = beam.min_range_m + 0.05, hi = beam.max_range_m;
  auto near = Sees(beam, reflectance, weather, seed, lo);
  if (!near.ok()) return near.error();
  if (!*near) return 0.0;
  auto far = Sees(beam, reflectance, weather, seed, hi);
  if (!far.ok()) return far.error();
  if (*far) return hi;
  while (hi - lo > tolerance_m) {
    const double mid = 0.5 * (lo + hi);
    auto seen = Sees(beam, reflectance, weather, seed, mid);
    if (!seen.ok()) return seen.error();
    (*seen ? lo : hi) = mid;
  }
  return lo;
}

Expected<double> WeatherEchoesPerPulse(const SensorProfile& beam, const WeatherDescription& weather,
                                       double plate_range_m, uint64_t seed, uint32_t pulses) {
  const Scene scene = PlateAhead(plate_range_m, 20, 0.1, kPlate, weather);
  const Trajectory still = Trajectory::Static();
  auto sim = CreateSimulator(Backend::kCpu, scene, beam, still, {seed, 0});
  if (!sim.ok()) return sim.error();
  uint64_t echoes = 0;
  for (uint32_t frame = 0; frame < pulses; ++frame) {
    auto f = (*sim)->Simulate(frame);
    if (!f.ok()) return f.error();
    for (size_t i = 0; i < f->size(); ++i)
      echoes += f->instance_id[i] != kPlate;
  }
  return pulses > 0 ? double(echoes) / pulses : 0.0;
}

}  // namespace lt::jobs
