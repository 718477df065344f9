// A real and a simulated recording compared; see compare_recordings.h.
#include "lidartwin/jobs/compare_recordings.h"

#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <utility>

#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/config_check.h"
#include "lidartwin/compare/comparison_loader.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/compare/pairs_table.h"
#include "lidartwin/datasets/recording.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::jobs {
namespace {

// Where the metrics went, for messages: "metrics.json", or "the metrics (standard output)".
std::string MetricsName(const CompareRecordingsOptions& o) {
  return o.write_metrics ? "the metrics (" + o.out.string() + ")" : o.out.string();
}

// What a person reads after the run: the pairs, the headline metrics, the targets' notes and
// the time domain.
std::string Summary(const compare::ComparisonMetrics& m, const std::string& out, double seconds) {
  std::string text =
      fmt::format("compared {} frame(s): {} real and {} simulated points, {} pairs by {}\n",
                  m.frames, m.real_points, m.sim_points, m.returns.both, m.association);
  const auto summary = compare::Summarize({m});
  for (const auto& info : compare::SummaryMetrics()) {
    auto it = summary.find(info.name);
    if (it != summary.end())
      text += fmt::format("  {:<24} {:>12.6g}  {}\n", info.name, it->second, info.description);
  }
  for (const std::string& note : compare::TargetNotes(m))
    text += fmt::format("  {}\n", note);
  if (const auto& w = m.waveforms; w.records > 0) {
    text += fmt::format(
        "time domain (seed 002 eq. 11-12): {} voltage records in both, target peak amplitude "
        "MAPE {:.2f} %, dv rms {:.3g} mV, max |dv| {:.3g} mV\n",
        w.records, 100 * w.amplitude_mape, 1e3 * w.dv_rms_v, 1e3 * w.dv_max_abs_v);
  }
  return text +
         fmt::format("wrote {} in {:.2f} s (reading, comparing and writing)\n", out, seconds);
}

// Points left out of either side: non-finite ones (a warning: the user must learn of them)
// and organised clouds' "no return" at the origin.
void SayLeftOut(const compare::ComparisonMetrics& m, const CompareRecordingsOptions& o) {
  const std::string& real = o.inputs.real_file;
  const std::string& sim = o.inputs.sim_file;
  for (const auto& [count, file] :
       {std::pair{m.real_non_finite, real}, std::pair{m.sim_non_finite, sim}})
    if (count > 0)
      o.log.Warn(fmt::format(
          "{}: {} point(s) with a non-finite x, y, z, range or intensity left out (counted in "
          "{} as non_finite_points)",
          file, count, MetricsName(o)));
  for (const auto& [count, file] :
       {std::pair{m.real_no_return, real}, std::pair{m.sim_no_return, sim}})
    if (count > 0)
      o.log.Note(fmt::format(
          "{}: {} point(s) at (0, 0, 0), how organised clouds store \"no return\", left out "
          "(counted in {} as no_return_points)",
          file, count, MetricsName(o)));
}

}  // namespace

Status CompareRecordingsOptions::Validate() const {
  compare::CompareOptions check_edges;
  if (!distance_edges_m.empty()) check_edges.distance_edges_m = distance_edges_m;
  ConfigCheck check;
  check_edges.Check(check);
  if (!check.ok())
    return OptionError("distance_edges_m", "distance_edges_m: " + check.problem()->problem);
  if (out.empty()) return OptionError("out", "out: no metrics file given");
  // An output that is an input would overwrite what is being compared; two outputs one file
  // would lose one.
  const auto same = [](const std::string& a, const std::string& b) {
    if (a.empty() || b.empty()) return false;
    std::error_code ec1, ec2;
    const auto ca = std::filesystem::weakly_canonical(a, ec1);
    const auto cb = std::filesystem::weakly_canonical(b, ec2);
    return !ec1 && !ec2 && ca == cb;
  };
  const compare::CompareInputs& in = inputs;
  const std::pair<const char*, std::string> read[] = {
      {"real_file", in.real_file},       {"sim_file", in.sim_file},
      {"real_sidecar", in.real_sidecar}, {"real_firetimes", in.real_firetimes},
      {"rois_file", in.rois_file},       {"scene_file", in.scene_file}};
  for (const auto& [key, written] : {std::pair{"out", out.string()}, {"pairs", pairs.string()}}) {
    for (const auto& [input, path] : read) {
      if (same(written, path))
        return OptionError(key, std::string(key) + " " + written + " is the " + input +
                                    "; it would be overwritten");
    }
  }
  if (!pairs.empty() && same(out.string(), pairs.string()))
    return OptionError("pairs", "pairs " + pairs.string() + " is the metrics file (out) too");
  if (beams_per_frame && *beams_per_frame > kMaxBeamsPerFrame)
    return OptionError("beams_per_frame", "beams_per_frame: must be in 0.." +
                                              std::to_string(kMaxBeamsPerFrame) + ", got " +
                                              std::to_string(*beams_per_frame));
  return {};
}

Status CompareRecordings(const CompareRecordingsOptions& o) {
  if (Status s = o.Validate(); !s.ok()) return s;
  const auto start = std::chrono::steady_clock::now();
  // Stamped before reading, checked before writing: a file rewritten meanwhile (a new
  // simulation) must not be recorded as the one compared.
  compare::CompareInputs stamped = o.inputs;
  compare::StampInputs(stamped);
  auto stream = compare::ComparisonStream::Open(o.inputs, o.mesh_loader);
  if (!stream.ok()) return stream.error();
  compare::CompareOptions& options = stream->options;
  if (!o.distance_edges_m.empty()) options.distance_edges_m = o.distance_edges_m;
  options.beams_per_frame = o.beams_per_frame.value_or(0);
  if (const uint64_t profile_beams = stream->sim_profile_beams_per_frame; profile_beams > 0) {
    if (!o.beams_per_frame) {
      options.beams_per_frame = profile_beams;
    } else if (options.beams_per_frame != profile_beams) {
      o.log.Warn(fmt::format(
          "{} {} differs from the {} beams per frame of {}'s sensor profile; the drop accuracy "
          "counts the former",
          o.names("beams_per_frame"), options.beams_per_frame, profile_beams, o.inputs.sim_file));
    }
  }
  std::optional<compare::PairsTableWriter> pairs;
  if (!o.pairs.empty()) {
    auto writer = compare::PairsTableWriter::Open(o.pairs);
    if (!writer.ok()) return writer.error();
    pairs.emplace(std::move(*writer));
  }
  auto metrics = stream->Run(
      [&](size_t done, size_t) {
        if (o.on_progress) o.on_progress(stream->Fraction(), fmt::format("{} frame pairs", done));
      },
      [&](size_t k, const compare::FramePairing& p) {
        return pairs ? pairs->Add(k, o.inputs, p) : Status{};
      });
  if (o.on_finish) o.on_finish();
  for (const Recording* r : {&stream->real_header(), &stream->sim_header()})
    for (const std::string& note : r->notes)  // skipped or dropped packets, warnings
      o.log.Note(note);
  if (!metrics.ok()) return metrics.error();
  if (metrics->real_points == 0 && metrics->sim_points == 0)  // agreement of nothing
    return Error{fmt::format(
        "nothing to compare: no real or simulated point is left (beyond {} {} m, in the frames "
        "chosen); nothing written",
        o.names("min_range_m"), options.min_range_m)};
  metrics->real_file = o.inputs.real_file;
  metrics->sim_file = o.inputs.sim_file;
  metrics->real_intensity_unit = stream->real_header().intensity_unit;
  metrics->sim_intensity_unit = stream->sim_header().intensity_unit;
  if (metrics->real_intensity_unit != metrics->sim_intensity_unit &&
      !(IsReflectivityPercent(metrics->real_intensity_unit) &&
        IsReflectivityPercent(metrics->sim_intensity_unit)))
    o.log.Warn(
        fmt::format("intensity: {} is in {}, {} in {}: the intensity errors subtract "
                    "two different units",
                    o.inputs.real_file, metrics->real_intensity_unit, o.inputs.sim_file,
                    metrics->sim_intensity_unit));
  if (Status s = compare::CheckInputsUnchanged(stamped); !s.ok())
    return Error{s.message() + " (it changed while being compared); nothing written"};
  metrics->inputs = stamped;
  metrics->label =
      o.label.empty() ? std::filesystem::path(o.inputs.sim_file).stem().string() : o.label;
  // The table first: if it cannot be committed, metrics.json stays as it was.
  if (pairs) {
    if (Status s = pairs->Commit(); !s.ok()) return s;
  }
  const std::string json = compare::MetricsToJson(*metrics);
  if (Status s = o.write_metrics ? o.write_metrics(json) : WriteTextFileAtomically(o.out, json);
      !s.ok())
    return s;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SayLeftOut(*metrics, o);
  o.log.Info(Summary(*metrics, MetricsName(o), seconds));
  return {};
}

}  // namespace lt::jobs
