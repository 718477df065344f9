// `lidartwin bench --memory` and `bench --export`: the arguments into the jobs' options
// (jobs/bench_runs.h), the table printed and the JSON written.
#include <fmt/core.h>
#include <unistd.h>

#include "bench_modes.h"
#include "built_in.h"
#include "commands.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/jobs/bench_runs.h"

namespace lt::cli {
namespace {

// Prints the table and writes its JSON where --json says; the exit status.
int Report(const Args& args, const Expected<jobs::BenchTable>& table) {
  if (!table.ok()) return Fail("bench", "error: " + table.message(), 1);
  fmt::print("{}", table->text);
  if (args.Has("--json")) {
    if (Status s = WriteTextFileAtomically(args.Get("--json"), table->json.dump(2) + "\n"); !s.ok())
      return Fail("bench", "error: " + s.message(), 1);
  }
  return 0;
}

}  // namespace

int BenchMemory(const Args& args) {
  auto frames = args.GetDoubleList("--memory-frames", {10, 1000});
  auto repeats = args.GetDoubleList("--capture-repeats", {4, 40});
  // Two whole counts each, short before long: frames as simulate takes them, repeats of a
  // capture of about 1 MB up to about 1 GB.
  const auto counts_ok = [](const std::vector<double>& v, double hi) {
    return v.size() == 2 && v[0] >= 1 && v[1] <= hi && v[0] < v[1] &&
           v[0] == static_cast<uint64_t>(v[0]) && v[1] == static_cast<uint64_t>(v[1]);
  };
  if (!frames.ok() || !repeats.ok() || !counts_ok(*frames, 1000000) || !counts_ok(*repeats, 1000))
    return Fail(
        "bench",
        "--memory-frames takes two whole counts short,long in 1..1000000 and --capture-repeats "
        "two in 1..1000, the short below the long",
        2);
  jobs::MemoryBenchOptions o;
  o.executable = "/proc/self/exe";
  o.root = ConfigRoot();
  o.frames_short = static_cast<uint32_t>((*frames)[0]);
  o.frames_long = static_cast<uint32_t>((*frames)[1]);
  o.repeats_short = static_cast<uint32_t>((*repeats)[0]);
  o.repeats_long = static_cast<uint32_t>((*repeats)[1]);
  o.capture =
      args.Get("--capture", (o.root / "../shared/real-data/rust-lidar-utils/hdl32_example.pcap"));
  o.calibration =
      args.Get("--calibration", (o.root / "../shared/real-data/ros-velodyne/32db.yaml"));
  o.log.note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  o.log.warning = [](const std::string& message) {
    fmt::print(stderr, "lidartwin bench: {} (--capture)\n", message);
  };
  return Report(args, jobs::BenchMemory(o));
}

int BenchExport(const Args& args) {
  const std::filesystem::path root = ConfigRoot();
  jobs::ExportBenchOptions o;
  o.executable = "/proc/self/exe";
  o.sensor = args.Get("--sensor", (root / "configs/sensors/ouster_os0_128.yaml").string());
  o.scene = args.Get("--scene", (root / "configs/scenes/street_crossing.yaml").string());
  o.backend = args.Get("--backend", "cpu");
  auto frames = args.GetUIntIn("--export-frames", 1000, 10, 1000000);
  if (!frames.ok()) return Fail("bench", frames.message(), 2);
  o.frames = static_cast<uint32_t>(*frames);
  if (args.Has("--devices")) {
    const std::string list = args.Get("--devices");
    for (size_t start = 0; start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      o.devices.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  o.work = args.Get("--out", (std::filesystem::temp_directory_path() /
                              ("lidartwin-bench-export-" + std::to_string(::getpid())))
                                 .string());
  o.mesh_loader = BuiltInMeshLoader();
  return Report(args, jobs::BenchExport(o));
}

}  // namespace lt::cli
