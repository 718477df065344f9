// lidartwin export: a labelled dataset in a folder of shards (datasets/export_run.h,
// docs/datasets.md).
#include <fmt/core.h>

#include <tuple>

#include "built_in.h"
#include "command.h"
#include "commands.h"
#include "lidartwin/datasets/export_run.h"
#include "lidartwin/jobs/export_here.h"
#include "lidartwin/jobs/export_workers.h"
#include "simulation_args.h"

namespace lt::cli {

namespace {

// The run's options from the command line: which shards, run where (usage errors).
Expected<jobs::ExportOptions> ExportOptionsFromArgs(const Args& args,
                                                    const std::vector<std::string>& argv) {
  const std::filesystem::path folder = args.Get("--out");
  const int modes =
      args.Has("--shard") + args.Has("--shards") + args.Has("--workers") + args.Has("--devices");
  auto parsed = SimulationJobFromArgs(args);
  if (!parsed.ok()) return parsed.error();
  SimulationJob sim = std::move(parsed.value());
  sim.mesh_loader = BuiltInMeshLoader();
  sim.software_version = LT_VERSION;

  // Which shards, run where.
  if (args.Has("--shard") && modes > 1) {
    return Usage(
        "conflicting shard arguments: --shard I/N runs one shard of a run split elsewhere; "
        "--shards, --workers and --devices split and run all of them here");
  }
  if (args.Has("--workers") && args.Has("--devices")) {
    return Usage("conflicting arguments: --devices already gives one worker per GPU");
  }
  uint32_t shard = 0, shards = 0;  // 0: one per worker (jobs::ExportOptions)
  if (args.Has("--shard")) {
    const auto one = jobs::ParseShardOfShards(args.Get("--shard"));
    if (!one)
      return FlagError("--shard", "--shard: '" + args.Get("--shard") +
                                      "' is not I/N with 0 <= I < N (e.g. --shard 3/8)");
    std::tie(shard, shards) = *one;
  }
  // Cores for the shards' encoding and hashing threads: given, or those the process may use;
  // workers on one host share them.
  uint32_t host_cores = 0;
  if (args.Has("--host-cores")) {
    auto c = args.GetUIntIn("--host-cores", 0, 1, 4096);
    if (!c.ok()) return c.error();
    host_cores = static_cast<uint32_t>(*c);
  }
  std::vector<std::string> devices;
  if (args.Has("--devices")) {
    auto d = jobs::ParseGpuList(args.Get("--devices"));
    if (!d.ok()) return d.error();
    devices = std::move(d.value());
  } else if (args.Has("--workers")) {
    auto w = args.GetUIntIn("--workers", 1, 1, 256);
    if (!w.ok()) return w.error();
    devices.assign(*w, "");
  }
  if (args.Has("--shards")) {
    auto n = args.GetUIntIn("--shards", 1, 1, 99999);
    if (!n.ok()) return n.error();
    shards = static_cast<uint32_t>(*n);
  }
  jobs::ExportOptions o;
  o.simulation = std::move(sim);
  o.folder = folder;
  o.shards = shards;
  if (args.Has("--shard")) o.only_shard = shard;
  o.prepare_only = args.Has("--prepare");
  o.bag = args.Has("--bag");
  o.host_cores = host_cores;
  o.devices = devices;
  o.executable = "/proc/self/exe";
  o.worker_args = jobs::WorkerArguments(argv, host_cores, static_cast<uint32_t>(devices.size()));
  return o;
}

}  // namespace

int ExportCommand(const std::vector<std::string>& argv) {
  Command command{"export",
                  "",
                  {{"--out", "--shard", "--shards", "--workers", "--devices", "--host-cores"},
                   {"--join", "--prepare", "--report-progress", "--bag"},
                   0},
                  {{"devices", "--devices"}}};
  for (const auto& name : SimulationOptionNames())
    command.args.valued.insert(name);
  return RunCommand(command, argv, [&argv](const Args& args) -> Expected<int> {
    if (!args.Has("--out")) return Usage("missing required option --out (the export folder)");
    if (Status s = RefuseStandardOutput(args, {{"--out", "a folder"}}); !s.ok()) return s.error();
    if (args.Has("--join")) {
      for (const auto& name : SimulationOptionNames())
        if (args.Has(name)) return Usage("--join takes only --out; " + name + " belongs to a run");
      for (const char* flag : {"--shard", "--shards", "--workers", "--devices", "--host-cores"})
        if (args.Has(flag))
          return Usage("--join takes only --out (it joins every shard of the folder)");
      auto joined = jobs::JoinExportFolder(args.Get("--out"));
      if (!joined.ok()) return joined.error();
      fmt::print("{}", *joined);
      if (args.Has("--bag")) {
        auto bag = jobs::WriteExportBag(args.Get("--out"));
        if (!bag.ok()) return Error{bag.message()};
        fmt::print("{}", *bag);
      }
      return 0;
    }
    auto o = ExportOptionsFromArgs(args, argv);
    if (!o.ok()) return o.error();
    if (args.Has("--report-progress"))
      o->worker_lines = [](const std::string& line) {
        std::fputs(line.c_str(), stdout);
        std::fflush(stdout);
      };
    o->log.info = [](const std::string& line) { fmt::print("{}", line); };
    o->log.note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
    // The folder's and the inputs' errors are not usage: exit 1 (docs/robustness.md); the
    // devices' on the CPU backend is (the command's flags name only them).
    if (Status s = jobs::RunExport(*o); !s.ok()) return s.error();
    return 0;
  });
}

}  // namespace lt::cli
