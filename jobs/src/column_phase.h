// Where a packet capture's frame starts in the rotation (jobs/src/reproduce.cpp): a frame
// starts wherever its message or file cut the rotation, not at the profile's start azimuth, so
// its column j and the simulated column j would look in different directions, and the
// comparison, which pairs beams by channel and column, would pair different surfaces.
#pragma once

#include <optional>

#include "lidartwin/base/frame.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::jobs {

// How far the frame's column 0 looks from the profile's [rad, in (-pi, pi]]: the median offset
// between each first return's azimuth and its beam's (channel and column of the profile), the
// return's azimuth seen from its beam's origin (beam_origin_m and, for a head whose beams leave
// off its axis, beam_origin_radius_m along the head turned as found: a Helios's lens 35 mm out,
// seen from the axis a return at 1.5 m of a laser 4 deg off the head's direction lies 0.09 deg
// off its beam). The timing of the frame, as its poses are: none of its ranges or intensities.
// Nothing for a frame without channel and column fields, or with fewer than 100 first returns
// on the profile's beams.
std::optional<double> ColumnPhaseOffset(const SensorProfile& profile, const Frame& frame);

}  // namespace lt::jobs
