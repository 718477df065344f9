// ForEachIndexOnThreads: every index once, whatever the thread count, and a worker's
// exception reaches the caller instead of ending the process.
#include "lidartwin/base/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <thread>
#include <vector>

namespace lt {
namespace {

TEST(ParallelFor, RunsEveryIndexOnceOnAnyThreadCount) {
  for (const unsigned threads : {1u, 2u, 5u, 64u}) {
    std::vector<std::atomic<int>> runs(1000);
    std::atomic<int> beyond{0};
    ForEachIndexOnThreads(runs.size(), threads, [&](size_t i) {
      if (i >= runs.size()) {
        ++beyond;
        return;
      }
      ++runs[i];
    });
    EXPECT_EQ(beyond.load(), 0) << threads << " threads";
    for (size_t i = 0; i < runs.size(); ++i)
      ASSERT_EQ(runs[i].load(), 1) << "index " << i << " on " << threads << " threads";
  }
}

TEST(ParallelFor, AnExceptionOnTheCallersThreadStopsTheHandOut) {
  // One thread: the caller's own, in index order, so exactly indices 0..7 are started.
  std::atomic<int> started{0};
  EXPECT_THROW(ForEachIndexOnThreads(10000, 1,
                                     [&](size_t i) {
                                       ++started;
                                       if (i == 7) throw std::bad_alloc();
                                     }),
               std::bad_alloc);
  EXPECT_EQ(started.load(), 8);
}

TEST(ParallelFor, AWorkersExceptionIsRethrownOnTheCallersThread) {
  // Only a worker thread throws (the caller's thread never does), on the first index it takes;
  // the hand-out then stops, far short of the indices there are, however the threads run.
  const std::thread::id caller = std::this_thread::get_id();
  constexpr size_t kIndices = size_t{1} << 26;
  std::atomic<size_t> started{0};
  EXPECT_THROW(ForEachIndexOnThreads(kIndices, 4,
                                     [&](size_t) {
                                       ++started;
                                       if (std::this_thread::get_id() != caller)
                                         throw std::bad_alloc();
                                     }),
               std::bad_alloc);
  EXPECT_LT(started.load(), kIndices / 2);
}

}  // namespace
}  // namespace lt
