// The scan lines of a cloud stored line after line, for files that keep the order but not the
// laser of each point (a KITTI .bin). A spinning sensor's line sweeps its azimuth once, from
// where the azimuth (0 to a whole turn, counter-clockwise from x) wraps: KITTI's begin facing
// forward. Where the azimuth falls back by more than half a turn after the line has turned past
// half a turn, the next line begins ("scan unfolding": Triess et al., "Scan-based Semantic
// Segmentation of LiDAR Point Clouds: An Experimental Study", IEEE IV 2020). Each line's points
// then share one laser.
#pragma once

#include <cstddef>

#include "lidartwin/base/frame.h"

namespace lt {

// Numbers the lines of `f` in storage order, 0 for the first, into its channel field, when it
// has exactly `lines` of them and their median elevations fall (or rise) strictly from one to
// the next, as a sensor's lasers do; otherwise leaves the frame as it was and returns false
// (points not in line order, a line lost or split).
bool NumberScanLines(Frame& f, size_t lines);

}  // namespace lt
