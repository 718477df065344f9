// lidartwin compare: associate a real and a simulated recording, compute the fidelity metrics
// (compare/metrics.h) and write metrics.json.
#include <fmt/core.h>

#include "args.h"
#include "built_in.h"
#include "commands.h"
#include "compare_flags.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/jobs/compare_recordings.h"
#include "lidartwin/sim/sensor_profile.h"
#include "option_flags.h"
#include "progress.h"

namespace lt::cli {
namespace {

constexpr const char* kUsage =
    "usage: lidartwin compare --real REC --sim REC --out metrics.json [options]\n"
    "  [--distance-bins 0,2.5,5,..]  edges of the per-distance table (strictly increasing, >= 0)\n"
    "  [--beams-per-frame N]  beams each frame fired (channels x columns), for the drop\n"
    "  accuracy (beams where both or neither returned); by default the simulated file's\n"
    "  sensor profile's when it is a lidartwin .h5 that holds one, else none; 0: none.\n"
    "  [--pairs pairs.csv]  every pair and every point without a partner, by frame and point\n"
    "  index in the files [--label NAME]\n";

}  // namespace

int CompareCommand(const std::vector<std::string>& argv) {
  ArgSpec spec{CompareInputFlags(), {"--help"}, 0};
  spec.valued.insert({"--out", "--distance-bins", "--label", "--beams-per-frame", "--pairs"});
  auto args = Args::Parse(argv, spec);
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin compare: {}\n{}{}", args.message(), kUsage, kCompareInputUsage);
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("{}{}", kUsage, kCompareInputUsage);
    return 0;
  }
  auto fail = [](const std::string& message, int code) {
    fmt::print(stderr, "lidartwin compare: {}\n", message);
    return code;
  };
  if (!args->Has("--real") || !args->Has("--sim") || !args->Has("--out"))
    return fail(std::string("--real, --sim and --out are required\n") + kUsage, 2);
  auto inputs = ParseCompareInputs(*args);
  if (!inputs.ok()) return fail(inputs.message() + "\n" + kUsage + kCompareInputUsage, 2);
  std::vector<std::pair<std::string, std::string>> outputs{{"--out", args->Get("--out")}};
  if (args->Has("--pairs")) outputs.emplace_back("--pairs", args->Get("--pairs"));
  if (Status s = CheckOutputsApart(*args, outputs); !s.ok()) return fail(s.message(), 2);
  auto bins = args->GetDoubleList("--distance-bins", compare::CompareOptions{}.distance_edges_m);
  auto beams = args->GetUIntIn("--beams-per-frame", 0, 0, kMaxBeamsPerFrame);
  for (const Status& s : {bins.status(), beams.status()})
    if (!s.ok()) return fail(s.message(), 2);
  jobs::CompareRecordingsOptions o;
  o.inputs = *inputs;
  o.distance_edges_m = *bins;
  if (args->Has("--beams-per-frame")) o.beams_per_frame = *beams;
  o.out = args->Get("--out");
  o.pairs = args->Get("--pairs");
  o.label = args->Get("--label");
  o.mesh_loader = BuiltInMeshLoader();
  const OptionFlags flags = {{"distance_edges_m", "--distance-bins"},
                             {"beams_per_frame", "--beams-per-frame"},
                             {"min_range_m", "--min-range-m"}};
  if (Status s = o.Validate(); !s.ok()) return fail(FlagMessage(s.error(), flags), 2);
  for (const auto& [key, flag] : flags)
    o.names.names[key] = flag;
  o.log.info = [](const std::string& text) { fmt::print("{}", text); };
  o.log.note = [](const std::string& line) { fmt::print(stderr, "lidartwin compare: {}\n", line); };
  o.log.warning = [](const std::string& message) {
    fmt::print(stderr, "lidartwin compare: warning: {}\n", message);
  };
  Progress progress("compare", 0);
  o.on_progress = [&progress](double fraction, const std::string& text) {
    progress.Status(fraction, text);
  };
  o.on_finish = [&progress] { progress.Finish(); };
  if (Status s = jobs::CompareRecordings(o); !s.ok()) return fail("error: " + s.message(), 1);
  return 0;
}

}  // namespace lt::cli
