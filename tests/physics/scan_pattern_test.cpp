#include "lidartwin/physics/scan_pattern.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace lt::physics {
namespace {

TEST(BeamDirection, IsUnitAndFollowsTheAxisConvention) {
  const auto fwd = BeamDirection(0.0, 0.0);
  EXPECT_DOUBLE_EQ(fwd.x, 1.0);
  const auto left = BeamDirection(kPi / 2, 0.0);
  EXPECT_NEAR(left.y, 1.0, 1e-15);
  const auto up = BeamDirection(0.3, kPi / 2);
  EXPECT_NEAR(up.z, 1.0, 1e-15);
  const auto d = BeamDirection(1.1, -0.4);
  EXPECT_NEAR(Norm(d), 1.0, 1e-15);
}

TEST(SpinningBeam, ColumnTimesAndClockwiseAzimuths) {
  const std::vector<double> el = {0.1, -0.1};
  const std::vector<double> az = {0.0, 0.01};
  const std::vector<double> fire = {0.0, 2e-6};
  const SpinningScan<double> s{el.data(), az.data(), fire.data(), 2, 100, 10.0, 0.0, true};
  // Beam 5 = column 2, channel 1: t = 2 / (100 * 10) + 2e-6 s.
  const BeamSample<double> b = SpinningBeam(s, 5);
  EXPECT_EQ(b.column, 2u);
  EXPECT_EQ(b.channel, 1u);
  const double t = 2.0 / 1000.0 + 2e-6;
  EXPECT_DOUBLE_EQ(b.time_s, t);
  EXPECT_NEAR(b.azimuth_rad, -2 * kPi * 10 * t + 0.01, 1e-15);
  EXPECT_DOUBLE_EQ(b.elevation_rad, -0.1);
}

TEST(LissajousBeam, FollowsTheTwoSines) {
  const LissajousScan<double> s{0.2, 0.1, 250, 251, 0.0, kPi / 4, 1e5, 10000};
  const BeamSample<double> b = LissajousBeam(s, 1234);
  const double t = 1234 / 1e5;
  EXPECT_DOUBLE_EQ(b.time_s, t);
  EXPECT_NEAR(b.azimuth_rad, 0.2 * std::sin(2 * kPi * 250 * t), 1e-12);
  EXPECT_NEAR(b.elevation_rad, 0.1 * std::sin(2 * kPi * 251 * t + kPi / 4), 1e-12);
}

// Cube 1 style line scan (seed 002 Fig. 6 numbers): 30 x 10 deg, 80 lines, 0.4 deg steps.
TEST(LineScanBeam, LinesAlternateAndFireAtTheMirrorsArcsine) {
  const double a = 15 * kDegToRad, v = 5 * kDegToRad, f = 268;
  const uint32_t n = 75;  // 30 deg / 0.4 deg, pulses at the step centres
  const LineScan<double> s{a, v, f, 0.4 * kDegToRad, 80, n};
  const double line_period = 1 / (2 * f);
  auto fire_time = [&](double azimuth_deg, int line) {
    // Independent form: the mirror is at -A (even line) or +A (odd line) at the line start.
    const double sweep = line % 2 == 0 ? azimuth_deg : -azimuth_deg;
    return line * line_period + (std::asin(sweep / 15) + kPi / 2) / (2 * kPi * f);
  };
  // Line 0 runs from -14.8 deg up; its middle point (0 deg) fires a quarter period in.
  EXPECT_NEAR(LineScanBeam(s, 0).azimuth_rad, -14.8 * kDegToRad, 1e-12);
  EXPECT_NEAR(LineScanBeam(s, 0).time_s, fire_time(-14.8, 0), 1e-15);
  const BeamSample<double> mid = LineScanBeam(s, 37);  // -15 + 37.5 * 0.4 = 0 deg
  EXPECT_NEAR(mid.azimuth_rad, 0.0, 1e-15);
  EXPECT_NEAR(mid.time_s, line_period / 2, 1e-15);
  // Line 1 runs back from +14.8 deg.
  const BeamSample<double> first_of_line1 = LineScanBeam(s, n);
  EXPECT_NEAR(first_of_line1.azimuth_rad, 14.8 * kDegToRad, 1e-12);
  EXPECT_NEAR(first_of_line1.time_s, fire_time(14.8, 1), 1e-12);
  // Elevation rises linearly from -5 deg to +5 deg over the 80 lines ("only up").
  const BeamSample<double> last = LineScanBeam(s, 80 * n - 1);
  EXPECT_NEAR(last.elevation_rad, -v + 2 * v * last.time_s / (80 * line_period), 1e-15);
  EXPECT_NEAR(LineScanBeam(s, 0).elevation_rad,
              -v + 2 * v * fire_time(-14.8, 0) / (80 * line_period), 1e-15);
  for (uint32_t i = 0; i + 1 < 80 * n; ++i) {
    ASSERT_LT(LineScanBeam(s, i).time_s, LineScanBeam(s, i + 1).time_s) << i;
  }
}

}  // namespace
}  // namespace lt::physics
