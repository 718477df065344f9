// Road spray's kinematics and geometry (physics/spray.h): the calibrated rate and time
// constant by hand, the closed-form quadratic drag against a numerical solution, and the chord
// a ray cuts through a sphere.
#include "lidartwin/physics/spray.h"

#include <gtest/gtest.h>

#include <cmath>

namespace lt::physics {
namespace {

// 1 mm of water at 100 km/h: (0.2 + 0.1) x 50 clusters a 0.1 s cycle, 150 a second, with a
// time constant of 0.02 x 50 + 0.2 = 1.2 s; at 2 mm and 130 km/h, 0.5 x 80 / 0.1 = 400 and 3.4 s.
// None at or below 50 km/h.
TEST(Spray, TheRateAndTimeConstantAreTheCalibratedModels) {
  EXPECT_NEAR(SprayClustersPerS(1, 100), 150, 1e-9);
  EXPECT_NEAR(SprayTimeConstantS(1, 100), 1.2, 1e-12);
  EXPECT_NEAR(SprayClustersPerS(2, 130), 400, 1e-9);
  EXPECT_NEAR(SprayTimeConstantS(2, 130), 3.4, 1e-12);
  EXPECT_EQ(SprayClustersPerS(5, 50), 0);
  EXPECT_EQ(SprayClustersPerS(5, 30), 0);
}

// du/dt = -k u^2 from u0 = 30 m/s, k = 0.12 /m, integrated by RK4 in 1e-4 s steps: the closed
// forms' distance and speed agree to 1e-6 m and m/s over 2 s.
TEST(Spray, QuadraticDragMatchesANumericalSolution) {
  const double u0 = 30, k = 0.12, h = 1e-4;
  double x = 0, u = u0;
  auto du = [&](double v) { return -k * v * v; };
  for (int s = 1; s <= 20000; ++s) {
    const double k1u = du(u), k1x = u;
    const double k2u = du(u + 0.5 * h * k1u), k2x = u + 0.5 * h * k1u;
    const double k3u = du(u + 0.5 * h * k2u), k3x = u + 0.5 * h * k2u;
    const double k4u = du(u + h * k3u), k4x = u + h * k3u;
    x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    u += h / 6 * (k1u + 2 * k2u + 2 * k3u + k4u);
    if (s % 5000 == 0) {
      EXPECT_NEAR(DragDistanceM(u0, k, s * h), x, 1e-6) << s * h;
      EXPECT_NEAR(DragSpeedMS(u0, k, s * h), u, 1e-6) << s * h;
    }
  }
}

// A ray past a sphere's centre at offset d cuts a chord of half-length sqrt(r^2 - d^2) about
// the foot of the perpendicular; its ends lie on the sphere. A ray farther off misses.
TEST(Spray, ASphereChordIsWhereTheRayIsInside) {
  const Vec3<double> o{1, 2, 3}, d{0.6, 0.8, 0};
  const Vec3<double> foot{1 + 0.6 * 10, 2 + 0.8 * 10, 3};
  const Vec3<double> centre{foot.x - 0.8 * 0.3, foot.y + 0.6 * 0.3, foot.z};  // 0.3 m off
  double t0 = 0, t1 = 0;
  ASSERT_TRUE(SphereChord(o, d, centre, 0.5, &t0, &t1));
  EXPECT_NEAR(t0, 10 - 0.4, 1e-12);
  EXPECT_NEAR(t1, 10 + 0.4, 1e-12);
  for (double t : {t0, t1}) {
    const Vec3<double> p{o.x + t * d.x - centre.x, o.y + t * d.y - centre.y,
                         o.z + t * d.z - centre.z};
    EXPECT_NEAR(std::sqrt(Dot(p, p)), 0.5, 1e-12);
  }
  EXPECT_FALSE(SphereChord(o, d, centre, 0.29, &t0, &t1));
}

}  // namespace
}  // namespace lt::physics
