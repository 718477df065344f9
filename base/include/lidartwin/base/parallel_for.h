// Work spread over threads, for loops whose iterations are independent and whose results do
// not depend on the order (each writes its own slot, or sums integers atomically), so the
// output is the same whatever the thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include "lidartwin/base/host_cores.h"

namespace lt {

// Runs work(i) for every i in [0, n) on up to `threads` threads, this one among them, each
// taking the next i not yet taken. Where a thread cannot be started (no memory, a process
// limit), the ones running do its share.
template <typename Work>
void ForEachIndexOnThreads(size_t n, unsigned threads, const Work& work) {
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i = next++; i < n; i = next++)
      work(i);
  };
  std::vector<std::thread> pool;
  try {
    for (size_t t = 1; t < std::min<size_t>(threads, n); ++t)
      pool.emplace_back(run);
  } catch (const std::exception&) {
  }
  run();
  for (auto& t : pool)
    t.join();
}

// Runs work(i) for every i in [0, n) on the cores this process may use (at most 8).
template <typename Work>
void ParallelFor(size_t n, const Work& work) {
  ForEachIndexOnThreads(n, std::min(8u, UsableCores()), work);
}

}  // namespace lt
