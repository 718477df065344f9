// A table from a mesh's edges (two vertex indices, either way round) to a number, in one array
// with open addressing: the split at the vertices (a midpoint per edge) and the mesh-edge test (the
// triangles on each side) insert an entry for each edge of a million triangles, and
// std::unordered_map's node per entry made its allocations half of an OS-1-128 fold's meshing
// (the split took 0.36 s of 0.86 s).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace lt {

class EdgeTable {
 public:
  // Room for `edges` entries before the table grows.
  explicit EdgeTable(size_t edges) { Resize(std::max<size_t>(16, 2 * edges)); }

  // The value of edge (a, b), inserted as `value` where absent; whether it was inserted. The
  // reference holds until the next insertion.
  std::pair<uint32_t&, bool> TryEmplace(uint32_t a, uint32_t b, uint32_t value) {
    if (2 * (size_ + 1) > keys_.size()) Resize(2 * keys_.size());
    const uint64_t key = Key(a, b);
    size_t at = Slot(key);
    while (keys_[at] != kEmpty && keys_[at] != key)
      at = (at + 1) & mask_;
    if (keys_[at] == key) return {values_[at], false};
    keys_[at] = key;
    values_[at] = value;
    ++size_;
    return {values_[at], true};
  }

  // The value of edge (a, b); it must be in the table.
  uint32_t At(uint32_t a, uint32_t b) const {
    const uint64_t key = Key(a, b);
    size_t at = Slot(key);
    while (keys_[at] != key)
      at = (at + 1) & mask_;
    return values_[at];
  }

 private:
  // No edge joins a vertex to itself, so no key is all ones.
  static constexpr uint64_t kEmpty = ~uint64_t{0};

  static uint64_t Key(uint32_t a, uint32_t b) {
    return (uint64_t{std::min(a, b)} << 32) | std::max(a, b);
  }
  // Fibonacci hashing: the key's product with 2^64 / phi, its top bits.
  size_t Slot(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
  }
  void Resize(size_t at_least) {
    size_t n = 16;
    int bits = 4;
    while (n < at_least) {
      n *= 2;
      ++bits;
    }
    std::vector<uint64_t> keys(n, kEmpty);
    std::vector<uint32_t> values(n);
    std::swap(keys, keys_);
    std::swap(values, values_);
    mask_ = n - 1;
    shift_ = 64 - bits;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == kEmpty) continue;
      size_t at = Slot(keys[i]);
      while (keys_[at] != kEmpty)
        at = (at + 1) & mask_;
      keys_[at] = keys[i];
      values_[at] = values[i];
    }
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> values_;
  size_t size_ = 0;
  size_t mask_ = 0;
  int shift_ = 60;
};

}  // namespace lt
