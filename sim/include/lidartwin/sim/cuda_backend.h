// The CUDA backend behind a plain C++ header (no CUDA types): the simulator, and ray queries
// on a GPU-built BVH for tests and benchmarks. Built when LT_WITH_CUDA is on; every entry
// point reports a missing or unusable GPU as an Error.
#pragma once

#include "lidartwin/physics/bvh.h"
#include "lidartwin/physics/bvh_collapse.h"
#include "lidartwin/physics/return_signal.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/simulator.h"
#include "lidartwin/sim/trajectory.h"

namespace lt {

// OK when a CUDA device can be used; otherwise why not, for a person: "no GPU found: ..." (no
// NVIDIA driver, or no device it sees), a driver older than the runtime, or CUDA's own error.
Status CudaAvailable();
// Creates the CUDA context of device 0 (what the first CUDA call of a simulator would), its
// errors left to that call.
void CudaStartContext();
// Name and memory of device 0, for reports.
std::string CudaDeviceName();
// Bytes of the device's memory in use (by every process), 0 when it cannot be read.
uint64_t CudaMemoryInUse();

class CudaSimulator final : public Simulator {
 public:
  // Uploads the scene, builds its BVH on the GPU, uploads the sensor tables and trajectory.
  static Expected<std::unique_ptr<CudaSimulator>> Create(const Scene& scene,
                                                         const SensorProfile& profile,
                                                         const Trajectory& trajectory,
                                                         SimulationOptions options);
  ~CudaSimulator() override;
  // Same frames as the CPU backend, within the tolerances of tests/sim/cuda_backend_test.
  Expected<Frame> Simulate(uint32_t frame_index) override;
  void ExpectFollowing(std::optional<uint32_t> frame_index) override;
  // Frames launched ahead of the call that asks for them (docs/adr/0033), those the call found
  // launched, and those dropped because another frame was asked for.
  struct RunAheadCounts {
    uint64_t launched = 0, used = 0, dropped = 0;
  };
  RunAheadCounts run_ahead_counts() const;
  uint64_t RaysPerFrame() const override;
  Backend backend() const override { return Backend::kCuda; }
  // CUDA-event time of the last frame: the beam kernel alone, and kernel plus copy back.
  double last_kernel_ms() const;
  double last_total_ms() const;
  // Threshold detector: the part of the kernel time spent tracing (or raster gathering) the
  // sub-rays, before the echo detection.
  double last_signal_ms() const;
  // How the memory plan split the work (gpu_memory_plan.h): BVHs over the scene, and kernel
  // launches per frame when no object moves (a moving scene has one per slice at least).
  uint32_t bvh_count() const;
  uint32_t batches_per_frame() const;

 private:
  struct Impl;
  explicit CudaSimulator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Which of the simulator's GPU BVH builders: LBVH (Karras 2012, fastest build) or PLOC
// (Meister & Bittner 2018, greedy surface-area merging).
enum class GpuBvhBuilder { kLbvh, kPloc };

// Where an outside builder writes its binary tree of n triangles (device memory): the n - 1
// nodes (root at 0; a child is a node index or ~sorted position), `order` (sorted position ->
// input triangle), each node's leaf flag (lidartwin/physics/bvh_collapse.h:
// CombineCollapseCost over its children, as the collapse's own cost pass would decide it)
// and, where the flag is set, the node's triangle count (costs[].count), which the collapse
// into the four-wide tree takes as they are. It reads no costs[].cost (a builder computes
// them only to decide the flags); a node of more than kWideLeafMax triangles is never a leaf.
// Every node marked as a leaf must hold a run of consecutive sorted positions, its left child's
// before its right's (a top-down builder that partitions ranges gives this): the collapse
// points the wide tree's leaves at those runs of the triangles written in sorted order, and
// refuses a tree with a leaf that is not one.
struct ExternalGpuBvhOutput {
  physics::BvhNode* nodes;
  uint32_t* order;
  physics::CollapseCost* costs;
  uint8_t* leaf;
};

// A binary BVH builder from outside the simulator: bench/'s GPU binned SAH (Wald 2007), the
// quality reference the simulator's builders are measured against. Given n > 1 triangles in
// device memory (9 floats each) it writes `out` on `stream` (a cudaStream_t); the simulator
// then writes the triangles in sorted order and collapses the tree as it does its own
// builders'.
using ExternalGpuBvhBuild = std::function<Status(const float* triangles, uint32_t n,
                                                 const ExternalGpuBvhOutput& out, void* stream)>;

// A GPU BVH builder of the simulator's, or one from outside (when `external` is set).
struct GpuBvhChoice {
  GpuBvhChoice(GpuBvhBuilder b) : builder(b) {}  // NOLINT(google-explicit-constructor)
  GpuBvhChoice(ExternalGpuBvhBuild e)            // NOLINT(google-explicit-constructor)
      : external(std::move(e)) {}
  GpuBvhBuilder builder = GpuBvhBuilder::kLbvh;
  ExternalGpuBvhBuild external;
};

// Closest hits of rays against a triangle soup (9 floats per triangle), BVH built on the GPU.
// Ray i: origin (3 floats), unit direction (3 floats). Result: triangle index or -1.
struct GpuRayResult {
  std::vector<int32_t> triangle;
  std::vector<float> distance;
  double build_ms = 0;  // BVH build, CUDA events
  double trace_ms = 0;  // closest-hit kernel, CUDA events (median of `repeats`)
  double refit_ms = 0;  // when refit_to was given: the refit, CUDA events
};
Expected<GpuRayResult> CudaClosestHits(const std::vector<float>& triangles,
                                       const std::vector<float>& origins,
                                       const std::vector<float>& directions, float t_min,
                                       float t_max, int repeats = 1,
                                       const GpuBvhChoice& builder = GpuBvhBuilder::kLbvh,
                                       const std::vector<float>* refit_to = nullptr);
// refit_to: the same triangles moved; the tree is built on `triangles`, refitted to these
// positions, and traced there (a moving-object update without a rebuild).

// Any-hit (occlusion) of the same rays within [t_min, t_max]: 1 if any triangle is hit.
Expected<std::vector<uint8_t>> CudaAnyHits(const std::vector<float>& triangles,
                                           const std::vector<float>& origins,
                                           const std::vector<float>& directions, float t_min,
                                           float t_max,
                                           const GpuBvhChoice& builder = GpuBvhBuilder::kLbvh);

// Refit time (median of `repeats` after one warm-up, CUDA events) of a tree built on
// `triangles` to the moved positions `moved` (same count and order).
Expected<double> CudaBvhRefitMs(const std::vector<float>& triangles,
                                const std::vector<float>& moved, int repeats,
                                const GpuBvhChoice& builder = GpuBvhBuilder::kPloc);

// The trees a GPU builder makes for a triangle soup, copied to the host (issue 14: the binary
// tree's SAH cost against a binned-SAH reference, the wide tree's traversal costs): the binary
// tree's count - 1 internal nodes, root at 0, leaves ~sorted index, with `order` mapping a
// sorted position to the input triangle; and the wide tree the rays traverse.
struct GpuBvhTree {
  std::vector<physics::BvhNode> nodes;
  std::vector<uint32_t> order;
  physics::WideBvhTree wide;
};
Expected<GpuBvhTree> CudaBvhTree(const std::vector<float>& triangles,
                                 const GpuBvhChoice& builder = GpuBvhBuilder::kPloc);

// BVH build time (median of `repeats` after one warm-up, CUDA events) for a triangle soup.
Expected<double> CudaBvhBuildMs(const std::vector<float>& triangles, int repeats,
                                const GpuBvhChoice& builder = GpuBvhBuilder::kLbvh);

// The waveform detector's chain (seed 002 sec. 5) for tests and benchmarks, as the simulator
// runs it: `beams` records of the profile's detector, every beam with the same contributions
// and sunlight [W], keyed (seed, frame 0, beam b). volts: the records beam after beam
// (samples per beam x beams), empty unless keep_volts; ms: the kernel's time (median of
// `repeats` after one warm-up, CUDA events). transforms: the circuit by its transforms (two beams
// a warp, waveform_warp.cuh) even where the simulator would run its sections (one beam a warp,
// waveform_beam.cuh), to test and time both. photon_pass_beams: the beams whose SiPM and
// section passes visited the bins with photons alone (0 on the transforms' path);
// warp_walk_beams: those of them with a block crowded with photons walked by the whole warp,
// long_walk_beams: with such a block of more than 32 bins with photons.
struct GpuWaveforms {
  std::vector<float> volts;
  double ms = 0;
  uint32_t photon_pass_beams = 0;
  uint32_t warp_walk_beams = 0;
  uint32_t long_walk_beams = 0;
};
Expected<GpuWaveforms> CudaWaveforms(const SensorProfile& profile,
                                     const std::vector<physics::SignalContribution>& contributions,
                                     double sun_w, uint32_t beams, uint64_t seed, int repeats,
                                     bool keep_volts, bool transforms = false);

// Photon counts (seed 002 eq. 7) drawn on the GPU: sample i of beam 0 with mean means[i]
// (i < 65536), keyed (seed, frame 0, beam 0, i) as the chain draws them.
Expected<std::vector<uint32_t>> CudaPhotonCounts(const std::vector<double>& means, uint64_t seed);

// The GPU's ranging (cuda::WarpRanging, as the simulator's one-beam-a-warp kernel runs it) of
// given voltage records [V] of the profile's waveform detector, `records` of its samples each
// back to back: each record's echoes in [min_range_m, max_range_m], in range order. With
// `block_highest` the lanes pass their blocks' highest samples (the hot blocks' mask words by
// ballots), else infinity (every lane its own words).
Expected<std::vector<std::vector<physics::Echo>>> CudaRangeRecords(
    const SensorProfile& profile, const std::vector<float>& volts, uint32_t records,
    double min_range_m, double max_range_m, bool block_highest);

// Thermal noise's Box-Muller pairs (physics::ThermalNormalPair) on the GPU: normals 2k and
// 2k + 1 from words[2k] and words[2k + 1] (an even count, at most 2^26 words).
Expected<std::vector<float>> CudaThermalNormals(const std::vector<uint32_t>& words);

}  // namespace lt
