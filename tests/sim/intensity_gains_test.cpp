// Per-laser intensity gains in the sensor profile (issue 40): read and written back, refused
// with the key and the problem when malformed, and applied by the simulator to the reported
// intensity of each channel at its range (detection unchanged).
#include <gtest/gtest.h>

#include <cmath>

#include "cpu/cpu_simulator.h"
#include "lidartwin/sim/sensor_profile.h"
#include "sim/sim_test_scenes.h"
#include "test_support.h"

namespace lt {
namespace {

SensorProfile Os0() {
  return test::ShippedSensor("ouster_os0_128.yaml");
}

// Gains unlike 1 and unlike each other: channel c at node k reads 0.5 + 0.01 c + 0.2 k.
ChannelIntensityGains Gains(size_t channels) {
  ChannelIntensityGains g;
  g.range_m = {1.5, 4.0, 12.0};
  g.source = "a test";
  for (size_t c = 0; c < channels; ++c)
    g.gain.push_back({0.5 + 0.01 * c, 0.7 + 0.01 * c, 0.9 + 0.01 * c});
  return g;
}

TEST(IntensityGains, InterpolateLinearlyInLogRangeAndLogGainAndHoldBeyondTheNodes) {
  const ChannelIntensityGains g = Gains(4);
  EXPECT_DOUBLE_EQ(g.At(2, 1.0), 0.52);   // held below the first node
  EXPECT_DOUBLE_EQ(g.At(2, 40.0), 0.92);  // and beyond the last
  EXPECT_DOUBLE_EQ(g.At(9, 5.0), 1.0);    // a channel not in the table
  // Half-way in ln R between 1.5 and 4 m: the geometric mean of the two gains.
  EXPECT_NEAR(g.At(2, std::sqrt(1.5 * 4.0)), std::sqrt(0.52 * 0.72), 1e-12);
}

TEST(IntensityGains, ReadBackFromTheWriterAndRefuseWhatDoesNotFitTheScan) {
  SensorProfile p = Os0();
  p.intensity_gains = Gains(p.elevation_rad.size());
  ASSERT_TRUE(p.Validate().ok()) << p.Validate().message();
  auto back = ParseSensorProfile(SaveSensorProfile(p, "test"), "back.yaml");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->intensity_gains.range_m, p.intensity_gains.range_m);
  EXPECT_EQ(back->intensity_gains.gain, p.intensity_gains.gain);
  EXPECT_EQ(back->intensity_gains.source, "a test");

  SensorProfile few = p;
  few.intensity_gains = Gains(3);
  EXPECT_NE(few.Validate().message().find("key 'intensity_gains.gain': has 3 rows of 3 gains; "
                                          "the scan has 128 channels"),
            std::string::npos)
      << few.Validate().message();
  SensorProfile unordered = p;
  unordered.intensity_gains.range_m = {4.0, 1.5, 12.0};
  EXPECT_NE(unordered.Validate().message().find("'intensity_gains.range_m': must be positive"),
            std::string::npos);
  SensorProfile zero = p;
  zero.intensity_gains.gain[7][1] = 0;
  EXPECT_NE(zero.Validate().message().find("channel 7: a gain of 0"), std::string::npos)
      << zero.Validate().message();
  SensorProfile many = p;
  many.intensity_gains.range_m.clear();
  for (size_t k = 0; k < kMaxIntensityGainNodes + 1; ++k)
    many.intensity_gains.range_m.push_back(1.0 + k);
  for (auto& row : many.intensity_gains.gain)
    row.assign(many.intensity_gains.range_m.size(), 1.0);
  EXPECT_NE(many.Validate().message().find("65 nodes; at most 64"), std::string::npos)
      << many.Validate().message();
  // A flat list that is not whole rows is refused at its line.
  std::string text = SaveSensorProfile(p, "test");
  const size_t at = text.find("gain: [");
  ASSERT_NE(at, std::string::npos);
  text.insert(at + 7, "1.0, ");
  auto ragged = ParseSensorProfile(text, "ragged.yaml");
  ASSERT_FALSE(ragged.ok());
  EXPECT_NE(ragged.message().find("must hold one row of 3 gains (one per range_m) per channel, "
                                  "got 385"),
            std::string::npos)
      << ragged.message();
}

TEST(IntensityGains, TheSimulatorScalesEachChannelsIntensityAtItsRangeAndDetectsTheSame) {
  const SensorProfile plain = Os0();
  SensorProfile gained = plain;
  gained.intensity_gains = Gains(plain.elevation_rad.size());
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  const Frame a = CpuSimulator(*scene, plain, Trajectory::Static(), {7, 0}).Simulate(0).value();
  const Frame b = CpuSimulator(*scene, gained, Trajectory::Static(), {7, 0}).Simulate(0).value();
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 10000u);
  EXPECT_EQ(a.range_m, b.range_m);
  double max_relative = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    const double expected = a.intensity[k] * gained.intensity_gains.At(a.channel[k], a.range_m[k]);
    max_relative = std::max(
        max_relative, std::fabs(b.intensity[k] - expected) / std::max(1e-6, std::fabs(expected)));
  }
  EXPECT_LT(max_relative, 2e-7);  // one float rounding
}

}  // namespace
}  // namespace lt
