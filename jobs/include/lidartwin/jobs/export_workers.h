// Export with workers and devices: one child process per worker (per GPU), each running
// shards as `lidartwin export ARGS --shard i/N` (the same code path as a Slurm array task), and the
// progress of all of them on one line of stderr.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lidartwin/datasets/export_run.h"

namespace lt::jobs {

struct WorkerPlan {
  std::vector<std::string> shard_args;  // export's arguments, without the worker options
  uint32_t shards = 1;
  uint32_t frames = 1;
  // One entry per worker: the CUDA_VISIBLE_DEVICES it gets ("" leaves the environment alone).
  std::vector<std::string> devices;
  std::filesystem::path folder;  // the export folder, as the workers get it
  // The lidartwin executable the workers run (`export ARGS --shard i/N --report-progress`);
  // the CLI gives its own, /proc/self/exe.
  std::filesystem::path executable;
};

// "3/8" -> shard 3 of 8, as a worker is given its shard; nothing unless it is I/N, two whole
// numbers with 0 <= I < N.
std::optional<std::pair<uint32_t, uint32_t>> ParseShardOfShards(const std::string& text);

// A worker's arguments: the run's own (`argv`, the export command's) without the options that
// split the run (--workers, --devices, --shards, --host-cores, as "--name V" or "--name=V": the
// worker protocol's own options, as the export command names them), and its share of the host's
// cores (host_cores, 0: those the process may use) as --host-cores:
// two processes of 16 encoders on 32 cores, beside their simulator threads, would leave the
// simulators waiting.
std::vector<std::string> WorkerArguments(const std::vector<std::string>& argv, uint32_t host_cores,
                                         uint32_t workers);

// GPUs by number, "0,1,3" -> {"0", "1", "3"}: each a whole number of at most 3 digits, each
// once (an error begins with the key, devices).
Expected<std::vector<std::string>> ParseGpuList(const std::string& text);

// Runs every shard in the workers (a worker takes the next shard when it finishes one) and
// returns the shard failures, one line each ("shard 3: exit status 1"); empty when all passed.
// `hashed` gets the hashes the workers took of the shards they finished (HashedLine), for the
// join to use while the files are unchanged rather than read them again.
std::vector<std::string> RunShardWorkers(const WorkerPlan& plan,
                                         std::vector<FreshShardHash>* hashed = nullptr);

// The line a shard process run with --report-progress writes to stdout after each frame, and
// its parser: "lidartwin-progress SHARD DONE TOTAL RESUMED".
std::string ProgressLine(uint32_t shard, uint32_t done, uint32_t total, uint32_t resumed);
bool ParseProgressLine(const std::string& line, uint32_t& shard, uint32_t& done, uint32_t& total,
                       uint32_t& resumed);

// The line a shard process run with --report-progress writes to stdout once its shard is hashed:
// "lidartwin-hashed SHARD BYTES INODE DEVICE MTIME_NS PIECE_BYTES SHA256...", and its parser,
// which gives the hash of `folder`'s shard `shard` of `shards` (the one the worker was given),
// or nothing for any other line (a malformed one only costs the join a reading of the file).
std::string HashedLine(uint32_t shard, const FreshShardHash& hash);
std::optional<FreshShardHash> ParseHashedLine(const std::string& line,
                                              const std::filesystem::path& folder, uint32_t shard,
                                              uint32_t shards);

// The line a shard process run with --report-progress writes to stdout with its shard's summary
// (where the time went), "lidartwin-summary TEXT", and its parser (the text, or nothing for any
// other line): the parent prints the workers' summaries once its progress display is done.
std::string SummaryLine(const std::string& summary);
std::optional<std::string> ParseSummaryLine(const std::string& line);

}  // namespace lt::jobs
