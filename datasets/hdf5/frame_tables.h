// How frames become the flat tables of a frames file (schema v2, datasets/schema/frames_v2.md):
// every frame's points appended to one column per field under /points, its waveform records to
// /waveforms, its row to /frames. Columns are cut into chunks of kTableChunkValues values
// whatever the frame boundaries, so a file of thousands of frames holds a few datasets, not
// thousands (private to datasets/).
//
// Planning is serial and cheap (which chunks each frame completes, and from which frames'
// values); encoding a plan (shuffle and deflate of those chunks) needs no HDF5 call, so any
// thread may do it; the writer stores the encoded chunks in plan order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chunk_codec.h"
#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"

namespace lt::hdf5 {

// A frame's row of /frames.
struct FrameRow {
  uint32_t index = 0;
  double start_time_s = 0, end_time_s = 0;
  bool motion_corrected = false;
  double pose_start[7] = {1, 0, 0, 0, 0, 0, 0};  // xyz then wxyz
  double pose_end[7] = {1, 0, 0, 0, 0, 0, 0};
  uint64_t points = 0;
  uint64_t point_offset = 0;  // its first point in /points
  uint32_t waveform_records = 0;
  uint64_t waveform_record_offset = 0;  // its first record in /waveforms/beam_id
  uint64_t waveform_volts_offset = 0;   // its first value in /waveforms/volts
  uint32_t waveform_samples = 0;
  double waveform_sample_interval_ns = 0;
};

// A column of /frames: its name, unit and type, `width` values a row (7 for the poses), and
// how a row's values are packed into (native byte order) and read from it.
struct RowColumn {
  const char* name;
  const char* unit;
  FieldType type;
  int width;
  void (*pack)(const FrameRow& row, char* out);
  void (*unpack)(const char* in, FrameRow& row);
};
const std::vector<RowColumn>& RowColumns();

// Values [begin, begin + count) of one frame in a table: read from the frame, or (once an
// unfinished chunk would keep many frames alive) from copies of the table's columns.
struct FramePiece {
  std::shared_ptr<const Frame> frame;  // null when `copies` holds the values
  uint64_t begin = 0, count = 0;
  std::shared_ptr<const std::vector<std::string>> copies;  // a column's values each
};

// A table's columns' values [begin, begin + count) of a frame, copied.
using PieceCopier =
    std::function<std::vector<std::string>(const Frame& frame, uint64_t begin, uint64_t count)>;

// Frames an unfinished chunk keeps alive at most: past this its pieces are copied. A chunk of
// a table whose frames add few values (a few waveform records, a sensor of few points) would
// otherwise keep thousands of frames, every point of them.
inline constexpr size_t kMaxFramesHeld = 8;

// One chunk of a column: its pieces, in order (fewer than a chunk's values in a file's last).
struct ChunkPlan {
  uint64_t index = 0;
  std::vector<FramePiece> pieces;
};

// Cuts one table's values into chunks, frame after frame.
class TableCutter {
 public:
  explicit TableCutter(PieceCopier copy) : copy_(std::move(copy)) {}
  // The chunks that the frame's `count` values complete.
  std::vector<ChunkPlan> Add(const std::shared_ptr<const Frame>& frame, uint64_t count);
  // The last chunk, if values are left over.
  std::optional<ChunkPlan> Finish();
  uint64_t values() const { return values_; }
  // The state after `values` values, `pending` holding those of the unfinished chunk (a resumed
  // file: TablePlanner::Restore), and one more piece of it.
  void Restore(uint64_t values, ChunkPlan pending);
  void AddPending(const std::shared_ptr<const Frame>& frame, uint64_t begin, uint64_t count);
  uint64_t pending_values() const { return pending_values_; }

 private:
  void HoldFewFrames();
  PieceCopier copy_;
  uint64_t values_ = 0;
  ChunkPlan pending_;
  uint64_t pending_values_ = 0;
  size_t copied_ = 0;  // pending_'s pieces before this hold copies
};

// What a frame adds to a file: its row and the chunks it completes, per table.
struct FramePlan {
  std::optional<FrameRow> row;      // empty in the file's closing plan
  std::vector<ChunkPlan> points;    // for every point column alike
  std::vector<ChunkPlan> beam_ids;  // /waveforms/beam_id
  std::vector<ChunkPlan> volts;     // /waveforms/volts
};

// The point columns a file carries: indices into FrameFields' order.
using PointColumns = std::vector<size_t>;

// A FramePlan's chunks, encoded.
struct EncodedFrame {
  std::optional<FrameRow> row;
  PointColumns columns;                           // those `points` holds, in order
  std::vector<std::vector<EncodedChunk>> points;  // [column of PointColumns][chunk]
  std::vector<EncodedChunk> beam_ids, volts;
};

// The rows a resumed file's planner needs (TablePlanner::Restore): those whose values may still
// wait in a table's unfinished chunk. Added in order, it keeps a few rows whatever the count.
class PendingRows {
 public:
  void Add(const FrameRow& row);
  const std::vector<FrameRow>& rows() const { return rows_; }
  const std::optional<FrameRow>& last() const { return last_; }  // the totals
  bool any_points() const { return any_points_; }

 private:
  std::vector<FrameRow> rows_;
  std::optional<FrameRow> last_;
  bool any_points_ = false;
};

// Frame k as the simulation gives it again (deterministic: the same seed, the same frame).
using FrameSource = std::function<Expected<std::shared_ptr<const Frame>>(uint32_t index)>;

class TablePlanner {
 public:
  TablePlanner() = default;
  TablePlanner(const TablePlanner&) = delete;  // its cutters refer to it
  TablePlanner& operator=(const TablePlanner&) = delete;
  // The frame's row and chunks. The first frame with points fixes the file's point columns
  // (those it fills); every later frame must fill the same ones. Errors name the field.
  Expected<FramePlan> Plan(std::shared_ptr<const Frame> frame);
  // The last, partial chunks of every table.
  FramePlan Finish();
  // The state after the frames of a replayed journal (export_record.h): the totals from the last
  // of `pending`'s rows, the values of unfinished chunks from `again` (the few frames that hold
  // them, simulated again and checked against their rows), and the point columns the records
  // carried (fixed when any frame had points).
  Status Restore(const PendingRows& pending, const PointColumns& columns, const FrameSource& again);
  // The point columns (every field but the optional ones until a frame with points says).
  const PointColumns& columns() const { return columns_; }

 private:
  bool columns_fixed_ = false;
  PointColumns columns_ = DefaultColumns();
  TableCutter points_{[this](const Frame& f, uint64_t begin, uint64_t count) {
    return CopyPoints(f, begin, count);
  }};
  TableCutter beam_ids_{[](const Frame& f, uint64_t begin, uint64_t count) {
    return std::vector<std::string>{std::string(
        reinterpret_cast<const char*>(f.waveform_beams.data() + begin), count * sizeof(uint32_t))};
  }};
  TableCutter volts_{[](const Frame& f, uint64_t begin, uint64_t count) {
    return std::vector<std::string>{std::string(
        reinterpret_cast<const char*>(f.waveform_volts.data() + begin), count * sizeof(float))};
  }};
  std::vector<std::string> CopyPoints(const Frame& f, uint64_t begin, uint64_t count) const;
  static PointColumns DefaultColumns();
};

// Thread-safe (it reads the frames the plan holds and writes nothing shared).
EncodedFrame EncodePlan(const FramePlan& plan, const PointColumns& columns);

// The FieldView of FrameFields(f) at `column`.
FieldView FrameColumn(const Frame& f, size_t column);

}  // namespace lt::hdf5
