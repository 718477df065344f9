// What reproduce compares of a recorded frame (jobs/src/compared_returns.h): one revolution of
// a frame that holds more, each beam's first return of a dual-return frame.
#include "compared_returns.h"

#include <gtest/gtest.h>

namespace lt::jobs {
namespace {

// A frame of `columns` columns from `first` on, two channels, each beam with a first return at
// 5 m and, on odd columns, a second at 9 m.
Frame DualFrame(uint32_t first, uint32_t columns) {
  Frame f;
  for (uint32_t col = first; col < first + columns; ++col)
    for (uint16_t c = 0; c < 2; ++c)
      for (uint8_t r = 0; r < (col % 2 ? 2 : 1); ++r) {
        FramePoint p;
        p.range_m = r ? 9.0f : 5.0f;
        p.x_m = p.range_m;
        p.channel = c;
        p.column = col;
        p.return_index = r;
        f.Append(p);
      }
  return f;
}

TEST(ComparedReturns, AFrameLongerThanARevolutionKeepsItsFirst) {
  Frame f = DualFrame(3, 625);  // a PandarQT64 message: 625 columns of a 600-column revolution
  const size_t before = f.size();
  const size_t past = KeepFirstRevolution(f, 600);
  EXPECT_EQ(f.size() + past, before);
  EXPECT_EQ(*std::max_element(f.column.begin(), f.column.end()), 602u);
  EXPECT_EQ(*std::min_element(f.column.begin(), f.column.end()), 3u);
  EXPECT_EQ(past, 25u * 2 + 13u * 2);  // columns 603-627 on 2 channels, 13 odd ones twice
  Frame whole = DualFrame(0, 600);
  EXPECT_EQ(KeepFirstRevolution(whole, 600), 0u);
  Frame no_columns = DualFrame(0, 700);
  no_columns.column.clear();
  EXPECT_EQ(KeepFirstRevolution(no_columns, 600), 0u);
  Frame other_count = DualFrame(0, 661);  // over 1.1 revolutions: columns of another count
  EXPECT_EQ(KeepFirstRevolution(other_count, 600), 0u);
  Frame a_tenth_more = DualFrame(0, 660);
  EXPECT_EQ(KeepFirstRevolution(a_tenth_more, 600), 60u * 2 + 30u * 2);
}

TEST(ComparedReturns, EachBeamKeepsItsFirstReturnOnly) {
  Frame f = DualFrame(0, 10);
  EXPECT_EQ(KeepFirstReturns(f), 10u);  // 5 odd columns, 2 channels
  EXPECT_EQ(f.size(), 20u);
  for (size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(f.return_index[i], 0);
    EXPECT_EQ(f.range_m[i], 5.0f);
  }
  EXPECT_EQ(KeepFirstReturns(f), 0u);  // single returns: left whole
  EXPECT_EQ(f.size(), 20u);
}

}  // namespace
}  // namespace lt::jobs
