// `lidartwin export`: a labelled dataset in a folder, written in shards that separate processes
// (several GPUs, Slurm array tasks) can write at once, each resumable after a kill, joined at
// the end into one file (docs/datasets.md).
//
// The folder:
//   export.json                  the run's identity (export_identity.h); the first shard to
//                                start writes it, every later one must match it
//   shard-00003-of-00008.h5      the frames of shard 3 (schema v2), once it is complete
//   shard-00003-of-00008.json    its record: frames, points, bytes, SHA-256
//   shard-00003-of-00008.journal while shard 3 runs: its finished frames (frame_journal.h)
//   dataset.h5                   after the join: every frame, as virtual datasets over the shards
//   manifest.json                after the join: the identity, each shard and dataset.h5 with
//                                its size and SHA-256
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/sha256.h"
#include "lidartwin/datasets/simulation_run.h"

namespace lt {

// Frames [begin, end) of shard i of n: consecutive blocks, the first (frames mod n) one frame
// longer. Every frame belongs to exactly one shard, and frame k is the same frame whichever
// shard simulates it (the simulator's frames depend on the seed and k alone).
struct FrameRange {
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t size() const { return end - begin; }
};
FrameRange ShardFrames(uint32_t frames, uint32_t shard, uint32_t shards);

// "shard-00003-of-00008" (the files' stem).
std::string ShardStem(uint32_t shard, uint32_t shards);

struct ExportProgress {
  uint32_t shard = 0;
  uint32_t done = 0;     // frames of the shard finished, resumed ones included
  uint32_t total = 0;    // frames of the shard
  uint32_t resumed = 0;  // frames found finished by an earlier, killed run
};

// The cores each of `workers` processes sharing `cores` gets (at least 1): one export process a
// GPU on one host sizes its pools by its share rather than by the whole host.
inline uint32_t CoresPerWorker(uint32_t cores, uint32_t workers) {
  const uint32_t share = workers > 0 ? cores / workers : cores;
  return share > 0 ? share : 1;
}

// Encoding threads of an export process with `cores` cores: all but two (the simulation and the
// writing, whose two threads each wait on the disk much of the time; 16 encoders on the H100
// machine's 16 cores slowed its two simulator threads by a half), at least 2, at most 16.
inline uint32_t ExportEncoderThreads(uint32_t cores) {
  const uint32_t rest = cores > 4 ? cores - 2 : 2;
  return rest > 16 ? 16 : rest;
}

struct ExportJob {
  // sensor, scene, trajectory, frames, seed, backend, threads, motion_slices, waveform_beams,
  // mesh_loader and software_version as for simulate; `out` is not used.
  SimulationJob simulation;
  std::filesystem::path folder;
  uint32_t shard = 0;
  uint32_t shards = 1;
  // Cores the shard's encoding and hashing threads may use (ExportEncoderThreads); 0: those the
  // process may run on (UsableCores). One process a GPU gets its share of the host.
  uint32_t host_cores = 0;
  // After each frame written (and once at the start with the resumed count).
  std::function<void(const ExportProgress&)> on_frame;

  // Shards in 1..frames and shard < shards (the job's keys by name).
  Status Validate() const;
};

// A shard file this process has just hashed, and what stat(2) said of it just before: a join in
// the same process takes the hash instead of reading the file again while its size, inode and
// modification time are what they were (any write since changes the time).
struct FreshShardHash {
  std::filesystem::path file;
  FilePieceHashes hashes;  // no digests: not hashed
  uint64_t bytes = 0, inode = 0, device = 0;
  int64_t mtime_ns = 0;
};

// `file`'s size, inode, device and modification time (not hashed).
Expected<FreshShardHash> StampFile(const std::filesystem::path& file);

struct ShardResult {
  FrameRange frames;
  uint32_t resumed = 0;           // frames taken over from a killed run's journal
  bool already_complete = false;  // an earlier run had finished the shard
  uint64_t points = 0;
  std::filesystem::path file;          // the shard's HDF5 file
  double seconds = 0;                  // simulating, summed over the simulators
  uint32_t simulators = 1;             // simulators on their own threads (two on a GPU)
  uint32_t encoders = 0;               // encoding threads
  double encode_seconds = 0;           // compressing and journal records, summed over threads
  double journal_seconds = 0;          // the journal's writer thread's appends
  double write_seconds = 0;            // the file's writer thread's HDF5 writes (overlapping)
  double finish_seconds = 0;           // closing the file, its SHA-256 and record
  double close_seconds = 0;            // of which closing the HDF5 file (its last chunks and index)
  double hash_seconds = 0;             // and hashing it
  double load_seconds = 0;             // loading the scene and building the simulator
  double first_simulator_seconds = 0;  // of which the backend's start, the scene and a simulator
  double second_simulator_seconds = 0;  // a second simulator (two on a GPU), made on its own
                                        // thread while the first simulates, not in load_seconds
  double loop_seconds = 0;              // from the first frame to the last frame written
  FreshShardHash hash;                  // empty when an earlier run had finished the shard
  uint64_t rays = 0;
};

// Validates the job, creates the folder if needed and writes or checks its export.json:
// everything that can refuse a run before any frame is simulated. RunExportShard calls it; a
// launcher of several shards calls it once first. Returns the run's identity.
Expected<std::string> PrepareExportFolder(const ExportJob& job);

// Runs one shard: continues its journal if a killed run left one (same identity), or does
// nothing if the shard is complete. Refuses a folder that holds another run (named difference).
Expected<ShardResult> RunExportShard(const ExportJob& job);

struct JoinResult {
  double seconds = 0;  // checking the shards, writing and reading back dataset.h5, the manifest
  uint32_t frames = 0;
  uint64_t points = 0;
  uint32_t shards = 0;
  // Shards read and hashed by the join; the others' hashes were taken by the runs that wrote
  // them, in this process or its workers, the files unchanged since (FreshShardHash).
  uint32_t hashed_here = 0;
  std::filesystem::path dataset;  // folder/dataset.h5
  std::filesystem::path manifest;
};

// Checks that every shard of the folder's run is complete and intact (SHA-256 against its
// record, frames exactly its range), writes dataset.h5 and manifest.json, and reads dataset.h5
// back to confirm it holds every frame with its points. Errors list every shard that is missing,
// unfinished or damaged.
// Shards of `fresh` are not hashed again while unchanged (FreshShardHash); the others are
// hashed on `cores` threads (0: the cores the process may use).
Expected<JoinResult> JoinExport(const std::filesystem::path& folder,
                                const std::vector<FreshShardHash>& fresh = {}, uint32_t cores = 0);

}  // namespace lt
