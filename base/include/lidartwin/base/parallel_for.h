// Work spread over threads, for loops whose iterations are independent and whose results do
// not depend on the order (each writes its own slot, or sums integers atomically), so the
// output is the same whatever the thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "lidartwin/base/host_cores.h"

namespace lt {

// Runs work(i) for every i in [0, n) on up to `threads` threads, this one among them, each
// taking the next i not yet taken. Where a thread cannot be started (no memory, a process
// limit), the ones running do its share. An exception thrown by work (std::bad_alloc on a
// huge input) stops the hand-out of further indices and is rethrown here, on the caller's
// thread, once every thread has finished: it never ends the process from a worker. work(i)
// must not wait for another index's work: after a failure that index may never be handed out.
template <typename Work>
void ForEachIndexOnThreads(size_t n, unsigned threads, const Work& work) {
  std::atomic<size_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto run = [&] {
    try {
      for (size_t i = next++; i < n; i = next++)
        work(i);
    } catch (...) {
      next = n;
      const std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
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
  if (failure) std::rethrow_exception(failure);
}

// Runs work(i) for every i in [0, n) on the cores this process may use (at most 8).
template <typename Work>
void ParallelFor(size_t n, const Work& work) {
  ForEachIndexOnThreads(n, std::min(8u, UsableCores()), work);
}

}  // namespace lt
