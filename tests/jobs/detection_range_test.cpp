// The demo's detection ranges (jobs/src/detection_range.h): the OS0-128 threshold profile cut to
// one beam sees an 80 % plate to the 50 m its threshold was set for, a 10 % one to the inverse
// square's 50 sqrt(0.1 / 0.8) m, and in fog to the link budget's W(alpha R_c) / alpha.
#include "detection_range.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lidartwin/physics/fog.h"
#include "test_support.h"

namespace lt::jobs {
namespace {

TEST(DetectionRange, ClearAirAndFogFollowTheLinkBudget) {
  auto profile = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(profile.ok()) << profile.message();
  const SensorProfile beam = OneBeamAhead(*profile);
  EXPECT_EQ(beam.BeamCount(), 1u);
  // The profile's comment: 20 W x 0.8 x (0.02 m)^2 / (4 x 50^2 m^2) x 0.9 = 576 nW, its
  // threshold. The footprint's sub-rays leave a few mrad off the normal: 1e-5 of the range.
  auto clear80 = DetectionRangeM(beam, 0.8, {}, 7);
  auto clear10 = DetectionRangeM(beam, 0.1, {}, 7);
  ASSERT_TRUE(clear80.ok() && clear10.ok()) << clear80.message() << clear10.message();
  EXPECT_NEAR(*clear80, 50.0, 0.01);
  EXPECT_NEAR(*clear10, 50.0 * std::sqrt(0.1 / 0.8), 0.01);
  for (double visibility : {30.0, 50.0, 100.0}) {
    WeatherDescription fog;
    fog.fog = FogDescription{.visibility_m = visibility, .backscatter = false};
    const double alpha = std::log(20.0) / visibility;  // below 500 m: every wavelength alike
    for (auto [reflectance, clear] : {std::pair{0.8, *clear80}, std::pair{0.1, *clear10}}) {
      auto range = DetectionRangeM(beam, reflectance, fog, 7);
      ASSERT_TRUE(range.ok()) << range.message();
      // Bisection to 1 mm on each side of the comparison.
      EXPECT_NEAR(*range, physics::FogDetectionRangeM(clear, alpha), 3e-3)
          << "visibility " << visibility << " m, reflectance " << reflectance;
      EXPECT_LT(*range, clear);
    }
  }
}

TEST(DetectionRange, AnIdealDetectorIsRefusedInFog) {
  auto profile = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(profile.ok()) << profile.message();
  WeatherDescription fog;
  fog.fog = FogDescription{50};
  auto range = DetectionRangeM(OneBeamAhead(*profile), 0.8, fog, 7);
  ASSERT_FALSE(range.ok());
  EXPECT_NE(range.message().find("weather.fog"), std::string::npos) << range.message();
}

}  // namespace
}  // namespace lt::jobs
