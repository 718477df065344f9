#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>

#include "args.h"
#include "built_in.h"
#include "commands.h"
#include "lidartwin/datasets/frame_output.h"
#include "lidartwin/sim/simulator.h"
#include "option_flags.h"
#include "simulation_args.h"

namespace lt::cli {

int Fail(const char* command, const std::string& message, int code) {
  fmt::print(stderr, "lidartwin {}: {}\n", command, message);
  return code;
}

std::string ConfigRoot() {
  if (const char* home = std::getenv("LIDARTWIN_HOME")) return home;
  return LT_SOURCE_DIR;
}

int SimulateCommand(const std::vector<std::string>& argv) {
  ArgSpec spec{{"--out"}, {"--help"}, 0};
  for (const auto& name : SimulationOptionNames())
    spec.valued.insert(name);
  auto args = Args::Parse(argv, spec);
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin simulate: {}\n", args.message());
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print(
        "usage: lidartwin simulate --sensor S.yaml --scene C.yaml [--trajectory T.yaml]\n"
        "         [--frames N] [--seed K] [--backend cpu|cuda] [--threads N]\n"
        "         [--motion-slices N] [--waveforms BEAMS] --out out.h5\n"
        "  --motion-slices: moving objects are placed N times per frame (default 16)\n"
        "  --waveforms: waveform detector: also write the voltage records of these beams\n"
        "               each frame (e.g. 0,17,3000-3010; at most 4096 beams)\n"
        "  --out ending in .ply, .pcd or .las (LAS 1.4) writes one file per frame "
        "(name_000000.ply, ...)\n");
    return 0;
  }
  auto parsed = SimulationJobFromArgs(*args);
  if (!parsed.ok()) {
    fmt::print(stderr, "lidartwin simulate: {}\n", parsed.message());
    return 2;
  }
  if (!args->Has("--out")) {
    fmt::print(stderr, "lidartwin simulate: missing required option --out\n");
    return 2;
  }
  SimulationJob job = std::move(parsed.value());
  job.out = args->Get("--out");
  if (Status s = job.Validate(); !s.ok()) {
    fmt::print(stderr, "lidartwin simulate: {}\n", s.message());
    return 2;
  }
  job.keep_frames = false;  // frames stream to the writer
  const auto start = std::chrono::steady_clock::now();
  auto result = RunSimulationJob(job);
  if (!result.ok()) {
    fmt::print(stderr, "lidartwin simulate: error: {}\n",
               FlagMessage(result.error(), {{"backend", "--backend"}}));
    return 1;
  }
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(
      "wrote {}: {} frame(s), {} points, {} rays; {:.3f} s in all ({:.3f} s tracing, "
      "{:.2f} Mrays/s)\n",
      WrittenFilesText(result->written), result->frames_written, result->points, result->rays,
      total, result->seconds, result->seconds > 0 ? result->rays / result->seconds / 1e6 : 0.0);
  return 0;
}

}  // namespace lt::cli
