// `lidartwin bench --memory` (cmd_bench_memory.cpp), called by the bench command.
#pragma once

#include "args.h"

namespace lt::cli {

int BenchMemory(const Args& args);

}  // namespace lt::cli
