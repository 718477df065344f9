// One beam's result in a fixed slot, written by either backend (CUDA kernels included) and
// assembled into a Frame in beam order, so the frame does not depend on how beams were
// scheduled.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/sim/frame.h"

namespace lt {

struct BeamRecord {
  uint32_t valid;
  uint32_t beam;  // index of the beam within the frame
  float x_m, y_m, z_m;
  float range_m;
  float intensity;
  float reflectance;
  uint32_t channel;
  uint32_t column;
  uint32_t material;
  uint32_t instance;
  uint32_t semantic;
  double time_s;
  float echo_pulse_width_ns;  // threshold detector only
  uint32_t return_index;      // the echo's place in range order among the beam's echoes
};

// The valid records, in the order given (beam order, then echo order), as a frame's points;
// with_pulse_width: the detector models the echo pulse width, so the frame carries it.
void AppendRecords(const BeamRecord* records, uint32_t count, bool with_pulse_width, Frame& frame);

}  // namespace lt
