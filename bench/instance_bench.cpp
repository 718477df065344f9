#include "lidartwin/bench/instance_bench.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <vector>

#include "lidartwin/bench/bench_rays.h"
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
  const double pitch_x = 3, pitch_y = 6;  // cars side by side, rows one car length apart
  // Slots row by row about the origin, those within a car of the sensor left free.
  const uint32_t rows = (instances + 8 + columns - 1) / columns + 1;
  std::vector<std::array<double, 2>> slots;
  for (uint32_t k = 0; slots.size() < instances; ++k) {
    const double x = (k % columns + 0.5 - columns / 2.0) * pitch_x;
    const double y = (k / columns + 0.5 - rows / 2.0) * pitch_y;
    if (std::fabs(y) < pitch_y && std::fabs(x) < 2 * pitch_x) continue;
    slots.push_back({x, y});
  }
  ground.mesh = MakePlane(columns * pitch_x + 20, rows * pitch_y + 20);
  for (auto& v : ground.mesh.vertices)
    v[2] = -1.5;
  scene.objects.push_back(std::move(ground));
  const auto car =
      std::make_shared<const TriangleMesh>(MakeSuperellipsoid(4.5, 1.8, 1.5, 0.3, model_triangles));
  for (uint32_t k = 0; k < instances; ++k) {
    // Parked nose in or out (a seeded coin).
    const physics::Philox4x32 r = physics::Philox4x32_10({k, 0, 0, 0}, 42, 0);
    const double x = slots[k][0], y = slots[k][1];
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

struct Timing {
  double frame_ms = 0, gpu_total_ms = 0, gpu_kernel_ms = 0;
};

// Median times of `repeats` frames after a warm-up one: wall, and (GPU) CUDA-event times.
Expected<Timing> MedianFrame(Simulator& sim, int repeats) {
  if (auto warm = sim.Simulate(0); !warm.ok()) return warm.error();
  std::vector<double> wall, total, kernel;
  for (int k = 0; k < repeats; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    auto f = sim.Simulate(static_cast<uint32_t>(k + 1));
    if (!f.ok()) return f.error();
    wall.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
#if LT_WITH_CUDA
    if (const auto* gpu = dynamic_cast<const CudaSimulator*>(&sim)) {
      total.push_back(gpu->last_total_ms());
      kernel.push_back(gpu->last_kernel_ms());
    }
#endif
  }
  Timing t;
  t.frame_ms = Median(wall);
  if (!total.empty()) {
    t.gpu_total_ms = Median(total);
    t.gpu_kernel_ms = Median(kernel);
  }
  return t;
}

// One side of a scene on a backend: its frame times and (GPU) the memory making it took.
Status Measure(Backend backend, const Scene& scene, const SensorProfile& os0, int repeats,
               unsigned threads, InstancingFigures::Side& side, uint64_t& rays) {
#if LT_WITH_CUDA
  const uint64_t before = backend == Backend::kCuda ? CudaMemoryInUse() : 0;
#endif
  auto sim = CreateSimulator(backend, scene, os0, Trajectory::Static(), {0, threads});
  if (!sim.ok()) return sim.error();
#if LT_WITH_CUDA
  if (backend == Backend::kCuda)
    side.gpu_mib = (static_cast<double>(CudaMemoryInUse()) - before) / (1 << 20);
#endif
  rays = (*sim)->RaysPerFrame();
  auto t = MedianFrame(**sim, repeats);
  if (!t.ok()) return t.error();
  if (backend == Backend::kCpu) {
    side.cpu_frame_ms = t->frame_ms;
  } else {
    side.gpu_frame_ms = t->frame_ms;
    side.gpu_total_ms = t->gpu_total_ms;
    side.gpu_kernel_ms = t->gpu_kernel_ms;
  }
  return {};
}

// A scene instanced and flattened on the backends there are.
Expected<InstancingFigures> MeasureScene(const std::string& name, const Scene& scene,
                                         const SensorProfile& os0, bool gpu, int repeats,
                                         unsigned threads, uint64_t& rays) {
  InstancingFigures f;
  f.scene = name;
  f.stored_triangles = scene.TriangleCount();
  f.placed_triangles = PlacedTriangleCount(scene);
  if (Status s = Measure(Backend::kCpu, scene, os0, repeats, threads, f.instanced, rays); !s.ok())
    return s.error();
  if (gpu) {
    if (Status s = Measure(Backend::kCuda, scene, os0, repeats, threads, f.instanced, rays);
        !s.ok())
      return s.error();
  }
  const bool cpu_flat = f.placed_triangles <= kCpuFlattenedMax;
  if (!cpu_flat) {
    f.why_no_cpu_flattened =
        fmt::format("{} placed triangles, over the {} the bench flattens on the CPU",
                    f.placed_triangles, kCpuFlattenedMax);
  }
  if (!cpu_flat && !gpu) return f;
  const Scene flat = Flattened(scene);
  if (cpu_flat) {
    if (Status s = Measure(Backend::kCpu, flat, os0, repeats, threads, f.flattened, rays); !s.ok())
      return s.error();
  }
  if (gpu) {
    if (Status s = Measure(Backend::kCuda, flat, os0, repeats, threads, f.flattened, rays); !s.ok())
      return s.error();
  }
  return f;
}

}  // namespace

Expected<InstanceBenchReport> RunInstanceBench(const SensorProfile& os0,
                                               const MaterialLibrary& materials, uint32_t instances,
                                               double model_triangles, const Scene* street,
                                               const std::string& street_name, int repeats,
                                               unsigned threads,
                                               const std::string& no_gpu_because) {
  InstanceBenchReport r;
  r.instances = instances;
  r.threads = threads;
  auto lot = MakeParkingLot(instances, model_triangles, materials);
  if (!lot.ok()) return lot.error();
  r.model_triangles = lot->objects[1].stored().triangles.size();
#if LT_WITH_CUDA
  if (!no_gpu_because.empty())
    r.why_no_gpu = no_gpu_because;
  else if (Status s = CudaAvailable(); !s.ok())
    r.why_no_gpu = s.message();
  else
    r.device = CudaDeviceName();
#else
  r.why_no_gpu = no_gpu_because.empty() ? "this build has no CUDA backend" : no_gpu_because;
#endif
  const bool gpu = r.why_no_gpu.empty();
  auto figures = MeasureScene("parking lot", *lot, os0, gpu, repeats, threads, r.rays_per_frame);
  if (!figures.ok()) return figures.error();
  r.lot = std::move(*figures);
  if (street) {
    uint64_t rays = 0;
    auto s = MeasureScene(street_name, *street, os0, gpu, repeats, threads, rays);
    if (!s.ok()) return s.error();
    r.street = std::move(*s);
  }
  return r;
}

namespace {

std::string Ms(double v) {
  return v > 0 ? fmt::format("{:.3f} ms", v) : std::string("-");
}

std::string FiguresTable(const InstancingFigures& f, const InstanceBenchReport& r) {
  std::string t = fmt::format("{}: {} triangles stored, {} placed\n", f.scene, f.stored_triangles,
                              f.placed_triangles);
  t += fmt::format("  {:<34} {:>12} {:>12}\n", "", "instanced", "flattened");
  // Flattened: every object its own mesh (the movers still moved by transforms, one each).
  t += fmt::format("  {:<34} {:>12} {:>12}\n", fmt::format("CPU frame ({} threads)", r.threads),
                   Ms(f.instanced.cpu_frame_ms), Ms(f.flattened.cpu_frame_ms));
  if (!f.why_no_cpu_flattened.empty())
    t += fmt::format("  CPU flattened not measured: {}\n", f.why_no_cpu_flattened);
  if (!r.why_no_gpu.empty()) return t;
  const std::pair<const char*, double InstancingFigures::Side::*> rows[] = {
      {"GPU frame", &InstancingFigures::Side::gpu_frame_ms},
      {"GPU kernels and copy back (events)", &InstancingFigures::Side::gpu_total_ms},
      {"GPU beam kernels (events)", &InstancingFigures::Side::gpu_kernel_ms}};
  for (const auto& [name, field] : rows)
    t += fmt::format("  {:<34} {:>12} {:>12}\n", name, Ms(f.instanced.*field),
                     Ms(f.flattened.*field));
  t += fmt::format("  {:<34} {:>8.0f} MiB {:>8.0f} MiB\n", "GPU memory", f.instanced.gpu_mib,
                   f.flattened.gpu_mib);
  return t;
}

nlohmann::json SideJson(const InstancingFigures::Side& s) {
  return {{"cpu_frame_ms", s.cpu_frame_ms},
          {"gpu_frame_ms", s.gpu_frame_ms},
          {"gpu_total_ms", s.gpu_total_ms},
          {"gpu_kernel_ms", s.gpu_kernel_ms},
          {"gpu_memory_mib", s.gpu_mib}};
}

nlohmann::json FiguresJson(const InstancingFigures& f) {
  nlohmann::json j = {{"scene", f.scene},
                      {"stored_triangles", f.stored_triangles},
                      {"placed_triangles", f.placed_triangles},
                      {"instanced", SideJson(f.instanced)},
                      {"flattened", SideJson(f.flattened)}};
  if (!f.why_no_cpu_flattened.empty()) j["why_no_cpu_flattened"] = f.why_no_cpu_flattened;
  return j;
}

}  // namespace

std::string InstanceBenchTable(const InstanceBenchReport& r) {
  std::string t = fmt::format(
      "instancing: {} placements of a {}-triangle car around an OS0-128, {} rays a frame{}\n",
      r.instances, r.model_triangles, r.rays_per_frame,
      r.why_no_gpu.empty() ? "; GPU " + r.device : "; GPU not measured: " + r.why_no_gpu);
  t += FiguresTable(r.lot, r);
  if (!r.street.scene.empty()) t += FiguresTable(r.street, r);
  return t;
}

nlohmann::json InstanceBenchJson(const InstanceBenchReport& r) {
  nlohmann::json j;
  j["instances"] = r.instances;
  j["model_triangles"] = r.model_triangles;
  j["rays_per_frame"] = r.rays_per_frame;
  j["threads"] = r.threads;
  if (r.why_no_gpu.empty()) {
    j["device"] = r.device;
  } else {
    j["why_no_gpu"] = r.why_no_gpu;
  }
  j["parking_lot"] = FiguresJson(r.lot);
  if (!r.street.scene.empty()) j["street"] = FiguresJson(r.street);
  return j;
}

}  // namespace lt::bench
