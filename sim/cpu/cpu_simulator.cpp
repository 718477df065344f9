// CPU reference backend: the shared beam pipeline (internal/beam_pipeline.h) with Embree
// closest hits. Beams are split across threads in contiguous
// blocks; each beam writes its own slot and the slots are assembled in beam order, so the
// output does not depend on the thread count.
#include <algorithm>
#include <thread>

#include "cpu/cpu_simulator.h"
#include "cpu/prefetched_hits.h"
#include "internal/frame_setup.h"
#include "internal/weather_setup.h"
#include "lidartwin/base/host_cores.h"
#include "lidartwin/sim/weather_check.h"

namespace lt {

CpuSimulator::CpuSimulator(const Scene& scene, const SensorProfile& profile,
                           const Trajectory& trajectory, SimulationOptions options)
    : scene_(scene),
      profile_(profile),
      trajectory_(trajectory),
      options_(options),
      caster_(RayCaster::Create(scene)),
      objects_(ObjectInfos(scene, profile.wavelength_nm)),
      waveform_(MakeWaveformTables(profile)),
      spray_sources_(SpraySources(scene, static_cast<uint32_t>(scene.objects.size()))) {}

CpuSimulator::~CpuSimulator() = default;

namespace {

// Where ObjectInfos put the weather's objects: last. Objects made from another scene than
// `scene` (a caller's own) leave the particles without their labels rather than out of bounds.
uint32_t FirstWeatherObject(size_t objects, const SceneDescription* scene) {
  const uint32_t weather = scene ? WeatherObjectCount(scene->weather) : 0;
  return static_cast<uint32_t>(objects >= weather ? objects - weather : 0);
}

}  // namespace

FrameContext CpuFrameContext(const SensorProfile& profile, const Trajectory& trajectory,
                             const std::vector<ObjectInfo>& objects, uint64_t seed,
                             uint32_t frame_index, const SceneDescription* scene,
                             const WaveformTables* waveform) {
  const double period = profile.FramePeriodS();
  const double t0 = trajectory.start_time_s + frame_index * period;
  FrameContext c{profile.Pattern(),
                 {trajectory.time_s.data(), trajectory.poses.data(),
                  static_cast<int>(trajectory.poses.size()), trajectory.motion_correction},
                 profile.Detector(),
                 profile.FootprintView(),
                 FrameSignalChain(profile, scene ? *scene : SceneDescription{},
                                  FirstWeatherObject(objects.size(), scene)),
                 AngularRasterView{},
                 profile.EchoesPerBeam(),
                 objects.data(),
                 seed,
                 frame_index,
                 t0,
                 trajectory.At(t0 + period),
                 {profile.beam_origin_m[0], profile.beam_origin_m[1], profile.beam_origin_m[2]},
                 {}};
  c.beam_origin_radius_m = profile.beam_origin_radius_m;
  c.range_offset_m = profile.range_offset_m;
  if (waveform && !waveform->transfer.empty()) {
    c.waveform = MakeWaveformChain(profile, *waveform);
  }
  return c;
}

namespace {

// Runs body(b, e) over [begin, end) split into contiguous blocks, one per thread, each
// boundary inside the range on a multiple of `align` (so the blocks of `align` items a body
// makes are the same whatever the thread count).
template <typename Body>
void RunInParallel(uint32_t begin, uint32_t end, unsigned threads, Body& body,
                   uint32_t min_per_thread = 1024, uint32_t align = 1) {
  const uint32_t n = end - begin;
  if (threads == 0) threads = UsableCores();
  threads = std::max(1u, std::min(threads, std::max(1u, n / min_per_thread)));
  if (threads == 1) {
    body(begin, end);
    return;
  }
  std::vector<std::thread> pool;
  const uint32_t block = (n + threads - 1) / threads;
  auto boundary = [&](unsigned k) {
    if (k == 0) return begin;
    const uint64_t at = begin + std::min<uint64_t>(n, uint64_t{k} * block);
    return static_cast<uint32_t>(std::min<uint64_t>(end, (at + align - 1) / align * align));
  };
  for (unsigned k = 0; k < threads; ++k) {
    const uint32_t b = boundary(k), e = boundary(k + 1);
    if (b >= e) continue;
    pool.emplace_back([&body, b, e] { body(b, e); });
  }
  for (auto& th : pool)
    th.join();
}

}  // namespace

uint64_t CpuSimulator::RaysPerFrame() const {
  return profile_.RaysPerFrame();
}

Expected<Frame> CpuSimulator::Simulate(uint32_t frame_index) {
  if (!caster_) {
    return Error{"the CPU backend could not build its ray caster for " +
                 std::to_string(scene_.TriangleCount()) + " triangles (out of memory)"};
  }
  const uint32_t beams = profile_.BeamCount();
  const double period = profile_.FramePeriodS();
  const double t0 = trajectory_.start_time_s + frame_index * period;
  if (Status s = CheckWeather(profile_, scene_.description); !s.ok()) return s.error();
  FrameContext context = CpuFrameContext(profile_, trajectory_, objects_, options_.seed,
                                         frame_index, &scene_.description, &waveform_);
  if (profile_.detector.kind == DetectorKind::kThreshold) {
    context.signal.fog.table = fog_table_.For(context.signal.fog, context.signal.threshold);
  }
  if (const auto& spray = scene_.description.weather.spray) {
    context.spray = FrameSpray(spray_sources_, *spray, options_.seed, t0, period, spray_clusters_,
                               spray_plumes_);
    context.spray.least_power_w = NegligiblePowerW(profile_);
  }
  const auto closest = [&](const physics::Vec3<double>& o, const physics::Vec3<double>& d,
                           double t_min, double t_max) {
    return ToSurfaceHit(caster_->Closest(o, d, t_min, t_max));
  };
  if (profile_.raster_gather) {
    if (Status s = CheckRasterGather(profile_, scene_, trajectory_); !s.ok()) return s.error();
    auto planned = PlanRaster(profile_);
    if (!planned.ok()) return planned.error();
    AngularRasterView& r = context.raster;
    r = planned.value();
    raster_.resize(size_t{r.naz} * r.nel);
    r.pixels = raster_.data();
    const physics::Pose<double> pose = trajectory_.At(t0);
    auto trace = [&](uint32_t begin, uint32_t end) {
      for (uint32_t row = begin; row < end; ++row)
        for (uint32_t i = 0; i < r.naz; ++i)
          raster_[size_t{row} * r.naz + i] = TraceRasterPixel(context, i, row, pose, closest);
    };
    RunInParallel(0, r.nel, options_.threads, trace, 1);  // rows of naz pixels each
  }
  const uint32_t k = context.echoes_per_beam;
  std::vector<BeamRecord> records(size_t{beams} * k);
  // The selected beams' voltage records, each written by the thread that runs its beam.
  const std::vector<uint32_t>& kept = options_.waveform_beams;
  const uint32_t samples = context.waveform.samples;
  std::vector<float> kept_volts(kept.size() * samples);
  // Each thread traces its beams' first queries ahead in packets, a block at a time (small
  // enough to stay in cache, large enough to fill the packets). The blocks are the beams of
  // one multiple of kPrefetchBeams, the same whatever the thread count: which of two
  // coincident surfaces a packet reports can depend on the packet's other rays, and a frame
  // must not depend on the thread count.
  constexpr uint32_t kPrefetchBeams = 256;
  auto run = [&](uint32_t begin, uint32_t end) {
    PrefetchedHits ahead(*caster_, profile_.footprint.sub_rays);
    // The waveform detector's record of the beam in hand, one per thread.
    std::vector<physics::ComplexF> scratch(context.waveform.samples);
    for (uint32_t b = begin; b < end;) {
      const uint32_t e = std::min(end, (b / kPrefetchBeams + 1) * kPrefetchBeams);
      ahead.Prefetch(context, b, e);
      for (uint32_t i = b; i < e; ++i) {
        SimulateBeam(
            context, i,
            [&](const physics::Vec3<double>& o, const physics::Vec3<double>& d, double t_min,
                double t_max) { return ToSurfaceHit(ahead.Closest(i, o, d, t_min, t_max)); },
            &records[size_t{i} * k], scratch.data(), ahead.Setup(i));
        const auto at = std::lower_bound(kept.begin(), kept.end(), i);
        if (at != kept.end() && *at == i) {
          float* dst = &kept_volts[static_cast<size_t>(at - kept.begin()) * samples];
          for (uint32_t s = 0; s < samples; ++s)
            dst[s] = scratch[s].re;
        }
      }
      b = e;
    }
  };
  const bool moving = scene_.HasMovingObjects();
  for (const BeamSlice& slice :
       MotionSlices(context.scan, beams, t0, moving ? options_.motion_slices : 1)) {
    if (moving) caster_->MoveTo(slice.time_s);
    RunInParallel(slice.begin, slice.end, options_.threads, run, 1024, kPrefetchBeams);
  }
  Frame f = FrameHeader(frame_index, t0, period, trajectory_);
  AppendRecords(records.data(), beams * k, profile_.detector.ReadsReturnSignal(), f);
  ApplyIntensityGains(profile_.intensity_gains, 0, f);
  ApplyRayDrop(profile_, options_.seed, frame_index, f);
  if (!kept.empty()) {
    f.waveform_beams = kept;
    f.waveform_volts = std::move(kept_volts);
    f.waveform_samples = samples;
    f.waveform_dt_s = context.waveform.dt_s;
  }
  return f;
}

}  // namespace lt
