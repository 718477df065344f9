#include "simulation_args.h"

#include <algorithm>
#include <cstdint>

#include "command.h"

namespace lt::cli {

std::vector<std::string> SimulationOptionNames() {
  return {"--sensor",  "--scene",   "--trajectory",    "--frames",   "--seed",
          "--backend", "--threads", "--motion-slices", "--waveforms"};
}

Expected<SimulationJob> SimulationJobFromArgs(const Args& args) {
  for (const char* required : {"--sensor", "--scene"}) {
    if (!args.Has(required)) return Usage(std::string("missing required option ") + required);
  }
  SimulationJob job;
  job.sensor = args.Get("--sensor");
  job.scene = args.Get("--scene");
  if (args.Has("--trajectory")) job.trajectory = args.Get("--trajectory");
  job.backend = args.Get("--backend", "cpu");
  if (job.backend != "cpu" && job.backend != "cuda")
    return FlagError("--backend",
                     "--backend " + job.backend + ": unknown backend (expected cpu or cuda)");
  auto frames = args.GetUIntIn("--frames", 1, 1, 1000000);
  auto seed = args.GetUInt("--seed", 0);
  auto threads = args.GetUIntIn("--threads", 0, 0, kMaxThreads);
  auto slices = args.GetUInt("--motion-slices", 16);
  for (const auto* v : {&frames, &seed, &threads, &slices}) {
    if (!v->ok()) return v->error();
  }
  // Counts beyond 32 bits are out of range either way; SimulationJob::Validate says which.
  job.motion_slices = static_cast<uint32_t>(std::min<uint64_t>(slices.value(), UINT32_MAX));
  job.frames = static_cast<uint32_t>(std::min<uint64_t>(frames.value(), UINT32_MAX));
  job.seed = seed.value();
  job.threads = static_cast<unsigned>(threads.value());
  if (args.Has("--waveforms")) {
    auto beams = ParseBeamList(args.Get("--waveforms"), SimulationOptions::kMaxWaveformBeams);
    if (!beams.ok()) return FlagError("--waveforms", "--waveforms: " + beams.message());
    job.waveform_beams = std::move(beams.value());
  }
  return job;
}

}  // namespace lt::cli
