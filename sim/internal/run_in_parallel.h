// Runs a body over a range of items split into contiguous blocks, one thread each: the CPU
// backend's beams and the CUDA backend's points as they become a frame on the host.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "lidartwin/base/host_cores.h"

namespace lt {

// Runs body(b, e) over [begin, end) split into contiguous blocks, one per thread, each
// boundary inside the range on a multiple of `align` (so the blocks of `align` items a body
// makes are the same whatever the thread count).
template <typename Body>
inline void RunInParallel(uint32_t begin, uint32_t end, unsigned threads, Body& body,
                          uint32_t min_per_thread = 1024, uint32_t align = 1) {
  const uint32_t n = end - begin;
  if (threads == 0) threads = UsableCores();
  threads = std::max(1u, std::min(threads, std::max(1u, n / min_per_thread)));
  if (threads == 1) {
    body(begin, end);
    return;
  }
  std::vector<std::thread> pool;
  const uint32_t block = (n + threads - 1) / threads;
  auto boundary = [&](unsigned k) {
    if (k == 0) return begin;
    const uint64_t at = begin + std::min<uint64_t>(n, uint64_t{k} * block);
    return static_cast<uint32_t>(std::min<uint64_t>(end, (at + align - 1) / align * align));
  };
  for (unsigned k = 0; k < threads; ++k) {
    const uint32_t b = boundary(k), e = boundary(k + 1);
    if (b >= e) continue;
    pool.emplace_back([&body, b, e] { body(b, e); });
  }
  for (auto& th : pool)
    th.join();
}

}  // namespace lt
