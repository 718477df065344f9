// The bench command's other modes: `--memory` and `--export` (bench_runs.cpp), `--scene`
// (bench_scene.cpp).
#pragma once

#include <filesystem>

#include "args.h"

namespace lt::cli {

int BenchMemory(const Args& args);
int BenchExport(const Args& args);
int BenchScene(const Args& args, const std::filesystem::path& sensor_path, unsigned threads,
               int repeats);

}  // namespace lt::cli
