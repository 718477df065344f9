// What reproduce and lab extract measure of a capture's scan from its frames alone
// (scan_measures.h): the head's rotation rate from its firings' times (or the frames'
// durations) and the columns a revolution holds from the azimuth steps, against frames built
// with known values.
#include "lidartwin/datasets/scan_measures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace lt {
namespace {

// `channels` lasers, `columns` columns a revolution starting at `start_deg`, clockwise (as a
// Hesai head turns), each return 5 m away; every seventh return dropped and the returns of a
// dual-return frame's second echo (return_index 1) at another azimuth, which must not count.
// `part` of the revolution only; `timed`: each return timed at its firing (channel ch 2 us
// into its column), else untimed (0).
Frame Revolution(uint32_t channels, uint32_t columns, double start_deg, double t0, double hz,
                 double part = 1, bool timed = false) {
  Frame f;
  f.start_time_s = t0;
  f.end_time_s = t0 + part / hz;
  const double step = 2 * std::numbers::pi / columns;
  size_t n = 0;
  for (uint32_t col = 0; col < static_cast<uint32_t>(part * columns); ++col)
    for (uint32_t ch = 0; ch < channels; ++ch) {
      if (++n % 7 == 0) continue;
      for (uint8_t echo = 0; echo < 2; ++echo) {
        const double az = start_deg * std::numbers::pi / 180 - col * step + 0.01 * ch + echo;
        FramePoint p;
        p.x_m = static_cast<float>(5 * std::cos(az));
        p.y_m = static_cast<float>(5 * std::sin(az));
        p.range_m = 5;
        p.channel = static_cast<uint16_t>(ch);
        p.column = col;
        p.return_index = echo;
        if (timed) p.timestamp_s = t0 + (col + 2e-6 * ch * hz * columns) / (hz * columns);
        f.Append(p);
      }
    }
  return f;
}

TEST(ScanMeasures, TheColumnsARevolutionHoldsAreMeasuredFromTheAzimuthSteps) {
  for (uint32_t columns : {600u, 1800u, 2000u}) {
    const std::vector<Frame> frames = {Revolution(16, columns, 37, 0, 10),
                                       Revolution(16, columns, 212, 0.1, 10)};
    EXPECT_EQ(MeasuredColumnsPerRevolution(frames), columns);
  }
  Frame no_channels = Revolution(4, 600, 0, 0, 10);
  no_channels.channel.clear();
  EXPECT_EQ(MeasuredColumnsPerRevolution({no_channels}), 0u);
}

TEST(ScanMeasures, TheRotationRateIsMeasuredFromTheFullFramesDurations) {
  // The first and last frames partial (shorter): the median of the middle ones.
  std::vector<Frame> frames;
  for (int k = 0; k < 5; ++k)
    frames.push_back(Revolution(2, 100, 0, 0.1 * k, k == 0 || k == 4 ? 40 : 11.72));
  EXPECT_NEAR(MeasuredRotationRateHz(frames), 11.72, 1e-9);
}

// Frames that time each return: the rate from the head's turn between firings, whatever part
// of a revolution each frame holds (the shared VLP-16 pcap's two: a third and three quarters
// of one, whose durations gave 17.9 Hz for its 10).
TEST(ScanMeasures, TheRotationRateOfPartialFramesFromTheirFiringTimes) {
  for (double hz : {5.0, 10.0, 19.7}) {
    const std::vector<Frame> frames = {Revolution(16, 1808, 125.8, 0, hz, 0.35, true),
                                       Revolution(16, 1808, 0, 0.035, hz, 0.77, true)};
    // Float coordinates: azimuth steps of 3.5 mrad known to 1e-7 relative.
    EXPECT_NEAR(MeasuredRotationRateHz(frames), hz, 1e-4 * hz) << hz;
  }
}

}  // namespace
}  // namespace lt
