// A labelled dataset exported (`lidartwin export`): the folder claimed for the run, its shards
// run in this process or in worker processes (one per GPU), and the join that ends it; the
// dataset export's steps (export_run.h) with their progress and their summary lines.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
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

struct ExportOptions {
  SimulationJob simulation;  // `out` unused; threads 0: host_cores where given
  std::filesystem::path folder;
  uint32_t shards = 0;                 // 0: one per worker (`devices`), or one without workers
  std::optional<uint32_t> only_shard;  // run this shard of `shards` only, without the join
  bool prepare_only = false;           // claim the folder for the run, simulate nothing
  uint32_t host_cores = 0;             // 0: the cores the process may use
  // Workers: one process per entry, with CUDA_VISIBLE_DEVICES set to it ("" leaves it alone;
  // a GPU named needs the cuda backend); none: the shards run here, one after another.
  std::vector<std::string> devices;
  std::filesystem::path executable;      // the lidartwin program the workers run
  std::vector<std::string> worker_args;  // `lidartwin export` arguments a worker runs with
  // With only_shard: a worker's lines for its parent instead of the progress and summary.
  std::function<void(const std::string&)> worker_lines;
  // After the join, the dataset also as a ROS 2 bag, dataset.mcap (ros_bag.h: PointCloud2 with
  // every label, /tf and /tf_static), for a perception stack to replay; not in the manifest.
  bool bag = false;
  JobLog log;  // info: ready, joined; note: each shard's summary
};

// The joined dataset.h5 of `folder` streamed, a frame at a time, into dataset.mcap beside it
// (ExportOptions::bag); returns the line to print.
Expected<std::string> WriteExportBag(const std::filesystem::path& folder);

// Every argument and the folder are checked before any process starts or any file is written
// (a folder of another run is refused with the difference named).
Status RunExport(const ExportOptions& options);

}  // namespace lt::jobs
