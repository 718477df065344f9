// The fog's table (internal/fog_table.h, physics/pulse_table.h): each lattice point holds the
// slabs' running sums there, and the threshold detector reading a beam's slabs from it finds
// the echoes it finds with the same slabs carried as contributions, on random beams in fog,
// rain and snow with surfaces at random ranges; passing over blocks of its grid still changes
// no echo.
#include "internal/fog_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "internal/weather_setup.h"
#include "sim_test_scenes.h"

namespace lt {
namespace {

using physics::Echo;
using physics::SignalContribution;
using physics::TabledPulses;
using physics::ThresholdDetector;

// One beam with a threshold detector (sigma_r = 0.2546 m) in fog of MOR 50 m: its slabs, with
// none left out for being weak (so that both ways of reading them hold the same ones).
struct Fog {
  ThresholdDetector detector;
  FogView view;
};
Fog FogOf(double visibility_m, physics::EchoRange range) {
  SensorProfile p = test::ThresholdBeam();
  p.detector.threshold_w = 1e-6;
  p.detector.overlap = {0.8, 2.5};
  p.min_range_m = 0.3;
  WeatherDescription w;
  w.fog = FogDescription{.visibility_m = visibility_m};
  physics::LinkBudget link = p.detector.link;
  link.extinction_per_m = std::log(20.0) / visibility_m;
  Fog f{p.Threshold(), FrameFog(p, w, link, 7)};
  f.detector.range = range;
  f.view.least_power_w = 0;
  return f;
}

// Every point of the lattice holds s F_J there (pulse_table.h), F_J summed here over all of the
// first J slabs, for J from none to all and shares of 0.1 to 1.7: to 1e-12 of the sum, and
// within 1e-6 of the threshold (the table's cut); the bounds over every block of 4 and 16
// points are their points' largest and least; and the sums of the powers under a level are a
// pass over the pulses'.
TEST(FogTable, EachPointHoldsTheSumOfTheSlabsInFrontOfIt) {
  const Fog fog = FogOf(50, physics::EchoRange::kPeak);
  const FogTable table(fog.view, fog.detector);
  ASSERT_FALSE(table.empty());
  const physics::PulseTableView& v = *table.View();
  EXPECT_EQ(v.pulses, fog.view.slabs);
  EXPECT_DOUBLE_EQ(v.step_m, fog.detector.pulse_sigma_m / 4);
  EXPECT_EQ(v.source, 7u);
  const double sigma = fog.detector.pulse_sigma_m, t = fog.detector.threshold_w;
  uint32_t checked = 0;
  for (uint32_t used : {0u, 1u, 5u, 17u, v.pulses / 2, v.pulses - 1, v.pulses}) {
    ASSERT_LE(used, v.pulses);  // the fog holds 65 slabs
    for (double scale : {0.1, 1.0, 1.7}) {
      const TabledPulses tab = TabledPulses::Of(&v, used, scale);
      // The held pulses' powers under a level, from the sorted table, against a pass over them.
      for (double level : {0.0, 1e-3 * t, 0.05 * t, 0.3 * t, t, 1e3 * t}) {
        double want = 0;
        for (uint32_t j = 0; j < used; ++j)
          want += scale * v.power_w[j] <= level ? scale * v.power_w[j] : 0.0;
        ASSERT_NEAR(tab.SumAtMost(level), want, 1e-12 * want) << used << " " << level;
      }
      for (int64_t m = v.first - 3; m < v.first + v.points + 3; ++m) {
        const double x = static_cast<double>(m) * v.step_m;
        double want = 0;
        for (uint32_t j = 0; j < used; ++j) {
          const double d = x - v.range_m[j];
          want += scale * v.power_w[j] * std::exp(-d * d / (2 * sigma * sigma));
        }
        ASSERT_NEAR(tab.AtPoint(m), want, 1e-6 * t + 1e-6 * want) << used << " " << m;
        ASSERT_NEAR(tab.AtPoint(m), tab.At(x, sigma), 1e-12 * want) << used << " " << m;
        ++checked;
        // Its blocks' bounds are the largest and least of their points, to the bit.
        for (uint32_t size : {physics::TableBlockSize(0), physics::TableBlockSize(1)}) {
          double hi = 0, lo = 1e300, upper = 0, lower = 0;
          for (int64_t q = m; q < m + size; ++q) {
            hi = std::max(hi, tab.AtPoint(q));
            lo = std::min(lo, tab.AtPoint(q));
          }
          tab.Bound(m, m + size - 1, &upper, &lower);
          ASSERT_EQ(upper, hi) << used << " " << m << " " << size;
          ASSERT_EQ(lower, lo) << used << " " << m << " " << size;
        }
      }
    }
  }
  std::printf("[fog table] %u slabs, %u points from %.3f m, cut %.3f m; %u values checked\n",
              v.pulses, v.points, static_cast<double>(v.first) * v.step_m, v.cut_m, checked);
}

// A random beam in the fog: 1 to 8 sub-rays of random weights, each ending on a surface at a
// random range or passing the fog (then all of them, 40 % of the beams), and up to 20 drops or
// flakes in front of them.
struct Beam {
  std::vector<SubRayClear> clear;
  std::vector<SignalContribution> hits;
};
Beam RandomBeam(std::mt19937_64& rng, double threshold_w) {
  std::uniform_real_distribution<double> u(0, 1);
  Beam b;
  const int n = 1 + static_cast<int>(u(rng) * 8);
  const bool open = u(rng) < 0.4;
  for (int k = 0; k < n; ++k) {
    const auto weight = static_cast<float>((0.2 + u(rng)) / n);
    if (open) {
      b.clear.push_back({1e9f, weight});
      continue;
    }
    const auto range = static_cast<float>(0.5 + 44 * u(rng));
    b.clear.push_back({range, weight});
    b.hits.push_back({range, static_cast<float>(weight * threshold_w * std::pow(10, 3 * u(rng))),
                      static_cast<uint32_t>(k), 0});
  }
  const int particles = static_cast<int>(u(rng) * 21);
  for (int k = 0; k < particles; ++k) {
    b.hits.push_back({static_cast<float>(0.3 + 15 * u(rng)),
                      static_cast<float>(threshold_w * std::pow(10, 2.5 * u(rng) - 3)), 20, 0});
  }
  return b;
}

// The echoes of a beam with its slabs read from the table, and with them carried.
struct Detected {
  std::vector<Echo> echoes;
  uint32_t count = 0;
  uint32_t tabled = 0;  // the slabs read from the table
};
Detected Detect(const Fog& fog, const Beam& b, const physics::PulseTableView* table,
                bool pass_over = true) {
  FogView view = fog.view;
  view.table = table;
  std::vector<SignalContribution> c(kMaxContributions);
  std::copy(b.hits.begin(), b.hits.end(), c.begin());
  TabledPulses tabled;
  const uint32_t n =
      AddFogSlabs(view, b.clear.data(), static_cast<uint32_t>(b.clear.size()), c.data(),
                  static_cast<uint32_t>(b.hits.size()), kMaxContributions, &tabled);
  Echo out[physics::kMaxEchoesDetected];
  Detected d;
  const uint32_t m =
      physics::DetectEchoes(fog.detector, c.data(), n, out, &d.count, 0.3, pass_over, &tabled);
  d.echoes.assign(out, out + m);
  d.tabled = tabled.used;
  return d;
}

// A beam's echoes as the grid can tell them apart: echoes closer than a grid step h (a dip under
// the threshold narrower than a step, which a grid may step over) taken as one interval, and
// intervals peaking within 1 % of the threshold (which a grid may step over too) left out.
struct Interval {
  double start_m, end_m, peak_power_w;
  const Echo* echo;  // the echo, where the interval is one
};
std::vector<Interval> Resolvable(const std::vector<Echo>& echoes, double h, double t) {
  std::vector<Interval> out;
  for (const Echo& e : echoes) {
    if (!out.empty() && e.start_m - out.back().end_m < h) {
      out.back().end_m = e.end_m;
      out.back().peak_power_w = std::max(out.back().peak_power_w, e.peak_power_w);
      out.back().echo = nullptr;
    } else {
      out.push_back({e.start_m, e.end_m, e.peak_power_w, &e});
    }
  }
  std::erase_if(out, [&](const Interval& i) { return i.peak_power_w < 1.01 * t; });
  return out;
}

// 4,000 random beams in fog of 50 m (and 20 m, the hump above the threshold), each range mode:
// the same echoes either way, their crossings within 2e-6 m (the searches' tolerance, the
// grids apart), peaks within 1e-5 m and their powers within 1e-6, the same label; but where
// one grid steps over what the other sees: a dip under the threshold narrower than a step, or
// an echo peaking within 1 % of the threshold (Resolvable).
TEST(FogTable, TheDetectorReadingTheTableFindsTheEchoesOfTheSlabsCarried) {
  std::mt19937_64 rng(2026);
  uint32_t echoes = 0, all_tabled = 0, some_tabled = 0, stepped_over = 0;
  for (double visibility : {50.0, 20.0}) {
    for (int trial = 0; trial < 2000; ++trial) {
      const Fog fog = FogOf(visibility, static_cast<physics::EchoRange>(trial % 3));
      const FogTable table(fog.view, fog.detector);
      const Beam b = RandomBeam(rng, fog.detector.threshold_w);
      const Detected carried = Detect(fog, b, nullptr);
      const Detected read = Detect(fog, b, table.View());
      const double t = fog.detector.threshold_w, h = fog.detector.pulse_sigma_m / 4;
      EXPECT_EQ(carried.tabled, 0u);
      all_tabled += read.tabled == fog.view.slabs;
      some_tabled += read.tabled > 0 && read.tabled < fog.view.slabs;
      const std::vector<Interval> a = Resolvable(carried.echoes, h, t);
      const std::vector<Interval> r = Resolvable(read.echoes, h, t);
      stepped_over += carried.echoes.size() != a.size() || read.echoes.size() != r.size();
      ASSERT_EQ(a.size(), r.size()) << visibility << " m, beam " << trial;
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_NEAR(a[i].start_m, r[i].start_m, 2e-6) << trial;
        EXPECT_NEAR(a[i].end_m, r[i].end_m, 2e-6) << trial;
        if (!a[i].echo || !r[i].echo) continue;
        EXPECT_NEAR(a[i].echo->range_m, r[i].echo->range_m, 1e-5) << trial;
        EXPECT_NEAR(a[i].peak_power_w, r[i].peak_power_w, 1e-6 * a[i].peak_power_w) << trial;
        EXPECT_EQ(a[i].echo->source, r[i].echo->source) << trial;
        ++echoes;
      }
    }
  }
  std::printf(
      "[fog table] %u echoes the same; %u beams with an echo or a dip one grid stepped "
      "over; %u beams read all their slabs from the table, %u some\n",
      echoes, stepped_over, all_tabled, some_tabled);
  EXPECT_GT(echoes, 4000u);
  EXPECT_GT(all_tabled, 1000u);   // beams passing the fog (RandomBeam: 40 %)
  EXPECT_GT(some_tabled, 1000u);  // beams ending on a surface inside it
  EXPECT_LT(stepped_over, 40u);
}

// With the table the march still passes over its blocks without a change to any echo.
TEST(FogTable, PassingOverBlocksOfTheLatticeChangesNoEcho) {
  std::mt19937_64 rng(91);
  uint32_t echoes = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Fog fog = FogOf(trial % 2 ? 20 : 50, static_cast<physics::EchoRange>(trial % 3));
    const FogTable table(fog.view, fog.detector);
    const Beam b = RandomBeam(rng, fog.detector.threshold_w);
    const Detected marched = Detect(fog, b, table.View(), false);
    const Detected passed = Detect(fog, b, table.View(), true);
    ASSERT_EQ(marched.count, passed.count) << trial;
    ASSERT_EQ(marched.echoes.size(), passed.echoes.size()) << trial;
    for (size_t i = 0; i < marched.echoes.size(); ++i)
      ASSERT_EQ(std::memcmp(&marched.echoes[i], &passed.echoes[i], sizeof(Echo)), 0) << trial;
    echoes += static_cast<uint32_t>(marched.echoes.size());
  }
  EXPECT_GT(echoes, 2000u);
}

}  // namespace
}  // namespace lt
