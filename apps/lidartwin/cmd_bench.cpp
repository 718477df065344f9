// `lidartwin bench`: CPU backend throughput on the demo scene and sensor.
#include <fmt/core.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "args.h"
#include "commands.h"
#include "lidartwin/bench/cpu_bench.h"
#include "simulation_job.h"

namespace lt::cli {

int BenchCommand(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {{"--json", "--repeats", "--threads"}, {"--help"}, 0});
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin bench: {}\n", args.message());
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("usage: lidartwin bench [--json FILE] [--repeats N] [--threads N]\n");
    return 0;
  }
  auto repeats = args->GetUInt("--repeats", 9);
  auto threads = args->GetUInt("--threads", 0);
  if (!repeats.ok() || !threads.ok() || repeats.value() == 0) {
    fmt::print(stderr, "lidartwin bench: --repeats and --threads take whole numbers >= 1\n");
    return 2;
  }
  const std::filesystem::path root = ConfigRoot();
  const auto sensor_path = root / "configs/sensors/ouster_os0_128.yaml";
  const auto scene_path = root / "configs/scenes/lab_plates.yaml";
  auto profile = LoadSensorProfile(sensor_path);
  if (!profile.ok()) {
    fmt::print(stderr, "lidartwin bench: error: {}\n", profile.message());
    return 1;
  }
  auto scene = LoadScene(scene_path, BuiltInMeshLoader());
  if (!scene.ok()) {
    fmt::print(stderr, "lidartwin bench: error: {}\n", scene.message());
    return 1;
  }
  const unsigned n_threads = threads.value() ? static_cast<unsigned>(threads.value())
                                             : std::thread::hardware_concurrency();
  const auto machine = bench::ReadMachineInfo();
  const auto r = bench::RunCpuBench(scene.value(), profile.value(), n_threads,
                                    static_cast<uint32_t>(repeats.value()));
  fmt::print("machine: {} ({}, {} hardware threads), {}\n", machine.host, machine.cpu,
             machine.hardware_threads, machine.date_utc);
  fmt::print("scene:   {} ({} triangles), sensor {} ({} beams/frame)\n",
             scene_path.filename().string(), scene->TriangleCount(), profile->name,
             r.rays_per_frame);
  fmt::print("{:<28} {:>14}\n", "figure", "value");
  fmt::print("{:<28} {:>14}\n", "cpu_threads", r.threads);
  fmt::print("{:<28} {:>14.3f}\n", "cpu_frame_ms (median)", r.frame_ms_median);
  fmt::print("{:<28} {:>14.3f}\n", "cpu_frame_ms (min)", r.frame_ms_min);
  fmt::print("{:<28} {:>14.4g}\n", "cpu_rays_per_s", r.rays_per_s);
  fmt::print("{:<28} {:>14.4g}\n", "cpu_points_per_s", r.points_per_s);
  fmt::print("{:<28} {:>14}\n", "points_per_frame", r.points_per_frame);
  if (args->Has("--json")) {
    nlohmann::json j;
    j["machine"] = {{"host", machine.host},
                    {"cpu", machine.cpu},
                    {"hardware_threads", machine.hardware_threads},
                    {"date_utc", machine.date_utc}};
    j["scene"] = {{"file", scene_path.filename().string()}, {"triangles", scene->TriangleCount()}};
    j["sensor"] = {{"name", profile->name}, {"beams_per_frame", r.rays_per_frame}};
    j["cpu"] = {{"threads", r.threads},
                {"repeats", r.repeats},
                {"frame_ms_median", r.frame_ms_median},
                {"frame_ms_min", r.frame_ms_min},
                {"rays_per_s", r.rays_per_s},
                {"points_per_s", r.points_per_s},
                {"points_per_frame", r.points_per_frame}};
    std::ofstream out(args->Get("--json"));
    out << j.dump(2) << "\n";
    if (!out) {
      fmt::print(stderr, "lidartwin bench: cannot write {}\n", args->Get("--json"));
      return 1;
    }
  }
  return 0;
}

}  // namespace lt::cli
