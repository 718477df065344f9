// Ouster's beam model (lidartwin/physics/ouster_beam.h) against analytic cases and against the
// same point built another way: in the head's frame, then turned by the encoder angle.
#include "lidartwin/physics/ouster_beam.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace lt::physics {
namespace {

TEST(OusterBeam, EncoderAngleTurnsClockwiseFromAFullTurn) {
  EXPECT_DOUBLE_EQ(OusterEncoderAngle(0, 1024), 2 * kPi);
  EXPECT_DOUBLE_EQ(OusterEncoderAngle(256, 1024), 1.5 * kPi);
  EXPECT_DOUBLE_EQ(OusterEncoderAngle(512, 2048), 1.5 * kPi);
}

// A horizontal beam without azimuth offset leaves along the line through the lidar origin, so
// the point is the range from that origin, whatever the beam origin's offset.
TEST(OusterBeam, HorizontalBeamPutsThePointAtTheRangeFromTheLidarOrigin) {
  const OusterBeamOrigin origin{15.806, 0, 15.806};
  for (double encoder : {0.0, 0.7, 2.0, 4.5}) {
    const Vec3<double> p = OusterLidarPoint(1000.0, encoder, 0.0, 0.0, origin);
    EXPECT_NEAR(p.x, 1000 * std::cos(encoder), 1e-9);
    EXPECT_NEAR(p.y, 1000 * std::sin(encoder), 1e-9);
    EXPECT_NEAR(p.z, 0.0, 1e-12);
  }
  // Straight up: the beam origin's x stays where the head turned it, z is the range beyond it.
  const Vec3<double> up = OusterLidarPoint(500.0, 0.5 * kPi, 0.0, 90.0, {20.0, 3.0, 20.0});
  EXPECT_NEAR(up.x, 0.0, 1e-9);
  EXPECT_NEAR(up.y, 20.0, 1e-9);
  EXPECT_NEAR(up.z, 480.0 + 3.0, 1e-9);
}

// Independently: the point in the head's frame (beam origin on its x axis, the beam turned by
// its azimuth and altitude), turned about z by the encoder angle.
TEST(OusterBeam, EqualsThePointInTheHeadFrameTurnedByTheEncoder) {
  std::mt19937_64 rng(37);
  std::uniform_real_distribution<double> range(100, 2e5), angle(0, 2 * kPi), az(-5, 5),
      alt(-45, 45), off(0, 40);
  for (int k = 0; k < 1000; ++k) {
    const double d = range(rng), e = angle(rng), a = az(rng), h = alt(rng);
    const OusterBeamOrigin o{off(rng), off(rng) - 20, off(rng)};
    const double ta = -a * kDegToRad, phi = h * kDegToRad;
    const double hx = (d - o.offset_mm) * std::cos(ta) * std::cos(phi) + o.x_mm;
    const double hy = (d - o.offset_mm) * std::sin(ta) * std::cos(phi);
    const double hz = (d - o.offset_mm) * std::sin(phi) + o.z_mm;
    const Vec3<double> p = OusterLidarPoint(d, e, a, h, o);
    EXPECT_NEAR(p.x, std::cos(e) * hx - std::sin(e) * hy, 1e-7 * d);
    EXPECT_NEAR(p.y, std::sin(e) * hx + std::cos(e) * hy, 1e-7 * d);
    EXPECT_NEAR(p.z, hz, 1e-9 * d);
  }
}

}  // namespace
}  // namespace lt::physics
