// Work spread over the machine's threads (at most 8), for loops whose iterations are
// independent and whose results do not depend on the order (each writes its own slot, or
// sums integers atomically), so the output is the same whatever the thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace lt {

// Runs work(i) for every i in [0, n), interleaved over the threads.
template <typename Work>
void ParallelFor(size_t n, const Work& work) {
  const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  auto part = [&](unsigned p) {
    for (size_t i = p; i < n; i += threads)
      work(i);
  };
  std::vector<std::thread> pool;
  for (unsigned p = 1; p < threads; ++p)
    pool.emplace_back(part, p);
  part(0);
  for (auto& t : pool)
    t.join();
}

}  // namespace lt
