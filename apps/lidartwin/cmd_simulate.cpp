// lidartwin simulate: frames of a sensor in a scene to HDF5 or to point-cloud files
// (datasets/simulation_run.h).
#include <fmt/core.h>

#include <chrono>

#include "built_in.h"
#include "command.h"
#include "commands.h"
#include "lidartwin/datasets/frame_output.h"
#include "simulation_args.h"

namespace lt::cli {

int SimulateCommand(const std::vector<std::string>& argv) {
  Command simulate{"simulate",
                   "",
                   {{"--out"}, {}, 0},
                   {},
                   {{"backend", "--backend"}}};  // an unusable backend is the run's error (exit 1)
  for (const auto& name : SimulationOptionNames())
    simulate.args.valued.insert(name);
  return RunCommand(simulate, argv, [](const Args& args) -> Expected<int> {
    auto job = SimulationJobFromArgs(args);
    if (!job.ok()) return job.error();
    if (!args.Has("--out")) return Usage("missing required option --out");
    if (Status s = RefuseStandardOutput(args, {{"--out", kFramesOutput}}); !s.ok())
      return s.error();
    job->out = args.Get("--out");
    // Its options out of range are usage errors, whatever key they name.
    if (Status s = job->Validate(); !s.ok()) return ArgumentError(s.message());
    job->keep_frames = false;  // frames stream to the writer
    const auto start = std::chrono::steady_clock::now();
    auto result = RunSimulationJob(*job);
    if (!result.ok()) return result.error();
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(
        "wrote {}: {} frame(s), {} points, {} rays; {:.3f} s in all ({:.3f} s tracing, "
        "{:.2f} Mrays/s)\n",
        WrittenFilesText(result->written), result->frames_written, result->points, result->rays,
        total, result->seconds, result->seconds > 0 ? result->rays / result->seconds / 1e6 : 0.0);
    return 0;
  });
}

}  // namespace lt::cli
