// The range-error tail's causes (issue 41) on a range image whose surfaces are known: two walls
// meeting at a depth step, foliage-like alternating ranges, a surface receding along the rays,
// and one return the caller says the reconstruction never saw.
#include "lidartwin/compare/tail_attribution.h"

#include <gtest/gtest.h>

#include <cmath>

namespace lt::compare {
namespace {

constexpr int kChannels = 8, kColumns = 40;

// Range of pixel (c, k): columns 0-9 a wall at 10 m, 10-19 one at 20 m, 20-29 alternating
// 15 / 15.5 m (rough), 30-39 receding 3 m a column (grazing).
double RangeAt(int k) {
  if (k < 10) return 10;
  if (k < 20) return 20;
  if (k < 30) return k % 2 ? 15.5 : 15;
  return 10 + 3.0 * (k - 30);
}

FramePairing Image() {
  FramePairing p;
  for (int c = 0; c < kChannels; ++c)
    for (int k = 0; k < kColumns; ++k) {
      const double el = (c - 4) * M_PI / 180, az = k * 0.5 * M_PI / 180, r = RangeAt(k);
      FramePoint pt;
      pt.x_m = static_cast<float>(r * std::cos(el) * std::cos(az));
      pt.y_m = static_cast<float>(r * std::cos(el) * std::sin(az));
      pt.z_m = static_cast<float>(r * std::sin(el));
      pt.range_m = static_cast<float>(r);
      pt.channel = static_cast<uint16_t>(c);
      pt.column = static_cast<uint32_t>(k);
      p.real.Append(pt);
      // The simulated range: 1 m off on both sides of the step, 2 m at (4, 5), exact elsewhere
      // (so that the tail is exactly the 17 returns off, whatever the floats round to).
      const bool step = k == 9 || k == 10;
      pt.range_m += static_cast<float>(c == 4 && k == 5 ? 2.0 : step ? 1.0 : 0.0);
      p.sim.Append(pt);
      const uint32_t i = static_cast<uint32_t>(p.real.size() - 1);
      p.association.pairs.push_back({i, i});
    }
  return p;
}

TEST(TailAttribution, TheTailLiesWhereItsErrorsWere) {
  const FramePairing p = Image();
  const uint32_t unseen_index = 4 * kColumns + 5;
  auto t = AttributeRangeTail(p, [&](uint32_t i) { return i == unseen_index; });
  ASSERT_TRUE(t.ok()) << t.message();
  // p90 over 320 pairs: 303 exact, 16 at 1 m, 1 at 2 m; the tail is every pair off.
  EXPECT_EQ(t->threshold_m, 0);
  ASSERT_EQ(t->tail, 17u);
  ASSERT_EQ(t->causes.size(), 5u);
  EXPECT_EQ(t->causes[0].name, "unseen");
  EXPECT_NEAR(t->causes[0].tail_share, 1.0 / 17, 1e-12);
  EXPECT_EQ(t->causes[1].name, "depth edge");
  EXPECT_NEAR(t->causes[1].tail_share, 16.0 / 17, 1e-12);
  // Over all pairs: the receding surface's inside is grazing, the alternating one rough.
  EXPECT_EQ(t->causes[2].name, "grazing");
  EXPECT_GE(t->causes[2].all_share, 48.0 / 320);
  EXPECT_EQ(t->causes[3].name, "rough");
  EXPECT_GE(t->causes[3].all_share, 48.0 / 320);
  // The walls' insides (columns 1-8 and 11-18, channels 1-6, less the unseen one): neither
  // edge, grazing nor rough; nor is the scan's own border (the top and bottom rows, the first
  // and last columns) an edge.
  EXPECT_GE(t->causes[4].all_share, (2 * 8 * 6 - 1) / 320.0);
  EXPECT_LE(t->causes[1].all_share, (16 + 6 * 4) / 320.0);  // the step, and the blocks' ends

  // Lasers numbered out of elevation order (as a Velodyne's interleave): rows by elevation,
  // the same causes.
  FramePairing shuffled = p;
  for (uint16_t& c : shuffled.real.channel)
    c = static_cast<uint16_t>((c * 3) % kChannels);
  auto u = AttributeRangeTail(shuffled, [&](uint32_t i) { return i == unseen_index; });
  ASSERT_TRUE(u.ok()) << u.message();
  for (size_t c = 0; c < t->causes.size(); ++c) {
    EXPECT_EQ(u->causes[c].tail_share, t->causes[c].tail_share) << t->causes[c].name;
    EXPECT_EQ(u->causes[c].all_share, t->causes[c].all_share) << t->causes[c].name;
  }
}

TEST(TailAttribution, AFrameWithoutARangeImageIsRefused) {
  FramePairing p;
  FramePoint pt;
  pt.range_m = 5;
  p.real.Append(pt);
  p.sim.Append(pt);
  p.association.pairs.push_back({0, 0});
  p.real.column.clear();
  auto t = AttributeRangeTail(p, {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("no channel and column"), std::string::npos);
  // Columns all 0 (how a frame without them is stored): no range image either.
  FramePairing flat = Image();
  for (uint32_t& k : flat.real.column)
    k = 0;
  auto f = AttributeRangeTail(flat, {});
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("all carry one column"), std::string::npos);
}

}  // namespace
}  // namespace lt::compare
