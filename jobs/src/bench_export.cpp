// `lidartwin bench --export`: frames per second of a labelled export end to end (simulate,
// encode, journal, HDF5 write, join), against the simulator alone on the same frames, per
// process and with one process per GPU; and peak memory for a short and a long export
// (issue 16). Each export runs as a child process, as a user runs it; see bench_runs.h.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "lidartwin/base/json_text.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/bench/memory_bench.h"
#include "lidartwin/datasets/encoding_figures.h"
#include "lidartwin/datasets/simulation_run.h"
#include "lidartwin/jobs/bench_runs.h"

namespace lt::jobs {

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

// Frames/s of the simulator alone (no writing), each frame let go as an export lets it go.
// The first `keep` frames are simulated first, untimed (the first of them also warms up), and
// kept for the encoding figure: held while the timed frames run, they would have measured
// fresh memory being mapped rather than the simulator.
Expected<SimulatorAlone> SimulateOnly(SimulationJob job, uint32_t frames, uint32_t keep) {
  auto loaded = LoadSimulation(job);
  if (!loaded.ok()) return loaded.error();
  Simulator& sim = *(*loaded)->simulator;
  SimulatorAlone out;
  for (uint32_t k = 0; k < std::max<uint32_t>(keep, 1); ++k) {
    auto f = sim.Simulate(k);
    if (!f.ok()) return f.error();
    if (k < keep) out.first.push_back(std::move(f.value()));
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (uint32_t k = 1; k <= frames; ++k) {
    auto f = sim.Simulate(k);
    if (!f.ok()) return f.error();
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

Status ExportBenchOptions::Validate() const {
  if (frames < 10 || frames > 1000000)
    return OptionError("frames", fmt::format("frames: must be in 10..1000000, got {}", frames));
  if (backend != "cpu" && backend != "cuda")
    return OptionError("backend", "backend: '" + backend + "' (expected cpu or cuda)");
  if (work.empty()) return OptionError("work", "work: no scratch folder given");
  return {};
}

Expected<BenchTable> BenchExport(const ExportBenchOptions& o) {
  if (Status s = o.Validate(); !s.ok()) return s.error();
  const fs::path program = fs::read_symlink(o.executable);
  const uint32_t n = o.frames;
  const std::vector<std::string> run = {"--sensor",  o.sensor,  "--scene",  o.scene,
                                        "--backend", o.backend, "--frames", std::to_string(n)};
  SimulationJob job;
  job.sensor = o.sensor;
  job.scene = o.scene;
  job.backend = o.backend;
  job.mesh_loader = o.mesh_loader;
  // Up to 1,000 frames: at 2,000 frames/s, 200 took 0.1 s, where one stall of the host moved
  // the figure by a tenth.
  auto simulate_only = SimulateOnly(job, std::min<uint32_t>(n, 1000), 40);
  if (!simulate_only.ok()) return simulate_only.error();
  auto encoding = MeasureEncoding(simulate_only->first);
  simulate_only->first.clear();
  if (!encoding.ok()) return encoding.error();
  std::vector<ExportFigure> figures;
  auto add = [&](const std::string& what, std::vector<std::string> extra,
                 uint32_t count) -> Status {
    ExportFigure f;
    f.what = what;
    f.frames = count;
    std::vector<std::string> a = run;
    a[7] = std::to_string(count);
    a.insert(a.end(), extra.begin(), extra.end());
    if (Status s = RunExport(program, a, o.work / "run", f); !s.ok()) return s;
    figures.push_back(f);
    return {};
  };
  // One process, then the short run for the memory comparison, then one process per GPU.
  Status s = add("1 process", {}, n);
  if (s.ok()) s = add("1 process (short)", {}, std::max<uint32_t>(10, n / 10));
  for (size_t g = 1; s.ok() && g <= o.devices.size(); ++g) {
    std::string list;
    for (size_t i = 0; i < g; ++i)
      list += (i ? "," : "") + o.devices[i];
    s = add(fmt::format("{} GPU(s) ({})", g, list), {"--devices", list}, n);
  }
  if (!s.ok()) return s.error();  // the work folder is left as it is, to be looked at
  std::error_code ec;
  fs::remove_all(o.work, ec);

  BenchTable out;
  out.text =
      fmt::format("export of {} on {} ({} backend); simulator alone: {:.1f} frames/s\n",
                  fs::path(o.sensor).filename().string(), fs::path(o.scene).filename().string(),
                  o.backend, simulate_only->frames_per_s);
  const EncodingFigures& e = *encoding;
  if (e.frames > 0 && e.raw_bytes > 0) {
    out.text += fmt::format(
        "encoding {} frames' chunks on one thread: {:.2f} ms a frame, {:.0f} bytes a frame "
        "stored ({:.1f} % of {:.0f} raw)\n",
        e.frames, 1e3 * e.seconds / e.frames, double(e.encoded_bytes) / e.frames,
        100.0 * e.encoded_bytes / e.raw_bytes, double(e.raw_bytes) / e.frames);
  }
  out.text += fmt::format("{:<24} {:>8} {:>9} {:>11} {:>12} {:>10} {:>12}\n", "run", "frames",
                          "seconds", "frames/s", "points/frame", "MB/frame", "max RSS MiB");
  nlohmann::json& j = out.json;
  j["sensor"] = o.sensor;
  j["scene"] = o.scene;
  j["backend"] = o.backend;
  j["simulate_only_frames_per_s"] = simulate_only->frames_per_s;
  j["encoding_one_thread"] = {{"frames", e.frames},
                              {"chunks", e.chunks},
                              {"seconds", e.seconds},
                              {"raw_bytes", e.raw_bytes},
                              {"encoded_bytes", e.encoded_bytes}};
  for (const auto& f : figures) {
    out.text +=
        fmt::format("{:<24} {:>8} {:>9.2f} {:>11.1f} {:>12.0f} {:>10.3f} {:>12.1f}\n", f.what,
                    f.frames, f.run.seconds, f.FramesPerSecond(), double(f.points) / f.frames,
                    f.bytes / 1e6 / f.frames, f.run.max_rss_kib / 1024.0);
    j["runs"].push_back({{"run", f.what},
                         {"frames", f.frames},
                         {"seconds", f.run.seconds},
                         {"frames_per_s", f.FramesPerSecond()},
                         {"points", f.points},
                         {"bytes", f.bytes},
                         {"max_rss_mib", f.run.max_rss_kib / 1024.0}});
  }
  if (figures.size() >= 4) {
    const double scaling = figures[3].FramesPerSecond() / figures[2].FramesPerSecond();
    out.text += fmt::format("scaling from 1 to 2 GPUs: {:.2f}x\n", scaling);
    j["scaling_1_to_2_gpus"] = scaling;
  }
  return out;
}

}  // namespace lt::jobs
