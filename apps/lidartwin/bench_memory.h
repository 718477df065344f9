// `lidartwin bench --memory` (cmd_bench_memory.cpp) and `lidartwin bench --scene`
// (bench_scene.cpp), called by the bench command.
#pragma once

#include <filesystem>

#include "args.h"

namespace lt::cli {

int BenchMemory(const Args& args);
int BenchScene(const Args& args, const std::filesystem::path& sensor_path, unsigned threads,
               int repeats);

}  // namespace lt::cli
