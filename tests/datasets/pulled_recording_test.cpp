// PulledRecording (issue 36): a streamed recording read one frame per call, so that compare
// reads two in step; the same frames as ReadRecording, errors passed on once, an early stop
// that neither hangs nor leaks its reader.
#include <gtest/gtest.h>

#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/datasets/pulled_recording.h"
#include "test_support.h"

namespace lt {
namespace {

void WriteFrames(const std::filesystem::path& path, int frames) {
  auto w = Hdf5FrameWriter::Create(path, DatasetInfo{});
  ASSERT_TRUE(w.ok()) << w.message();
  for (int k = 0; k < frames; ++k) {
    Frame f;
    f.index = static_cast<uint32_t>(k);
    for (int i = 0; i <= k; ++i) {
      FramePoint p;
      p.x_m = static_cast<float>(k);
      p.y_m = static_cast<float>(i);
      p.range_m = std::hypot(p.x_m, p.y_m);
      f.Append(p);
    }
    ASSERT_TRUE((*w)->Append(f).ok());
  }
  ASSERT_TRUE((*w)->Close().ok());
}

std::unique_ptr<PulledRecording> Pull(const std::filesystem::path& path) {
  auto source = OpenRecording(path, "");
  EXPECT_TRUE(source.ok()) << source.message();
  return std::make_unique<PulledRecording>(std::move(*source));
}

TEST(PulledRecording, GivesTheFramesReadRecordingGivesAndThenTheEnd) {
  test::TempDir dir;
  WriteFrames(dir / "a.h5", 6);
  auto whole = ReadRecording(dir / "a.h5", "");
  ASSERT_TRUE(whole.ok());
  auto pulled = Pull(dir / "a.h5");
  for (const Frame& expected : whole->frames) {
    auto f = pulled->Next();
    ASSERT_TRUE(f.ok() && f->has_value());
    EXPECT_EQ((*f)->x_m, expected.x_m);
    EXPECT_EQ((*f)->y_m, expected.y_m);
  }
  for (int i = 0; i < 2; ++i) {  // the end, and still the end
    auto end = pulled->Next();
    ASSERT_TRUE(end.ok());
    EXPECT_FALSE(end->has_value());
  }
}

TEST(PulledRecording, TwoFilesReadInStepAndStoppedEarly) {
  // Two HDF5 recordings alternate (the library is not thread-safe: the baton keeps their
  // calls apart); the second is left half read, and its reader must stop when it goes.
  test::TempDir dir;
  WriteFrames(dir / "a.h5", 40);
  WriteFrames(dir / "b.h5", 40);
  auto a = Pull(dir / "a.h5");
  {
    auto b = Pull(dir / "b.h5");
    for (int k = 0; k < 20; ++k) {
      auto fa = a->Next(), fb = b->Next();
      ASSERT_TRUE(fa.ok() && fb.ok() && fa->has_value() && fb->has_value());
      EXPECT_EQ((*fa)->size(), static_cast<size_t>(k + 1));
      EXPECT_EQ((*fb)->size(), static_cast<size_t>(k + 1));
    }
  }
  int rest = 0;
  for (auto f = a->Next(); f.ok() && f->has_value(); f = a->Next())
    ++rest;
  EXPECT_EQ(rest, 20);
  auto never_read = Pull(dir / "b.h5");  // destroyed before its first frame
}

TEST(PulledRecording, AReadersErrorIsGivenOnceThenTheEnd) {
  test::TempDir dir;
  // A PCD whose body is shorter than its header says: the reader fails on its only frame.
  const auto bad = dir.Write("bad.pcd",
                             "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nPOINTS 2\n"
                             "DATA ascii\n1 2 3\n");
  auto pulled = Pull(bad);
  auto first = pulled->Next();
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.message().find("bad.pcd"), std::string::npos) << first.message();
  auto then = pulled->Next();
  ASSERT_TRUE(then.ok());
  EXPECT_FALSE(then->has_value());
}

}  // namespace
}  // namespace lt
