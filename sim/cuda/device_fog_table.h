// The fog's table (internal/fog_table.h) in device memory, its view there too: FogView::table
// points at that view, so the beams read it from global memory, not from the kernels'
// parameters (whose address would copy the frame's context into each thread's local memory).
#pragma once

#include "device_buffer.h"
#include "internal/fog_table.h"

namespace lt::cuda {

class DeviceFogTable {
 public:
  // Copies `table`; *view is then the device's view, or null for an empty table.
  Status Upload(const FogTable& table, const physics::PulseTableView** view) {
    *view = nullptr;
    if (table.empty()) return {};
    for (Status s : {range_m_.Upload(table.range_m), power_w_.Upload(table.power_w),
                     power_max_w_.Upload(table.power_max_w), power_sum_w_.Upload(table.power_sum_w),
                     sums_w_.Upload(table.sums_w), point_first_.Upload(table.point_first),
                     point_sums_.Upload(table.point_sums), full_w_.Upload(table.full_w),
                     block_max_w_[0].Upload(table.block_max_w[0]),
                     block_max_w_[1].Upload(table.block_max_w[1]),
                     block_min_w_[0].Upload(table.block_min_w[0]),
                     block_min_w_[1].Upload(table.block_min_w[1]), covered_.Upload(table.covered),
                     zeroed_.Upload(table.zeroed), sorted_power_w_.Upload(table.sorted_power_w),
                     sorted_sum_w_.Upload(table.sorted_sum_w)}) {
      if (!s.ok()) return s;
    }
    physics::PulseTableView v = table.Shape();
    v.range_m = range_m_.get();
    v.power_w = power_w_.get();
    v.power_sum_w = power_sum_w_.get();
    v.power_max_w = power_max_w_.get();
    v.point_first = point_first_.get();
    v.point_sums = point_sums_.get();
    v.sums_w = sums_w_.get();
    v.full_w = full_w_.get();
    for (int b = 0; b < 2; ++b) {
      v.block_max_w[b] = block_max_w_[b].get();
      v.block_min_w[b] = block_min_w_[b].get();
    }
    v.covered = covered_.get();
    v.zeroed = zeroed_.get();
    v.sorted_power_w = sorted_power_w_.get();
    v.sorted_sum_w = sorted_sum_w_.get();
    if (Status s = view_.Upload(&v, 1); !s.ok()) return s;
    *view = view_.get();
    return {};
  }

 private:
  DeviceBuffer<float> range_m_, power_w_, power_max_w_, sorted_power_w_;
  DeviceBuffer<double> power_sum_w_, sums_w_, full_w_, block_max_w_[2], block_min_w_[2],
      sorted_sum_w_;
  DeviceBuffer<uint32_t> point_first_, point_sums_, covered_, zeroed_;
  DeviceBuffer<physics::PulseTableView> view_;
};

}  // namespace lt::cuda
