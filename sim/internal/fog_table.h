// The fog's slabs as a table of pulses every beam shares (physics/pulse_table.h; issue 43,
// ADR 0032 step 1), made once with the signal chain on the host. The threshold detector's
// beams read it for the slabs in front of all their sub-rays; the waveform detector, whose
// records sample the slabs themselves, takes none. The CPU reads this object's arrays; the
// CUDA backend copies them to the device (cuda_simulator.cu) and points its view there.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "internal/fog_echoes.h"
#include "lidartwin/physics/pulse_table.h"
#include "lidartwin/physics/return_signal.h"

namespace lt {

class FogTable {
 public:
  // The table of `fog`'s slabs for the threshold detector `d`: its lattice step sigma_r / 4,
  // each point's running sums over the slabs within the cut of it. Empty without slabs.
  FogTable(const FogView& fog, const physics::ThresholdDetector& d);
  FogTable(const FogTable&) = delete;
  FogTable& operator=(const FogTable&) = delete;

  bool empty() const { return shape_.pulses == 0; }
  // The view of this object's arrays (pointers into them: valid while it lives).
  const physics::PulseTableView* View() const { return empty() ? nullptr : &view_; }
  // A view of this table's arrays placed elsewhere: `place(array)` returns where that array's
  // copy lies (a pointer to its elements), as the CUDA backend's device copy does.
  template <class Place>
  physics::PulseTableView ViewOf(Place&& place) const {
    physics::PulseTableView v = shape_;
    v.range_m = place(range_m);
    v.power_w = place(power_w);
    v.power_sum_w = place(power_sum_w);
    v.power_max_w = place(power_max_w);
    v.point_first = place(point_first);
    v.point_sums = place(point_sums);
    v.sums_w = place(sums_w);
    v.full_w = place(full_w);
    for (int b = 0; b < 2; ++b) {
      v.block_max_w[b] = place(block_max_w[b]);
      v.block_min_w[b] = place(block_min_w[b]);
    }
    v.covered = place(covered);
    v.zeroed = place(zeroed);
    v.sorted_power_w = place(sorted_power_w);
    v.sorted_sum_w = place(sorted_sum_w);
    return v;
  }

  std::vector<float> range_m, power_w, power_max_w, sorted_power_w;
  std::vector<double> power_sum_w, sums_w, full_w, block_max_w[2], block_min_w[2], sorted_sum_w;
  std::vector<uint32_t> point_first, point_sums, covered, zeroed;

 private:
  physics::PulseTableView shape_{}, view_{};
};

// The table of the fog a frame asks for, made again only when its slabs or the detector change
// (the CPU backend makes its signal chain each frame).
class FogTableCache {
 public:
  // The table's view, or null where the fog has no slabs.
  const physics::PulseTableView* For(const FogView& fog, const physics::ThresholdDetector& d);

 private:
  FogView fog_{};
  physics::ThresholdDetector detector_{};
  std::unique_ptr<FogTable> table_;
};

}  // namespace lt
