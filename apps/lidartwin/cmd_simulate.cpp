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

namespace lt::cli {

std::string ConfigRoot() {
  if (const char* home = std::getenv("LIDARTWIN_HOME")) return home;
  return LT_SOURCE_DIR;
}

int SimulateCommand(const std::vector<std::string>& argv) {
  const ArgSpec spec{{"--sensor", "--scene", "--trajectory", "--frames", "--seed", "--backend",
                      "--threads", "--motion-slices", "--waveforms", "--out"},
                     {"--help"},
                     0};
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
  for (const char* required : {"--sensor", "--scene", "--out"}) {
    if (!args->Has(required)) {
      fmt::print(stderr, "lidartwin simulate: missing required option {}\n", required);
      return 2;
    }
  }
  SimulationJob job;
  job.sensor = args->Get("--sensor");
  job.scene = args->Get("--scene");
  if (args->Has("--trajectory")) job.trajectory = args->Get("--trajectory");
  job.out = args->Get("--out");
  job.backend = args->Get("--backend", "cpu");
  auto frames = args->GetUIntIn("--frames", 1, 1, 1000000);
  auto seed = args->GetUInt("--seed", 0);
  auto threads = args->GetUIntIn("--threads", 0, 0, kMaxThreads);
  auto slices = args->GetUInt("--motion-slices", 16);
  for (const auto* v : {&frames, &seed, &threads, &slices}) {
    if (!v->ok()) {
      fmt::print(stderr, "lidartwin simulate: {}\n", v->message());
      return 2;
    }
  }
  // Counts beyond 32 bits are out of range either way; SimulationJob::Validate says which.
  job.motion_slices = static_cast<uint32_t>(std::min<uint64_t>(slices.value(), UINT32_MAX));
  job.frames = static_cast<uint32_t>(std::min<uint64_t>(frames.value(), UINT32_MAX));
  job.seed = seed.value();
  job.threads = static_cast<unsigned>(threads.value());
  if (args->Has("--waveforms")) {
    auto beams = ParseBeamList(args->Get("--waveforms"), SimulationOptions::kMaxWaveformBeams);
    if (!beams.ok()) {
      fmt::print(stderr, "lidartwin simulate: --waveforms: {}\n", beams.message());
      return 2;
    }
    job.waveform_beams = std::move(beams.value());
  }
  if (Status s = job.Validate(); !s.ok()) {
    fmt::print(stderr, "lidartwin simulate: {}\n", s.message());
    return 2;
  }
  job.keep_frames = false;  // frames stream to the writer
  const auto start = std::chrono::steady_clock::now();
  auto result = RunSimulationJob(job);
  if (!result.ok()) {
    fmt::print(stderr, "lidartwin simulate: error: {}\n", result.message());
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
