// Export shards run in this process (`lidartwin export` without workers, and each worker's
// `--shard I/N`), and the join that ends a run: the dataset export's steps (export_run.h) with
// their progress and their summary lines.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/export_run.h"
#include "lidartwin/jobs/job_log.h"

namespace lt::jobs {

struct ShardsHereOptions {
  SimulationJob simulation;  // `out` unused
  std::filesystem::path folder;
  uint32_t first = 0, last = 0;  // shards first..last of `shards`, one after another
  uint32_t shards = 1;
  uint32_t host_cores = 0;  // 0: the cores the process may use
  // A worker's lines for its parent (ProgressLine after each frame, HashedLine when its shard is
  // hashed), instead of the progress display and the summary; empty: not a worker.
  std::function<void(const std::string&)> worker_lines;
  JobLog log;  // note: one summary line per shard (what was done, in how long)
};

// Runs the shards; `hashed` gets the hashes they took (for a join in this process).
Status RunShardsHere(const ShardsHereOptions& options,
                     std::vector<FreshShardHash>* hashed = nullptr);

// Joins the folder (JoinExport) and returns the line that says what was joined.
Expected<std::string> JoinExportFolder(const std::filesystem::path& folder,
                                       const std::vector<FreshShardHash>& fresh = {},
                                       uint32_t host_cores = 0);

}  // namespace lt::jobs
