// CPU reference backend: one ray per beam (tiers 1, 3 and the ideal / capability detectors).
// Beams are split across threads in contiguous blocks; each beam writes its own slot and the
// slots are compacted in beam order, so the output does not depend on the thread count.
#include <algorithm>
#include <thread>

#include "lidartwin/physics/capability.h"
#include "lidartwin/physics/philox.h"
#include "lidartwin/physics/range_noise.h"
#include "lidartwin/physics/reflectance.h"
#include "lidartwin/sim/simulator.h"

namespace lt {

namespace {

using physics::Vec3;

struct BeamResult {
  bool valid = false;
  Vec3<double> point{0, 0, 0};
  double range_m = 0;
  double time_s = 0;
  float intensity = 0;
  float reflectance = 0;
  uint32_t channel = 0;
  uint32_t column = 0;
  uint32_t material = 0;
  uint32_t instance = 0;
  uint16_t semantic = 0;
};

}  // namespace

CpuSimulator::CpuSimulator(const Scene& scene, const SensorProfile& profile,
                           const Trajectory& trajectory, SimulationOptions options)
    : scene_(scene),
      profile_(profile),
      trajectory_(trajectory),
      options_(options),
      caster_(RayCaster::Create(scene)) {
  for (const Material& m : scene.materials.materials) {
    material_r0_.push_back(m.ReflectanceAt(profile.wavelength_nm));
  }
}

CpuSimulator::~CpuSimulator() = default;

uint64_t CpuSimulator::RaysPerFrame() const {
  return profile_.BeamCount();
}

Frame CpuSimulator::Simulate(uint32_t frame_index) const {
  const uint32_t beams = profile_.BeamCount();
  const double period = profile_.FramePeriodS();
  const double t0 = trajectory_.start_time_s + frame_index * period;
  const physics::Pose<double> pose_end = trajectory_.At(t0 + period);
  const DetectorConfig& det = profile_.detector;
  std::vector<BeamResult> results(beams);

  auto run = [&](uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end; ++i) {
      const physics::BeamSample<double> beam = profile_.Beam(i);
      const double t = t0 + beam.time_s;
      const physics::Pose<double> pose = trajectory_.At(t);
      const Vec3<double> dir_sensor = physics::BeamDirection(beam.azimuth_rad, beam.elevation_rad);
      const Vec3<double> dir_world = physics::Rotate(pose.rotation, dir_sensor);
      const RayHit hit =
          caster_->Closest(pose.translation, dir_world, profile_.min_range_m, profile_.max_range_m);
      if (!hit.hit) continue;
      const SceneObject& obj = scene_.objects[hit.object];
      const double r0 = material_r0_[obj.material_id];
      const double cos_theta = physics::IncidenceCosine(dir_world, hit.normal);
      const double reflectance = physics::LambertianReflectance(r0, cos_theta);  // eq. (4)
      double range = hit.distance_m;
      if (det.kind == DetectorKind::kCapability) {
        if (det.range_noise_sigma_m > 0) {
          const physics::Philox4x32 w =
              physics::RandomWords({options_.seed, frame_index, i, 0, physics::kStreamRangeNoise});
          range = physics::NoisyRange(range, det.range_noise_sigma_m,
                                      physics::StandardNormal<double>(w.v[0], w.v[1]));
        }
        if (!physics::CapabilityDetects(reflectance, range, det.reflectance_at_max_range,
                                        det.max_range_m)) {
          continue;
        }
      }
      if (range < profile_.min_range_m || range > profile_.max_range_m) continue;
      // The sensor reports the point along its beam at the measured range, in its own frame
      // at the firing time; motion correction re-expresses it at the frame's last pose.
      Vec3<double> p = range * dir_sensor;
      if (trajectory_.motion_correction) {
        p = physics::InverseTransformPoint(pose_end, physics::TransformPoint(pose, p));
      }
      BeamResult& r = results[i];
      r.valid = true;
      r.point = p;
      r.range_m = range;
      r.time_s = t;
      r.intensity = static_cast<float>(100.0 * reflectance);
      r.reflectance = static_cast<float>(r0);
      r.channel = beam.channel;
      r.column = beam.column;
      r.material = obj.material_id;
      r.instance = obj.instance_id;
      r.semantic = obj.semantic_class;
    }
  };

  unsigned threads = options_.threads ? options_.threads : std::thread::hardware_concurrency();
  threads = std::max(1u, std::min(threads, std::max(1u, beams / 1024)));
  if (threads == 1) {
    run(0, beams);
  } else {
    std::vector<std::thread> pool;
    const uint32_t block = (beams + threads - 1) / threads;
    for (unsigned k = 0; k < threads; ++k) {
      const uint32_t b = std::min<uint64_t>(beams, uint64_t{k} * block);
      const uint32_t e = std::min<uint64_t>(beams, uint64_t{k + 1} * block);
      pool.emplace_back(run, b, e);
    }
    for (auto& th : pool)
      th.join();
  }

  Frame f;
  f.index = frame_index;
  f.start_time_s = t0;
  f.end_time_s = t0 + period;
  f.pose_start = trajectory_.At(t0);
  f.pose_end = pose_end;
  f.motion_corrected = trajectory_.motion_correction;
  size_t n = 0;
  for (const auto& r : results)
    n += r.valid;
  f.Reserve(n);
  for (uint32_t i = 0; i < beams; ++i) {
    const BeamResult& r = results[i];
    if (!r.valid) continue;
    f.x_m.push_back(static_cast<float>(r.point.x));
    f.y_m.push_back(static_cast<float>(r.point.y));
    f.z_m.push_back(static_cast<float>(r.point.z));
    f.range_m.push_back(static_cast<float>(r.range_m));
    f.intensity.push_back(r.intensity);
    f.reflectance.push_back(r.reflectance);
    f.channel.push_back(static_cast<uint16_t>(r.channel));
    f.column.push_back(r.column);
    f.timestamp_s.push_back(r.time_s);
    f.return_index.push_back(0);
    f.material_id.push_back(static_cast<uint16_t>(r.material));
    f.instance_id.push_back(r.instance);
    f.semantic_class.push_back(r.semantic);
    f.beam_id.push_back(i);
  }
  return f;
}

}  // namespace lt
