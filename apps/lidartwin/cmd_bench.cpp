// `lidartwin bench`: the benches of jobs/bench_runs.h, by mode: the CPU backend on the demo
// scene and the GPU on procedural cities (the default), a user's scene (--scene), peak memory
// (--memory) and the export end to end (--export); each table printed, its JSON written.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "built_in.h"
#include "command.h"
#include "commands.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/comma_list.h"
#include "lidartwin/jobs/bench_runs.h"

namespace lt::cli {
namespace {

// The flags of each mode but the default, for "X is an option of bench --mode".
const std::vector<std::pair<const char*, std::vector<const char*>>> kModeFlags = {
    {"--export", {"--sensor", "--backend", "--export-frames", "--devices", "--out"}},
    {"--memory", {"--memory-frames", "--capture", "--calibration", "--capture-repeats"}},
    {"--scene", {"--sensor-position"}},
    {"--instances", {"--model-triangles"}}};

// A flag of another mode than the one asked for, as a usage error.
Status CheckModeFlags(const Args& args, const char* mode) {
  for (const auto& [owner, flags] : kModeFlags)
    for (const char* flag : flags)
      if (std::string(owner) != mode && args.Has(flag))
        return FlagError(flag, std::string(flag) + " is an option of bench " + owner);
  return {};
}

// Two whole counts short,long in 1..hi, the short below the long.
bool ShortAndLong(const std::vector<double>& v, double hi) {
  return v.size() == 2 && v[0] >= 1 && v[1] <= hi && v[0] < v[1] &&
         v[0] == static_cast<uint64_t>(v[0]) && v[1] == static_cast<uint64_t>(v[1]);
}

Expected<jobs::BenchTable> BenchMemory(const Args& args) {
  std::vector<double> frames = {10, 1000}, repeats = {4, 40};
  // Frames as simulate takes them, repeats of a capture of about 1 MB up to about 1 GB.
  if (!args.Into("--memory-frames", frames).ok() || !args.Into("--capture-repeats", repeats).ok() ||
      !ShortAndLong(frames, 1000000) || !ShortAndLong(repeats, 1000))
    return FlagError("--memory-frames",
                     "--memory-frames takes two whole counts short,long in 1..1000000 and "
                     "--capture-repeats two in 1..1000, the short below the long");
  jobs::MemoryBenchOptions o;
  o.executable = "/proc/self/exe";
  o.root = ConfigRoot();
  o.frames_short = static_cast<uint32_t>(frames[0]);
  o.frames_long = static_cast<uint32_t>(frames[1]);
  o.repeats_short = static_cast<uint32_t>(repeats[0]);
  o.repeats_long = static_cast<uint32_t>(repeats[1]);
  o.capture =
      args.Get("--capture", (o.root / "../shared/real-data/rust-lidar-utils/hdl32_example.pcap"));
  o.calibration =
      args.Get("--calibration", (o.root / "../shared/real-data/ros-velodyne/32db.yaml"));
  o.log.note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  o.log.warning = [](const std::string& message) {
    fmt::print(stderr, "lidartwin bench: {} (--capture)\n", message);
  };
  return jobs::BenchMemory(o);
}

Expected<jobs::BenchTable> BenchExport(const Args& args) {
  const std::filesystem::path root = ConfigRoot();
  jobs::ExportBenchOptions o;
  o.executable = "/proc/self/exe";
  o.sensor = args.Get("--sensor", (root / "configs/sensors/ouster_os0_128.yaml").string());
  o.scene = args.Get("--scene", (root / "configs/scenes/street_crossing.yaml").string());
  o.backend = args.Get("--backend", "cpu");
  auto frames = args.GetUIntIn("--export-frames", 1000, 10, 1000000);
  if (!frames.ok()) return frames.error();
  o.frames = static_cast<uint32_t>(*frames);
  if (args.Has("--devices")) o.devices = CommaSeparated(args.Get("--devices"));
  o.work = args.Get("--out", (std::filesystem::temp_directory_path() /
                              ("lidartwin-bench-export-" + std::to_string(::getpid())))
                                 .string());
  o.mesh_loader = BuiltInMeshLoader();
  return jobs::BenchExport(o);
}

// The demo scene and the GPU's cities, or a user's scene.
Expected<jobs::BenchTable> BenchTrace(const Args& args) {
  jobs::TraceBenchOptions o;
  o.root = ConfigRoot();
  auto repeats = args.GetUIntIn("--repeats", o.repeats, 1, 1000);
  auto threads = args.GetUIntIn("--threads", 0, 0, kMaxThreads);
  if (Status s = FirstError({repeats.status(), threads.status(), args.Into("--scene", o.scene),
                             args.Into("--sensor-position", o.sensor_position_m)});
      !s.ok())
    return s.error();
  o.repeats = static_cast<uint32_t>(*repeats);
  o.threads = static_cast<unsigned>(*threads);
  if (args.Has("--no-gpu")) o.no_gpu_because = "--no-gpu";
  o.embree_peer = !args.Has("--no-embree");
  o.gpu_triangles.clear();
  for (const std::string& item : CommaSeparated(args.Get("--gpu-triangles", "1000000,10000000"))) {
    char* end = nullptr;
    o.gpu_triangles.push_back(std::strtoull(item.c_str(), &end, 10));
    if (item.empty() || *end != '\0' || o.gpu_triangles.back() < 14)
      return FlagError("--gpu-triangles", "--gpu-triangles: '" + item + "' is not a count >= 14");
  }
  if (args.Has("--instances")) {
    auto n = args.GetUIntIn("--instances", 1000, 1, 100000);
    if (!n.ok()) return n.error();
    o.instances = static_cast<uint32_t>(*n);
    if (Status s = args.Into("--model-triangles", o.model_triangles); !s.ok()) return s.error();
  }
  o.mesh_loader = BuiltInMeshLoader();
  return jobs::BenchTrace(o);
}

}  // namespace

int BenchCommand(const std::vector<std::string>& argv) {
  const Command bench{
      "bench",
      "",
      {{"--json", "--repeats", "--threads", "--gpu-triangles", "--memory-frames", "--capture",
        "--calibration", "--capture-repeats", "--scene", "--sensor-position", "--sensor",
        "--backend", "--export-frames", "--devices", "--out", "--instances", "--model-triangles"},
       {"--no-gpu", "--no-embree", "--memory", "--export"},
       0},
      {{"repeats", "--repeats"},
       {"sensor_position_m", "--sensor-position"},
       {"frames", "--export-frames"},
       {"model_triangles", "--model-triangles"}},
      {{"backend", "--backend"}}};  // an unusable backend is the run's error (exit 1)
  return RunCommand(bench, argv, [](const Args& args) -> Expected<int> {
    const char* mode = args.Has("--memory")      ? "--memory"
                       : args.Has("--export")    ? "--export"
                       : args.Has("--instances") ? "--instances"
                       : args.Has("--scene")     ? "--scene"
                                                 : "";
    if (Status s = FirstError(
            {CheckModeFlags(args, mode), RefuseStandardOutput(args, {{"--out", "a folder"}})});
        !s.ok())
      return s.error();
    auto table = std::string(mode) == "--memory"   ? BenchMemory(args)
                 : std::string(mode) == "--export" ? BenchExport(args)
                                                   : BenchTrace(args);
    if (!table.ok()) return table.error();
    // --json -: the JSON on stdout, and the table on stderr.
    if (IsStandardOutput(args, "--json")) {
      fmt::print(stderr, "{}", table->text);
      fmt::print("{}", table->json.dump(2) + "\n");
      return 0;
    }
    fmt::print("{}", table->text);
    if (args.Has("--json")) {
      if (Status s = WriteTextFileAtomically(args.Get("--json"), table->json.dump(2) + "\n");
          !s.ok())
        return s.error();
    }
    return 0;
  });
}

}  // namespace lt::cli
