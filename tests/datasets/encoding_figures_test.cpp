// The encoding figure `lidartwin bench --export` prints (encoding_figures.h): the chunks a run
// of frames completes, their raw and stored bytes.
#include "lidartwin/datasets/encoding_figures.h"

#include <gtest/gtest.h>

namespace lt {
namespace {

Frame PlateFrame(uint32_t index, uint32_t points) {
  Frame f;
  f.index = index;
  for (uint32_t i = 0; i < points; ++i) {
    FramePoint p;
    p.x_m = 5.0f + 1e-3f * static_cast<float>(i % 977);
    p.y_m = 0.5f;
    p.range_m = p.x_m;
    p.intensity = 40;
    p.channel = static_cast<uint16_t>(i % 128);
    p.column = i / 128;
    p.timestamp_s = 1e-6 * i;
    p.beam_id = i;
    p.material_id = 3;
    f.Append(p);
  }
  return f;
}

TEST(EncodingFigures, CountsTheCompleteChunksAndTheirBytes) {
  // 1.5 chunks of 65,536 values a frame: two frames complete three chunks a column.
  const std::vector<Frame> frames = {PlateFrame(0, 98304), PlateFrame(1, 98304)};
  auto e = MeasureEncoding(frames);
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_EQ(e->frames, 2u);
  // 14 point columns (no pulse width): x, y, z, range, intensity and reflectance of 4 bytes,
  // the timestamp of 8, channel, material and semantic class of 2, column, instance and beam
  // of 4, the return index of 1.
  const uint64_t bytes_per_point = 4 * 6 + 8 + 2 * 3 + 4 * 3 + 1;
  EXPECT_EQ(e->chunks, 3u * 14);
  EXPECT_EQ(e->raw_bytes, 3u * 65536 * bytes_per_point);
  EXPECT_GT(e->encoded_bytes, 0u);
  EXPECT_LT(e->encoded_bytes, e->raw_bytes / 4);  // mostly repeats
  EXPECT_GT(e->seconds, 0.0);
  auto none = MeasureEncoding({PlateFrame(0, 10)});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->chunks, 0u);  // a chunk is complete at 65,536 values
  EXPECT_EQ(none->raw_bytes, 0u);
}

}  // namespace
}  // namespace lt
