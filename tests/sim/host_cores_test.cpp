// The cores a process may use: its CPU affinity, not the machine's CPU count.
#include "lidartwin/base/host_cores.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <thread>

namespace lt {
namespace {

TEST(HostCores, AreThoseTheAffinityAllows) {
  const unsigned all = std::thread::hardware_concurrency();
  const unsigned usable = UsableCores();
  EXPECT_GE(usable, 1u);
  if (all > 0) EXPECT_LE(usable, all);
  // A thread held to one CPU (as `taskset -c N` or a Slurm task of one CPU holds a process)
  // counts one.
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE && first < 0; ++c)
    if (CPU_ISSET(c, &allowed)) first = c;
  ASSERT_GE(first, 0);
  unsigned pinned = 0;
  bool set = false;
  std::thread t([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    set = pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0;
    pinned = UsableCores();
  });
  t.join();
  ASSERT_TRUE(set) << "cannot hold a thread to CPU " << first;
  EXPECT_EQ(pinned, 1u);
  EXPECT_EQ(UsableCores(), usable);  // this thread's affinity is unchanged
}

}  // namespace
}  // namespace lt
