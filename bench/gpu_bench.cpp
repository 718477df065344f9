#include "lidartwin/bench/gpu_bench.h"
#include "lidartwin/base/config_root.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>
#include <tuple>

#include "lidartwin/bench/bench_rays.h"
#include "lidartwin/bench/bvh_quality.h"
#include "lidartwin/bench/city_scene.h"
#include "lidartwin/physics/bvh_collapse.h"
#include "lidartwin/sim/ray_caster.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/simulator.h"
#if LT_WITH_CUDA
#include "lidartwin/bench/gpu_binned_sah.h"
#include "lidartwin/sim/cuda_backend.h"
#endif

namespace lt::bench {

#if LT_WITH_CUDA
namespace {

// The OS0-128 with the threshold detector of configs/sensors/ouster_os0_128_threshold.yaml:
// a Gaussian footprint of 0.18 deg FWHM and `sub_rays` sub-rays, dual returns. bloom: seed
// 004's case instead: 128 x 128 = 16,384 beams whose kernel is a 68 x 68 table over +-3 deg,
// a Gaussian core with a 1e-4 plateau (the dim halo that makes signs bloom), 64 sub-rays.
SensorProfile ThresholdOs0(const SensorProfile& os0, uint32_t sub_rays, bool bloom) {
  SensorProfile p = os0;
  p.detector.kind = DetectorKind::kThreshold;
  p.detector.link = {20.0, 0.02, 0.9, 0.0};
  p.detector.pulse_width_ns = 5;
  p.detector.threshold_w = 576e-9;
  p.detector.return_mode = physics::ReturnMode::kDual;
  p.detector.max_echoes = 2;
  p.detector.walk_reference_power_w = 10 * p.detector.threshold_w;
  p.detector.max_surfaces_per_sub_ray = 1;
  p.detector.range_noise_sigma_m = 0.01;
  p.footprint.sub_rays = sub_rays;
  if (!bloom) {
    const double sigma = 0.18 * physics::kDegToRad / physics::kFwhmPerSigma;
    p.footprint.kind = physics::FootprintKind::kGaussian;
    p.footprint.spot_count = 1;
    p.footprint.spots[0] = {0, 0, sigma, sigma, 1.0};
    return p;
  }
  p.columns = 128;
  KernelTable k;
  const double step_mrad = 6 * physics::kDegToRad * 1e3 / 68;
  for (int i = 0; i < 68; ++i) {
    k.h_mrad.push_back((i - 33.5) * step_mrad);
    k.v_mrad.push_back((i - 33.5) * step_mrad);
  }
  const double s = 0.18 * physics::kDegToRad * 1e3 / physics::kFwhmPerSigma;
  for (double v : k.v_mrad) {
    for (double h : k.h_mrad)
      k.value.push_back(std::exp(-(h * h + v * v) / (2 * s * s)) + 1e-4);
  }
  p.kernel = PrepareKernelSampling(k, 0.5);
  p.footprint.kind = physics::FootprintKind::kTable;
  return p;
}

// The OS0-128 with the Cube 1's waveform chain (configs/sensors/blickfeld_cube1.yaml)
// at `samples` per record: 8 sub-rays of a Gaussian footprint of 0.18 deg FWHM, two echoes.
SensorProfile WaveformOs0(const SensorProfile& os0, const SensorProfile& cube, uint32_t samples) {
  SensorProfile p = os0;
  p.detector = cube.detector;
  p.detector.waveform.samples = samples;
  p.min_range_m = 3.5;  // beyond the internal reflection's window (3.3 m)
  p.footprint.sub_rays = 8;
  const double sigma = 0.18 * physics::kDegToRad / physics::kFwhmPerSigma;
  p.footprint.kind = physics::FootprintKind::kGaussian;
  p.footprint.spot_count = 1;
  p.footprint.spots[0] = {0, 0, sigma, sigma, 1.0};
  return p;
}

// The weather the bench measures (issue 43's target): fog of 50 m visibility, rain of 25 mm/h
// and snow of 1 mm/h (melted) at once.
Scene InWeather(const Scene& scene) {
  Scene s = scene;
  s.description.weather.fog = FogDescription{50};
  s.description.weather.rain = RainDescription{.rate_mm_h = 25};
  s.description.weather.snow = SnowDescription{.rate_mm_h = 1};
  return s;
}

// The city with twelve 0.8 m retroreflective signs (500 1/sr) around the sensor.
Scene WithRetroreflectiveSigns(const Scene& city, const physics::Vec3<double>& sensor) {
  Scene s = city;
  Material sign{"retroreflective_sign", {1.0}, {0.1}, "benchmark stand-in"};
  sign.retroreflective_peak_sr = 500;
  sign.retroreflective_max_entrance_deg = 60;
  s.materials.materials.push_back(sign);
  const auto material = static_cast<uint32_t>(s.materials.materials.size() - 1);
  for (int k = 0; k < 12; ++k) {
    const double a = k * 30 * physics::kDegToRad;
    const double r = 6 + k;
    SceneObject o;
    o.name = "sign" + std::to_string(k);
    o.type = "plate";
    o.material_id = material;
    o.instance_id = 100000 + k;
    o.mesh = MakePlate(0.8, 0.8);
    o.pose = {physics::QuatFromRollPitchYaw(0.0, 0.0, a + physics::kPi),
              {sensor.x + r * std::cos(a), sensor.y + r * std::sin(a), sensor.z}};
    for (auto& v : o.mesh.vertices) {
      const auto w = physics::TransformPoint(o.pose, physics::Vec3<double>{v[0], v[1], v[2]});
      v = {w.x, w.y, w.z};
    }
    s.objects.push_back(std::move(o));
  }
  return s;
}

}  // namespace
#endif

namespace {

using physics::Vec3;

#if LT_WITH_CUDA
// Median times of `repeats` frames after one warm-up frame; `error` set when a frame failed.
struct GpuFrameTimes {
  double total_ms = 0, kernel_ms = 0, signal_ms = 0;
  std::string error;
};
GpuFrameTimes TimeGpuFrames(const Scene& scene, const SensorProfile& profile,
                            const Trajectory& traj, int repeats) {
  GpuFrameTimes out;
  auto created = CudaSimulator::Create(scene, profile, traj, {1, 0});
  if (!created.ok()) {
    out.error = created.message();
    return out;
  }
  CudaSimulator& gpu = **created;
  std::vector<double> total, kernel, signal;
  for (int rep = 0; rep < repeats + 1; ++rep) {
    if (auto f = gpu.Simulate(0); !f.ok()) {
      out.error = f.message();
      return out;
    }
    if (rep == 0) continue;  // warm-up
    total.push_back(gpu.last_total_ms());
    kernel.push_back(gpu.last_kernel_ms());
    signal.push_back(gpu.last_signal_ms());
  }
  out.total_ms = Median(total);
  out.kernel_ms = Median(kernel);
  out.signal_ms = Median(signal);
  return out;
}

// Median wall time [ms] of `repeats` frames of the CPU backend (0 when it cannot be created).
double TimeCpuFrames(const Scene& scene, const SensorProfile& profile, const Trajectory& traj,
                     unsigned threads, int repeats) {
  auto cpu = CreateSimulator(Backend::kCpu, scene, profile, traj, {1, threads});
  std::vector<double> ms;
  for (int rep = 0; rep < repeats && cpu.ok(); ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)(*cpu)->Simulate(0);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return Median(ms);
}
#endif

}  // namespace

GpuBenchReport RunGpuBench(const std::vector<uint64_t>& triangle_counts, int repeats,
                           unsigned cpu_threads, bool with_embree) {
  GpuBenchReport report;
#if !LT_WITH_CUDA
  (void)triangle_counts;
  (void)repeats;
  (void)cpu_threads;
  (void)with_embree;
  report.why_no_gpu = "this build has no CUDA backend";
  return report;
#else
  if (Status s = CudaAvailable(); !s.ok()) {
    report.why_no_gpu = s.message();
    return report;
  }
  report.device = CudaDeviceName();
  auto os0 = LoadSensorProfile(ConfigRoot() / "configs/sensors/ouster_os0_128.yaml");
  if (!os0.ok()) {
    report.why_no_gpu = os0.message();
    return report;
  }
  {
    const std::filesystem::path root = ConfigRoot();
    auto lab = LoadScene(root / "configs/scenes/lab_plates.yaml", {});
    auto p = LoadSensorProfile(root / "configs/sensors/ouster_os0_128_threshold.yaml");
    if (!lab.ok() || !p.ok()) {
      report.why_no_gpu = lab.ok() ? p.message() : lab.message();
      return report;
    }
    const Trajectory still = Trajectory::Static();
    const GpuFrameTimes times = TimeGpuFrames(*lab, *p, still, repeats);
    if (!times.error.empty()) {
      report.why_no_gpu = times.error;
      return report;
    }
    report.lab_threshold_ms_total = times.total_ms;
    report.lab_threshold_ms_kernel = times.kernel_ms;
    report.lab_threshold_ms_signal = times.signal_ms;
    report.lab_cpu_threshold_ms = TimeCpuFrames(*lab, *p, still, cpu_threads, 3);
    auto cube = LoadSensorProfile(root / "configs/sensors/blickfeld_cube1.yaml");
    if (!cube.ok()) {
      report.why_no_gpu = cube.message();
      return report;
    }
    const SensorProfile wave = WaveformOs0(*os0, *cube, 2048);
    const GpuFrameTimes w = TimeGpuFrames(*lab, wave, still, repeats);
    if (!w.error.empty()) {
      report.why_no_gpu = w.error;
      return report;
    }
    report.lab_waveform_ms_total = w.total_ms;
    report.lab_waveform_ms_kernel = w.kernel_ms;
    report.lab_waveform_ms_signal = w.signal_ms;
    report.lab_cpu_waveform_ms = TimeCpuFrames(*lab, wave, still, cpu_threads, 1);
    // The chain alone at 1024, 2048 and 4096 samples: 8 GiB of records each.
    const std::vector<physics::SignalContribution> plate = {{30.0f, 1e-9f, 0, 3e-11f}};
    for (uint32_t samples : {1024u, 2048u, 4096u}) {
      SensorProfile c = *cube;
      c.detector.waveform.samples = samples;
      const uint32_t beams = (1u << 30) / samples;
      auto chain = CudaWaveforms(c, plate, 3e-11, beams, 1, repeats, false);
      if (!chain.ok()) {
        report.why_no_gpu = chain.message();
        return report;
      }
      report.waveform_chain.push_back(
          {"full", samples, beams, chain->ms, beams / (chain->ms * 1e-3)});
      // The same by the transforms (two beams a warp), which circuits without sections take.
      auto fft = CudaWaveforms(c, plate, 3e-11, beams, 1, repeats, false, true);
      if (!fft.ok()) {
        report.why_no_gpu = fft.message();
        return report;
      }
      report.waveform_chain.push_back(
          {"transforms", samples, beams, fft->ms, beams / (fft->ms * 1e-3)});
    }
    // At 2048 samples without thermal noise, then without any noise: the draws' share.
    SensorProfile quiet = *cube;
    quiet.detector.waveform.samples = 2048;
    for (const char* noise : {"no thermal", "noise-free"}) {
      quiet.detector.waveform.thermal_noise_mv = 0;
      quiet.detector.waveform.shot_noise = std::string(noise) != "noise-free";
      const uint32_t beams = (1u << 30) / 2048;
      auto chain = CudaWaveforms(quiet, plate, 3e-11, beams, 1, repeats, false);
      if (!chain.ok()) {
        report.why_no_gpu = chain.message();
        return report;
      }
      report.waveform_chain.push_back({noise, 2048, beams, chain->ms, beams / (chain->ms * 1e-3)});
    }
  }
  for (uint64_t count : triangle_counts) {
    SceneFigures fig;
    const Scene scene = MakeCityScene(count, 42);
    const std::vector<float> soup = TriangleSoup(scene);
    fig.triangles = scene.TriangleCount();
    auto build = CudaBvhBuildMs(soup, repeats);
    if (!build.ok()) {
      report.why_no_gpu = build.message();
      return report;
    }
    fig.bvh_build_ms = build.value();
    auto ploc = CudaBvhBuildMs(soup, repeats, GpuBvhBuilder::kPloc);
    if (!ploc.ok()) {
      report.why_no_gpu = ploc.message();
      return report;
    }
    fig.ploc_build_ms = ploc.value();
    auto sah = CudaBvhBuildMs(soup, repeats, GpuBinnedSahBuild());
    if (!sah.ok()) {
      report.why_no_gpu = sah.message();
      return report;
    }
    fig.sah_build_ms = sah.value();
    auto depthwise = CudaBvhBuildMs(soup, repeats, GpuBinnedSahBuild({.subtree_by_levels = true}));
    if (!depthwise.ok()) {
      report.why_no_gpu = depthwise.message();
      return report;
    }
    fig.sah_depthwise_build_ms = depthwise.value();
    // Tree quality: the GPU trees copied out, the host reference built; their traversal costs
    // are counted below, once the rays exist.
    physics::WideBvhTree lbvh_wide, ploc_wide, sah_wide, binned_wide;
    for (auto [builder, wide, quality] :
         {std::tuple{GpuBvhChoice(GpuBvhBuilder::kLbvh), &lbvh_wide, &fig.lbvh_tree},
          std::tuple{GpuBvhChoice(GpuBvhBuilder::kPloc), &ploc_wide, &fig.ploc_tree},
          std::tuple{GpuBvhChoice(GpuBinnedSahBuild()), &sah_wide, &fig.sah_tree}}) {
      auto tree = CudaBvhTree(soup, builder);
      if (!tree.ok()) {
        report.why_no_gpu = tree.message();
        return report;
      }
      quality->sah = SahCost(tree->nodes);
      *wide = std::move(tree->wide);
    }
    {
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<physics::BvhNode> binned_nodes = BuildBinnedSahBvh(soup);
      fig.binned_build_host_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      fig.binned_tree.sah = SahCost(binned_nodes);
      // Collapsed as the GPU's trees are, so the traversal counts compare like with like.
      binned_wide =
          physics::CollapseToWideOnHost(binned_nodes, TrianglesInLeafOrder(soup, nullptr), nullptr);
    }
    std::vector<float> moved = soup;
    for (size_t k = 0; k < moved.size(); k += 3)
      moved[k] += 0.5f;  // every x coordinate
    auto refit = CudaBvhRefitMs(soup, moved, repeats, GpuBvhBuilder::kPloc);
    if (!refit.ok()) {
      report.why_no_gpu = refit.message();
      return report;
    }
    fig.refit_ms = refit.value();
    const Vec3<double> sensor = CitySensorPosition(scene);
    const std::unique_ptr<RayCaster> caster = with_embree ? RayCaster::Create(scene) : nullptr;
    double lo[2], hi[2];
    CityGroundBounds(scene, lo, hi);
    const double box_lo[3] = {lo[0], lo[1], 0.5}, box_hi[3] = {hi[0], hi[1], 40};
    const Rays coherent_rays = CoherentRays(os0.value(), sensor);
    for (auto* target : {&fig.coherent, &fig.random}) {
      const bool coherent = target == &fig.coherent;
      const Rays rays = coherent ? coherent_rays : RandomRays(box_lo, box_hi, 1u << 20);
      double lbvh_rays_per_s = 0;
      double sah_rays_per_s = 0;
      if (Status s = MeasureRays(soup, rays, caster.get(), coherent, repeats, cpu_threads, *target,
                                 &lbvh_rays_per_s, &sah_rays_per_s);
          !s.ok()) {
        report.why_no_gpu = s.message();
        return report;
      }
      (coherent ? fig.lbvh_coherent_rays_per_s : fig.lbvh_random_rays_per_s) = lbvh_rays_per_s;
      (coherent ? fig.sah_coherent_rays_per_s : fig.sah_random_rays_per_s) = sah_rays_per_s;
      // Every 16th ray: 65,536 of the 2^20, enough for per-ray means to a few tenths.
      constexpr size_t kStride = 16;
      for (auto [wide, quality] :
           {std::pair{&lbvh_wide, &fig.lbvh_tree}, std::pair{&ploc_wide, &fig.ploc_tree},
            std::pair{&sah_wide, &fig.sah_tree}, std::pair{&binned_wide, &fig.binned_tree}}) {
        const TraversalCosts c =
            CountTraversal(wide->View(), rays.origins, rays.directions, kStride);
        (coherent ? quality->coherent_nodes : quality->random_nodes) = c.nodes_per_ray;
        (coherent ? quality->coherent_triangles : quality->random_triangles) = c.triangles_per_ray;
      }
    }
    // The coherent rays to the detector's range, where the simulator ends its sub-rays
    // (SubRayQuery, sim/internal/beam_pipeline.h).
    const auto range = static_cast<float>(os0->detector.max_range_m);
    for (auto [builder, rate] :
         {std::pair{GpuBvhChoice(GpuBvhBuilder::kPloc), &fig.ploc_coherent_in_range_rays_per_s},
          std::pair{GpuBvhChoice(GpuBinnedSahBuild()), &fig.sah_coherent_in_range_rays_per_s}}) {
      auto r = CudaClosestHits(soup, coherent_rays.origins, coherent_rays.directions, 1e-4f, range,
                               repeats, builder);
      if (!r.ok()) {
        report.why_no_gpu = r.message();
        return report;
      }
      *rate = static_cast<double>(coherent_rays.size()) / (r->trace_ms * 1e-3);
    }
    // Full OS0-128 frames (capability detector) at the street corner: one ray per beam, and
    // 8 averaged sub-rays in a 3 mrad cone (tier 2).
    Trajectory traj;
    traj.time_s = {0.0};
    traj.poses = {{{1, 0, 0, 0}, sensor}};
    const SensorProfile os0_threshold = ThresholdOs0(os0.value(), 16, false);
    const SensorProfile bloom = ThresholdOs0(os0.value(), 64, true);
    SensorProfile os0_raster = os0_threshold, bloom_raster = bloom;
    os0_raster.raster_gather = bloom_raster.raster_gather = true;
    os0_raster.raster_resolution_rad = 1e-3;
    bloom_raster.raster_resolution_rad = 1.5e-3;
    Scene signed_scene = WithRetroreflectiveSigns(scene, sensor);
    auto cube = LoadSensorProfile(ConfigRoot() / "configs/sensors/blickfeld_cube1.yaml");
    if (!cube.ok()) {
      report.why_no_gpu = cube.message();
      return report;
    }
    const SensorProfile os0_waveform = WaveformOs0(os0.value(), *cube, 2048);
    SensorProfile os0_weather = ThresholdOs0(os0.value(), 8, false);
    os0_weather.detector.return_mode = physics::ReturnMode::kStrongest;
    os0_weather.detector.max_echoes = 1;
    const Scene weather_scene = InWeather(scene);
    struct Variant {
      const SensorProfile* profile;
      const Scene* scene;
      double* total;
      double* kernel;
      double* cpu;     // nullptr: not measured on the CPU
      double* signal;  // nullptr: not reported
    };
    double unused = 0;
    const Variant variants[] = {
        {&os0_threshold, &scene, &fig.threshold_ms_total, &fig.threshold_ms_kernel,
         &fig.cpu_threshold_ms, &fig.threshold_ms_signal},
        {&bloom, &signed_scene, &fig.bloom_ms_total, &fig.bloom_ms_kernel, &fig.cpu_bloom_ms,
         &fig.bloom_ms_signal},
        {&os0_raster, &scene, &fig.threshold_raster_ms_total, &fig.threshold_raster_ms_kernel,
         nullptr, &unused},
        {&bloom_raster, &signed_scene, &fig.bloom_raster_ms_total, &fig.bloom_raster_ms_kernel,
         nullptr, &unused},
        {&os0_waveform, &scene, &fig.waveform_ms_total, &fig.waveform_ms_kernel, nullptr,
         &fig.waveform_ms_signal},
        {&os0_weather, &weather_scene, &fig.weather_ms_total, &fig.weather_ms_kernel,
         &fig.cpu_weather_ms, &fig.weather_ms_signal}};
    for (const Variant& v : variants) {
      const GpuFrameTimes times = TimeGpuFrames(*v.scene, *v.profile, traj, repeats);
      if (!times.error.empty()) {
        report.why_no_gpu = times.error;
        return report;
      }
      *v.total = times.total_ms;
      *v.kernel = times.kernel_ms;
      *v.signal = times.signal_ms;
      if (with_embree && v.cpu) {
        *v.cpu = TimeCpuFrames(*v.scene, *v.profile, traj, cpu_threads, 2);
      }
    }
    SensorProfile os0_8 = os0.value();
    os0_8.footprint.sub_rays = 8;
    os0_8.footprint.half_angle_rad = 1.5e-3;
    os0_8.footprint.mode = physics::DivergenceMode::kAverage;
    for (const SensorProfile* profile : {&os0.value(), &os0_8}) {
      const bool eight = profile == &os0_8;
      const GpuFrameTimes times = TimeGpuFrames(scene, *profile, traj, repeats);
      if (!times.error.empty()) {
        report.why_no_gpu = times.error;
        return report;
      }
      (eight ? fig.frame8_ms_total : fig.frame_ms_total) = times.total_ms;
      (eight ? fig.frame8_ms_kernel : fig.frame_ms_kernel) = times.kernel_ms;
      if (with_embree) {
        (eight ? fig.cpu_frame8_ms : fig.cpu_frame_ms) =
            TimeCpuFrames(scene, *profile, traj, cpu_threads, 3);
      }
    }
    report.scenes.push_back(fig);
  }
  return report;
#endif
}

}  // namespace lt::bench
