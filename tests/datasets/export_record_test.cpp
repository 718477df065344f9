// Export's journal records (export_record.h) and the planner a resumed shard restores from them
// (frame_tables.h, TablePlanner::Restore): records round-trip bit for bit and survive damage; a
// planner restored from the replayed rows and the few frames simulated again plans what the
// original goes on to plan, byte for byte.
#include <gtest/gtest.h>

#include <atomic>

#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "../../datasets/export/export_record.h"
#include "../../datasets/export/frame_producers.h"
#include "../../datasets/hdf5/frame_tables.h"

namespace lt {
namespace {

Frame MakeFrame(uint32_t index, size_t points, size_t records, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-50, 50);
  Frame f;
  f.index = index;
  f.start_time_s = index * 0.1;
  f.end_time_s = f.start_time_s + 0.1;
  f.pose_end.translation = {1.5, -2.0, 0.25 * index};
  for (size_t i = 0; i < points; ++i) {
    FramePoint p;
    p.x_m = u(rng);
    p.y_m = u(rng);
    p.z_m = u(rng);
    p.range_m = std::abs(u(rng));
    p.channel = static_cast<uint16_t>(i % 128);
    p.column = static_cast<uint32_t>(i / 128);
    p.timestamp_s = f.start_time_s + static_cast<double>(i) * 1e-6;
    p.instance_id = static_cast<uint32_t>(rng() % 7);
    p.beam_id = static_cast<uint32_t>(i);
    f.Append(p);
  }
  for (size_t r = 0; r < records; ++r)
    f.waveform_beams.push_back(static_cast<uint32_t>(3 * r));
  f.waveform_samples = records > 0 ? 1000 : 0;
  f.waveform_dt_s = records > 0 ? 1e-9 : 0;
  for (size_t i = 0; i < records * 1000; ++i)
    f.waveform_volts.push_back(u(rng));
  return f;
}

// The payload of a record's bytes (past the 16-byte head, before the 4-byte CRC).
std::string PayloadOf(const FrameJournal::Record& r) {
  const std::string bytes = r.Bytes();
  return bytes.substr(16, bytes.size() - 20);
}

TEST(ExportRecord, RoundTripsAndSurvivesDamagedPayloads) {
  hdf5::TablePlanner planner;
  std::vector<hdf5::EncodedFrame> encoded;
  for (uint32_t k = 0; k < 4; ++k) {
    auto plan = planner.Plan(std::make_shared<const Frame>(MakeFrame(k, 30000, k % 2, k + 1)));
    ASSERT_TRUE(plan.ok()) << plan.message();
    encoded.push_back(hdf5::EncodePlan(*plan, planner.columns()));
  }
  // Frame 2 completes a chunk of every point column (90,000 points so far).
  ASSERT_EQ(encoded[2].points.front().size(), 1u);
  for (const auto& e : encoded) {
    const std::string payload = PayloadOf(JournalRecordOf(e));
    auto back = EncodedFrameOf(payload);
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_TRUE(PayloadOf(JournalRecordOf(*back)) == payload);
    EXPECT_EQ(back->row->index, e.row->index);
    EXPECT_EQ(back->columns, e.columns);
  }
  // In order they follow one another; a record out of place or with chunks out of place does
  // not (review: a damaged journal made the replay overflow a chunk's buffer).
  ReplayTotals totals;
  for (const auto& e : encoded)
    EXPECT_TRUE(CheckRecordFollows(e, totals).ok());
  ReplayTotals again;
  EXPECT_TRUE(CheckRecordFollows(encoded[0], again).ok());
  EXPECT_NE(CheckRecordFollows(encoded[2], again).message().find("offsets are not where"),
            std::string::npos);
  ReplayTotals shifted;
  for (int k = 0; k < 2; ++k)
    ASSERT_TRUE(CheckRecordFollows(encoded[k], shifted).ok());
  hdf5::EncodedFrame moved = encoded[2];
  moved.points[3][0].index = 7;
  EXPECT_NE(CheckRecordFollows(moved, shifted).message().find("point chunks are not the next"),
            std::string::npos);
  hdf5::EncodedFrame masked = encoded[2];
  masked.points[0][0].filter_mask = 3;
  auto refused = EncodedFrameOf(PayloadOf(JournalRecordOf(masked)));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("filter mask 3"), std::string::npos) << refused.message();
  const std::string payload = PayloadOf(JournalRecordOf(encoded[2]));
  for (size_t cut = 0; cut < payload.size(); cut += 1 + cut / 64) {
    EXPECT_FALSE(EncodedFrameOf(payload.substr(0, cut)).ok()) << cut;
  }
  std::mt19937 rng(4);
  for (int i = 0; i < 3000; ++i) {  // decodes or is an error; never allocates past the payload
    std::string p = payload;
    p[rng() % 400] = static_cast<char>(rng());
    auto e = EncodedFrameOf(p);
    if (!e.ok()) continue;
    size_t bytes = 0;
    for (const auto& column : e->points)
      for (const auto& c : column)
        bytes += c.bytes.size();
    EXPECT_LE(bytes, p.size());
  }
}

// Review: a waveform chunk of 65,536 records filled one record a frame kept every frame alive,
// every point of it. An unfinished chunk keeps at most kMaxFramesHeld frames, copying what it
// needs of the others, and the chunks come out the same.
TEST(TablePlanner, AnUnfinishedChunkKeepsFewFramesAlive) {
  hdf5::TablePlanner planner, unbounded_check;
  std::vector<std::weak_ptr<const Frame>> alive;
  std::vector<std::string> chunks;
  for (uint32_t k = 0; k < 300; ++k) {
    auto frame = std::make_shared<const Frame>(MakeFrame(k, 500, 1, k + 1));
    alive.push_back(frame);
    auto plan = planner.Plan(frame);
    ASSERT_TRUE(plan.ok());
    const auto encoded = hdf5::EncodePlan(*plan, planner.columns());
    for (const auto& column : encoded.points)
      for (const auto& c : column)
        chunks.push_back(c.bytes);
  }
  size_t living = 0;
  for (const auto& w : alive)
    living += !w.expired();
  EXPECT_LE(living, 3 * hdf5::kMaxFramesHeld);
  // The same frames, all kept by the caller: the chunks do not depend on what was copied.
  std::vector<std::shared_ptr<const Frame>> kept;
  std::vector<std::string> again;
  for (uint32_t k = 0; k < 300; ++k) {
    kept.push_back(std::make_shared<const Frame>(MakeFrame(k, 500, 1, k + 1)));
    auto plan = unbounded_check.Plan(kept.back());
    ASSERT_TRUE(plan.ok());
    const auto encoded = hdf5::EncodePlan(*plan, unbounded_check.columns());
    for (const auto& column : encoded.points)
      for (const auto& c : column)
        again.push_back(c.bytes);
  }
  EXPECT_EQ(chunks, again);
  EXPECT_FALSE(chunks.empty());
}

// A shard killed after frame k: the rows of the records it replays and the frames that hold
// values of unfinished chunks give a planner that goes on exactly as the uninterrupted one.
TEST(TablePlanner, RestoredFromRowsPlansAsTheOriginal) {
  std::map<uint32_t, Frame> frames;
  for (uint32_t k = 0; k < 12; ++k) {
    frames[k] = MakeFrame(k, k == 3 ? 0 : 20000 + 7919 * k % 50000, k % 3 == 0 ? 40 : 0, k + 9);
  }
  for (uint32_t killed_after : {0u, 2u, 3u, 5u, 9u}) {
    hdf5::TablePlanner original;
    hdf5::PendingRows pending;
    hdf5::PointColumns columns;
    for (uint32_t k = 0; k <= killed_after; ++k) {
      auto plan = original.Plan(std::make_shared<const Frame>(frames[k]));
      ASSERT_TRUE(plan.ok());
      pending.Add(*plan->row);
      columns = original.columns();
    }
    std::vector<uint32_t> simulated;
    hdf5::TablePlanner restored;
    ASSERT_TRUE(restored
                    .Restore(pending, columns,
                             [&](uint32_t k) -> Expected<std::shared_ptr<const Frame>> {
                               simulated.push_back(k);
                               return std::make_shared<const Frame>(frames.at(k));
                             })
                    .ok());
    EXPECT_LE(simulated.size(), 4u) << "after " << killed_after;  // a chunk's frames at most
    for (uint32_t k = killed_after + 1; k < 12; ++k) {
      auto a = original.Plan(std::make_shared<const Frame>(frames[k]));
      auto b = restored.Plan(std::make_shared<const Frame>(frames[k]));
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_TRUE(PayloadOf(JournalRecordOf(hdf5::EncodePlan(*a, original.columns()))) ==
                  PayloadOf(JournalRecordOf(hdf5::EncodePlan(*b, restored.columns()))))
          << "frame " << k << " after a kill after " << killed_after;
    }
    EXPECT_TRUE(PayloadOf(JournalRecordOf(hdf5::EncodePlan(original.Finish(), columns))) ==
                PayloadOf(JournalRecordOf(hdf5::EncodePlan(restored.Finish(), columns))));
  }
  // A frame simulated again that differs from its record is named, not used.
  hdf5::TablePlanner original;
  hdf5::PendingRows pending;
  auto plan = original.Plan(std::make_shared<const Frame>(frames[0]));
  pending.Add(*plan->row);
  hdf5::TablePlanner restored;
  const Status s = restored.Restore(pending, original.columns(),
                                    [&](uint32_t) -> Expected<std::shared_ptr<const Frame>> {
                                      return std::make_shared<const Frame>(frames[1]);
                                    });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("frame 0 simulated again is not the frame its record holds"),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace lt

namespace lt {
namespace {

// A simulator that takes a while, differently for each frame, and fails at one. It counts the
// calls that asked for another frame than the one ExpectFollowing announced before the call
// before.
class SlowSimulator : public Simulator {
 public:
  explicit SlowSimulator(uint32_t fail_at) : fail_at_(fail_at) {}
  void ExpectFollowing(std::optional<uint32_t> k) override {
    following_ = k ? int64_t{*k} : -1;
    hints += k.has_value();
  }
  Expected<Frame> Simulate(uint32_t k) override {
    ++calls;
    if (expected_ >= 0 && expected_ != k) ++broken_hints;
    expected_ = following_;
    following_ = -1;
    std::this_thread::sleep_for(std::chrono::microseconds(100 * ((k * 7919) % 13)));
    if (k == fail_at_) return Error{"frame " + std::to_string(k) + " failed"};
    Frame f;
    f.index = k;
    return f;
  }
  uint64_t RaysPerFrame() const override { return 0; }
  Backend backend() const override { return Backend::kCpu; }
  std::atomic<int> calls{0}, hints{0}, broken_hints{0};

 private:
  uint32_t fail_at_;
  int64_t expected_ = -1, following_ = -1;  // only its thread's
};

// Two simulators on their threads hand out frames in order whatever their timing; an error
// comes at its frame; frames not taken do not keep the threads from stopping.
TEST(FrameProducers, HandOutFramesInOrderAndStop) {
  SlowSimulator a(1000), b(1000);
  {
    FrameProducers producers({&a, &b}, 5, 45);
    for (uint32_t k = 5; k < 45; ++k) {
      double seconds = -1;
      auto f = producers.Next(&seconds);
      ASSERT_TRUE(f.ok()) << f.message();
      EXPECT_EQ(f->index, k);
      EXPECT_GE(seconds, 0);
    }
  }
  SlowSimulator c(12), d(12);
  FrameProducers failing({&c, &d}, 10, 1000);
  double seconds = 0;
  EXPECT_TRUE(failing.Next(&seconds).ok());
  EXPECT_TRUE(failing.Next(&seconds).ok());
  auto f = failing.Next(&seconds);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.message(), "frame 12 failed");
}  // 988 frames never taken: the destructor stops the threads

// A simulator added while the first runs (the export's second, made meanwhile) takes frames
// from the next one not taken; every frame comes once, in order.
TEST(FrameProducers, ASimulatorAddedLaterSharesTheFramesInOrder) {
  SlowSimulator a(1000), b(1000);
  FrameProducers producers({&a}, 0, 200);
  double seconds = 0;
  for (uint32_t k = 0; k < 200; ++k) {
    if (k == 10) producers.Add(&b);
    auto f = producers.Next(&seconds);
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_EQ(f->index, k);
  }
  EXPECT_EQ(a.calls + b.calls, 200);
  EXPECT_GT(b.calls, 0);  // about half of the 190 frames left when it joined
  // A thread announces the frame it takes next wherever the window lets it claim one (all but
  // a few: the claim may pass the window by one frame a thread), and keeps to it.
  EXPECT_GE(a.hints + b.hints, 150);
  EXPECT_EQ(a.broken_hints + b.broken_hints, 0);
}

// The window near the last frame numbers: frames up to 2^32 - 1 come, in order (a window
// written as next + ahead x producers wrapped there and nothing was ever taken).
TEST(FrameProducers, TheLastFrameNumbersComeToo) {
  SlowSimulator a(0), b(0);
  FrameProducers producers({&a, &b}, UINT32_MAX - 3, UINT32_MAX);
  double seconds = 0;
  for (uint32_t k = UINT32_MAX - 3; k < UINT32_MAX; ++k) {
    auto f = producers.Next(&seconds);
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_EQ(f->index, k);
  }
}

}  // namespace
}  // namespace lt
