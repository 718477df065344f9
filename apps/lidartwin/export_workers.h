// `lidartwin export --workers N` / `--devices 0,1`: one child process per worker (per GPU), each
// running shards with `--shard i/N` (the same code path as a Slurm array task), and the
// progress of all of them on one line of stderr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lt::cli {

struct WorkerPlan {
  std::vector<std::string> shard_args;  // export's arguments, without the worker options
  uint32_t shards = 1;
  uint32_t frames = 1;
  // One entry per worker: the CUDA_VISIBLE_DEVICES it gets ("" leaves the environment alone).
  std::vector<std::string> devices;
};

// Runs every shard in the workers (a worker takes the next shard when it finishes one) and
// returns the shard failures, one line each ("shard 3: exit status 1"); empty when all passed.
std::vector<std::string> RunShardWorkers(const WorkerPlan& plan);

// The line a shard process run with --report-progress writes to stdout after each frame, and
// its parser: "lidartwin-progress SHARD DONE TOTAL RESUMED".
std::string ProgressLine(uint32_t shard, uint32_t done, uint32_t total, uint32_t resumed);
bool ParseProgressLine(const std::string& line, uint32_t& shard, uint32_t& done, uint32_t& total,
                       uint32_t& resumed);

}  // namespace lt::cli
