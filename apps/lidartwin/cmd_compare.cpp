// lidartwin compare: associate a real and a simulated recording, compute the fidelity metrics
// (compare/metrics.h) and write metrics.json (jobs/compare_recordings.h).
#include <fmt/core.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "built_in.h"
#include "command.h"
#include "commands.h"
#include "compare_flags.h"
#include "help_text.h"
#include "lidartwin/base/terminal_progress.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/jobs/compare_recordings.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::cli {

int CompareCommand(const std::vector<std::string>& argv) {
  Command compare{"compare",
                  HelpText("compare") + HelpText("compare-inputs"),
                  {CompareInputFlags(), {}, 0},
                  kCompareInputKeys};
  compare.flags.insert(compare.flags.end(), {{"distance_edges_m", "--distance-bins"},
                                             {"beams_per_frame", "--beams-per-frame"}});
  compare.args.valued.insert(
      {"--out", "--distance-bins", "--label", "--beams-per-frame", "--pairs"});
  return RunCommand(compare, argv, [&compare](const Args& args) -> Expected<int> {
    if (!args.Has("--real") || !args.Has("--sim") || !args.Has("--out"))
      return Usage("--real, --sim and --out are required");
    if (Status s = RefuseStandardOutput(args, {{"--pairs", "a file (pairs.csv)"}}); !s.ok())
      return s.error();
    auto inputs = ParseCompareInputs(args);
    if (!inputs.ok()) return inputs.error();
    // --out -: the metrics JSON on stdout, and nothing else there (the summary goes to stderr).
    const bool to_stdout = IsStandardOutput(args, "--out");
    std::vector<std::pair<std::string, std::string>> outputs;
    if (!to_stdout) outputs.emplace_back("--out", args.Get("--out"));
    if (args.Has("--pairs")) outputs.emplace_back("--pairs", args.Get("--pairs"));
    jobs::CompareRecordingsOptions o;
    o.inputs = *inputs;
    o.distance_edges_m = compare::CompareOptions{}.distance_edges_m;
    uint64_t beams = 0;
    if (Status s = FirstError({CheckOutputsApart(args, outputs),
                               args.Into("--distance-bins", o.distance_edges_m),
                               args.Into("--beams-per-frame", beams), args.Into("--out", o.out),
                               args.Into("--pairs", o.pairs), args.Into("--label", o.label)});
        !s.ok())
      return s.error();
    if (args.Has("--beams-per-frame")) o.beams_per_frame = beams;
    if (Status s = o.Validate(); !s.ok()) return s.error();
    o.mesh_loader = BuiltInMeshLoader();
    for (const auto& [key, flag] : compare.flags)
      o.names.names[key] = flag;
    o.log = PrintingLog("compare");
    if (to_stdout) {
      o.out = "standard output";
      o.write_metrics = [](const std::string& json) -> Status {
        if (std::fwrite(json.data(), 1, json.size(), stdout) != json.size() ||
            std::fflush(stdout) != 0)
          return Error{std::string("standard output: ") + std::strerror(errno)};
        return {};
      };
      o.log.info = [](const std::string& line) { fmt::print(stderr, "{}", line); };
    }
    Progress progress("compare", 0);
    o.on_progress = [&progress](double fraction, const std::string& text) {
      progress.Status(fraction, text);
    };
    o.on_finish = [&progress] { progress.Finish(); };
    // The run's own errors exit 1 even where they name an option (the names above say which).
    if (Status s = jobs::CompareRecordings(o); !s.ok()) return Error{s.message()};
    return 0;
  });
}

}  // namespace lt::cli
