// `lidartwin bench --export`: frames per second of a labelled export end to end (simulate,
// encode, journal, HDF5 write, join), against the simulator alone on the same frames, per
// process and with one process per GPU; and peak memory for a short and a long export
// (issue 16). Each export runs as a child process, as a user runs it.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "args.h"
#include "bench_memory.h"
#include "built_in.h"
#include "commands.h"
#include "lidartwin/bench/memory_bench.h"
#include "lidartwin/datasets/encoding_figures.h"
#include "lidartwin/datasets/simulation_run.h"
#include "lidartwin/sim/json_text.h"
#include "lidartwin/sim/text_file.h"

namespace lt::cli {

namespace {

namespace fs = std::filesystem;

struct ExportFigure {
  std::string what;
  uint32_t frames = 0;
  bench::ChildRun run;
  uint64_t points = 0;
  uint64_t bytes = 0;  // the shard files
  double FramesPerSecond() const { return run.seconds > 0 ? frames / run.seconds : 0; }
};

struct SimulatorAlone {
  double frames_per_s = 0;
  std::vector<Frame> first;  // the first frames simulated, for the encoding figure
};

// Frames/s of the simulator alone (no writing), after one warm-up frame; the first `keep`
// frames are kept.
Expected<SimulatorAlone> SimulateOnly(SimulationJob job, uint32_t frames, uint32_t keep) {
  job.mesh_loader = BuiltInMeshLoader();
  auto loaded = LoadSimulation(job);
  if (!loaded.ok()) return loaded.error();
  Simulator& sim = *(*loaded)->simulator;
  if (auto f = sim.Simulate(0); !f.ok()) return f.error();
  SimulatorAlone out;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint32_t k = 1; k <= frames; ++k) {
    auto f = sim.Simulate(k);
    if (!f.ok()) return f.error();
    if (out.first.size() < keep) out.first.push_back(std::move(f.value()));
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.frames_per_s = frames / s;
  return out;
}

Status RunExport(const fs::path& program, const std::vector<std::string>& run_args,
                 const fs::path& out, ExportFigure& figure) {
  std::error_code ec;
  fs::remove_all(out, ec);
  figure.run.args = {"export"};
  figure.run.args.insert(figure.run.args.end(), run_args.begin(), run_args.end());
  figure.run.args.push_back("--out");
  figure.run.args.push_back(out.string());
  if (Status s = bench::RunChild(program, figure.run); !s.ok()) return s;
  if (figure.run.exit_code != 0) {
    return Error{"lidartwin " + fmt::format("{}", fmt::join(figure.run.args, " ")) +
                 " failed with exit code " + std::to_string(figure.run.exit_code)};
  }
  auto text = ReadTextFile(out / "manifest.json");
  if (!text.ok()) return text.error();
  auto parsed = ParseJsonText(*text, (out / "manifest.json").string());
  if (!parsed.ok()) return parsed.error();
  const nlohmann::json& manifest = *parsed;
  figure.points = manifest["points"];
  for (const auto& shard : manifest["shards"])
    figure.bytes += shard["bytes"].get<uint64_t>();
  fs::remove_all(out, ec);
  return {};
}

}  // namespace

int BenchExport(const Args& args) {
  const fs::path root = ConfigRoot();
  const std::string sensor =
      args.Get("--sensor", (root / "configs/sensors/ouster_os0_128.yaml").string());
  const std::string scene =
      args.Get("--scene", (root / "configs/scenes/street_crossing.yaml").string());
  const std::string backend = args.Get("--backend", "cpu");
  auto frames = args.GetUIntIn("--export-frames", 1000, 10, 1000000);
  if (!frames.ok()) {
    fmt::print(stderr, "lidartwin bench --export: {}\n", frames.message());
    return 2;
  }
  std::vector<std::string> devices;
  if (args.Has("--devices")) {
    std::string list = args.Get("--devices");
    for (size_t start = 0; start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      devices.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  const fs::path work = args.Get("--out", (fs::temp_directory_path() /
                                           ("lidartwin-bench-export-" + std::to_string(::getpid())))
                                              .string());
  const fs::path program = fs::read_symlink("/proc/self/exe");
  const uint32_t n = static_cast<uint32_t>(*frames);
  const std::vector<std::string> run = {"--sensor",  sensor,  "--scene",  scene,
                                        "--backend", backend, "--frames", std::to_string(n)};

  SimulationJob job;
  job.sensor = sensor;
  job.scene = scene;
  job.backend = backend;
  auto simulate_only = SimulateOnly(job, std::min<uint32_t>(n, 200), 40);
  if (!simulate_only.ok()) {
    fmt::print(stderr, "lidartwin bench --export: {}\n", simulate_only.message());
    return 1;
  }
  auto encoding = MeasureEncoding(simulate_only->first);
  simulate_only->first.clear();
  if (!encoding.ok()) {
    fmt::print(stderr, "lidartwin bench --export: {}\n", encoding.message());
    return 1;
  }
  std::vector<ExportFigure> figures;
  auto add = [&](const std::string& what, std::vector<std::string> extra, uint32_t count) {
    ExportFigure f;
    f.what = what;
    f.frames = count;
    std::vector<std::string> a = run;
    a[7] = std::to_string(count);
    a.insert(a.end(), extra.begin(), extra.end());
    Status s = RunExport(program, a, work / "run", f);
    if (!s.ok()) {
      fmt::print(stderr, "lidartwin bench --export: {}\n", s.message());
      return false;
    }
    figures.push_back(f);
    return true;
  };
  // One process, then the short run for the memory comparison, then one process per GPU.
  if (!add("1 process", {}, n) || !add("1 process (short)", {}, std::max<uint32_t>(10, n / 10))) {
    return 1;
  }
  for (size_t g = 1; g <= devices.size(); ++g) {
    std::string list;
    for (size_t i = 0; i < g; ++i)
      list += (i ? "," : "") + devices[i];
    if (!add(fmt::format("{} GPU(s) ({})", g, list), {"--devices", list}, n)) return 1;
  }
  std::error_code ec;
  fs::remove_all(work, ec);

  fmt::print("export of {} on {} ({} backend); simulator alone: {:.1f} frames/s\n",
             fs::path(sensor).filename().string(), fs::path(scene).filename().string(), backend,
             simulate_only->frames_per_s);
  const EncodingFigures& e = *encoding;
  if (e.frames > 0 && e.raw_bytes > 0) {
    fmt::print(
        "encoding {} frames' chunks on one thread: {:.2f} ms a frame, {:.0f} bytes a frame "
        "stored ({:.1f} % of {:.0f} raw)\n",
        e.frames, 1e3 * e.seconds / e.frames, double(e.encoded_bytes) / e.frames,
        100.0 * e.encoded_bytes / e.raw_bytes, double(e.raw_bytes) / e.frames);
  }
  fmt::print("{:<24} {:>8} {:>9} {:>11} {:>12} {:>10} {:>12}\n", "run", "frames", "seconds",
             "frames/s", "points/frame", "MB/frame", "max RSS MiB");
  nlohmann::json out;
  out["sensor"] = sensor;
  out["scene"] = scene;
  out["backend"] = backend;
  out["simulate_only_frames_per_s"] = simulate_only->frames_per_s;
  out["encoding_one_thread"] = {{"frames", e.frames},
                                {"chunks", e.chunks},
                                {"seconds", e.seconds},
                                {"raw_bytes", e.raw_bytes},
                                {"encoded_bytes", e.encoded_bytes}};
  for (const auto& f : figures) {
    fmt::print("{:<24} {:>8} {:>9.2f} {:>11.1f} {:>12.0f} {:>10.3f} {:>12.1f}\n", f.what, f.frames,
               f.run.seconds, f.FramesPerSecond(), double(f.points) / f.frames,
               f.bytes / 1e6 / f.frames, f.run.max_rss_kib / 1024.0);
    out["runs"].push_back({{"run", f.what},
                           {"frames", f.frames},
                           {"seconds", f.run.seconds},
                           {"frames_per_s", f.FramesPerSecond()},
                           {"points", f.points},
                           {"bytes", f.bytes},
                           {"max_rss_mib", f.run.max_rss_kib / 1024.0}});
  }
  if (figures.size() >= 4) {
    const double scaling = figures[3].FramesPerSecond() / figures[2].FramesPerSecond();
    fmt::print("scaling from 1 to 2 GPUs: {:.2f}x\n", scaling);
    out["scaling_1_to_2_gpus"] = scaling;
  }
  if (args.Has("--json")) {
    std::ofstream file(args.Get("--json"));
    file << out.dump(2) << "\n";
    if (!file) {
      fmt::print(stderr, "lidartwin bench: cannot write {}\n", args.Get("--json"));
      return 1;
    }
  }
  return 0;
}

}  // namespace lt::cli
