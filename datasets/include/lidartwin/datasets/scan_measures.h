// What a recording's own frames say about its scan where its metadata does not (reproduce and
// lab extract, issue 40): the head's rotation rate and the columns a revolution holds.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/base/frame.h"

namespace lt {

// The head's rotation rate: where the frames time each return, the median of one channel's turn
// between consecutive columns over their time apart (at least 100 such pairs), whatever part of
// a revolution a frame holds; else from the frames' durations (the median over the frames
// between the first and the last, which may be partial revolutions; over all of them when there
// are fewer than three); 0 when the frames carry no times. Velodyne calibrations do not hold
// the rate.
double MeasuredRotationRateHz(const std::vector<Frame>& frames);

// The columns a revolution holds, from the azimuth step between one channel's first returns in
// consecutive columns (the median over every frame and channel, steps under 5 deg): 2 pi over
// it, rounded. 0 when the frames hold no two such returns. A Hesai or RoboSense angle file does
// not say its model's horizontal resolution (a PandarQT64's 0.6 deg, an XT16's 0.18).
uint32_t MeasuredColumnsPerRevolution(const std::vector<Frame>& frames);

}  // namespace lt
