// A real and a simulated recording compared (`lidartwin compare`): their points associated,
// the fidelity metrics (compare/metrics.h) computed frame pair by frame pair and written as
// metrics.json, with every pair in a table when asked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/compare/compare_inputs.h"
#include "lidartwin/jobs/job_log.h"
#include "lidartwin/jobs/option_names.h"
#include "lidartwin/sim/scene.h"

namespace lt::jobs {

struct CompareRecordingsOptions {
  compare::CompareInputs inputs;         // the recordings, frames, regions and association
  std::vector<double> distance_edges_m;  // the per-distance table's edges; empty: the default
  // Beams each frame fired, for the drop accuracy; none: the simulated file's sensor profile's
  // when it holds one, else none (0: none).
  std::optional<uint64_t> beams_per_frame;
  std::filesystem::path out;  // metrics.json; with write_metrics, only its name in messages
  // Set: the metrics JSON is handed to it (standard output, say) instead of written to `out`.
  std::function<Status(const std::string& json)> write_metrics;
  std::filesystem::path pairs;  // every pair as CSV; empty: none
  std::string label;            // empty: the simulated file's stem
  MeshLoader mesh_loader;       // for a scene with meshes
  OptionNames names;            // how messages name the options
  JobLog log;                   // info: the summary; note: the readers' notes; warning
  // Progress: the fraction read and a line, after each frame pair; then the end.
  std::function<void(double fraction, const std::string& text)> on_progress;
  std::function<void()> on_finish;

  Status Validate() const;  // the distance edges (key distance_edges_m), out given
};

// Compares and writes; nothing is written when nothing is left to compare or an input changed
// while it was read.
Status CompareRecordings(const CompareRecordingsOptions& options);

}  // namespace lt::jobs
