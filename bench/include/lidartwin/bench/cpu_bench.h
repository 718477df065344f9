// CPU backend throughput on a scene and sensor: median of repeated frames after warm-up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::bench {

struct CpuBenchResult {
  unsigned threads = 0;
  uint32_t repeats = 0;
  uint64_t rays_per_frame = 0;
  uint64_t points_per_frame = 0;
  double frame_ms_median = 0;
  double frame_ms_min = 0;
  double rays_per_s = 0;    // rays_per_frame / median frame time
  double points_per_s = 0;  // points_per_frame / median frame time
};

CpuBenchResult RunCpuBench(const Scene& scene, const SensorProfile& profile, unsigned threads,
                           uint32_t repeats);

struct MachineInfo {
  std::string host;
  std::string cpu;
  unsigned hardware_threads = 0;
  std::string date_utc;
};

MachineInfo ReadMachineInfo();

}  // namespace lt::bench
