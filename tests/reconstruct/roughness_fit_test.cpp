// The surfaces' roughness of a raw-intensity recording (roughness_fit.h, Oren and Nayar's sigma),
// fitted with the range gain from a drive that sees a road and walls at changing incidences:
// recovered over many seeds for truths across its range, its standard error covering the
// truth, and nothing found where the surfaces were Lambertian or the sensor stood still.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "lidartwin/physics/surface_response.h"
#include "lidartwin/reconstruct/recording_sensor_fit.h"

namespace lt {
namespace {

// A sensor 1.8 m above a road, driven step_m a frame along x past wall patches facing it at
// 4, 7 and 12 m to the side; every surface of roughness sigma, each 2 m stretch of road and
// each patch its own R0 (0.05-0.45), read as I = G(R) R0 DiffuseShading(sigma, cos theta) with
// G(R) = 40 sqrt(R) and 8 % log-normal noise. The road is seen from 2 m at 60 deg and from
// 30 m at 86 deg, as a driving sensor sees it.
PosedFrames DriveOverARoughRoad(double sigma, uint64_t seed, int frames = 6, double step_m = 4) {
  PosedFrames input;
  uint64_t state = seed * 2654435761ULL + 1;
  auto uniform = [&] {  // a 64-bit LCG (Knuth's MMIX constants)
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((state >> 11) + 0.5) / 9007199254740992.0;
  };
  auto gauss = [&] {
    return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
  };
  // Each surface's R0, drawn once per seed (the road's stretches, then the patches).
  std::vector<double> road_r0(30), wall_r0(3 * 30);
  for (double& r : road_r0)
    r = 0.05 + 0.4 * uniform();
  for (double& r : wall_r0)
    r = 0.05 + 0.4 * uniform();
  auto read = [&](double r0, double range, double cos_theta) {
    return static_cast<float>(40 * std::sqrt(range) * r0 *
                              physics::DiffuseShading(sigma, cos_theta) * std::exp(0.08 * gauss()));
  };
  for (int k = 0; k < frames; ++k) {
    const double sx = step_m * k;
    Frame f;
    auto add = [&](double x, double y, double z, float intensity) {
      FramePoint p;
      p.x_m = static_cast<float>(x);
      p.y_m = static_cast<float>(y);
      p.z_m = static_cast<float>(z);
      p.range_m = static_cast<float>(std::sqrt(x * x + y * y + z * z));
      p.intensity = intensity;
      f.Append(p);
    };
    // The road: world x 0..60 m, y -3..3 m, z = -1.8 m under the sensor's frame.
    for (double wx = 0.075; wx < 60; wx += 0.15)
      for (double wy = -2.925; wy < 3; wy += 0.15) {
        const double x = wx - sx, y = wy, z = -1.8;
        const double r = std::sqrt(x * x + y * y + z * z);
        if (r < 2 || r > 40) continue;
        add(x, y, z, read(road_r0[static_cast<size_t>(wx / 2)], r, 1.8 / r));
      }
    // The walls: 1.2 m squares every 2 m along x, facing the road.
    const double sides[] = {4, 7, 12};
    for (int s = 0; s < 3; ++s)
      for (int patch = 0; patch < 30; ++patch)
        for (int u = 0; u < 12; ++u)
          for (int v = 0; v < 12; ++v) {
            const double x = 2 * patch + 0.1 * u + 0.05 - sx, y = sides[s];
            const double z = -0.6 + 0.1 * v + 0.05;
            const double r = std::sqrt(x * x + y * y + z * z);
            if (r > 40) continue;
            add(x, y, z, read(wall_r0[static_cast<size_t>(s * 30 + patch)], r, y / r));
          }
    input.frames.push_back(std::move(f));
    const physics::Pose<double> pose{{1, 0, 0, 0}, {sx, 0, 0}};
    input.start_poses.push_back(pose);
    input.end_poses.push_back(pose);
  }
  return input;
}

// Truths from slightly to very rough (B / A 0.26 to 0.66), none the fit's start (0) or its
// grid's points; five seeds each. The estimate within 0.05 rad of the truth (its scatter over
// seeds: 0.003-0.009), the range gain's shape within 5 %, and the standard error's coverage
// (below). Below about
// 0.25 rad (B / A 0.2) the surfaces say less: at 0.17 rad one seed in six found a second,
// slightly lower minimum at 0.235 (roughness_fit.h).
TEST(RoughnessFit, RecoversTheSurfacesRoughnessOverManySeeds) {
  int covered = 0, fits = 0;
  double z2 = 0;
  for (double truth : {0.31, 0.53, 0.79, 1.13}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      const PosedFrames drive = DriveOverARoughRoad(truth, seed);
      RecordingFitOptions o;
      o.min_range_m = 1.5;
      o.max_range_m = 45;
      RangeGainCorrection across;
      SurfaceRoughness rough;
      auto reading = FitRawIntensityReading(drive, o, &across, &rough);
      ASSERT_TRUE(reading.ok()) << reading.message();
      ASSERT_GT(rough.cells, 100u);
      EXPECT_NEAR(rough.roughness_rad, truth, 0.05) << "seed " << seed;
      EXPECT_DOUBLE_EQ(reading->roughness_rad, rough.roughness_rad);
      ASSERT_TRUE(std::isfinite(rough.standard_error_rad) && rough.standard_error_rad > 0);
      const double z = (rough.roughness_rad - truth) / rough.standard_error_rad;
      covered += std::fabs(z) <= 2;
      z2 += z * z;
      ++fits;
      EXPECT_LT(rough.fitted_spread, rough.lambertian_spread);
      for (double r = 5; r <= 30; r *= 1.5) {
        const double expected = std::sqrt(r / 5);
        EXPECT_NEAR(reading->GainAt(r) / reading->GainAt(5), expected, 0.05 * expected)
            << "truth " << truth << " seed " << seed << " at " << r << " m";
      }
    }
  }
  // The standard error is the estimate's scatter over resampled surfaces, not the fit's bias:
  // two steps (the gain from the returns within 75 deg, sigma from all) leave sigma 0.01 low
  // at 0.79 rad and 0.026 low at 1.13 (one to two and a half standard errors; the scatter
  // over seeds matches the error). Measured: 15 of 20 within 2 sigma, errors' rms 1.7 sigma.
  EXPECT_GE(covered, fits * 7 / 10) << covered << " of " << fits;
  // Neither far too small nor far too large: the errors' rms in units of their standard error
  // (1 when it is right and unbiased; 0.3 would be an interval three times too wide).
  const double rms_z = std::sqrt(z2 / fits);
  EXPECT_GT(rms_z, 0.5);
  EXPECT_LT(rms_z, 2.2);
}

// Lambertian surfaces: sigma near 0; the reading then is the Lambertian one it was before.
TEST(RoughnessFit, LambertianSurfacesReadAsLambertian) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SurfaceRoughness rough;
    RangeGainCorrection across;
    RecordingFitOptions o;
    o.min_range_m = 1.5;
    o.max_range_m = 45;
    auto reading = FitRawIntensityReading(DriveOverARoughRoad(0, seed), o, &across, &rough);
    ASSERT_TRUE(reading.ok());
    EXPECT_LT(rough.roughness_rad, 0.05) << seed;
  }
}

// A still sensor sees each surface at one incidence: no cell says anything of sigma, and the
// reading stays Lambertian. With the fit turned off, sigma is never looked for.
TEST(RoughnessFit, AStillSensorOrNoFitLeavesTheReadingLambertian) {
  SurfaceRoughness rough;
  RangeGainCorrection across;
  RecordingFitOptions o;
  o.min_range_m = 1.5;
  o.max_range_m = 45;
  auto still = FitRawIntensityReading(DriveOverARoughRoad(0.8, 3, 3, 0.0), o, &across, &rough);
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(rough.cells, 0u);
  EXPECT_EQ(still->roughness_rad, 0.0);
  o.fit_roughness = false;
  auto off = FitRawIntensityReading(DriveOverARoughRoad(0.8, 3), o, &across, &rough);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->roughness_rad, 0.0);
}

}  // namespace
}  // namespace lt
