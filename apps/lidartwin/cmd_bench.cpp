// `lidartwin bench`: CPU backend throughput on the demo scene and sensor.
#include <fmt/core.h>

#include <cstdlib>

#include "bench_modes.h"
#include "built_in.h"
#include "command.h"
#include "commands.h"
#include "help_text.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/host_cores.h"
#include "lidartwin/bench/bench_tables.h"
#include "lidartwin/bench/bvh_quality.h"
#include "lidartwin/bench/cpu_bench.h"
#include "lidartwin/bench/gpu_bench.h"

namespace lt::cli {
namespace {

// "1000000,10000000": triangle counts of the procedural cities, each whole and >= 14.
Expected<std::vector<uint64_t>> GpuTriangles(const Args& args) {
  std::vector<uint64_t> counts;
  const std::string list = args.Get("--gpu-triangles", "1000000,10000000");
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    char* end = nullptr;
    const unsigned long long v = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 14)
      return Error{"--gpu-triangles: '" + item + "' is not a count >= 14"};
    counts.push_back(v);
    start = comma + 1;
  }
  return counts;
}

// The CPU backend on the demo scene, then the GPU bench on procedural cities (or why not).
int BenchDemoScene(const Args& args, const std::vector<uint64_t>& gpu_triangles, uint32_t repeats,
                   unsigned threads) {
  const std::filesystem::path root = ConfigRoot();
  const auto scene_path = root / "configs/scenes/lab_plates.yaml";
  auto profile = LoadSensorProfile(root / "configs/sensors/ouster_os0_128.yaml");
  if (!profile.ok()) return Fail("bench", "error: " + profile.message(), 1);
  auto scene = LoadScene(scene_path, BuiltInMeshLoader());
  if (!scene.ok()) return Fail("bench", "error: " + scene.message(), 1);
  const auto machine = bench::ReadMachineInfo();
  const auto r = bench::RunCpuBench(*scene, *profile, threads, repeats);
  const std::string scene_file = scene_path.filename().string();
  fmt::print("{}",
             bench::CpuBenchTable(machine, scene_file, scene->TriangleCount(), profile->name, r));
  bench::GpuBenchReport gpu;
  if (args.Has("--no-gpu")) {
    gpu.why_no_gpu = "--no-gpu";
  } else {
    gpu = bench::RunGpuBench(gpu_triangles, static_cast<int>(repeats), threads,
                             !args.Has("--no-embree"));
  }
  fmt::print("{}", bench::GpuBenchTables(gpu));
  if (args.Has("--json")) {
    const auto j =
        bench::BenchJson(machine, scene_file, scene->TriangleCount(), profile->name, r, gpu);
    if (Status s = WriteTextFileAtomically(args.Get("--json"), j.dump(2) + "\n"); !s.ok())
      return Fail("bench", "error: " + s.message(), 1);
  }
  return 0;
}

}  // namespace

int BenchCommand(const std::vector<std::string>& argv) {
  const Command bench{
      "bench",
      HelpText("bench"),
      {{"--json", "--repeats", "--threads", "--gpu-triangles", "--memory-frames", "--capture",
        "--calibration", "--capture-repeats", "--scene", "--sensor-position", "--sensor",
        "--backend", "--export-frames", "--devices", "--out"},
       {"--no-gpu", "--no-embree", "--memory", "--export"},
       0},
      {}};
  return RunCommand(bench, argv, [](const Args& args) -> Expected<int> {
    if (args.Has("--memory")) return BenchMemory(args);
    if (args.Has("--export")) return BenchExport(args);
    for (const char* flag : {"--sensor", "--backend", "--export-frames", "--devices", "--out"})
      if (args.Has(flag))
        return FlagError(flag, std::string(flag) + " is an option of bench --export");
    for (const char* flag : {"--memory-frames", "--capture", "--calibration", "--capture-repeats"})
      if (args.Has(flag))
        return FlagError(flag, std::string(flag) + " is an option of bench --memory");
    uint64_t repeats = 9, threads = 0;
    auto r = args.GetUIntIn("--repeats", repeats, 1, 1000);
    auto t = args.GetUIntIn("--threads", threads, 0, kMaxThreads);
    if (Status s = FirstError({r.status(), t.status()}); !s.ok()) return s.error();
    const unsigned n_threads = *t ? static_cast<unsigned>(*t) : UsableCores();
    if (args.Has("--scene"))
      return BenchScene(args,
                        std::filesystem::path(ConfigRoot()) / "configs/sensors/ouster_os0_128.yaml",
                        n_threads, static_cast<int>(*r));
    if (args.Has("--sensor-position"))
      return FlagError("--sensor-position", "--sensor-position is an option of bench --scene");
    auto gpu_triangles = GpuTriangles(args);
    if (!gpu_triangles.ok()) return FlagError("--gpu-triangles", gpu_triangles.message());
    return BenchDemoScene(args, *gpu_triangles, static_cast<uint32_t>(*r), n_threads);
  });
}

}  // namespace lt::cli
