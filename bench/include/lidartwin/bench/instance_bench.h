// bench --instances (issue 42): one model placed many times around an OS0-128, traced instanced
// (the model stored once, docs/adr/0030) and flattened (every placement's triangles stored):
// the memory each takes on the GPU and the frame time of each on both backends.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "lidartwin/base/status.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::bench {

// `instances` placements of a rounded-box car of about `model_triangles` triangles, parked in
// rows 6 m by 3 m apart around the origin on a ground plane (the sensor at the origin, at roof
// height), seeded headings; the instances share one model. Materials from `materials`: the
// ground asphalt, the cars aluminium (an error if the library lacks either).
Expected<Scene> MakeParkingLot(uint32_t instances, double model_triangles,
                               const MaterialLibrary& materials);
// The same geometry with every placement's triangles as its own world mesh.
Scene Flattened(const Scene& scene);

// One scene traced instanced and flattened.
struct InstancingFigures {
  std::string scene;
  uint64_t stored_triangles = 0, placed_triangles = 0;
  struct Side {
    double cpu_frame_ms = 0;   // Simulate, median of the repeats; 0: not measured
    double gpu_frame_ms = 0;   // the same on the GPU, results on the host
    double gpu_total_ms = 0;   // its CUDA-event time: the kernels and the copy back
    double gpu_kernel_ms = 0;  // the beam kernels alone
    double gpu_mib = 0;        // device memory taken by making the simulator (trees and buffers)
  } instanced, flattened;
  std::string why_no_cpu_flattened;
};

struct InstanceBenchReport {
  uint32_t instances = 0;
  uint64_t model_triangles = 0;
  std::string device, why_no_gpu;
  unsigned threads = 0;
  uint64_t rays_per_frame = 0;
  InstancingFigures lot;     // the parking lot
  InstancingFigures street;  // a street scene given (scene empty: none)
};

// The CPU backend's flattened frame is measured up to kCpuFlattenedMax placed triangles.
inline constexpr uint64_t kCpuFlattenedMax = 20000000;
// The parking lot of `instances` cars of about `model_triangles`, and `street` (may be null:
// named `street_name` in the table) as it is and flattened (each object its own mesh: the
// movers among them still moved by transforms, one model each); OS0-128 frames (the
// profile's detector), `repeats` of them after a warm-up, on `threads` CPU threads and the
// GPU unless `no_gpu_because` says why not.
Expected<InstanceBenchReport> RunInstanceBench(const SensorProfile& os0,
                                               const MaterialLibrary& materials, uint32_t instances,
                                               double model_triangles, const Scene* street,
                                               const std::string& street_name, int repeats,
                                               unsigned threads,
                                               const std::string& no_gpu_because = "");
std::string InstanceBenchTable(const InstanceBenchReport& r);
nlohmann::json InstanceBenchJson(const InstanceBenchReport& r);

}  // namespace lt::bench
