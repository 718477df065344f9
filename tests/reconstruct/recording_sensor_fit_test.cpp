// What reproduce learns from the reconstruction frames (issue 12): the range gain of a raw
// intensity, the capability detector's bound and the threshold detector's threshold, against the
// values the returns were made with and against a direct computation.
#include "lidartwin/reconstruct/recording_sensor_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

namespace lt {
namespace {

// Returns at log-spaced ranges 2..60 m, R0 cycling over a fixed set, seen head-on, with a raw
// intensity I = G(R) R0, G(R) = 40 sqrt(R) (brighter with range, as the HDL-32E's byte is).
Frame RawFrame() {
  Frame f;
  const double r0[] = {0.05, 0.1, 0.2, 0.3, 0.5};
  for (int i = 0; i < 20000; ++i) {
    FramePoint p;
    const double r = 2 * std::pow(30.0, (i % 1000) / 999.0);
    p.x_m = static_cast<float>(r);
    p.range_m = static_cast<float>(r);
    p.intensity = static_cast<float>(40 * std::sqrt(r) * r0[i % 5]);
    f.Append(p);
  }
  return f;
}

TEST(RecordingSensorFit, TheRangeGainFollowsTheIntensitysRangeDependence) {
  RecordingFitOptions o;
  auto reading = FitRawIntensityReading({RawFrame()}, o);
  ASSERT_TRUE(reading.ok()) << reading.message();
  ASSERT_GE(reading->gain.size(), 10u);
  // G is known up to its scale: the fitted one against 40 sqrt(R) at every bin centre, over
  // the value at the first; bins hold medians of R0-cycling samples, so 3 % suffices.
  const double r_first = reading->gain_range_m.front();
  for (size_t b = 0; b < reading->gain.size(); ++b) {
    const double expected = std::sqrt(reading->gain_range_m[b] / r_first);
    EXPECT_NEAR(reading->gain[b] / reading->gain.front(), expected, 0.03 * expected) << b;
  }
  // The scale: the median return reads as the nominal reflectance.
  std::vector<double> r0;
  const Frame f = RawFrame();
  for (size_t i = 0; i < f.size(); ++i)
    r0.push_back(f.intensity[i] / reading->GainAt(f.range_m[i]));
  std::nth_element(r0.begin(), r0.begin() + r0.size() / 2, r0.end());
  EXPECT_NEAR(r0[r0.size() / 2], o.nominal_reflectance, 0.01);
}

// A sensor that reads 0 on four returns in five nearer than 4 m, the fifth at its usual gain
// (a Pandar64 nearer than 1.5 m): those bins' median is 0, so they take their mean, G there
// falls to a fifth of what the returns beyond would give, and those returns are simulated near
// 0 as they read; bridged at the neighbours' level, they were simulated at full gain.
TEST(RecordingSensorFit, BinsThatMostlyReadZeroTakeTheirMean) {
  Frame f = RawFrame();
  for (size_t i = 0; i < f.size(); ++i)
    if (f.range_m[i] < 4 && i % 5 != 0) f.intensity[i] = 0;
  auto reading = FitRawIntensityReading({f}, {});
  auto clean = FitRawIntensityReading({RawFrame()}, {});
  ASSERT_TRUE(reading.ok() && clean.ok());
  ASSERT_LT(reading->gain_range_m.front(), 3.0) << "the near bins are kept";
  // Near: the mean of a fifth of the returns at R0 0.05 (i % 5 == 0) against the clean median
  // (R0 0.2): 0.05 / 5 / 0.2 of it. Far: the same shape as the clean fit.
  const double near_ratio = reading->GainAt(2.5) / clean->GainAt(2.5);
  const double far_ratio = reading->GainAt(30) / clean->GainAt(30);
  EXPECT_NEAR(near_ratio / far_ratio, 0.05 / 5 / 0.2, 0.01);
  // A bin where every return reads 0 has no gain node at all (a 0 there would read every
  // return in it as NaN or as the brightest): the nodes left are positive.
  for (size_t i = 0; i < f.size(); ++i)
    if (f.range_m[i] < 4) f.intensity[i] = 0;
  auto dark = FitRawIntensityReading({f}, {});
  ASSERT_TRUE(dark.ok()) << dark.message();
  EXPECT_GT(dark->gain_range_m.front(), 3.5);
  for (double g : dark->gain)
    EXPECT_GT(g, 0);
}

// A bright tail (one return in fifty a plate or a sign reading 15 times the median surface):
// the scale keeps it inside the diffuse range, the tail's quantile reading tail_reflectance, and
// the ratios between returns stay those of the intensities.
TEST(RecordingSensorFit, TheBrightTailIsKeptBelowTheClampAndTheRatiosKept) {
  Frame f = RawFrame();
  for (size_t i = 4; i < f.size(); i += 50)  // R0 0.5 returns made 15 times brighter
    f.intensity[i] *= 15;
  RecordingFitOptions o;
  auto reading = FitRawIntensityReading({f}, o);
  ASSERT_TRUE(reading.ok()) << reading.message();
  std::vector<double> r0;
  for (size_t i = 0; i < f.size(); ++i)
    r0.push_back(f.intensity[i] / reading->GainAt(f.range_m[i]));
  std::sort(r0.begin(), r0.end());
  const double tail = r0[static_cast<size_t>(o.tail_quantile * (r0.size() - 1))];
  EXPECT_NEAR(tail, o.tail_reflectance, 0.02);
  EXPECT_LT(r0[r0.size() / 2], o.nominal_reflectance);  // the median reads darker than nominal
  // Without the tail the nominal scale stands (the test above): the tail only rescales.
  EXPECT_GT(r0[r0.size() / 2], 0.02);
}

// A sensor driven 4 m a frame along x past wall patches (1.2 m squares facing it) whose
// reflectance grows with their distance from the road (0.04 at 3 m, 0.6 at 35 m: the road
// and kerb near a car, facades far from it), read with I = G(R) R0 cos(theta) and 10 %
// log-normal noise, G(R) = 40 sqrt(R).
PosedFrames DrivePastWalls(int frames, double step_m) {
  PosedFrames input;
  const double offsets[] = {3, 5, 8, 12, 18, 25, 35};
  uint64_t state = 12345;
  auto gauss = [&] {  // Box-Muller on a 64-bit LCG (Knuth's MMIX constants)
    auto uniform = [&] {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return ((state >> 11) + 0.5) / 9007199254740992.0;
    };
    return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * M_PI * uniform());
  };
  for (int k = 0; k < frames; ++k) {
    const double sx = step_m * k;
    Frame f;
    for (double d : offsets) {
      const double r0 = 0.04 * std::pow(15.0, std::log(d / 3) / std::log(35.0 / 3));
      for (double px = 0; px <= 40; px += 2)
        for (int u = 0; u < 12; ++u)
          for (int v = 0; v < 12; ++v) {
            // The patch's point in the world, then in the sensor's frame (translated only).
            const double wx = px + 0.1 * u + 0.05, wz = -0.6 + 0.1 * v + 0.05;
            const double x = wx - sx, y = d, z = wz;
            const double r = std::sqrt(x * x + y * y + z * z);
            const double cos_theta = d / r;
            FramePoint p;
            p.x_m = static_cast<float>(x);
            p.y_m = static_cast<float>(y);
            p.z_m = static_cast<float>(z);
            p.range_m = static_cast<float>(r);
            p.intensity =
                static_cast<float>(40 * std::sqrt(r) * r0 * cos_theta * std::exp(0.1 * gauss()));
            f.Append(p);
          }
    }
    input.frames.push_back(std::move(f));
    physics::Pose<double> pose{{1, 0, 0, 0}, {sx, 0, 0}};
    input.start_poses.push_back(pose);
    input.end_poses.push_back(pose);
  }
  return input;
}

// The binned medians follow what lies at each range (near dark, far bright: their G is several
// times too steep); surfaces seen from two ranges give the sensor's G back.
TEST(RecordingSensorFit, SurfacesSeenFromTwoRangesGiveTheGainsShape) {
  const PosedFrames drive = DrivePastWalls(6, 4.0);
  RecordingFitOptions o;
  RangeGainCorrection across;
  auto binned = FitRawIntensityReading(drive.frames, o);
  auto reading = FitRawIntensityReading(drive, o, &across);
  ASSERT_TRUE(binned.ok() && reading.ok()) << reading.message();
  EXPECT_GE(across.bins_determined, 5);
  EXPECT_GT(across.cells, 100u);
  // G's shape between 5 and 35 m against sqrt(R / 5 m), known up to scale. The bins hold a
  // range of ranges each, and G is linear between their median ranges: 5 %.
  double worst_binned = 0;
  for (double r = 5; r <= 35; r *= 1.25) {
    const double expected = std::sqrt(r / 5);
    EXPECT_NEAR(reading->GainAt(r) / reading->GainAt(5), expected, 0.05 * expected) << r;
    worst_binned = std::max(worst_binned, binned->GainAt(r) / binned->GainAt(5) / expected);
  }
  EXPECT_GT(worst_binned, 2.0) << "the medians alone would have passed: the scene tests nothing";
}

// A sensor that stood still sees every surface from one range: the binned G stands.
TEST(RecordingSensorFit, AStillSensorKeepsTheBinnedGain) {
  const PosedFrames still = DrivePastWalls(3, 0.0);
  RangeGainCorrection across;
  auto reading = FitRawIntensityReading(still, {}, &across);
  auto binned = FitRawIntensityReading(still.frames, {});
  ASSERT_TRUE(binned.ok() && reading.ok());
  EXPECT_EQ(across.cells, 0u);
  EXPECT_EQ(reading->gain, binned->gain);
}

TEST(RecordingSensorFit, TheDetectionEnvelopeIsTheQuantileOfReflectanceOverRange) {
  const Frame f = RawFrame();
  IntensityReading percent;  // calibrated reading: R = I / 100
  RecordingFitOptions o;
  o.envelope_quantile = 0.01;
  auto envelope = FitDetectionEnvelope({f}, percent, o);
  ASSERT_TRUE(envelope.ok()) << envelope.message();
  std::vector<double> per_m;
  for (size_t i = 0; i < f.size(); ++i)
    per_m.push_back(std::clamp(f.intensity[i] / 100.0, 0.005, 1.0) / f.range_m[i]);
  std::sort(per_m.begin(), per_m.end());
  EXPECT_EQ(*envelope, per_m[static_cast<size_t>(0.01 * per_m.size())]);
}

// The threshold against seed 002 eq. 2 by hand: a Lambertian of reflectance a at normal
// incidence returns P = P_tx a d^2 T_opt / (4 R^2) (beta = a / pi), a read through the raw
// reading I = G(R) a; the 1st percentile of those powers.
TEST(RecordingSensorFit, TheDetectionThresholdIsTheQuantileOfTheReturnsPowers) {
  const Frame f = RawFrame();
  IntensityReading raw;
  raw.gain_range_m = {2, 60};
  raw.gain = {40 * std::sqrt(2.0), 40 * std::sqrt(60.0)};  // G(R) = 40 sqrt(R) at the nodes
  RecordingFitOptions o;
  o.min_range_m = 1;
  o.max_range_m = 100;
  const physics::LinkBudget link{20, 0.02, 0.9, 0};
  auto threshold = FitDetectionThreshold({f}, raw, link, {0, 2}, o);
  ASSERT_TRUE(threshold.ok()) << threshold.message();
  std::vector<double> power;
  for (size_t i = 0; i < f.size(); ++i) {
    const double r = f.range_m[i];
    const double g = raw.GainAt(r);  // the reading's own, piecewise linear between its nodes
    power.push_back(20 * (f.intensity[i] / g) * 0.02 * 0.02 * 0.9 / (4 * r * r));
  }
  std::sort(power.begin(), power.end());
  EXPECT_NEAR(*threshold, power[static_cast<size_t>(0.01 * power.size())], 1e-12 * power[0]);
  // A near-field overlap O(R) = 1 - exp(-(R / R_o)^k), R_o = 40 m, k = 2, takes its share off
  // each power before the quantile.
  auto near = FitDetectionThreshold({f}, raw, link, {40, 2}, o);
  ASSERT_TRUE(near.ok());
  for (size_t i = 0; i < f.size(); ++i) {
    const double r = f.range_m[i];
    power[i] = 20 * (f.intensity[i] / raw.GainAt(r)) * 0.02 * 0.02 * 0.9 / (4 * r * r) *
               (1 - std::exp(-(r / 40) * (r / 40)));
  }
  std::sort(power.begin(), power.end());
  EXPECT_NEAR(*near, power[static_cast<size_t>(0.01 * power.size())], 1e-12 * power[0]);
  EXPECT_LT(*near, 0.9 * *threshold);
  // Returns that read 0 (kept on their timing, no level read: 2 % of them here) are no power:
  // counted, at the reading's least reflectance, they would pull the 1st percentile down.
  Frame zeros = f;
  for (size_t i = 0; i < zeros.size(); i += 50)
    zeros.intensity[i] = 0;
  auto without = FitDetectionThreshold({zeros}, raw, link, {0, 2}, o);
  ASSERT_TRUE(without.ok()) << without.message();
  EXPECT_NEAR(*without / *threshold, 1.0, 0.05);
}

// Recovery: returns made as a threshold detector keeps them (each surface's power, with 10 %
// receiver noise, against the true threshold; the survivors' intensities a calibrated
// reflectivity), over 20 seeds and thresholds from 3 nW to 3 uW (54 nW on the OS-1-128's
// frames), ranges out past the threshold's reach. The 1st percentile of the kept returns' powers
// lies just above the threshold: within 0.85..1.5 of it.
TEST(RecordingSensorFit, TheDetectionThresholdIsRecoveredFromWhatADetectorKept) {
  const physics::LinkBudget link{20, 0.02, 0.9, 0};
  IntensityReading percent;  // I = 100 R0 cos(theta)
  RecordingFitOptions o;
  o.min_range_m = 0.5;
  o.max_range_m = 1e5;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    const double truth = 3e-9 * std::pow(1000.0, (seed - 1) / 19.0);
    // Out past where a white target fades below the threshold, as a scene open to the horizon.
    const double reach = std::sqrt(physics::WhiteTargetPower(link, 1.0) / truth);
    std::uniform_real_distribution<double> ln_r(std::log(1.0), std::log(1.5 * reach));
    std::uniform_real_distribution<double> ln_a(std::log(0.02), std::log(1.0));
    std::normal_distribution<double> noise(0, 0.1);
    Frame f;
    while (f.size() < 20000) {
      const double r = std::exp(ln_r(rng)), a = std::exp(ln_a(rng));
      const double p = a * physics::WhiteTargetPower(link, r);
      if (p * (1 + noise(rng)) < truth) continue;  // not detected
      FramePoint pt;
      pt.x_m = pt.range_m = static_cast<float>(r);
      pt.intensity = static_cast<float>(100 * a);
      f.Append(pt);
    }
    auto fitted = FitDetectionThreshold({f}, percent, link, {0, 2}, o);
    ASSERT_TRUE(fitted.ok()) << fitted.message();
    EXPECT_GT(*fitted, 0.85 * truth) << "seed " << seed;
    EXPECT_LT(*fitted, 1.5 * truth) << "seed " << seed;
  }
}

TEST(RecordingSensorFit, TooFewReturnsAreErrorsThatSaySo) {
  Frame f;
  for (int i = 0; i < 50; ++i) {
    FramePoint p;
    p.x_m = p.range_m = 10;
    p.intensity = 20;
    f.Append(p);
  }
  auto reading = FitRawIntensityReading({f}, {});
  ASSERT_FALSE(reading.ok());
  EXPECT_NE(reading.message().find("fewer than two range bins"), std::string::npos);
  auto envelope = FitDetectionEnvelope({f}, {}, {});
  ASSERT_FALSE(envelope.ok());
  EXPECT_NE(envelope.message().find("50 returns"), std::string::npos) << envelope.message();
  auto threshold = FitDetectionThreshold({f}, {}, {20, 0.02, 0.9, 0}, {0, 2}, {});
  ASSERT_FALSE(threshold.ok());
  EXPECT_NE(threshold.message().find("50 returns with an intensity above 0"), std::string::npos)
      << threshold.message();
}

}  // namespace
}  // namespace lt
