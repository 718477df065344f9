// `lidartwin bench --memory` (cmd_bench_memory.cpp) and `lidartwin bench --scene`
// (bench_scene.cpp), called by the bench command.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "args.h"
#include "lidartwin/bench/gpu_bench.h"

namespace lt::cli {

int BenchMemory(const Args& args);
// bench --export (cmd_bench_export.cpp).
int BenchExport(const Args& args);
// A RayFigures as bench's JSON writes it (bench_scene.cpp).
nlohmann::json RayFiguresJson(const bench::RayFigures& r);
int BenchScene(const Args& args, const std::filesystem::path& sensor_path, unsigned threads,
               int repeats);

}  // namespace lt::cli
