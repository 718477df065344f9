// The benches in this process: the demo scene with the GPU's cities, or a user's scene; see
// bench_runs.h.
#include <fmt/core.h>

#include "lidartwin/base/host_cores.h"
#include "lidartwin/bench/bench_tables.h"
#include "lidartwin/bench/cpu_bench.h"
#include "lidartwin/bench/gpu_bench.h"
#include "lidartwin/bench/instance_bench.h"
#include "lidartwin/bench/scene_bench.h"
#include "lidartwin/jobs/bench_runs.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::jobs {
namespace {

// The CPU backend on the demo scene, then the GPU bench on procedural cities (or why not).
Expected<BenchTable> BenchDemoScene(const TraceBenchOptions& o, unsigned threads) {
  const auto scene_path = o.root / "configs/scenes/lab_plates.yaml";
  auto profile = LoadSensorProfile(o.root / "configs/sensors/ouster_os0_128.yaml");
  if (!profile.ok()) return profile.error();
  auto scene = LoadScene(scene_path, o.mesh_loader);
  if (!scene.ok()) return scene.error();
  const auto machine = bench::ReadMachineInfo();
  const auto cpu = bench::RunCpuBench(*scene, *profile, threads, o.repeats);
  const std::string scene_file = scene_path.filename().string();
  bench::GpuBenchReport gpu;
  if (o.no_gpu_because.empty())
    gpu = bench::RunGpuBench(o.gpu_triangles, static_cast<int>(o.repeats), threads, o.embree_peer);
  else
    gpu.why_no_gpu = o.no_gpu_because;
  BenchTable out;
  out.text = bench::CpuBenchTable(machine, scene_file, scene->TriangleCount(), profile->name, cpu) +
             bench::GpuBenchTables(gpu);
  out.json = bench::BenchJson(machine, scene_file, scene->TriangleCount(), profile->name, cpu, gpu);
  return out;
}

// The GPU bench's rays on a user's scene from the sensor's position.
Expected<BenchTable> BenchUserScene(const TraceBenchOptions& o, unsigned threads) {
  auto scene = bench::LoadSceneOrMesh(o.scene, o.mesh_loader);
  if (!scene.ok()) return scene.error();
  auto os0 = LoadSensorProfile(o.root / "configs/sensors/ouster_os0_128.yaml");
  if (!os0.ok()) return os0.error();
  const auto& p = o.sensor_position_m;
  const physics::Vec3<double> sensor{p[0], p[1], p[2]};
  auto r = bench::RunSceneTraceBench(*scene, *os0, sensor, static_cast<int>(o.repeats), threads,
                                     o.embree_peer);
  if (!r.ok()) return r.error();
  return BenchTable{bench::SceneBenchTable(o.scene.string(), sensor, *r),
                    bench::SceneBenchJson(o.scene.string(), p, *r)};
}

// One model placed many times, instanced and flattened, on both backends.
Expected<BenchTable> BenchInstances(const TraceBenchOptions& o, unsigned threads) {
  auto os0 = LoadSensorProfile(o.root / "configs/sensors/ouster_os0_128.yaml");
  if (!os0.ok()) return os0.error();
  auto materials = LoadMaterialLibrary(o.root / "configs/materials/library.yaml");
  if (!materials.ok()) return materials.error();
  const std::filesystem::path street_file =
      o.scene.empty() ? o.root / "configs/scenes/street_city.yaml" : o.scene;
  auto street = LoadScene(street_file, o.mesh_loader);
  if (!street.ok()) return street.error();
  auto r = bench::RunInstanceBench(*os0, *materials, o.instances, o.model_triangles, &*street,
                                   street_file.filename().string(), static_cast<int>(o.repeats),
                                   threads, o.no_gpu_because);
  if (!r.ok()) return r.error();
  const bench::MachineInfo m = bench::ReadMachineInfo();
  nlohmann::json json = bench::InstanceBenchJson(*r);
  json["machine"] = {{"host", m.host}, {"cpu", m.cpu}, {"date_utc", m.date_utc}};
  return BenchTable{fmt::format("machine: {} ({}, {} threads), {}\n", m.host, m.cpu,
                                m.hardware_threads, m.date_utc) +
                        bench::InstanceBenchTable(*r),
                    json};
}

}  // namespace

Status TraceBenchOptions::Validate() const {
  if (repeats < 1 || repeats > 1000)
    return OptionError("repeats", fmt::format("repeats: must be in 1..1000, got {}", repeats));
  for (uint64_t count : gpu_triangles)
    if (count < 14)
      return OptionError("gpu_triangles",
                         fmt::format("gpu_triangles: {} is not a count >= 14", count));
  if (instances > 100000)
    return OptionError("instances",
                       fmt::format("instances: must be in 0..100000, got {}", instances));
  if (!(model_triangles >= 100 && model_triangles <= 1e7))
    return OptionError(
        "model_triangles",
        fmt::format("model_triangles: must be in [100, 1e7], got {}", model_triangles));
  if (sensor_position_m.size() != 3)
    return OptionError("sensor_position_m",
                       "sensor_position_m: three numbers x,y,z [m] in the scene's frame");
  return {};
}

Expected<BenchTable> BenchTrace(const TraceBenchOptions& o) {
  if (Status s = o.Validate(); !s.ok()) return s.error();
  const unsigned threads = o.threads ? o.threads : UsableCores();
  if (o.instances > 0) return BenchInstances(o, threads);
  return o.scene.empty() ? BenchDemoScene(o, threads) : BenchUserScene(o, threads);
}

}  // namespace lt::jobs
