// A dirty or wet cover's optics (physics/cover.h): which regions a direction crosses, including
// one that straddles azimuth +-180 deg, layers that overlap, the two passes, and the window's
// return by hand.
#include "lidartwin/physics/cover.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lidartwin/physics/scan_pattern.h"

namespace lt::physics {
namespace {

CoverRegion Region(double az_from_deg, double az_to_deg, double el_from_deg, double el_to_deg,
                   float transmission, float backscatter) {
  return {static_cast<float>(az_from_deg * kDegToRad),
          static_cast<float>((az_to_deg - az_from_deg) * kDegToRad),
          static_cast<float>(el_from_deg * kDegToRad),
          static_cast<float>(el_to_deg * kDegToRad),
          transmission,
          backscatter};
}

Vec3<double> Towards(double az_deg, double el_deg) {
  return BeamDirection(az_deg * kDegToRad, el_deg * kDegToRad);
}

TEST(Cover, ADirectionCrossesTheRegionsItPointsThrough) {
  CoverView v;
  v.regions = 2;
  v.region[0] = Region(170, 200, -5, 5, 0.5f, 1e-5f);  // straddles +-180
  v.region[1] = Region(-30, 30, -90, 90, 0.8f, 2e-5f);
  EXPECT_EQ(CoverAt(v, Towards(-175, 0)).transmission, 0.5f);  // 185 deg, inside
  EXPECT_EQ(CoverAt(v, Towards(175, 0)).transmission, 0.5f);
  EXPECT_EQ(CoverAt(v, Towards(-155, 0)).transmission, 1.0);  // 205 deg, past its end
  EXPECT_EQ(CoverAt(v, Towards(165, 0)).transmission, 1.0);   // before its start
  EXPECT_EQ(CoverAt(v, Towards(180, 6)).transmission, 1.0);   // above it
  EXPECT_EQ(CoverAt(v, Towards(0, 80)).transmission, 0.8f);
  EXPECT_EQ(CoverAt(v, Towards(0, 80)).backscatter, 2e-5f);
  EXPECT_EQ(CoverAt(v, Towards(90, 0)).backscatter, 0.0);
  // A third region over the second: layers, their transmissions multiply, backscatter adds.
  v.regions = 3;
  v.region[2] = Region(-180, 180, -90, 90, 0.9f, 1e-5f);
  EXPECT_NEAR(CoverAt(v, Towards(10, 0)).transmission, 0.8 * 0.9, 1e-7);
  EXPECT_NEAR(CoverAt(v, Towards(10, 0)).backscatter, 3e-5, 1e-12);
  // A clean window: nothing.
  EXPECT_EQ(CoverAt(CoverView{}, Towards(0, 0)).transmission, 1.0);
}

TEST(Cover, AReturnCrossesTwiceAndTheWindowReturnsItsShare) {
  EXPECT_DOUBLE_EQ(CoverTwoWayTransmission(0.7), 0.49);
  const LinkBudget l{20.0, 0.025, 0.9, 0.0};
  EXPECT_DOUBLE_EQ(WindowReturnPower(l, 1e-6), 1.8e-5);  // 1e-6 x 20 W x 0.9, by hand
}

}  // namespace
}  // namespace lt::physics
