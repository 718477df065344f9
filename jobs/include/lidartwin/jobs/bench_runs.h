// The benches that run lidartwin itself as child processes, as a user runs it (issues 11 and
// 16): peak memory of a short and a long simulate and convert, and the frames per second of an
// export end to end against the simulator alone, per process and with one process per GPU.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/jobs/job_log.h"
#include "lidartwin/sim/scene.h"

namespace lt::jobs {

// A bench's table as printed and its figures as JSON.
struct BenchTable {
  std::string text;
  nlohmann::json json;
};

struct MemoryBenchOptions {
  std::filesystem::path executable;  // the lidartwin program the children run
  std::filesystem::path root;        // the folder holding configs/ (the OS0-128, the lab)
  uint32_t frames_short = 10, frames_long = 1000;  // simulate's frames, in 1..1000000
  uint32_t repeats_short = 4, repeats_long = 40;   // the capture repeated, in 1..1000
  std::filesystem::path capture;      // a Velodyne pcap; absent: convert is not measured
  std::filesystem::path calibration;  // its calibration
  JobLog log;                         // note: each child's command line; warning: what was left out

  Status Validate() const;  // short below long, each in its range (named by key)
};

// Frames stream to their writer, so the long job's peak stays within 10 % of the short one's.
Expected<BenchTable> BenchMemory(const MemoryBenchOptions& options);

struct ExportBenchOptions {
  std::filesystem::path executable;  // the lidartwin program the children run
  std::string sensor, scene;
  std::string backend = "cpu";
  uint32_t frames = 1000;            // in 10..1000000
  std::vector<std::string> devices;  // GPUs: runs on the first 1, 2, ... of them
  std::filesystem::path work;        // scratch folder for the exports (removed after)
  MeshLoader mesh_loader;            // for the simulator-alone figure

  Status Validate() const;
};

Expected<BenchTable> BenchExport(const ExportBenchOptions& options);

// The benches in this process (issue 14): the CPU backend on the demo scene, then the GPU's
// builds and rays on procedural cities (or why there is no GPU figure); or the GPU bench's rays
// on a user's scene.
struct TraceBenchOptions {
  std::filesystem::path root;  // the folder holding configs/ (the OS0-128, the lab)
  uint32_t repeats = 9;        // in 1..1000
  unsigned threads = 0;        // CPU threads; 0: those the process may use
  bool embree_peer = true;     // Embree at its best on the same rays
  // The demo scene's GPU part: the cities' triangle counts (each >= 14); not measured when
  // the caller gives a reason, which the table and the JSON show.
  std::vector<uint64_t> gpu_triangles = {1000000, 10000000};
  std::string no_gpu_because;
  std::filesystem::path scene;  // a user's scene or mesh instead of the demo's
  std::vector<double> sensor_position_m = {0, 0, 0};  // in that scene's frame
  // Instead, the instancing bench (instance_bench.h): this many placements (1..10^5) of one
  // model of about model_triangles (10^2..10^7), instanced against flattened; 0: not run.
  uint32_t instances = 0;
  double model_triangles = 1e5;
  MeshLoader mesh_loader;

  Status Validate() const;  // each in its range (named by key)
};

Expected<BenchTable> BenchTrace(const TraceBenchOptions& options);

}  // namespace lt::jobs
