#include "lidartwin/physics/capability.h"

#include <gtest/gtest.h>

namespace lt::physics {
namespace {

// OS0-128 data sheet figures of seed 000 sec. III: d_max = 50 m at R_L,max = 80 %.
TEST(ReflectanceLimit, IsLinearFromZeroToTheDataSheetPoint) {  // seed 000 eq. (5)
  EXPECT_DOUBLE_EQ(ReflectanceLimit(0.0, 0.8, 50.0), 0.0);
  EXPECT_DOUBLE_EQ(ReflectanceLimit(50.0, 0.8, 50.0), 0.8);
  EXPECT_DOUBLE_EQ(ReflectanceLimit(25.0, 0.8, 50.0), 0.4);
  EXPECT_DOUBLE_EQ(ReflectanceLimit(12.5, 0.8, 50.0), 0.2);
}

TEST(CapabilityDetects, CutsExactlyAtTheLimit) {
  // A 10 % target is detectable out to d = 0.1 * 50 / 0.8 = 6.25 m.
  EXPECT_TRUE(CapabilityDetects(0.1, 6.25, 0.8, 50.0));
  EXPECT_FALSE(CapabilityDetects(0.1, 6.25 + 1e-9, 0.8, 50.0));
  EXPECT_TRUE(CapabilityDetects(0.1, 6.25 - 1e-9, 0.8, 50.0));
}

TEST(CapabilityDetects, DropsEverythingBeyondMaxRange) {
  EXPECT_TRUE(CapabilityDetects(1.0, 50.0, 0.8, 50.0));
  EXPECT_FALSE(CapabilityDetects(1.0, 50.0001, 0.8, 50.0));
}

}  // namespace
}  // namespace lt::physics

namespace lt::physics {
namespace {

// The farthest detected range agrees with the detection test on either side of it.
TEST(CapabilityMaxRange, IsWhereCapabilityDetectsStops) {
  for (double r : {0.05, 0.3, 0.8, 0.95}) {
    const double d = CapabilityMaxRange(r, 0.8, 50.0);
    EXPECT_TRUE(CapabilityDetects(r, d * (1 - 1e-9), 0.8, 50.0)) << r;
    EXPECT_FALSE(CapabilityDetects(r, d * (1 + 1e-9), 0.8, 50.0)) << r;
  }
  EXPECT_DOUBLE_EQ(CapabilityMaxRange(0.4, 0.8, 50.0), 25.0);
  EXPECT_DOUBLE_EQ(CapabilityMaxRange(0.95, 0.8, 50.0), 50.0);
}

}  // namespace
}  // namespace lt::physics
