// The threshold detector on hand-made signals: analytic pulse widths, separation of two
// echoes, range modes and return modes (physics/return_signal.h).
#include "lidartwin/physics/return_signal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace lt::physics {
namespace {

constexpr double kSigma = 0.3;  // m: a 2.35 ns FWHM pulse is 0.3 m sigma in range... near enough

ThresholdDetector Detector(EchoRange range = EchoRange::kPeak,
                           ReturnMode mode = ReturnMode::kStrongest, uint32_t k = 8) {
  return {kSigma, 1.0, range, mode, k, 10.0};
}

std::vector<Echo> Detect(const ThresholdDetector& d, std::vector<SignalContribution> c) {
  Echo out[kMaxEchoesDetected];
  uint32_t detected = 0;
  const uint32_t n = DetectEchoes(d, c.data(), static_cast<uint32_t>(c.size()), out, &detected);
  return {out, out + n};
}

TEST(ReturnSignal, IsolatedPulseHasTheAnalyticWidthPeakAndRange) {
  for (double a : {1.01, 1.5, 4.0, 100.0, 1e4}) {
    const auto e = Detect(Detector(), {{20.0f, static_cast<float>(a), 7}});
    ASSERT_EQ(e.size(), 1u) << a;
    EXPECT_NEAR(e[0].peak_range_m, 20.0, 1e-6);
    EXPECT_NEAR(e[0].peak_power_w, static_cast<float>(a), 1e-6 * a);
    EXPECT_NEAR(e[0].end_m - e[0].start_m, GaussianEchoWidth(kSigma, a, 1.0), 1e-6) << a;
    EXPECT_EQ(e[0].source, 7u);
    EXPECT_EQ(e[0].index, 0u);
  }
}

TEST(ReturnSignal, PulseWidthGrowsWithAmplitudeAsTheGaussianFormulaSays) {
  double previous = 0;
  for (double a = 1.1; a < 1e5; a *= 3) {
    const auto e = Detect(Detector(), {{10.0f, static_cast<float>(a), 0}});
    ASSERT_EQ(e.size(), 1u);
    const double w = e[0].end_m - e[0].start_m;
    EXPECT_GT(w, previous);
    // EPW^2 = 8 sigma^2 ln(a / T): linear in ln a.
    EXPECT_NEAR(w * w, 8 * kSigma * kSigma * std::log(static_cast<float>(a)), 1e-5);
    previous = w;
  }
}

TEST(ReturnSignal, NothingAboveThresholdGivesNoEcho) {
  EXPECT_TRUE(Detect(Detector(), {{10.0f, 0.999f, 0}}).empty());
  EXPECT_TRUE(Detect(Detector(), {}).empty());
}

TEST(ReturnSignal, TwoTargetsSplitExactlyWhereTheMidpointDipsBelowThreshold) {
  // Equal pulses a at r and r + D: the sum at the midpoint is 2 a exp(-D^2 / (8 sigma^2)),
  // so they are two echoes exactly when D > 2 sigma sqrt(2 ln(2 a / T)) (and one above it).
  const double a = 5;
  const double d_split = 2 * kSigma * std::sqrt(2 * std::log(2 * a / 1.0));
  for (double f : {0.98, 1.02}) {
    const float d = static_cast<float>(f * d_split);
    const auto e = Detect(Detector(), {{10.0f, 5.0f, 0}, {10.0f + d, 5.0f, 1}});
    EXPECT_EQ(e.size(), f < 1 ? 1u : 2u) << "separation " << d << " m";
  }
  // Far apart: two independent pulses, each at its own range.
  const auto e = Detect(Detector(), {{30.0f, 2.0f, 1}, {10.0f, 5.0f, 0}});
  ASSERT_EQ(e.size(), 2u);
  EXPECT_NEAR(e[0].peak_range_m, 10.0, 1e-6);
  EXPECT_NEAR(e[1].peak_range_m, 30.0, 1e-6);
  EXPECT_EQ(e[1].index, 1u);
}

TEST(ReturnSignal, MergedEchoPeaksWhereTheSumOfTheTwoPulsesPeaks) {
  // 3 and 1 at 10 and 10.2 m: one echo; its peak is the maximum of the sum, found here by an
  // independent dense scan.
  const auto e = Detect(Detector(), {{10.0f, 3.0f, 0}, {10.2f, 1.0f, 1}});
  ASSERT_EQ(e.size(), 1u);
  double best_x = 0, best = 0;
  for (double x = 9.5; x < 10.7; x += 1e-6) {
    const double v = 3 * GaussianPulse(x - 10.0, kSigma) +
                     1 * GaussianPulse(x - static_cast<double>(10.2f), kSigma);
    if (v > best) {
      best = v;
      best_x = x;
    }
  }
  EXPECT_NEAR(e[0].peak_range_m, best_x, 2e-6);
  EXPECT_NEAR(e[0].peak_power_w, best, 1e-7 * best);  // single-precision exp per term
  EXPECT_EQ(e[0].source, 0u);                         // the stronger one dominates at the peak
}

TEST(ReturnSignal, RangeModesLeadingEdgeWithTimeWalkAndCentre) {
  const double a = 50;
  const double half = kSigma * std::sqrt(2 * std::log(a));
  const auto centre = Detect(Detector(EchoRange::kCentre), {{40.0f, 50.0f, 0}});
  EXPECT_NEAR(centre[0].range_m, 40.0, 1e-6);
  // Leading edge: crossing r - half, plus the offset that is exact for a 10 W echo.
  const auto lead = Detect(Detector(EchoRange::kLeadingEdge), {{40.0f, 50.0f, 0}});
  const double offset = kSigma * std::sqrt(2 * std::log(10.0));
  EXPECT_NEAR(lead[0].range_m, 40.0 - half + offset, 1e-6);
  // Time-walk: stronger than the reference reads nearer, weaker farther.
  EXPECT_LT(lead[0].range_m, 40.0);
  const auto weak = Detect(Detector(EchoRange::kLeadingEdge), {{40.0f, 2.0f, 0}});
  EXPECT_GT(weak[0].range_m, 40.0);
  const auto exact = Detect(Detector(EchoRange::kLeadingEdge), {{40.0f, 10.0f, 0}});
  EXPECT_NEAR(exact[0].range_m, 40.0, 1e-6);
}

// Four echoes into e: strengths 2, 9, 5, 3 at 10, 20, 30, 40 m (given out of order); returns
// how many were detected (all four).
uint32_t DetectFourEchoes(Echo* e) {
  std::vector<SignalContribution> c = {{40, 3, 3}, {10, 2, 0}, {30, 5, 2}, {20, 9, 1}};
  uint32_t detected = 0;
  return DetectEchoes(Detector(), c.data(), 4, e, &detected);
}

TEST(ReturnSignal, ReturnModesPickTheirEchoesInRangeOrder) {
  Echo e[kMaxEchoesDetected];
  const uint32_t n = DetectFourEchoes(e);
  ASSERT_EQ(n, 4u);
  uint32_t detected = 0;
  uint32_t chosen[kMaxEchoesDetected];
  auto pick = [&](ReturnMode mode, uint32_t k) {
    const uint32_t m = SelectEchoes(mode, k, e, n, chosen);
    std::vector<uint32_t> sources;
    for (uint32_t i = 0; i < m; ++i)
      sources.push_back(e[chosen[i]].source);
    return sources;
  };
  EXPECT_EQ(pick(ReturnMode::kFirst, 2), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(pick(ReturnMode::kLast, 2), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(pick(ReturnMode::kStrongest, 2), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(pick(ReturnMode::kStrongest, 1), (std::vector<uint32_t>{1}));
  EXPECT_EQ(pick(ReturnMode::kDual, 2), (std::vector<uint32_t>{1, 3}));  // strongest + last
  EXPECT_EQ(pick(ReturnMode::kFirst, 8), (std::vector<uint32_t>{0, 1, 2, 3}));
  // Dual when the last echo is the strongest: the second strongest joins it.
  std::vector<SignalContribution> c2 = {{10, 2, 0}, {20, 5, 1}, {30, 9, 2}};
  const uint32_t n2 = DetectEchoes(Detector(), c2.data(), 3, e, &detected);
  const uint32_t m = SelectEchoes(ReturnMode::kDual, 2, e, n2, chosen);
  ASSERT_EQ(m, 2u);
  EXPECT_EQ(e[chosen[0]].source, 1u);
  EXPECT_EQ(e[chosen[1]].source, 2u);
}

// The kinds a sensor in each return mode gives what it reports (nebula's codes), worked by hand
// from the four echoes of strengths 2, 9, 5, 3 at 10, 20, 30, 40 m.
TEST(ReturnSignal, ReturnModesLabelWhatTheyReport) {
  Echo e[kMaxEchoesDetected];
  const uint32_t n = DetectFourEchoes(e);
  ASSERT_EQ(n, 4u);
  uint32_t detected = 0;
  using T = ReturnType;
  auto kinds = [&](ReturnMode mode, uint32_t k, const Echo* echoes, uint32_t count) {
    uint32_t chosen[kMaxEchoesDetected];
    ReturnType types[kMaxEchoesDetected];
    const uint32_t m = SelectEchoes(mode, k, echoes, count, chosen);
    SelectedEchoTypes(mode, echoes, count, chosen, m, types);
    return std::vector<ReturnType>(types, types + m);
  };
  EXPECT_EQ(kinds(ReturnMode::kFirst, 3, e, n),
            (std::vector<T>{T::kFirst, T::kSecond, T::kUnknown}));
  EXPECT_EQ(kinds(ReturnMode::kLast, 2, e, n), (std::vector<T>{T::kUnknown, T::kLast}));
  // The two strongest, in range order: 9 at 20 m, then 5 at 30 m.
  EXPECT_EQ(kinds(ReturnMode::kStrongest, 2, e, n),
            (std::vector<T>{T::kStrongest, T::kSecondStrongest}));
  EXPECT_EQ(kinds(ReturnMode::kStrongest, 3, e, n),
            (std::vector<T>{T::kStrongest, T::kSecondStrongest, T::kUnknown}));
  // Dual: the strongest (20 m, 9) nearer and stronger than the last (40 m, 3).
  EXPECT_EQ(kinds(ReturnMode::kDual, 2, e, n), (std::vector<T>{T::kFirstStrongest, T::kLastWeak}));
  // A third by strength (5 at 30 m) is reported but has no name in the pair.
  EXPECT_EQ(kinds(ReturnMode::kDual, 3, e, n),
            (std::vector<T>{T::kFirstStrongest, T::kUnknown, T::kLastWeak}));
  // Dual when the last is the strongest: the second strongest beside it is the weaker.
  std::vector<SignalContribution> c2 = {{10, 2, 0}, {20, 5, 1}, {30, 9, 2}};
  Echo e2[kMaxEchoesDetected];
  const uint32_t n2 = DetectEchoes(Detector(), c2.data(), 3, e2, &detected);
  EXPECT_EQ(kinds(ReturnMode::kDual, 2, e2, n2),
            (std::vector<T>{T::kFirstWeak, T::kLastStrongest}));
  // One echo: its mode's kind; a dual-return sensor reports it twice (identical).
  std::vector<SignalContribution> c3 = {{25, 4, 0}};
  Echo e3[kMaxEchoesDetected];
  const uint32_t n3 = DetectEchoes(Detector(), c3.data(), 1, e3, &detected);
  for (ReturnMode mode :
       {ReturnMode::kFirst, ReturnMode::kLast, ReturnMode::kStrongest, ReturnMode::kDual}) {
    EXPECT_EQ(kinds(mode, 2, e3, n3), (std::vector<T>{LoneEchoType(mode)}));
  }
  EXPECT_EQ(LoneEchoType(ReturnMode::kDual), T::kIdentical);
  EXPECT_EQ(LoneEchoType(ReturnMode::kLast), T::kLast);
}

// nebula's labels for a pair: nearer/farther by range, stronger/weaker by intensity, a tie in
// intensity to the farther, equal ranges one echo.
TEST(ReturnSignal, NearFarTypesFollowRangeAndStrength) {
  using T = ReturnType;
  T near = T::kUnknown, far = T::kUnknown;
  NearFarTypes(10, 20, 50, 10, &near, &far);
  EXPECT_EQ(near, T::kFirstStrongest);
  EXPECT_EQ(far, T::kLastWeak);
  NearFarTypes(10, 20, 10, 50, &near, &far);
  EXPECT_EQ(near, T::kFirstWeak);
  EXPECT_EQ(far, T::kLastStrongest);
  NearFarTypes(10, 20, 30, 30, &near, &far);
  EXPECT_EQ(near, T::kFirstWeak);
  EXPECT_EQ(far, T::kLastStrongest);
  NearFarTypes(15, 15, 30, 10, &near, &far);
  EXPECT_EQ(near, T::kIdentical);
  EXPECT_EQ(far, T::kIdentical);
  EXPECT_STREQ(ReturnTypeName(Code(T::kLastStrongest)), "LastStrongest");
  EXPECT_STREQ(ReturnTypeName(kReturnTypeCount), "");
}

TEST(ReturnSignal, MoreEchoesThanTheArrayKeepsTheLastOnes) {
  std::vector<SignalContribution> c;
  for (int k = 0; k < 20; ++k)
    c.push_back({static_cast<float>(10 + 5 * k), 3.0f, static_cast<uint32_t>(k)});
  Echo e[kMaxEchoesDetected];
  uint32_t detected = 0;
  const uint32_t n = DetectEchoes(Detector(), c.data(), 20, e, &detected);
  EXPECT_EQ(detected, 20u);
  ASSERT_EQ(n, kMaxEchoesDetected);
  EXPECT_EQ(e[n - 1].source, 19u);
  EXPECT_EQ(e[n - 1].index, 19u);
  EXPECT_EQ(e[0].index, 20u - kMaxEchoesDetected);
}

// The range gate: of 20 echoes 5 m apart from 10 m, those below a gate at 32 m are no echoes:
// the 16 from 35 m on are all kept (none dropped for the nearer ones), numbered from 0; and a
// tight cluster (one pulse) below the gate gives none.
TEST(ReturnSignal, TheRangeGateLeavesOutEchoesBeforeTheyAreKeptOrNumbered) {
  std::vector<SignalContribution> c;
  for (int k = 0; k < 20; ++k)
    c.push_back({static_cast<float>(10 + 5 * k), 3.0f, static_cast<uint32_t>(k)});
  Echo e[kMaxEchoesDetected];
  uint32_t detected = 0;
  const uint32_t n = DetectEchoes(Detector(), c.data(), 20, e, &detected, 32.0);
  EXPECT_EQ(detected, 15u);
  ASSERT_EQ(n, 15u);
  EXPECT_EQ(e[0].source, 5u);
  EXPECT_EQ(e[0].index, 0u);
  EXPECT_EQ(e[n - 1].source, 19u);
  EXPECT_EQ(e[n - 1].index, 14u);
  std::vector<SignalContribution> one = {{0.02f, 5.0f, 1, 0}};
  EXPECT_EQ(DetectEchoes(Detector(), one.data(), 1, e, &detected, 0.3), 0u);
  EXPECT_EQ(detected, 0u);
  EXPECT_EQ(DetectEchoes(Detector(), one.data(), 1, e, &detected, 0.0), 1u);
}

}  // namespace
}  // namespace lt::physics

namespace lt::physics {
namespace {

// A return 1e14..1e20 times the threshold (a retroreflector against a very low threshold):
// its pulse stays above T farther than 8 sigma from its centre, so the cut-off widens with it
// (PulseCut) and the echo's start still matches a brute-force bisection of the exact sum.
TEST(ReturnSignal, HugeReturnsKeepTheirTrueInterval) {
  for (double ratio : {1e14, 1e20}) {
    const auto e =
        Detect(Detector(EchoRange::kLeadingEdge, ReturnMode::kFirst),
               {{50.0f, static_cast<float>(ratio), 0}, {50.05f, static_cast<float>(ratio), 1}});
    ASSERT_EQ(e.size(), 1u);
    const double r2 = static_cast<double>(50.05f);
    auto f = [&](double x) {
      const float p = static_cast<float>(ratio);
      return p * std::exp(-(x - 50) * (x - 50) / (2 * kSigma * kSigma)) +
             p * std::exp(-(x - r2) * (x - r2) / (2 * kSigma * kSigma));
    };
    double lo = 40, hi = 50;
    for (int it = 0; it < 200; ++it)
      (f(0.5 * (lo + hi)) > 1 ? hi : lo) = 0.5 * (lo + hi);
    EXPECT_NEAR(e[0].start_m, lo, 1e-5) << ratio;
  }
}

}  // namespace
}  // namespace lt::physics

namespace lt::physics {
namespace {

TEST(ReturnSignal, PulseWidthAndEchoTimeConvertBetweenTimeAndRange) {
  // 1 ns of round trip is 0.149896229 m of range; a 5 ns FWHM pulse has sigma 5 ns / 2.35482.
  EXPECT_NEAR(RangeIntervalTime(0.149896229), 1e-9, 1e-18);
  EXPECT_NEAR(PulseSigmaRange(5e-9), 0.5 * 299792458.0 * 5e-9 / 2.3548200450309493, 1e-15);
  EXPECT_NEAR(RangeIntervalTime(2 * PulseSigmaRange(1e-9)) * 2.3548200450309493 / 2, 1e-9, 1e-21);
}

// A threshold of 0 (or one so small its levels underflow) ends the search for the weak level
// rather than doubling 0 for ever; none of the contributions is weak then.
TEST(ReturnSignal, WeakPowerLevelEndsAtAZeroThreshold) {
  const SignalContribution c[2] = {{1.0f, 1e-9f, 1, 0}, {2.0f, 2e-9f, 2, 0}};
  EXPECT_EQ(WeakPowerLevel(c, 2, 0.0), 0.0);
  EXPECT_LE(WeakPowerLevel(c, 2, 1e-320), 1e-320);
}

// A fog-like comb of slabs 0.45 m apart falling as 1 / r^2 (its near ones above the
// threshold), a surface at 20 m and weak clutter: WeakPowerLevel lets through as much as sums to
// T / 2 at most (and the next level would not), and DetectEchoes, which needs no windows around
// those, finds the intervals above T that a 1 mm scan of the signal finds, to the scan's step.
TEST(ReturnSignal, WeakContributionsNeedNoWindowsAndNoEchoIsMissed) {
  std::vector<SignalContribution> c;
  for (double r = 0.5; r < 40; r += 0.45)
    c.push_back({static_cast<float>(r), static_cast<float>(0.5 / (r * r)), 1, 0});
  c.push_back({20.0f, 1.5f, 2, 0});
  for (double r = 3.1; r < 15; r += 1.7)
    c.push_back({static_cast<float>(r), 0.004f, 3, 0});
  SortByRange(c.data(), static_cast<uint32_t>(c.size()));  // PulseSignal reads them in order
  const ThresholdDetector d = Detector(EchoRange::kPeak, ReturnMode::kStrongest, 8);
  const auto n = static_cast<uint32_t>(c.size());
  const double level = WeakPowerLevel(c.data(), n, d.threshold_w);
  auto below = [&](double l) {
    double sum = 0;
    for (const auto& k : c)
      sum += k.power_w <= l ? k.power_w : 0;
    return sum;
  };
  EXPECT_GE(level, d.threshold_w / (2 * n));
  EXPECT_LE(below(level), d.threshold_w / 2);
  EXPECT_TRUE(2 * level > d.threshold_w / 2 || below(2 * level) > d.threshold_w / 2);
  EXPECT_GE(level, 16 * d.threshold_w / (2 * n));  // the comb's tail is weak, not just T / 2n
  // The intervals above T on a 1 mm scan.
  std::vector<std::pair<double, double>> scanned;
  bool above = false;
  for (double x = -2; x < 45; x += 1e-3) {
    const bool now = PulseSignal(c.data(), n, kSigma, x) > d.threshold_w;
    if (now && !above) scanned.push_back({x, x});
    if (now) scanned.back().second = x;
    above = now;
  }
  std::vector<SignalContribution> copy = c;
  Echo out[kMaxEchoesDetected];
  uint32_t detected = 0;
  const uint32_t m = DetectEchoes(d, copy.data(), n, out, &detected);
  ASSERT_EQ(detected, scanned.size());
  ASSERT_EQ(m, scanned.size());
  for (uint32_t e = 0; e < m; ++e) {
    EXPECT_NEAR(out[e].start_m, scanned[e].first, 1.1e-3) << e;
    EXPECT_NEAR(out[e].end_m, scanned[e].second, 1.1e-3) << e;
  }
}

// A random beam like those of weather: a comb of fog slabs falling as 1 / r^2 from near the
// sensor (above T there), zero to three surfaces, and drops and flakes scattered from 0.3 to
// 30 m of powers from 1e-3 T to 3 T; in range order.
std::vector<SignalContribution> WeatherLikeBeam(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<SignalContribution> c;
  const double fog = u(rng) < 0.7 ? 2 * u(rng) : 0;  // the comb's strength at 1 m [T]
  for (double r = 0.3; fog > 0 && r < 25; r += std::min(r / 4, 0.45))
    c.push_back({static_cast<float>(r), static_cast<float>(fog / (r * r)), 1, 0});
  const int surfaces = static_cast<int>(u(rng) * 4);
  for (int k = 0; k < surfaces; ++k) {
    c.push_back({static_cast<float>(1 + 40 * u(rng)),
                 static_cast<float>(std::pow(10, 3 * u(rng) - 0.5)), static_cast<uint32_t>(2 + k),
                 0});
  }
  const int particles = static_cast<int>(u(rng) * 30);
  for (int k = 0; k < particles; ++k) {
    c.push_back({static_cast<float>(0.3 + 30 * u(rng)),
                 static_cast<float>(std::pow(10, 3.5 * u(rng) - 3)), 10, 0});
  }
  SortByRange(c.data(), static_cast<uint32_t>(c.size()));
  return c;
}

// The bounds hold at every point of an interval, against PulseSignal itself: random weather-like
// beams, intervals of 0.1 to 2 m, 64 points each.
TEST(ReturnSignal, TheSignalsBoundsHoldAtEveryPointOfTheInterval) {
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> u(0, 1);
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::vector<SignalContribution> c = WeatherLikeBeam(rng);
    const auto n = static_cast<uint32_t>(c.size());
    if (n == 0) continue;
    const double cut = PulseCut(kSigma, 10.0, 1.0);
    const double a = -1 + 40 * u(rng), b = a + 0.1 + 1.9 * u(rng);
    const detail::SignalBounds bounds = detail::BoundSignal(c.data(), n, kSigma, a, b, 0, cut);
    for (int i = 0; i <= 64; ++i) {
      const double x = a + (b - a) * i / 64;
      const double f = PulseSignal(c.data(), n, kSigma, x, 0, cut);
      ASSERT_LE(f, bounds.upper) << trial << " " << x;
      ASSERT_GE(f, bounds.lower) << trial << " " << x;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20000);
}

bool SameEchoes(const Echo* a, const Echo* b, uint32_t n) {
  return std::memcmp(a, b, n * sizeof(Echo)) == 0;
}

// Passing over blocks of the grid changes no echo: 3,000 random weather-like beams, detected with
// every grid point marched and with the bounds' blocks passed over, in every range mode, give
// the same echoes to the bit (and there are echoes of every kind among them).
TEST(ReturnSignal, PassingOverBlocksOfTheGridChangesNoEcho) {
  std::mt19937_64 rng(43);
  uint32_t echoes = 0, beams_with_several = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<SignalContribution> c = WeatherLikeBeam(rng);
    const auto n = static_cast<uint32_t>(c.size());
    const auto range = static_cast<EchoRange>(trial % 3);
    const ThresholdDetector d = Detector(range, ReturnMode::kStrongest, 8);
    std::vector<SignalContribution> copy = c;
    Echo marched[kMaxEchoesDetected], passed[kMaxEchoesDetected];
    uint32_t detected_marched = 0, detected_passed = 0;
    const double gate = trial % 2 ? 0.3 : -1e300;
    const uint32_t m = DetectEchoes(d, copy.data(), n, marched, &detected_marched, gate, false);
    const uint32_t p = DetectEchoes(d, c.data(), n, passed, &detected_passed, gate, true);
    ASSERT_EQ(m, p) << trial;
    ASSERT_EQ(detected_marched, detected_passed) << trial;
    ASSERT_TRUE(SameEchoes(marched, passed, m)) << trial;
    echoes += m;
    beams_with_several += m > 1;
  }
  EXPECT_GT(echoes, 3000u);
  EXPECT_GT(beams_with_several, 300u);
}

}  // namespace
}  // namespace lt::physics
