// ForEachIndexOnThreads: every index once, whatever the thread count, and a worker's
// exception reaches the caller instead of ending the process.
#include "lidartwin/base/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <vector>

namespace lt {
namespace {

TEST(ParallelFor, RunsEveryIndexOnceOnAnyThreadCount) {
  for (const unsigned threads : {1u, 2u, 5u, 64u}) {
    std::vector<std::atomic<int>> runs(1000);
    ForEachIndexOnThreads(runs.size(), threads, [&](size_t i) { ++runs[i]; });
    for (size_t i = 0; i < runs.size(); ++i)
      ASSERT_EQ(runs[i].load(), 1) << "index " << i << " on " << threads << " threads";
  }
}

TEST(ParallelFor, AWorkersExceptionIsRethrownOnTheCallersThread) {
  for (const unsigned threads : {1u, 4u}) {
    std::atomic<int> started{0};
    EXPECT_THROW(ForEachIndexOnThreads(10000, threads,
                                       [&](size_t i) {
                                         ++started;
                                         if (i == 7) throw std::bad_alloc();
                                       }),
                 std::bad_alloc);
    // The hand-out stops at the failure: far fewer than all the indices are started.
    EXPECT_LT(started.load(), 10000);
  }
}

}  // namespace
}  // namespace lt
