#include "lidartwin/physics/scan_pattern.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// ---- airborne patterns (seed 001 sec. 5.1) ----

// Where a beam from a sensor at height h above flat ground, moved by `along_m` along +x since
// the frame start, meets the ground (z = -h in the sensor's starting frame).
Vec3<double> GroundPoint(const BeamSample<double>& b, double h, double along_m) {
  const Vec3<double> d = BeamDirection(b.azimuth_rad, b.elevation_rad);
  EXPECT_LT(d.z, 0) << "looks up";
  const double s = h / -d.z;
  return {along_m + s * d.x, s * d.y, -h};
}

// The scan angle of an across-track beam, from its direction: theta = atan2(d_y, -d_z).
double ScanAngle(const BeamSample<double>& b) {
  const Vec3<double> d = BeamDirection(b.azimuth_rad, b.elevation_rad);
  return std::atan2(d.y, -d.z);
}

// 60 deg field of view, 100 lines/s, 60 % of each line sweeping, 600 pulses per line.
const SwathScan<double> kSwath{30 * kDegToRad, 0.01, 0.006, 600, 10};

TEST(AcrossTrackAngles, GiveTheDirectionInTheYzPlane) {
  for (double theta_deg : {-75.0, -30.0, -0.5, 0.0, 0.5, 30.0, 89.0}) {
    const double theta = theta_deg * kDegToRad;
    const AcrossTrack<double> a = AcrossTrackAngles(theta);
    const Vec3<double> d = BeamDirection(a.azimuth_rad, a.elevation_rad);
    EXPECT_NEAR(d.x, 0, 1e-15) << theta_deg;
    EXPECT_NEAR(d.y, std::sin(theta), 1e-15) << theta_deg;
    EXPECT_NEAR(d.z, -std::cos(theta), 1e-15) << theta_deg;
    EXPECT_GE(a.elevation_rad, -kPi / 2) << theta_deg;  // inside the documented range
    EXPECT_LE(a.elevation_rad, 0) << theta_deg;
  }
  // Nadir: straight down.
  const AcrossTrack<double> nadir = AcrossTrackAngles(0.0);
  EXPECT_DOUBLE_EQ(nadir.elevation_rad, -kPi / 2);
}

TEST(ParallelBeam, EveryLineSweepsRightToLeftAtTheSlotCentres) {
  const SwathScan<double>& s = kSwath;
  const double a = s.half_angle_rad, step = 2 * a / 600;
  const double h = 500;
  for (uint32_t line = 0; line < s.lines; ++line) {
    for (uint32_t k : {0u, 1u, 299u, 300u, 599u}) {
      const BeamSample<double> b = ParallelBeam(s, line * 600 + k);
      EXPECT_EQ(b.channel, line);
      EXPECT_EQ(b.column, k);
      EXPECT_NEAR(ScanAngle(b), -a + (k + 0.5) * step, 1e-12);
      EXPECT_NEAR(b.time_s, line * 0.01 + (k + 0.5) * 0.006 / 600, 1e-15);
      // Across track only: on the ground straight below the flight line's point.
      EXPECT_NEAR(GroundPoint(b, h, 0).x, 0, 1e-9);
      EXPECT_NEAR(GroundPoint(b, h, 0).y, h * std::tan(-a + (k + 0.5) * step), 1e-9);
    }
    // The same way on every line: the ground y rises with the firing order.
    double last_y = -1e300;
    for (uint32_t k = 0; k < 600; ++k) {
      const double y = GroundPoint(ParallelBeam(s, line * 600 + k), h, 0).y;
      ASSERT_GT(y, last_y) << "line " << line << " pulse " << k;
      last_y = y;
    }
  }
  // The swath: +-h tan(A - step / 2), symmetric about the flight line.
  EXPECT_NEAR(GroundPoint(ParallelBeam(s, 0), h, 0).y, -h * std::tan(a - step / 2), 1e-9);
  EXPECT_NEAR(GroundPoint(ParallelBeam(s, 599), h, 0).y, h * std::tan(a - step / 2), 1e-9);
  // The fly-back: from +A back to -A between lines, in the idle 40 % of the line period.
  const BeamSample<double> end = ParallelBeam(s, 599), next = ParallelBeam(s, 600);
  EXPECT_NEAR(ScanAngle(next) - ScanAngle(end), -2 * a + step, 1e-12);
  EXPECT_NEAR(next.time_s - end.time_s, 0.01 - 0.006 + 0.006 / 600, 1e-15);
  // A column is the same scan angle on every line: the lines on the ground are parallel.
  EXPECT_NEAR(ScanAngle(ParallelBeam(s, 5 * 600 + 123)), ScanAngle(ParallelBeam(s, 123)), 1e-15);
}

TEST(ZigzagBeam, LinesAlternateAtConstantAngularSpeedAndTurnAtTheEdges) {
  const SwathScan<double>& s = kSwath;
  const double a = s.half_angle_rad, step = 2 * a / 600;
  const double h = 500, v = 50;        // 50 m/s along +x
  const double speed = 2 * a / 0.006;  // rad/s while sweeping
  for (uint32_t line = 0; line < s.lines; ++line) {
    const double sign = line % 2 == 0 ? 1 : -1;  // even lines sweep -A -> +A
    for (uint32_t k = 0; k < 600; ++k) {
      const BeamSample<double> b = ZigzagBeam(s, line * 600 + k);
      EXPECT_EQ(b.channel, line);
      // The column is the position across the swath, not the firing order.
      ASSERT_EQ(b.column, line % 2 == 0 ? k : 599 - k);
      ASSERT_NEAR(ScanAngle(b), -a + (b.column + 0.5) * step, 1e-12);
      ASSERT_NEAR(b.time_s, line * 0.01 + (k + 0.5) * 0.006 / 600, 1e-15);
      // Constant angular speed: the scan angle is linear in time within the line.
      const double t_line = b.time_s - line * 0.01;
      ASSERT_NEAR(ScanAngle(b), sign * (-a + speed * t_line), 1e-12) << line << " " << k;
    }
  }
  // On the ground, with the platform moving: each line ends on the side where the next one
  // starts, and the line ends alternate between the right (-y) and the left (+y) edge.
  for (uint32_t line = 0; line < s.lines; ++line) {
    const BeamSample<double> first = ZigzagBeam(s, line * 600);
    const BeamSample<double> last = ZigzagBeam(s, line * 600 + 599);
    const Vec3<double> p0 = GroundPoint(first, h, v * first.time_s);
    const Vec3<double> p1 = GroundPoint(last, h, v * last.time_s);
    const double side = line % 2 == 0 ? 1 : -1;
    EXPECT_NEAR(p1.y, side * h * std::tan(a - step / 2), 1e-9) << line;
    EXPECT_NEAR(p0.y, -p1.y, 1e-9) << line;
    EXPECT_GT(p1.x, p0.x) << line;  // the zigzag advances along track
    if (line + 1 < s.lines) {
      const BeamSample<double> next = ZigzagBeam(s, (line + 1) * 600);
      EXPECT_NEAR(ScanAngle(next), ScanAngle(last), 1e-15) << line;  // turns, no fly-back
    }
  }
  // No jumps anywhere: consecutive pulses differ by at most one step in scan angle.
  for (uint32_t i = 0; i + 1 < s.lines * 600; ++i) {
    ASSERT_LE(std::abs(ScanAngle(ZigzagBeam(s, i + 1)) - ScanAngle(ZigzagBeam(s, i))), step + 1e-12)
        << i;
  }
}

// 15 deg off nadir, 20 revolutions/s, 500 pulses per revolution, 2 revolutions per frame.
const EllipticalScan<double> kPalmer{15 * kDegToRad, 0.05, 500, 2};

TEST(EllipticalBeam, EveryBeamIsTheConeAngleOffNadir) {
  const EllipticalScan<double>& s = kPalmer;
  const double h = 500, r = h * std::tan(s.off_nadir_rad);
  for (uint32_t i = 0; i < 1000; ++i) {
    const BeamSample<double> b = EllipticalBeam(s, i);
    const Vec3<double> d = BeamDirection(b.azimuth_rad, b.elevation_rad);
    ASSERT_NEAR(std::acos(-d.z), 15 * kDegToRad, 1e-12) << i;
    EXPECT_EQ(b.channel, i / 500);
    EXPECT_EQ(b.column, i % 500);
    EXPECT_NEAR(b.time_s, i * 0.05 / 500, 1e-15);
    EXPECT_NEAR(b.azimuth_rad, 2 * kPi * (i % 500) / 500.0, 1e-12);
    // Stationary sensor: a circle of radius h tan(alpha) about the nadir point.
    const Vec3<double> g = GroundPoint(b, h, 0);
    ASSERT_NEAR(std::hypot(g.x, g.y), r, 1e-9) << i;
  }
  // Forward first, then left (counter-clockwise seen from above).
  EXPECT_NEAR(GroundPoint(EllipticalBeam(s, 0), h, 0).x, r, 1e-9);
  EXPECT_NEAR(GroundPoint(EllipticalBeam(s, 125), h, 0).y, r, 1e-9);
  // Moving at v: one revolution's loop is 2r + v T long along track and 2r wide.
  const double v = 50;
  double min_x = 1e300, max_x = -1e300, min_y = 1e300, max_y = -1e300;
  for (uint32_t i = 0; i < 500; ++i) {
    const BeamSample<double> b = EllipticalBeam(s, i);
    const Vec3<double> g = GroundPoint(b, h, v * b.time_s);
    min_x = std::min(min_x, g.x);
    max_x = std::max(max_x, g.x);
    min_y = std::min(min_y, g.y);
    max_y = std::max(max_y, g.y);
  }
  EXPECT_NEAR(max_y - min_y, 2 * r, 1e-3);
  EXPECT_GT(max_x - min_x, 2 * r);
  EXPECT_LT(max_x - min_x, 2 * r + v * 0.05);
}

ScanPattern<double> Airborne(ScanKind kind) {
  ScanPattern<double> p{};
  p.kind = kind;
  p.swath = kSwath;
  p.elliptical = kPalmer;
  return p;
}

TEST(ScanBeam, DispatchesTheAirbornePatterns) {
  EXPECT_EQ(ScanBeamCount(Airborne(ScanKind::kParallel)), 6000u);
  EXPECT_EQ(ScanBeamCount(Airborne(ScanKind::kZigzag)), 6000u);
  EXPECT_EQ(ScanBeamCount(Airborne(ScanKind::kElliptical)), 1000u);
  // Counted in 64 bits: 57,266,231 lines of 75 points are 2^32 + 29 beams, not 29 (issue 36).
  ScanPattern<double> lines{};
  lines.kind = ScanKind::kLineScan;
  lines.line_scan.lines = 57266231;
  lines.line_scan.points_per_line = 75;
  EXPECT_EQ(ScanBeamCount(lines), 4294967325u);
  for (uint32_t i : {0u, 601u, 5999u}) {
    EXPECT_EQ(ScanBeam(Airborne(ScanKind::kParallel), i).time_s, ParallelBeam(kSwath, i).time_s);
    EXPECT_EQ(ScanBeam(Airborne(ScanKind::kZigzag), i).column, ZigzagBeam(kSwath, i).column);
  }
  EXPECT_EQ(ScanBeam(Airborne(ScanKind::kElliptical), 777).azimuth_rad,
            EllipticalBeam(kPalmer, 777).azimuth_rad);
}

// The frame code cuts a frame into runs of beams by time (MotionSlices), which relies on
// firing times rising with the beam index; and the pattern must carry on into the next frame
// (frame period = lines x line period) without a pulse out of order.
TEST(AirbornePatterns, TimesRiseWithTheBeamIndexAndFitTheFrame) {
  for (ScanKind kind : {ScanKind::kParallel, ScanKind::kZigzag, ScanKind::kElliptical}) {
    const ScanPattern<double> p = Airborne(kind);
    const uint32_t n = ScanBeamCount(p);
    const double frame_s = kind == ScanKind::kElliptical ? 2 * 0.05 : 10 * 0.01;
    EXPECT_GE(ScanBeam(p, 0).time_s, 0);
    for (uint32_t i = 0; i + 1 < n; ++i) {
      ASSERT_LT(ScanBeam(p, i).time_s, ScanBeam(p, i + 1).time_s) << i;
    }
    EXPECT_LT(ScanBeam(p, n - 1).time_s, frame_s);
  }
}

// The float instantiation (CUDA kernels) agrees with the double one.
TEST(AirbornePatterns, FloatMatchesDouble) {
  const SwathScan<float> swath{30 * static_cast<float>(kDegToRad), 0.01f, 0.006f, 600, 10};
  const EllipticalScan<float> palmer{15 * static_cast<float>(kDegToRad), 0.05f, 500, 2};
  for (uint32_t i : {0u, 299u, 300u, 601u, 5999u}) {
    const auto f = ZigzagBeam(swath, i);
    const auto d = ZigzagBeam(kSwath, i);
    EXPECT_NEAR(f.azimuth_rad, d.azimuth_rad, 1e-6);
    EXPECT_NEAR(f.elevation_rad, d.elevation_rad, 1e-6);
    EXPECT_NEAR(f.time_s, d.time_s, 1e-7);
    EXPECT_EQ(f.column, d.column);
  }
  for (uint32_t i : {0u, 250u, 999u}) {
    EXPECT_NEAR(EllipticalBeam(palmer, i).azimuth_rad, EllipticalBeam(kPalmer, i).azimuth_rad,
                1e-5);
    EXPECT_NEAR(EllipticalBeam(palmer, i).time_s, EllipticalBeam(kPalmer, i).time_s, 1e-7);
  }
}

}  // namespace
}  // namespace lt::physics
