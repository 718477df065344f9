// The host's cores a process may use, for sizing its thread pools.
#pragma once

namespace lt {

// The CPUs this thread may run on (sched_getaffinity(2): what a Slurm task, a cgroup cpuset or
// `taskset` leaves it), or std::thread::hardware_concurrency() where that cannot be read; at
// least 1. hardware_concurrency() counts every CPU of the machine: a Slurm task given 4 of a
// node's 64 would otherwise start 64 simulation and 16 encoding threads on 4 CPUs.
unsigned UsableCores();

}  // namespace lt
