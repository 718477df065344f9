#include "lidartwin/bench/instance_bench.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "lidartwin/physics/philox.h"
#include "lidartwin/sim/simulator.h"
#if LT_WITH_CUDA
#include "lidartwin/sim/cuda_backend.h"
#endif

namespace lt::bench {

Expected<Scene> MakeParkingLot(uint32_t instances, double model_triangles,
                               const MaterialLibrary& materials) {
  const int asphalt = materials.Find("asphalt"), aluminium = materials.Find("aluminium");
  if (asphalt < 0 || aluminium < 0)
    return Error{"the material library has no 'asphalt' or no 'aluminium' for the parking lot"};
  Scene scene;
  scene.materials = materials;
  SceneObject ground;
  ground.name = "ground";
  ground.type = "plane";
  ground.material_id = static_cast<uint32_t>(asphalt);
  const auto columns = static_cast<uint32_t>(std::ceil(std::sqrt(2.0 * instances)));
  const uint32_t rows = (instances + columns - 1) / columns;
  const double pitch_x = 3, pitch_y = 6;  // cars side by side, rows one car length apart
  ground.mesh = MakePlane(columns * pitch_x + 20, rows * pitch_y + 20);
  for (auto& v : ground.mesh.vertices)
    v[2] = -1.5;
  scene.objects.push_back(std::move(ground));
  const auto car =
      std::make_shared<const TriangleMesh>(MakeSuperellipsoid(4.5, 1.8, 1.5, 0.3, model_triangles));
  for (uint32_t k = 0; k < instances; ++k) {
    // Parked nose in or out (a seeded coin), rows along x; the middle of the lot left free
    // for the sensor.
    const physics::Philox4x32 r = physics::Philox4x32_10({k, 0, 0, 0}, 42, 0);
    const double x = (k % columns + 0.5 - columns / 2.0) * pitch_x;
    double y = (k / columns + 0.5 - rows / 2.0) * pitch_y;
    if (std::fabs(y) < pitch_y && std::fabs(x) < 2 * pitch_x) y += y < 0 ? -pitch_y : pitch_y;
    SceneObject o;
    o.name = "car_" + std::to_string(k);
    o.type = "mesh";
    o.instance_id = k + 1;
    o.semantic_class = 64;
    o.material_id = static_cast<uint32_t>(aluminium);
    o.model = car;
    o.pose = {physics::QuatFromRollPitchYaw(0.0, 0.0, (r.v[0] & 1 ? 1.5 : 0.5) * M_PI),
              {x, y, -1.5}};
    scene.objects.push_back(std::move(o));
  }
  return scene;
}

Scene Flattened(const Scene& scene) {
  Scene flat;
  flat.materials = scene.materials;
  for (const SceneObject& o : scene.objects) {
    SceneObject f = o;
    f.mesh.triangles = o.stored().triangles;
    f.mesh.vertices = VerticesAt(o, 0);
    f.model = nullptr;
    flat.objects.push_back(std::move(f));
  }
  return flat;
}

namespace {

// Median frame time [ms] of `repeats` frames after a warm-up one.
Expected<double> MedianFrameMs(Simulator& sim, int repeats) {
  if (auto warm = sim.Simulate(0); !warm.ok()) return warm.error();
  std::vector<double> ms;
  for (int k = 0; k < repeats; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    auto f = sim.Simulate(static_cast<uint32_t>(k + 1));
    if (!f.ok()) return f.error();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// The frame time of a backend on a scene, and (GPU) the device memory making it took.
Status Measure(Backend backend, const Scene& scene, const SensorProfile& os0, int repeats,
               unsigned threads, double& frame_ms, double* gpu_mib, uint64_t& rays) {
#if LT_WITH_CUDA
  const uint64_t before = backend == Backend::kCuda ? CudaMemoryInUse() : 0;
#endif
  auto sim = CreateSimulator(backend, scene, os0, Trajectory::Static(), {0, threads});
  if (!sim.ok()) return sim.error();
#if LT_WITH_CUDA
  if (gpu_mib) *gpu_mib = (static_cast<double>(CudaMemoryInUse()) - before) / (1 << 20);
#else
  (void)gpu_mib;
#endif
  rays = (*sim)->RaysPerFrame();
  auto ms = MedianFrameMs(**sim, repeats);
  if (!ms.ok()) return ms.error();
  frame_ms = *ms;
  return {};
}

}  // namespace

Expected<InstanceBenchReport> RunInstanceBench(const SensorProfile& os0,
                                               const MaterialLibrary& materials, uint32_t instances,
                                               double model_triangles, int repeats,
                                               unsigned threads) {
  InstanceBenchReport r;
  r.instances = instances;
  r.threads = threads;
  auto lot = MakeParkingLot(instances, model_triangles, materials);
  if (!lot.ok()) return lot.error();
  const Scene& scene = *lot;
  r.model_triangles = scene.objects[1].stored().triangles.size();
  r.placed_triangles = PlacedTriangleCount(scene);
#if LT_WITH_CUDA
  if (Status s = CudaAvailable(); !s.ok())
    r.why_no_gpu = s.message();
  else
    r.device = CudaDeviceName();
#else
  r.why_no_gpu = "this build has no CUDA backend";
#endif
  if (Status s = Measure(Backend::kCpu, scene, os0, repeats, threads, r.instanced_cpu_frame_ms,
                         nullptr, r.rays_per_frame);
      !s.ok())
    return s.error();
  if (r.why_no_gpu.empty()) {
    if (Status s = Measure(Backend::kCuda, scene, os0, repeats, threads, r.instanced_gpu_frame_ms,
                           &r.instanced_gpu_mib, r.rays_per_frame);
        !s.ok())
      return s.error();
  }
  const bool cpu_flat = r.placed_triangles <= kCpuFlattenedMax;
  if (!cpu_flat) {
    r.why_no_cpu_flattened =
        fmt::format("{} placed triangles, over the {} the bench flattens on the CPU",
                    r.placed_triangles, kCpuFlattenedMax);
  }
  if (!cpu_flat && !r.why_no_gpu.empty()) return r;
  const Scene flat = Flattened(scene);
  if (cpu_flat) {
    if (Status s = Measure(Backend::kCpu, flat, os0, repeats, threads, r.flattened_cpu_frame_ms,
                           nullptr, r.rays_per_frame);
        !s.ok())
      return s.error();
  }
  if (r.why_no_gpu.empty()) {
    if (Status s = Measure(Backend::kCuda, flat, os0, repeats, threads, r.flattened_gpu_frame_ms,
                           &r.flattened_gpu_mib, r.rays_per_frame);
        !s.ok())
      return s.error();
  }
  return r;
}

std::string InstanceBenchTable(const InstanceBenchReport& r) {
  std::string t = fmt::format(
      "instances: {} placements of a {}-triangle car ({} placed triangles) around an OS0-128, "
      "{} rays a frame\n",
      r.instances, r.model_triangles, r.placed_triangles, r.rays_per_frame);
  t += fmt::format("  {:<28} {:>12} {:>12}\n", "", "instanced", "flattened");
  auto ms = [](double v) { return v > 0 ? fmt::format("{:.2f} ms", v) : std::string("-"); };
  t += fmt::format("  {:<28} {:>12} {:>12}\n", fmt::format("CPU frame ({} threads)", r.threads),
                   ms(r.instanced_cpu_frame_ms), ms(r.flattened_cpu_frame_ms));
  if (!r.why_no_cpu_flattened.empty())
    t += fmt::format("  CPU flattened not measured: {}\n", r.why_no_cpu_flattened);
  if (!r.why_no_gpu.empty()) return t + fmt::format("  GPU not measured: {}\n", r.why_no_gpu);
  t += fmt::format("  {:<28} {:>12} {:>12}\n", "GPU frame (" + r.device.substr(0, 14) + ")",
                   ms(r.instanced_gpu_frame_ms), ms(r.flattened_gpu_frame_ms));
  t += fmt::format("  {:<28} {:>9.0f} MiB {:>8.0f} MiB\n", "GPU memory", r.instanced_gpu_mib,
                   r.flattened_gpu_mib);
  return t;
}

nlohmann::json InstanceBenchJson(const InstanceBenchReport& r) {
  nlohmann::json j;
  j["instances"] = r.instances;
  j["model_triangles"] = r.model_triangles;
  j["placed_triangles"] = r.placed_triangles;
  j["rays_per_frame"] = r.rays_per_frame;
  j["threads"] = r.threads;
  j["cpu_frame_ms"] = {{"instanced", r.instanced_cpu_frame_ms},
                       {"flattened", r.flattened_cpu_frame_ms}};
  if (!r.why_no_cpu_flattened.empty()) j["why_no_cpu_flattened"] = r.why_no_cpu_flattened;
  if (!r.why_no_gpu.empty()) {
    j["why_no_gpu"] = r.why_no_gpu;
    return j;
  }
  j["device"] = r.device;
  j["gpu_frame_ms"] = {{"instanced", r.instanced_gpu_frame_ms},
                       {"flattened", r.flattened_gpu_frame_ms}};
  j["gpu_memory_mib"] = {{"instanced", r.instanced_gpu_mib}, {"flattened", r.flattened_gpu_mib}};
  return j;
}

}  // namespace lt::bench
