// `reproduce --as` (jobs/src/sensor_subset.h): a profile's channels found among the recording
// sensor's lasers, or not, and a frame cut to some channels.
#include "sensor_subset.h"

#include <gtest/gtest.h>

namespace lt::jobs {
namespace {

SensorProfile Spinning(const std::vector<double>& elevation_deg) {
  SensorProfile p;
  p.scan = ScanKind::kSpinning;
  p.columns = 1024;
  p.rotation_rate_hz = 10;
  for (size_t c = 0; c < elevation_deg.size(); ++c) {
    p.elevation_rad.push_back(elevation_deg[c] * 3.14159265358979 / 180);
    p.azimuth_offset_rad.push_back((c % 4) * 0.05 - 0.075);
    p.firing_offset_s.push_back(0);
  }
  return p;
}

TEST(SensorSubset, EveryOtherLaserIsFoundAndAnotherSensorIsNot) {
  const SensorProfile recorded = Spinning({10, 9.65, 9.3, 8.95, 8.6, 8.25, 7.9, 7.55});
  SensorProfile subset = recorded;
  subset.elevation_rad = {recorded.elevation_rad[6], recorded.elevation_rad[2]};
  subset.azimuth_offset_rad = {recorded.azimuth_offset_rad[6], recorded.azimuth_offset_rad[2]};
  subset.firing_offset_s = {0, 0};
  EXPECT_EQ(RecordedChannelsOf(subset, recorded), (std::vector<uint16_t>{6, 2}));
  EXPECT_EQ(RecordedChannelsOf(recorded, recorded).size(), 8u);
  // A laser 0.01 deg off (1.7e-4 rad, beyond kSameLaserRad) is another sensor's.
  SensorProfile off = subset;
  off.elevation_rad[1] += 0.01 * 3.14159265358979 / 180;
  EXPECT_TRUE(RecordedChannelsOf(off, recorded).empty());
  // The same elevation at another azimuth offset, another column count or rotation: not these.
  SensorProfile turned = subset;
  turned.azimuth_offset_rad[0] += 0.01;
  EXPECT_TRUE(RecordedChannelsOf(turned, recorded).empty());
  SensorProfile columns = subset;
  columns.columns = 2048;
  EXPECT_TRUE(RecordedChannelsOf(columns, recorded).empty());
  SensorProfile faster = subset;
  faster.rotation_rate_hz = 20;
  EXPECT_TRUE(RecordedChannelsOf(faster, recorded).empty());
  // Beams that leave from elsewhere, or count their range otherwise (a hand-written OS-1-64
  // without the range offset), or fire at another time: not these lasers.
  SensorProfile offset = subset;
  offset.range_offset_m = 0.016;
  EXPECT_TRUE(RecordedChannelsOf(offset, recorded).empty());
  SensorProfile origin = subset;
  origin.beam_origin_m[2] = 0.036;
  EXPECT_TRUE(RecordedChannelsOf(origin, recorded).empty());
  SensorProfile later = subset;
  later.firing_offset_s[0] = 1e-6;
  EXPECT_TRUE(RecordedChannelsOf(later, recorded).empty());
  // Two channels of one laser cannot both be its truth.
  SensorProfile twice = subset;
  twice.elevation_rad[1] = twice.elevation_rad[0];
  twice.azimuth_offset_rad[1] = twice.azimuth_offset_rad[0];
  EXPECT_TRUE(RecordedChannelsOf(twice, recorded).empty());
  SensorProfile mems = subset;
  mems.scan = ScanKind::kLissajous;
  EXPECT_TRUE(RecordedChannelsOf(mems, recorded).empty());
}

TEST(SensorSubset, KeepChannelsKeepsTheirReturnsInOrderWithEveryField) {
  Frame f;
  for (uint16_t k = 0; k < 12; ++k) {
    FramePoint p;
    p.x_m = k;
    p.range_m = k;
    p.intensity = 10.0f * k;
    p.channel = k % 4;
    p.column = k;
    f.Append(p);
  }
  f.echo_pulse_width_ns.assign(12, 3.0f);
  f.reflectance.clear();  // an absent field stays absent
  KeepChannels(f, {1, 3});
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ(f.column, (std::vector<uint32_t>{1, 3, 5, 7, 9, 11}));
  EXPECT_EQ(f.channel, (std::vector<uint16_t>{1, 3, 1, 3, 1, 3}));
  EXPECT_EQ(f.intensity[5], 110.0f);
  EXPECT_EQ(f.echo_pulse_width_ns.size(), 6u);
  EXPECT_TRUE(f.reflectance.empty());
  KeepChannels(f, {});
  EXPECT_EQ(f.size(), 0u);
  EXPECT_TRUE(f.column.empty());
}

}  // namespace
}  // namespace lt::jobs
