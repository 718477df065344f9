// The fog's table (internal/fog_table.h) in device memory, its view there too: FogView::table
// points at that view, so the beams read it from global memory, not from the kernels'
// parameters (whose address would copy the frame's context into each thread's local memory).
#pragma once

#include <cstring>
#include <type_traits>
#include <vector>

#include "device_buffer.h"
#include "internal/fog_table.h"

namespace lt::cuda {

class DeviceFogTable {
 public:
  // Copies `table`; *view is then the device's view, or null for an empty table. The arrays
  // travel in one allocation and one copy, each at an offset aligned for doubles.
  Status Upload(const FogTable& table, const physics::PulseTableView** view) {
    *view = nullptr;
    if (table.empty()) return {};
    // Two passes of ViewOf, which visits the arrays in one fixed order: the first sums their
    // aligned sizes, the second places each at the same offset.
    size_t bytes = 0;
    table.ViewOf([&](const auto& array) {
      bytes = Aligned(bytes) + array.size() * sizeof(array[0]);
      return array.data();
    });
    if (Status s = arrays_.Reserve(bytes); !s.ok()) return s;
    std::vector<unsigned char> staged(bytes);
    size_t at = 0;
    const physics::PulseTableView v = table.ViewOf([&](const auto& array) {
      using T = std::decay_t<decltype(array[0])>;
      static_assert(alignof(T) <= 8, "Aligned() places arrays at 8-byte offsets");
      at = Aligned(at);
      if (!array.empty()) std::memcpy(staged.data() + at, array.data(), array.size() * sizeof(T));
      const T* placed = reinterpret_cast<const T*>(arrays_.get() + at);
      at += array.size() * sizeof(T);
      return placed;
    });
    if (Status s = arrays_.Upload(staged); !s.ok()) return s;
    if (Status s = view_.Upload(&v, 1); !s.ok()) return s;
    *view = view_.get();
    return {};
  }

 private:
  static size_t Aligned(size_t offset) { return (offset + 7) & ~size_t{7}; }

  DeviceBuffer<unsigned char> arrays_;
  DeviceBuffer<physics::PulseTableView> view_;
};

}  // namespace lt::cuda
