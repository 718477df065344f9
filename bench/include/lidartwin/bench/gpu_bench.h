// GPU figures of `lidartwin bench` (issue 3), with the Embree peer measured on the same rays
// in the same run. Without a GPU every GPU figure is absent and `why_no_gpu` says why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lt::bench {

struct RayFigures {
  uint64_t rays = 0;
  double gpu_rays_per_s = 0;
  double embree_rays_per_s = 0;  // the CPU backend's ray queries (Embree), all cores
  // Embree at its best on the same rays (embree_peer.h: high-quality build, 8-wide packets,
  // coherent context for coherent rays), all cores; the peer the GPU figure is set against.
  double embree_best_rays_per_s = 0;
  uint64_t gpu_hits = 0, embree_hits = 0, embree_best_hits = 0;
  uint64_t gpu_embree_best_same = 0;  // rays where the GPU and the peer hit the same triangle
  uint64_t gpu_trees_differ = 0;      // rays whose closest triangle on the binned-SAH tree differs
};

struct SceneFigures {
  uint64_t triangles = 0;
  double bvh_build_ms = 0;   // GPU LBVH, median, CUDA events
  double ploc_build_ms = 0;  // GPU PLOC, median, CUDA events
  double sah_build_ms = 0;   // GPU binned SAH, median, CUDA events
  // The same builder with its subtrees split a depth at a time (GpuBinnedSahOptions::
  // subtree_by_levels): the same tree, timed beside the default until one form is kept.
  double sah_depthwise_build_ms = 0;
  double refit_ms = 0;  // refit of the PLOC tree after the city moved 0.5 m
  // Tree quality (bvh_quality.h) of each GPU tree and of a binned-SAH tree built on the host
  // in the same layout (the reference): SAH cost, and node fetches and triangle tests per ray
  // of the coherent and random rays (every 16th), counted by the GPU's traversal on the host.
  struct TreeQuality {
    double sah = 0;
    double coherent_nodes = 0, coherent_triangles = 0;
    double random_nodes = 0, random_triangles = 0;
  };
  TreeQuality lbvh_tree, ploc_tree, sah_tree, binned_tree;  // sah: the GPU's binned SAH
  double binned_build_host_ms = 0;
  double lbvh_coherent_rays_per_s = 0;  // the same rays on the LBVH tree
  double lbvh_random_rays_per_s = 0;
  double sah_coherent_rays_per_s = 0;  // the same rays on the GPU's binned-SAH tree
  double sah_random_rays_per_s = 0;
  // The coherent rays again, each to the detector's range (the OS0's 50 m) as the simulator
  // traces its sub-rays, on the PLOC and the binned-SAH trees. Unbounded, the few rays along the
  // city's street axes run for kilometres through the boxes either side (500 node fetches against a
  // mean of 23 at 10 M triangles) and their warps are the kernel's tail (bench/RESULTS.md).
  double ploc_coherent_in_range_rays_per_s = 0;
  double sah_coherent_in_range_rays_per_s = 0;
  RayFigures coherent;         // OS0-128 beams x 8 jittered sub-rays from a street corner
  RayFigures random;           // random origins and directions inside the city
  double frame_ms_total = 0;   // OS0-128 frame, capability detector, results on the host
  double frame_ms_kernel = 0;  // the beam kernel alone
  double cpu_frame_ms = 0;     // the same frame on the CPU backend
  double frame8_ms_total = 0;  // the same with 8 averaged sub-rays per beam (3 mrad cone)
  double frame8_ms_kernel = 0;
  double cpu_frame8_ms = 0;
  // Threshold detector (tiers 2-5): OS0-128, 16 Gaussian sub-rays (0.18 deg FWHM), dual
  // returns, points on the host; and seed 004's blooming case: 16,384 beams, a 68 x 68
  // kernel table with 1e-4 tails importance-sampled by 64 sub-rays, retroreflective signs.
  double threshold_ms_total = 0;
  double threshold_ms_kernel = 0;
  double threshold_ms_signal = 0;  // of the kernel time: tracing the sub-rays
  double bloom_ms_signal = 0;
  double cpu_threshold_ms = 0;
  double bloom_ms_total = 0;
  double bloom_ms_kernel = 0;
  double cpu_bloom_ms = 0;
  // The same two with raster gathering (seed 004 Alg. 1): OS0 on a 1 mrad raster, the
  // blooming case on a 1.5 mrad raster (the kernel's cell size).
  double threshold_raster_ms_total = 0;
  double threshold_raster_ms_kernel = 0;
  double bloom_raster_ms_total = 0;
  double bloom_raster_ms_kernel = 0;
  // The waveform detector (issue 15): OS0-128 with 8 Gaussian sub-rays and the Cube 1's chain
  // at 2048 samples (configs/sensors/blickfeld_cube1.yaml).
  double waveform_ms_total = 0;
  double waveform_ms_kernel = 0;
  double waveform_ms_signal = 0;
  // Weather (issue 43): the threshold OS0-128 with 8 sub-rays, one return, in fog of 50 m
  // visibility, rain of 25 mm/h and snow of 1 mm/h (kBenchWeather in gpu_bench.cpp).
  double weather_ms_total = 0;
  double weather_ms_kernel = 0;
  double weather_ms_signal = 0;
  double cpu_weather_ms = 0;
};

// The waveform chain and its ranging (WaveformKernel, one warp a beam: power, photons, SiPM,
// FFT, circuit, noise, thresholds and echoes; no ray tracing) on `beams` records of `samples`,
// a 10 % plate at 30 m in sunlight.
struct WaveformChainFigure {
  // "full": the Cube 1's chain; "no thermal": without thermal noise; "noise-free": neither
  // thermal nor shot noise (photon means, no draws): where the chain's time goes.
  std::string noise = "full";
  uint32_t samples = 0;
  uint32_t beams = 0;
  double ms = 0;
  double beams_per_s = 0;
};

struct GpuBenchReport {
  std::string why_no_gpu;  // empty when the GPU figures were measured
  std::string device;
  // The demo's lab scene with configs/sensors/ouster_os0_128_threshold.yaml as shipped (16
  // Gaussian sub-rays, threshold detector, two echoes): total, kernel, sub-ray stage, and the
  // CPU backend on the same frame.
  double lab_threshold_ms_total = 0;
  double lab_threshold_ms_kernel = 0;
  double lab_threshold_ms_signal = 0;
  double lab_cpu_threshold_ms = 0;
  // The lab scene with the waveform OS0-128 of SceneFigures::waveform_*.
  double lab_waveform_ms_total = 0;
  double lab_waveform_ms_kernel = 0;
  double lab_waveform_ms_signal = 0;
  double lab_cpu_waveform_ms = 0;
  std::vector<WaveformChainFigure> waveform_chain;
  std::vector<SceneFigures> scenes;
};

// Builds city scenes of each triangle count and measures; repeats: timed repetitions.
GpuBenchReport RunGpuBench(const std::vector<uint64_t>& triangle_counts, int repeats,
                           unsigned cpu_threads, bool with_embree);

}  // namespace lt::bench
