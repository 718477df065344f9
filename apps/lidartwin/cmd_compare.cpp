// lidartwin compare: associate a real and a simulated recording, compute the fidelity metrics
// (compare/metrics.h) and write metrics.json.
#include <fmt/core.h>

#include <chrono>
#include <optional>

#include "args.h"
#include "built_in.h"
#include "commands.h"
#include "compare_flags.h"
#include "lidartwin/compare/comparison_loader.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/compare/pairs_table.h"
#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/datasets/recording.h"
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
  compare::CompareOptions defaults;
  auto bins = args->GetDoubleList("--distance-bins", defaults.distance_edges_m);
  auto beams = args->GetUIntIn("--beams-per-frame", 0, 0, kMaxBeamsPerFrame);
  for (const Status& s : {bins.status(), beams.status()})
    if (!s.ok()) return fail(s.message(), 2);
  defaults.distance_edges_m = *bins;
  ConfigCheck check;
  defaults.Check(check);
  if (!check.ok()) return fail("option --distance-bins: " + check.problem()->problem, 2);

  const auto start = std::chrono::steady_clock::now();
  // Stamped before reading, checked before writing: a file rewritten meanwhile (a new
  // simulation) must not be recorded as the one compared.
  compare::CompareInputs stamped = *inputs;
  compare::StampInputs(stamped);
  auto stream = compare::ComparisonStream::Open(*inputs, BuiltInMeshLoader());
  if (!stream.ok()) return fail("error: " + stream.message(), 1);
  compare::CompareOptions& options = stream->options;
  options.distance_edges_m = *bins;
  options.beams_per_frame = *beams;
  if (const uint64_t profile_beams = stream->sim_profile_beams_per_frame; profile_beams > 0) {
    if (!args->Has("--beams-per-frame")) {
      options.beams_per_frame = profile_beams;
    } else if (options.beams_per_frame != profile_beams) {
      fmt::print(stderr,
                 "lidartwin compare: warning: --beams-per-frame {} differs from the {} beams "
                 "per frame of {}'s sensor profile; the drop accuracy counts the former\n",
                 options.beams_per_frame, profile_beams, inputs->sim_file);
    }
  }
  std::optional<compare::PairsTableWriter> pairs;
  if (args->Has("--pairs")) {
    auto writer = compare::PairsTableWriter::Open(args->Get("--pairs"));
    if (!writer.ok()) return fail("error: " + writer.message(), 1);
    pairs.emplace(std::move(*writer));
  }

  Progress progress("compare", 0);
  auto metrics = stream->Run(
      [&](size_t done, size_t) {
        progress.Status(stream->Fraction(), fmt::format("{} frame pairs", done));
      },
      [&](size_t k, const compare::FramePairing& p) {
        return pairs ? pairs->Add(k, *inputs, p) : Status{};
      });
  progress.Finish();
  for (const Recording* r : {&stream->real_header(), &stream->sim_header()}) {
    for (const std::string& note : r->notes)  // skipped or dropped packets, warnings
      fmt::print(stderr, "lidartwin compare: {}\n", note);
  }
  if (!metrics.ok()) return fail("error: " + metrics.message(), 1);
  if (metrics->real_points == 0 && metrics->sim_points == 0) {  // agreement of nothing
    return fail(fmt::format("error: nothing to compare: no real or simulated point is left "
                            "(beyond --min-range-m {} m, in the frames chosen); nothing written",
                            options.min_range_m),
                1);
  }
  const std::string real_file = inputs->real_file, sim_file = inputs->sim_file;
  metrics->real_file = real_file;
  metrics->sim_file = sim_file;
  if (Status s = compare::CheckInputsUnchanged(stamped); !s.ok())
    return fail("error: " + s.message() + " (it changed while being compared); nothing written", 1);
  metrics->inputs = stamped;
  metrics->label = args->Get("--label", std::filesystem::path(sim_file).stem().string());
  const std::string out = args->Get("--out");
  // The table first: if it cannot be committed, metrics.json stays as it was.
  if (pairs) {
    if (Status s = pairs->Commit(); !s.ok()) return fail("error: " + s.message(), 1);
  }
  if (Status s = WriteTextFileAtomically(out, compare::MetricsToJson(*metrics)); !s.ok())
    return fail("error: " + s.message(), 1);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // A warning, not an error: the rest of the cloud is still worth comparing, but the user
  // must learn that points were left out.
  for (const auto& [count, file] : {std::pair{metrics->real_non_finite, real_file},
                                    std::pair{metrics->sim_non_finite, sim_file}})
    if (count > 0)
      fmt::print(stderr,
                 "lidartwin compare: warning: {}: {} point(s) with a non-finite x, y, z, range or "
                 "intensity left out (counted in {} as non_finite_points)\n",
                 file, count, out);
  for (const auto& [count, file] :
       {std::pair{metrics->real_no_return, real_file}, std::pair{metrics->sim_no_return, sim_file}})
    if (count > 0)
      fmt::print(stderr,
                 "lidartwin compare: {}: {} point(s) at (0, 0, 0), how organised clouds store "
                 "\"no return\", left out (counted in {} as no_return_points)\n",
                 file, count, out);
  const auto summary = compare::Summarize({*metrics});
  fmt::print("compared {} frame(s): {} real and {} simulated points, {} pairs by {}\n",
             metrics->frames, metrics->real_points, metrics->sim_points, metrics->returns.both,
             metrics->association);
  for (const auto& info : compare::SummaryMetrics()) {
    auto it = summary.find(info.name);
    if (it != summary.end())
      fmt::print("  {:<24} {:>12.6g}  {}\n", info.name, it->second, info.description);
  }
  for (const std::string& note : compare::TargetNotes(*metrics))
    fmt::print("  {}\n", note);
  if (const auto& w = metrics->waveforms; w.records > 0) {
    fmt::print(
        "time domain (seed 002 eq. 11-12): {} voltage records in both, target peak amplitude "
        "MAPE {:.2f} %, dv rms {:.3g} mV, max |dv| {:.3g} mV\n",
        w.records, 100 * w.amplitude_mape, 1e3 * w.dv_rms_v, 1e3 * w.dv_max_abs_v);
  }
  fmt::print("wrote {} in {:.2f} s (reading, comparing and writing)\n", out, seconds);
  return 0;
}

}  // namespace lt::cli
