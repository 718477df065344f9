// The ray-drop fit (issue 41): known drop probabilities recovered with calibrated standard
// errors over many seeds, and frames that moved finding each other's returns where nothing
// dropped. The blocked directions: a mount's shadow found whole, chance drops at their rate.
#include "lidartwin/reconstruct/ray_drop_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/units.h"
#include "reconstruct/reconstruction_test_frames.h"

namespace lt {
namespace {

// A 64-bit LCG (Knuth's MMIX constants) to a uniform in (0, 1).
struct Uniform {
  uint64_t state;
  double operator()() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((state >> 11) + 0.5) / 9007199254740992.0;
  }
};

constexpr int kChannels = 16, kColumns = 360;
RayDropScan TestScan() {
  RayDropScan s;
  for (int c = 0; c < kChannels; ++c) {
    s.elevation_rad.push_back((10.0 - 2.0 * c) * physics::kDegToRad);
    s.azimuth_offset_rad.push_back((c % 2 ? 1.0 : -1.0) * physics::kDegToRad);  // staggered
  }
  s.columns = kColumns;
  return s;
}

// A return of channel c at `range` along the direction (azimuth az, the channel's elevation) of
// the test scan, with intensity I (calibrated percent).
FramePoint ScanPoint(int c, double az, double range, double intensity = 20) {
  const double el = TestScan().elevation_rad[static_cast<size_t>(c)];
  FramePoint pt;
  pt.x_m = static_cast<float>(range * std::cos(el) * std::cos(az));
  pt.y_m = static_cast<float>(range * std::cos(el) * std::sin(az));
  pt.z_m = static_cast<float>(range * std::sin(el));
  pt.range_m = static_cast<float>(range);
  pt.intensity = static_cast<float>(intensity);
  pt.channel = static_cast<uint16_t>(c);
  return pt;
}

// The truth: far and dark drops most (0.05 .. 0.65 over the cells), unlike a constant.
double TrueDrop(size_t range_bin, size_t reflectance_bin, const RayDropFitOptions& o) {
  return 0.05 + 0.6 * double(range_bin) / (o.range_bins - 1) *
                    (1 - double(reflectance_bin) / (o.reflectance_bins - 1));
}

// Three frames of a still sensor; every pixel a surface at a log-uniform range in 2-70 m and
// apparent reflectance in 0.01-1.5 (calibrated percent: I = 100 a), returned in each frame
// with 1 - its cell's true drop probability, independently. Column 0 sits 0.3 of a column
// from azimuth 0.
PosedFrames StillFrames(uint64_t seed, const RayDropFitOptions& o) {
  Uniform u{seed * 2654435761ULL + 1};
  const RayDropScan scan = TestScan();
  std::vector<double> range(kChannels * kColumns), apparent(range.size());
  for (size_t k = 0; k < range.size(); ++k) {
    range[k] = 2 * std::pow(35.0, u());
    apparent[k] = 0.01 * std::pow(150.0, u());
  }
  std::vector<Frame> frames(3);
  for (Frame& f : frames)
    for (int c = 0; c < kChannels; ++c)
      for (int col = 0; col < kColumns; ++col) {
        const size_t k = size_t(c) * kColumns + col;
        const double p = TrueDrop(
            static_cast<size_t>(std::floor(std::log(range[k] / o.min_range_m) /
                                           std::log(o.max_range_m / o.min_range_m) * o.range_bins)),
            static_cast<size_t>(std::floor(std::log(apparent[k] / o.min_reflectance) /
                                           std::log(o.max_reflectance / o.min_reflectance) *
                                           o.reflectance_bins)),
            o);
        if (u() < p) continue;
        const double az = (col + 0.3) * 2 * physics::kPi / kColumns + scan.azimuth_offset_rad[c];
        f.Append(ScanPoint(c, az, range[k], 100 * apparent[k]));
      }
  return test::Posed(std::move(frames), {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}});
}

// Over 100 seeds each determined cell's estimate against its truth, in units of its standard
// error: 68 % +- 7 % within 1, 95 % +- 4 % within 2, mean z within 0.5 (issue 40's bands).
TEST(RayDropFit, KnownDropRatesAreRecoveredWithCalibratedErrors) {
  RayDropFitOptions o;
  o.min_range_m = 2;
  o.max_range_m = 70;
  o.min_reflectance = 0.01;
  o.max_reflectance = 1.5;
  o.range_bins = o.reflectance_bins = 4;
  int within1 = 0, within2 = 0, count = 0;
  double sum_z = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    auto fit = FitRayDrop(StillFrames(seed, o), IntensityReading{}, TestScan(), o);
    ASSERT_TRUE(fit.ok()) << fit.message();
    for (size_t c = 0; c < fit->observations.size(); ++c) {
      if (fit->observations[c] < o.min_observations) continue;
      const double truth = TrueDrop(c / o.reflectance_bins, c % o.reflectance_bins, o);
      const double z = (fit->table.probability[c] - truth) / fit->stddev[c];
      within1 += std::fabs(z) <= 1;
      within2 += std::fabs(z) <= 2;
      sum_z += z;
      ++count;
    }
  }
  ASSERT_GT(count, 1000);
  const double f1 = double(within1) / count, f2 = double(within2) / count;
  std::printf("[ray drop] %d cells over 100 seeds: within 1 sd %.3f, 2 sd %.3f, mean z %.3f\n",
              count, f1, f2, sum_z / count);
  EXPECT_NEAR(f1, 0.68, 0.07);
  EXPECT_NEAR(f2, 0.95, 0.04);
  EXPECT_LT(std::fabs(sum_z / count), 0.5);
}

// Frames simulated from three places along a wall (the simulator's own azimuths and phase):
// every return of one frame finds the other frames' returns where their beams meet the wall,
// so nearly nothing reads as dropped (the wall's ends, where one frame's beams pass it by); a
// partial frame likewise.
TEST(RayDropFit, FramesThatMovedFindEachOthersReturns) {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.5});
  scene.objects = {test::Wall(12)};
  SensorProfile sensor = test::SpinningSensor(16, 10, -20, 720, 10);
  sensor.start_azimuth_rad = 0.25 * physics::kDegToRad;  // half a column: rounding needs the phase
  std::vector<Frame> frames;
  const std::vector<physics::Vec3<double>> at = {{0, 0, 0}, {0.6, 0.3, 0}, {1.2, 0.6, 0}};
  for (const auto& p : at)
    frames.push_back(test::SimulatedFrame(scene, sensor, p));
  RayDropScan scan;
  scan.elevation_rad = sensor.elevation_rad;
  scan.azimuth_offset_rad = sensor.azimuth_offset_rad;
  scan.columns = sensor.columns;
  auto fit = FitRayDrop(test::Posed(frames, at), IntensityReading{}, scan, {});
  ASSERT_TRUE(fit.ok()) << fit.message();
  ASSERT_GT(fit->total, 5000u);
  EXPECT_LT(double(fit->dropped) / fit->total, 0.01) << fit->dropped << " of " << fit->total;
  // A partial revolution (the middle frame's half left of the x axis only, as a capture's
  // first frame): the columns it did not scan hold no observation, so none reads as dropped.
  std::vector<bool> left(frames[1].size());
  for (size_t i = 0; i < left.size(); ++i)
    left[i] = frames[1].y_m[i] > 0;
  KeepPoints(frames[1], left);
  auto partial = FitRayDrop(test::Posed(frames, at), IntensityReading{}, scan, {});
  ASSERT_TRUE(partial.ok()) << partial.message();
  EXPECT_LT(partial->total, fit->total);
  EXPECT_LT(double(partial->dropped) / partial->total, 0.01)
      << partial->dropped << " of " << partial->total;
}

TEST(RayDropFit, WhatCannotBeFittedIsRefused) {
  const RayDropScan scan = TestScan();
  auto one = FitRayDrop(test::Posed({Frame{}}, {{0, 0, 0}}), {}, scan, {});
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.message().find("at least two"), std::string::npos);
  auto no_scan = FitRayDrop(test::Posed({Frame{}, Frame{}}, {{0, 0, 0}, {0, 0, 0}}), {}, {}, {});
  ASSERT_FALSE(no_scan.ok());
  EXPECT_NE(no_scan.message().find("no beams"), std::string::npos);
}

// Frames of a still sensor on a surface 10 m away all round, each pixel dropped at random with
// probability `p`, and a block no frame ever returns from (the mount under the lowest
// channels 12-15, columns 100-139); channel 3 absent (a laser the recording lacks).
// With near_block the block returns at 0.5 m instead (a near wall the reconstruction leaves
// out).
// The column of the test scan's pixel (c, col) counted in azimuth: its channel's stagger (+-1
// deg, one column) added. A mount's shadow or a mast stands in azimuth, the same on every
// channel, so their pixels are taken by this column.
int AzimuthColumn(int c, int col) {
  return col + (c % 2 ? 1 : -1);
}

std::vector<Frame> FramesWithABlock(uint64_t seed, size_t count, double p,
                                    bool near_block = false) {
  Uniform u{seed * 2654435761ULL + 7};
  const RayDropScan scan = TestScan();
  std::vector<Frame> frames(count);
  for (Frame& f : frames)
    for (int c = 0; c < kChannels; ++c)
      for (int col = 0; col < kColumns; ++col) {
        const bool blocked = c >= 12 && AzimuthColumn(c, col) >= 100 && AzimuthColumn(c, col) < 140;
        if (c == 3 || (blocked && !near_block) || u() < p) continue;
        const double az = (col + 0.3) * 2 * physics::kPi / kColumns + scan.azimuth_offset_rad[c];
        f.Append(ScanPoint(c, az, blocked ? 0.5 : 10));
      }
  return frames;
}

// The pixel centre's scan azimuth, as the simulator's beam of that pixel has it.
double PixelAzimuth(int c, int col) {
  return (col + 0.3) * 2 * physics::kPi / kColumns + TestScan().azimuth_offset_rad[c];
}

// The block is found whole on its channels (its corners aside, below); elsewhere a pixel is
// blocked only where most frames dropped it by chance and not as a chance drop among returns.
// How many empty neighbours such a drop may have is learned between the frames: each empty
// pixel of a frame is returned by the next one 90 % of the time where the drops are random, never
// on the block, so the count stops where the block's pixels outnumber the random drops: 2 or 3
// (a corner of the block has 3 empty neighbours, an edge 5, its inside 8; random drops with 3
// are 3.3 % of them). With 3 frames and p = 0.1, a frame leaves a pixel with n neighbours counted
// empty with q = p P(Binomial(n, p) > learned), and 3 q^2 - 2 q^3 of the pixels are blocked:
// about 2 over the ten seeds (within 5 binomial standard errors and one; the pixels beside the
// block, whose neighbours it empties, are not counted), where counting every empty pixel had
// blocked 1,467. The absent channel holds nothing and is no ring: channels 2 and 4 are
// neighbours.
TEST(BlockedDirections, AMountsShadowIsFoundWholeAndChanceDropsAtTheirRate) {
  constexpr double p = 0.1;
  const auto blocked_rate = [&](int n, int learned) {
    double more = 0;  // P(Binomial(n, p) > learned)
    for (int m = learned + 1; m <= n; ++m)
      more += std::tgamma(n + 1) / (std::tgamma(m + 1) * std::tgamma(n - m + 1)) * std::pow(p, m) *
              std::pow(1 - p, n - m);
    const double q = p * more;
    return 3 * q * q - 2 * q * q * q;
  };
  size_t chance = 0;
  double expected = 0, variance = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    auto fit = FindBlockedDirections(FramesWithABlock(seed, 3, p), TestScan());
    ASSERT_TRUE(fit.ok()) << fit.message();
    const int learned = fit->chance_drop_neighbours;
    EXPECT_GE(learned, 2) << "seed " << seed;
    EXPECT_LE(learned, 3) << "seed " << seed;
    const BlockedDirections& b = fit->blocked;
    EXPECT_TRUE(b.channel[3].empty());
    for (int c = 0; c < kChannels; ++c) {
      if (c == 3) continue;
      for (int col = 0; col < kColumns; ++col) {
        const int a = AzimuthColumn(c, col);
        const bool in_block = c >= 12 && a >= 100 && a < 140;
        // A corner of the block has 3 empty neighbours: a chance drop where 3 are learned.
        const bool corner = (c == 12 || c == kChannels - 1) && (a == 100 || a == 139);
        const bool found = b.Blocked(static_cast<uint32_t>(c), PixelAzimuth(c, col));
        const bool beside_block = c >= 11 && a >= 99 && a < 141;
        if (in_block && !(corner && learned >= 3)) {
          ASSERT_TRUE(found) << "seed " << seed << " channel " << c << " column " << col;
        } else if (!beside_block) {
          chance += found;
          const double rate = blocked_rate(c == 0 || c == kChannels - 1 ? 5 : 8, learned);
          expected += rate;
          variance += rate * (1 - rate);
        }
      }
    }
    // The block's 40 columns are one interval on each of its channels, edges within a
    // hundredth of a column of the block's: the same azimuths on every channel (the pixels'
    // centres from 100.3 to 139.3 columns, the stagger included), or a column beyond where the
    // pixel beside the block dropped by chance in most frames (it borders the block's empty
    // pixels), or a column short on the block's top and bottom rings where its corners were
    // taken as chance drops.
    const double step = 2 * physics::kPi / kColumns;
    const auto at = [&](double rad, double column) {
      return std::fabs(rad - column * step) < 0.01 * step;
    };
    for (int c = 12; c < kChannels; ++c) {
      bool whole = false;
      for (const AzimuthInterval& i : b.channel[static_cast<size_t>(c)])
        whole |= (at(i.from_rad, 99.8) || at(i.from_rad, 98.8) || at(i.from_rad, 100.8)) &&
                 (at(i.to_rad, 139.8) || at(i.to_rad, 140.8) || at(i.to_rad, 138.8));
      EXPECT_TRUE(whole) << "channel " << c;
    }
  }
  EXPECT_NEAR(double(chance), expected, 5 * std::sqrt(variance) + 1) << chance << " blocked";
  EXPECT_LT(expected, 5);
}

// Returns nearer than the reconstruction's minimum range block the beam as no return does; with
// no minimum they are returns.
TEST(BlockedDirections, ReturnsNearerThanTheMinimumRangeBlock) {
  const std::vector<Frame> frames = FramesWithABlock(5, 3, 0.0, true);
  auto from_1m = FindBlockedDirections(frames, TestScan(), 1.0);
  auto from_0 = FindBlockedDirections(frames, TestScan(), 0.0);
  ASSERT_TRUE(from_1m.ok() && from_0.ok());
  EXPECT_EQ(from_1m->pixels, 4u * 40);
  EXPECT_EQ(from_0->pixels, 0u);
  EXPECT_TRUE(from_1m->blocked.Blocked(13, PixelAzimuth(13, 120)));
}

// Frames of a still sensor whose firings drift from one revolution to the next across a
// column's boundary (phase 0.45 of a column in the first, 0.55 in the others): every frame's
// pixel k is one direction, and the block's edges lie where its columns end (in azimuth, the
// same on every channel).
TEST(BlockedDirections, FramesWhoseFiringsDriftShareOneGrid) {
  const RayDropScan scan = TestScan();
  std::vector<Frame> frames(3);
  for (size_t n = 0; n < frames.size(); ++n)
    for (int c = 0; c < kChannels; ++c)
      for (int col = 0; col < kColumns; ++col) {
        if (c >= 12 && AzimuthColumn(c, col) >= 100 && AzimuthColumn(c, col) < 140) continue;
        const double phase = n == 0 ? 0.45 : 0.55;
        const double az = (col + phase) * 2 * physics::kPi / kColumns + scan.azimuth_offset_rad[c];
        frames[n].Append(ScanPoint(c, az, 10));
      }
  auto fit = FindBlockedDirections(frames, scan);
  ASSERT_TRUE(fit.ok()) << fit.message();
  EXPECT_EQ(fit->pixels, 4u * 40);
  const double step = 2 * physics::kPi / kColumns;
  for (int c = 12; c < kChannels; ++c) {
    ASSERT_EQ(fit->blocked.channel[c].size(), 1u) << c;
    const AzimuthInterval& i = fit->blocked.channel[c][0];
    EXPECT_NEAR(i.from_rad, 100 * step - 0.05 * step, 0.01 * step) << c;
    EXPECT_NEAR(i.to_rad, 140 * step - 0.05 * step, 0.01 * step) << c;
  }
}

// A mast across every channel (azimuth columns 100-109 return nothing on any laser) is a hole in
// the revolution, not its end; a dual-return beam stopped nearer than the minimum range (its first
// return at 0.5 m, its second at 10 m) is blocked as the comparison sees it, by its first.
TEST(BlockedDirections, AMastAcrossEveryChannelAndANearFirstReturnBlock) {
  const RayDropScan scan = TestScan();
  std::vector<Frame> frames(2);
  for (Frame& f : frames)
    for (int c = 0; c < kChannels; ++c)
      for (int col = 0; col < kColumns; ++col) {
        if (AzimuthColumn(c, col) >= 100 && AzimuthColumn(c, col) < 110) continue;  // the mast
        const bool near_first = c == 5 && col >= 200 && col < 220;
        for (int r = 0; r < (near_first ? 2 : 1); ++r) {
          FramePoint pt = ScanPoint(c, PixelAzimuth(c, col), near_first && r == 0 ? 0.5 : 10);
          pt.return_index = static_cast<uint8_t>(r);
          f.Append(pt);
        }
      }
  auto fit = FindBlockedDirections(frames, scan, 1.0);
  ASSERT_TRUE(fit.ok()) << fit.message();
  for (int c = 0; c < kChannels; ++c)
    EXPECT_TRUE(fit->blocked.Blocked(static_cast<uint32_t>(c), PixelAzimuth(c, 105))) << c;
  EXPECT_TRUE(fit->blocked.Blocked(5, PixelAzimuth(5, 210)));
  EXPECT_FALSE(fit->blocked.Blocked(6, PixelAzimuth(6, 210)));
  // No frame returned where another left a pixel empty: no chance drop is learned, and the
  // near returns' line is blocked to its ends.
  EXPECT_EQ(fit->chance_drop_neighbours, -1);
  EXPECT_EQ(fit->pixels, 16u * 10 + 20);
}

// A strut two columns wide across every channel of the staggered scan, among random drops
// (p = 0.1): its pixels lie in azimuth columns 200-201, column indices 199-200 on odd channels
// and 201-202 on even ones. A strut pixel's neighbours above and below in the same directions
// are the strut's too (5 of its 8 neighbours empty), beyond the 2-3 learned for a chance drop,
// so the strut is blocked on every channel but the top and bottom one. Taking the neighbours
// at the same column index (two columns of azimuth apart) found a strut pixel empty beside one
// neighbour only, a chance drop, and blocked none of it.
TEST(BlockedDirections, AStrutIsBlockedOnStaggeredChannels) {
  const RayDropScan scan = TestScan();
  Uniform u{12345};
  std::vector<Frame> frames(3);
  for (Frame& f : frames)
    for (int c = 0; c < kChannels; ++c)
      for (int col = 0; col < kColumns; ++col) {
        const int a = AzimuthColumn(c, col);
        if (a == 200 || a == 201 || u() < 0.1) continue;
        f.Append(ScanPoint(c, PixelAzimuth(c, col), 10));
      }
  auto fit = FindBlockedDirections(frames, scan);
  ASSERT_TRUE(fit.ok()) << fit.message();
  EXPECT_GE(fit->chance_drop_neighbours, 1);
  EXPECT_LE(fit->chance_drop_neighbours, 4);
  for (int c = 1; c + 1 < kChannels; ++c)
    for (int a : {200, 201}) {
      const int col = a - (c % 2 ? 1 : -1);
      EXPECT_TRUE(fit->blocked.Blocked(static_cast<uint32_t>(c), PixelAzimuth(c, col)))
          << "channel " << c << " azimuth column " << a;
    }
}

// Two frames, one of them a partial revolution: the columns only one frame scanned are not
// judged (two frames at least); one frame alone is refused.
TEST(BlockedDirections, APartialFramesUnscannedColumnsAreNotJudged) {
  std::vector<Frame> frames = FramesWithABlock(3, 2, 0.0);
  std::vector<bool> left(frames[1].size());
  for (size_t i = 0; i < left.size(); ++i)
    left[i] = frames[1].y_m[i] > 0;
  KeepPoints(frames[1], left);
  auto fit = FindBlockedDirections(frames, TestScan());
  ASSERT_TRUE(fit.ok()) << fit.message();
  for (int c = 12; c < kChannels; ++c) {
    EXPECT_TRUE(fit->blocked.Blocked(static_cast<uint32_t>(c), PixelAzimuth(c, 120)));  // y > 0
    EXPECT_FALSE(fit->blocked.Blocked(static_cast<uint32_t>(c), PixelAzimuth(c, 270)));
  }
  EXPECT_EQ(fit->pixels, 4u * 40);
  auto one = FindBlockedDirections({frames[0]}, TestScan());
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.message().find("at least two"), std::string::npos);
}

}  // namespace
}  // namespace lt
