#include "lidartwin/base/host_cores.h"

#include <sched.h>

#include <cerrno>
#include <thread>

namespace lt {

unsigned UsableCores() {
  // A set sized for the kernel's CPUs: a fixed cpu_set_t holds 1024, and sched_getaffinity
  // fails with EINVAL where the kernel was built for more.
  for (int cpus = 1024; cpus <= (1 << 20); cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(cpus);
    if (set == nullptr) break;
    const size_t bytes = CPU_ALLOC_SIZE(cpus);
    CPU_ZERO_S(bytes, set);
    const int rc = ::sched_getaffinity(0, bytes, set);
    const int error = errno;
    const int n = rc == 0 ? CPU_COUNT_S(bytes, set) : 0;
    CPU_FREE(set);
    if (rc == 0 && n > 0) return static_cast<unsigned>(n);
    if (rc != 0 && error == EINVAL) continue;  // a larger set
    break;
  }
  const unsigned all = std::thread::hardware_concurrency();
  return all > 0 ? all : 1;
}

}  // namespace lt
