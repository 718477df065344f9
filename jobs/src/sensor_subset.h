// `reproduce --as`: which of another profile's channels are the recording sensor's own, so that
// a re-simulation as a subset of the recorded lasers (the OS-1-128's every other channel as a
// 64-beam sensor) has its truth in the recording, and another sensor's has none.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::jobs {

// Two channels are one laser when their elevations and azimuth offsets agree within this: a
// hundredth of the OS-1-128's 0.35 deg spacing, far above a profile's written precision.
inline constexpr double kSameLaserRad = 6e-5;

// For each channel of `as`, the channel of `recording` that is the same laser (same elevation,
// azimuth offset and firing offset; the same columns, rotation, direction of spin, beam origins
// and range offset); empty when any is not one of them, two are the same one, or either is not
// a spinning scan.
std::vector<uint16_t> RecordedChannelsOf(const SensorProfile& as, const SensorProfile& recording);

// Keeps the frame's returns on the given channels (the recording's numbers).
void KeepChannels(Frame& f, const std::vector<uint16_t>& channels);

}  // namespace lt::jobs
