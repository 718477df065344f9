// One beam's result in a fixed slot, written by either backend (CUDA kernels included) and
// assembled into a Frame in beam order, so the frame does not depend on how beams were
// scheduled.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/scan_pattern.h"

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
  uint16_t return_index;      // the echo's place in range order among the beam's echoes
  uint8_t return_type;        // physics::ReturnType: its kind in the profile's return mode
  uint8_t pad;
};

// A valid record as the GPU compacts it (44 bytes instead of 72) before writing the frame's
// columns from it (frame_columns.h), which add the beam's channel, column and time.
struct CompactRecord {
  uint32_t beam;
  float x_m, y_m, z_m;
  float range_m;
  float intensity;
  float reflectance;
  uint32_t instance;
  float echo_pulse_width_ns;
  uint16_t material;
  uint16_t semantic;
  uint8_t return_index;
  uint8_t return_type;
  uint8_t pad[2];
};
static_assert(sizeof(CompactRecord) == 44);

LT_HD inline CompactRecord Compact(const BeamRecord& r) {
  return {r.beam,
          r.x_m,
          r.y_m,
          r.z_m,
          r.range_m,
          r.intensity,
          r.reflectance,
          r.instance,
          r.echo_pulse_width_ns,
          static_cast<uint16_t>(r.material),
          static_cast<uint16_t>(r.semantic),
          static_cast<uint8_t>(r.return_index),
          r.return_type,
          {0, 0}};
}

// The valid records, in the order given (beam order, then echo order), as a frame's points;
// with_pulse_width: the detector models the echo pulse width, so the frame carries it.
void AppendRecords(const BeamRecord* records, uint32_t count, bool with_pulse_width, Frame& frame);

struct ChannelIntensityGains;  // sensor_profile.h (not included: the kernels include this file)

// The profile's per-laser readout gains on the reported intensity of points first.. of the
// frame (sensor_profile.h, ChannelIntensityGains): both backends call it on the host after
// their records are appended, so their frames agree exactly. Nothing when there are none.
void ApplyIntensityGains(const ChannelIntensityGains& gains, size_t first, Frame& frame);

struct SensorProfile;  // sensor_profile.h

// The profile's learned ray drop on a whole frame (sensor_profile.h): every return of a beam in
// its blocked directions (BlockedDirections, by the beam's channel and scan azimuth), and by the
// RayDropTable each return's probability from its range and reported intensity / 100 (after
// the per-laser gains), sampled from the (seed, frame, beam, echo, kStreamRayDrop) stream or
// decided by p > 0.5. Both backends call it on the host on the finished frame, so their frames
// agree exactly.
void ApplyRayDrop(const SensorProfile& profile, uint64_t seed, uint32_t frame_index, Frame& frame);

}  // namespace lt
