// The learned ray drop in the sensor profile (issue 41): interpolated in (ln R, ln a), read and
// written back, refused with the key and the problem when malformed, and applied by the
// simulator: sampled at its rate, deterministic per seed, or decided by p > 0.5. The blocked
// directions likewise: looked up, read and written back, refused when malformed, applied.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "cpu/cpu_simulator.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/sim/sensor_profile.h"
#include "sim/sim_test_scenes.h"
#include "test_support.h"

namespace lt {
namespace {

SensorProfile Os0() {
  return test::ShippedSensor("ouster_os0_128.yaml");
}

// 0.2 at 1 m and 0.8 at 100 m whatever the reflectance: p = 0.2 + 0.6 ln R / ln 100.
RayDropTable RisingWithRange(RayDropTable::Decision decision) {
  RayDropTable t;
  t.range_m = {1, 100};
  t.reflectance = {0.01, 1};
  t.probability = {0.2, 0.2, 0.8, 0.8};
  t.decision = decision;
  t.source = "a test";
  return t;
}

TEST(RayDrop, InterpolatesBilinearlyInLogRangeAndLogReflectanceAndHoldsBeyond) {
  RayDropTable t;
  t.range_m = {2, 8};
  t.reflectance = {0.1, 0.4};
  t.probability = {0.1, 0.3, 0.5, 0.9};  // [range][reflectance]
  EXPECT_DOUBLE_EQ(t.At(1, 0.05), 0.1);  // held below both
  EXPECT_DOUBLE_EQ(t.At(50, 3), 0.9);    // and beyond
  EXPECT_DOUBLE_EQ(t.At(2, 0.4), 0.3);
  EXPECT_DOUBLE_EQ(t.At(8, 0.1), 0.5);
  // The geometric midpoints of both: the mean of the four corners.
  EXPECT_NEAR(t.At(4, 0.2), (0.1 + 0.3 + 0.5 + 0.9) / 4, 1e-12);
  EXPECT_DOUBLE_EQ(RayDropTable{}.At(5, 0.5), 0);
}

TEST(RayDrop, ReadBackFromTheWriterAndRefuseWhatIsMalformed) {
  SensorProfile p = Os0();
  p.ray_drop = RisingWithRange(RayDropTable::Decision::kMostLikely);
  ASSERT_TRUE(p.Validate().ok()) << p.Validate().message();
  auto back = ParseSensorProfile(SaveSensorProfile(p, "test"), "back.yaml");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->ray_drop.range_m, p.ray_drop.range_m);
  EXPECT_EQ(back->ray_drop.reflectance, p.ray_drop.reflectance);
  EXPECT_EQ(back->ray_drop.probability, p.ray_drop.probability);
  EXPECT_EQ(back->ray_drop.decision, RayDropTable::Decision::kMostLikely);
  EXPECT_EQ(back->ray_drop.source, "a test");

  auto message = [&](auto change) {
    SensorProfile q = p;
    change(q.ray_drop);
    return q.Validate().message();
  };
  EXPECT_NE(message([](RayDropTable& t) {
              t.probability[2] = 1.5;
            }).find("key 'ray_drop.probability': 1.5 is not in [0, 1]"),
            std::string::npos);
  EXPECT_NE(message([](RayDropTable& t) {
              t.probability.pop_back();
            }).find("must hold 2 x 2 probabilities (range_m by reflectance), got 3"),
            std::string::npos);
  EXPECT_NE(message([](RayDropTable& t) {
              t.range_m = {100, 1};
            }).find("'ray_drop.range_m': must be positive, finite and increasing"),
            std::string::npos);
  EXPECT_NE(message([](RayDropTable& t) {
              t.reflectance = {0, 1};
            }).find("'ray_drop.reflectance': must be positive"),
            std::string::npos);
  std::string text = SaveSensorProfile(p, "test");
  const size_t at = text.find("most_likely");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 11, "likeliest");
  auto word = ParseSensorProfile(text, "word.yaml");
  ASSERT_FALSE(word.ok());
  EXPECT_NE(word.message().find("must be sample or most_likely, got 'likeliest'"),
            std::string::npos)
      << word.message();
}

struct Frames {
  Frame plain, dropped, again, other_seed;
};
Frames Simulate(const RayDropTable& drop) {
  const SensorProfile plain = Os0();
  SensorProfile with = plain;
  with.ray_drop = drop;
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  EXPECT_TRUE(scene.ok()) << scene.message();
  const Trajectory still = Trajectory::Static();
  return {CpuSimulator(*scene, plain, still, {7, 0}).Simulate(0).value(),
          CpuSimulator(*scene, with, still, {7, 0}).Simulate(0).value(),
          CpuSimulator(*scene, with, still, {7, 0}).Simulate(0).value(),
          CpuSimulator(*scene, with, still, {8, 0}).Simulate(0).value()};
}

// Sampled: each return dropped with its probability (the fraction within 4 binomial standard
// errors of the mean probability), the kept ones untouched, the same seed the same drops.
TEST(RayDrop, TheSimulatorDropsEachReturnWithItsProbabilityPerSeed) {
  const RayDropTable drop = RisingWithRange(RayDropTable::Decision::kSample);
  const Frames f = Simulate(drop);
  ASSERT_GT(f.plain.size(), 10000u);
  std::map<uint32_t, size_t> plain_at;
  double expected = 0, variance = 0;
  for (size_t k = 0; k < f.plain.size(); ++k) {
    plain_at[f.plain.beam_id[k]] = k;
    const double p = drop.At(f.plain.range_m[k], f.plain.intensity[k] / 100.0);
    expected += p;
    variance += p * (1 - p);
  }
  const double dropped = double(f.plain.size() - f.dropped.size());
  EXPECT_NEAR(dropped, expected, 4 * std::sqrt(variance));
  for (size_t k = 0; k < f.dropped.size(); ++k) {
    const size_t j = plain_at.at(f.dropped.beam_id[k]);
    ASSERT_EQ(f.dropped.range_m[k], f.plain.range_m[j]);
    ASSERT_EQ(f.dropped.intensity[k], f.plain.intensity[j]);
  }
  EXPECT_EQ(f.again.beam_id, f.dropped.beam_id);
  EXPECT_NE(f.other_seed.beam_id, f.dropped.beam_id);
}

// Most likely: every return more likely dropped than not (beyond 10 m here) goes, every other
// stays.
TEST(RayDrop, TheMostLikelyDecisionDropsWhatIsMoreLikelyDroppedThanNot) {
  const Frames f = Simulate(RisingWithRange(RayDropTable::Decision::kMostLikely));
  size_t near = 0;
  for (size_t k = 0; k < f.plain.size(); ++k)
    near += f.plain.range_m[k] < 10;
  ASSERT_GT(near, 1000u);
  ASSERT_LT(near, f.plain.size()) << "the plates must lie on both sides of 10 m";
  EXPECT_EQ(f.dropped.size(), near);
  for (size_t k = 0; k < f.dropped.size(); ++k)
    ASSERT_LT(f.dropped.range_m[k], 10.0);
}

TEST(BlockedDirections, AnAzimuthIsBlockedInsideItsChannelsIntervalsWrappedOrNot) {
  BlockedDirections b;
  b.channel.resize(3);
  b.channel[1] = {{-physics::kPi, -3.0}, {-0.5, 0.25}, {3.0, physics::kPi}};  // across +-pi
  EXPECT_TRUE(b.Blocked(1, 0.0));
  EXPECT_TRUE(b.Blocked(1, -0.5));   // from is inside
  EXPECT_FALSE(b.Blocked(1, 0.25));  // to is not
  EXPECT_FALSE(b.Blocked(1, 1.0));
  EXPECT_TRUE(b.Blocked(1, 3.1));
  EXPECT_TRUE(b.Blocked(1, -3.1));
  EXPECT_TRUE(b.Blocked(1, 0.1 + 2 * physics::kPi));  // any angle, wrapped
  EXPECT_TRUE(b.Blocked(1, -0.1 - 4 * physics::kPi));
  EXPECT_FALSE(b.Blocked(0, 0.0));  // another channel
  EXPECT_FALSE(b.Blocked(7, 0.0));  // beyond the list
  EXPECT_EQ(b.Intervals(), 3u);
  EXPECT_FALSE(b.empty());
  EXPECT_TRUE(BlockedDirections{}.empty());
}

TEST(BlockedDirections, ReadBackFromTheWriterAndRefuseWhatIsMalformed) {
  SensorProfile p = Os0();
  p.blocked_directions.channel.resize(5);
  p.blocked_directions.channel[4] = {{-1.0, -0.5}, {0.1, 0.2}};
  p.blocked_directions.channel[0] = {{3.0, physics::kPi}};
  p.blocked_directions.source = "a test";
  ASSERT_TRUE(p.Validate().ok()) << p.Validate().message();
  const std::string text = SaveSensorProfile(p, "test");
  auto back = ParseSensorProfile(text, "back.yaml");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->blocked_directions.source, "a test");
  ASSERT_EQ(back->blocked_directions.channel.size(), 5u);
  for (size_t c : {0, 4})
    for (size_t n = 0; n < p.blocked_directions.channel[c].size(); ++n) {
      EXPECT_NEAR(back->blocked_directions.channel[c][n].from_rad,
                  p.blocked_directions.channel[c][n].from_rad, 1e-12);
      EXPECT_NEAR(back->blocked_directions.channel[c][n].to_rad,
                  p.blocked_directions.channel[c][n].to_rad, 1e-12);
    }
  EXPECT_TRUE(back->blocked_directions.channel[2].empty());

  auto message = [&](auto change) {
    SensorProfile q = p;
    change(q.blocked_directions);
    return q.Validate().message();
  };
  EXPECT_NE(message([](BlockedDirections& b) {
              b.channel.resize(200);
              b.channel[150] = {{0, 1}};
            }).find("'blocked_directions.channels': channel 150: the scan has 128 channels"),
            std::string::npos);
  EXPECT_NE(message([](BlockedDirections& b) {
              b.channel[4][0] = {0.5, 0.4};
            })
                .find("channel 4: [28.64788976, 22.91831181] deg must lie in [-180, 180], "
                      "from < to"),
            std::string::npos)
      << message([](BlockedDirections& b) {
           b.channel[4][0] = {0.5, 0.4};
         });
  EXPECT_NE(message([](BlockedDirections& b) {
              std::swap(b.channel[4][0], b.channel[4][1]);
            }).find("must be sorted and disjoint"),
            std::string::npos);
  // As text: a channel listed twice, a channel that is no whole number, rows of three.
  const auto refused = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
    auto q = ParseSensorProfile(t, "bad.yaml");
    EXPECT_FALSE(q.ok());
    return q.ok() ? std::string() : q.message();
  };
  EXPECT_NE(refused("channel: 4", "channel: 0").find("channel 0 is listed twice"),
            std::string::npos);
  EXPECT_NE(refused("channel: 4", "channel: 4.5").find("must be a whole number"),
            std::string::npos);
  EXPECT_NE(refused("channel: 4", "channel: 1e12").find("must be a whole number"),
            std::string::npos);
}

// The simulator drops every return of a beam whose scan azimuth lies in its channel's blocked
// intervals, and nothing else.
TEST(BlockedDirections, TheSimulatorDropsTheReturnsOfBlockedBeamsOnly) {
  const SensorProfile plain = Os0();
  SensorProfile with = plain;
  with.blocked_directions.channel.resize(plain.elevation_rad.size());
  for (size_t c = 0; c < plain.elevation_rad.size(); c += 2)
    with.blocked_directions.channel[c] = {{-0.5, 0.2}};
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  const Trajectory still = Trajectory::Static();
  const Frame a = CpuSimulator(*scene, plain, still, {7, 0}).Simulate(0).value();
  const Frame b = CpuSimulator(*scene, with, still, {7, 0}).Simulate(0).value();
  size_t blocked = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    const double az = plain.Beam(a.beam_id[k]).azimuth_rad;
    blocked += with.blocked_directions.Blocked(a.channel[k], az);
  }
  ASSERT_GT(blocked, 1000u);
  ASSERT_LT(blocked, a.size() / 2);
  EXPECT_EQ(b.size(), a.size() - blocked);
  for (size_t k = 0; k < b.size(); ++k)
    ASSERT_FALSE(
        with.blocked_directions.Blocked(b.channel[k], plain.Beam(b.beam_id[k]).azimuth_rad));
  // The convention, from the points themselves: the returns dropped lie at azimuths atan2(y, x)
  // inside [-0.5, 0.2] rad and those kept on the blocked channels outside, but for 0.03 rad (the
  // beams' origins 27 mm off the axis, seen from the plates a few metres away).
  std::map<uint32_t, bool> kept;
  for (uint32_t id : b.beam_id)
    kept[id] = true;
  size_t dropped = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a.channel[k] % 2) continue;
    const double az = std::atan2(a.y_m[k], a.x_m[k]);
    if (kept.count(a.beam_id[k])) {
      EXPECT_FALSE(az > -0.5 + 0.03 && az < 0.2 - 0.03) << az;
    } else {
      EXPECT_TRUE(az > -0.5 - 0.03 && az < 0.2 + 0.03) << az;
      ++dropped;
    }
  }
  EXPECT_EQ(dropped, blocked);
}

}  // namespace
}  // namespace lt
