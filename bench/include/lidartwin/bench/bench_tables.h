// The tables `lidartwin bench` prints and the JSON it writes, from the figures the benches
// measure (cpu_bench.h, gpu_bench.h, scene_bench.h): one place that names every figure.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lidartwin/bench/cpu_bench.h"
#include "lidartwin/bench/gpu_bench.h"
#include "lidartwin/bench/scene_bench.h"

namespace lt::bench {

// The machine line, the scene line and the CPU backend's figures.
std::string CpuBenchTable(const MachineInfo& machine, const std::string& scene_file,
                          uint64_t triangles, const std::string& sensor_name,
                          const CpuBenchResult& r);
// The GPU bench's tables, or the line saying why it was not measured.
std::string GpuBenchTables(const GpuBenchReport& gpu);
// Everything the bench measured on the demo scene as JSON.
nlohmann::json BenchJson(const MachineInfo& machine, const std::string& scene_file,
                         uint64_t triangles, const std::string& sensor_name,
                         const CpuBenchResult& r, const GpuBenchReport& gpu);

// A RayFigures as bench's JSON writes it.
nlohmann::json RayFiguresJson(const RayFigures& r);

// bench --scene: its table and its JSON.
std::string SceneBenchTable(const std::string& scene_file, const physics::Vec3<double>& sensor,
                            const SceneTraceReport& r);
nlohmann::json SceneBenchJson(const std::string& scene_file, const std::vector<double>& position,
                              const SceneTraceReport& r);

}  // namespace lt::bench
