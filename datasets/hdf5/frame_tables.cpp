#include "frame_tables.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "hdf5_attributes.h"

namespace lt::hdf5 {

std::vector<ChunkPlan> TableCutter::Add(const std::shared_ptr<const Frame>& frame, uint64_t count) {
  std::vector<ChunkPlan> done;
  uint64_t begin = 0;
  while (begin < count) {
    const uint64_t take = std::min(count - begin, kTableChunkValues - pending_values_);
    pending_.pieces.push_back({frame, begin, take, nullptr});
    pending_values_ += take;
    begin += take;
    if (pending_values_ == kTableChunkValues) {
      done.push_back(std::move(pending_));
      pending_ = ChunkPlan{done.back().index + 1, {}};
      pending_values_ = 0;
      copied_ = 0;
    }
  }
  values_ += count;
  HoldFewFrames();
  return done;
}

void TableCutter::HoldFewFrames() {
  if (pending_.pieces.size() - copied_ <= kMaxFramesHeld) return;
  // Pieces before copied_ hold copies already: each piece is looked at once a chunk.
  for (; copied_ < pending_.pieces.size(); ++copied_) {
    FramePiece& piece = pending_.pieces[copied_];
    if (!piece.frame) continue;
    piece.copies = std::make_shared<const std::vector<std::string>>(
        copy_(*piece.frame, piece.begin, piece.count));
    piece.frame.reset();
    piece.begin = 0;
  }
}

void TableCutter::Restore(uint64_t values, ChunkPlan pending) {
  values_ = values;
  pending_ = std::move(pending);
  pending_.index = values / kTableChunkValues;
  pending_values_ = 0;
  copied_ = 0;
  for (const FramePiece& piece : pending_.pieces)
    pending_values_ += piece.count;
  HoldFewFrames();
}

void TableCutter::AddPending(const std::shared_ptr<const Frame>& frame, uint64_t begin,
                             uint64_t count) {
  pending_.pieces.push_back({frame, begin, count, nullptr});
  pending_values_ += count;
  HoldFewFrames();
}

std::optional<ChunkPlan> TableCutter::Finish() {
  if (pending_values_ == 0) return std::nullopt;
  ChunkPlan last = std::move(pending_);
  pending_ = ChunkPlan{last.index + 1, {}};
  pending_values_ = 0;
  copied_ = 0;
  return last;
}

namespace {

// A column of one value a row: FrameRow's member, stored as `Stored` (a flag as u8).
template <auto kMember, typename Stored>
RowColumn Scalar(const char* name, const char* unit, FieldType type) {
  return {name,
          unit,
          type,
          1,
          [](const FrameRow& r, char* out) {
            const Stored v = static_cast<Stored>(r.*kMember);
            std::memcpy(out, &v, sizeof(v));
          },
          [](const char* in, FrameRow& r) {
            Stored v;
            std::memcpy(&v, in, sizeof(v));
            r.*kMember = static_cast<std::remove_reference_t<decltype(r.*kMember)>>(v);
          }};
}

// A pose column: seven values a row, xyz then wxyz.
template <auto kMember>
RowColumn Pose(const char* name) {
  return {name,
          "m, quaternion",
          FieldType::kFloat64,
          7,
          [](const FrameRow& r, char* out) { std::memcpy(out, r.*kMember, sizeof(r.*kMember)); },
          [](const char* in, FrameRow& r) { std::memcpy(r.*kMember, in, sizeof(r.*kMember)); }};
}

}  // namespace

const std::vector<RowColumn>& RowColumns() {
  using F = FieldType;
  using R = FrameRow;
  static const std::vector<RowColumn> columns = {
      Scalar<&R::index, uint32_t>("frame_index", "index", F::kUInt32),
      Scalar<&R::point_offset, uint64_t>("point_offset", "index", F::kUInt64),
      Scalar<&R::points, uint64_t>("point_count", "points", F::kUInt64),
      Scalar<&R::start_time_s, double>("start_time_s", "s", F::kFloat64),
      Scalar<&R::end_time_s, double>("end_time_s", "s", F::kFloat64),
      Scalar<&R::motion_corrected, uint8_t>("motion_corrected", "flag", F::kUInt8),
      Pose<&R::pose_start>("pose_start_xyz_wxyz"),
      Pose<&R::pose_end>("pose_end_xyz_wxyz"),
      Scalar<&R::waveform_record_offset, uint64_t>("waveform_record_offset", "index", F::kUInt64),
      Scalar<&R::waveform_records, uint32_t>("waveform_records", "records", F::kUInt32),
      Scalar<&R::waveform_volts_offset, uint64_t>("waveform_volts_offset", "index", F::kUInt64),
      Scalar<&R::waveform_samples, uint32_t>("waveform_samples", "samples", F::kUInt32),
      Scalar<&R::waveform_sample_interval_ns, double>("waveform_sample_interval_ns", "ns",
                                                      F::kFloat64),
  };
  return columns;
}

FieldView FrameColumn(const Frame& f, size_t column) {
  return FrameFields(f).at(column);
}

std::vector<std::string> TablePlanner::CopyPoints(const Frame& f, uint64_t begin,
                                                  uint64_t count) const {
  std::vector<std::string> copies;
  const auto fields = FrameFields(f);
  for (size_t column : columns_) {
    const size_t bytes = FieldTypeBytes(fields[column].type);
    copies.emplace_back(static_cast<const char*>(fields[column].data) + begin * bytes,
                        count * bytes);
  }
  return copies;
}

PointColumns TablePlanner::DefaultColumns() {
  PointColumns columns;
  const auto fields = FrameFields(Frame{});
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!IsOptionalFrameField(fields[i].name)) columns.push_back(i);
  }
  return columns;
}

Expected<FramePlan> TablePlanner::Plan(std::shared_ptr<const Frame> frame) {
  const Frame& f = *frame;
  const uint64_t n = f.size();
  const auto fields = FrameFields(f);
  if (n > 0 && !columns_fixed_) {
    columns_.clear();
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].size > 0) columns_.push_back(i);
    }
    columns_fixed_ = true;
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const bool carried = std::find(columns_.begin(), columns_.end(), i) != columns_.end();
    const uint64_t expected = carried ? n : 0;
    if (fields[i].size == expected) continue;
    if (!carried || n == 0) {
      return Error{"frame " + std::to_string(f.index) + ": field '" + fields[i].name + "' has " +
                   std::to_string(fields[i].size) + " values, but " +
                   (n == 0 ? std::string("the frame has no points")
                           : "the file's earlier frames do not carry it")};
    }
    return Error{"frame " + std::to_string(f.index) + ": field '" + fields[i].name + "' has " +
                 std::to_string(fields[i].size) + " values for " + std::to_string(n) + " points"};
  }
  const uint64_t records = f.waveform_beams.size();
  if (f.waveform_volts.size() != records * f.waveform_samples) {
    return Error{"frame " + std::to_string(f.index) + ": " +
                 std::to_string(f.waveform_volts.size()) + " waveform values for " +
                 std::to_string(records) + " records of " + std::to_string(f.waveform_samples) +
                 " samples"};
  }
  if (records > UINT32_MAX) {
    return Error{"frame " + std::to_string(f.index) + ": too many waveform records"};
  }
  FrameRow row;
  row.index = f.index;
  row.start_time_s = f.start_time_s;
  row.end_time_s = f.end_time_s;
  row.motion_corrected = f.motion_corrected;
  PoseToArray(f.pose_start, row.pose_start);
  PoseToArray(f.pose_end, row.pose_end);
  row.points = n;
  row.point_offset = points_.values();
  row.waveform_records = static_cast<uint32_t>(records);
  row.waveform_record_offset = beam_ids_.values();
  row.waveform_volts_offset = volts_.values();
  if (records > 0) {
    row.waveform_samples = f.waveform_samples;
    row.waveform_sample_interval_ns = f.waveform_dt_s * 1e9;
  }
  FramePlan plan;
  plan.row = row;
  plan.points = points_.Add(frame, n);
  plan.beam_ids = beam_ids_.Add(frame, records);
  plan.volts = volts_.Add(frame, f.waveform_volts.size());
  return plan;
}

namespace {

// Where a row's values lie in each table: offset and count.
struct Span {
  uint64_t offset, count;
};
Span PointSpan(const FrameRow& r) {
  return {r.point_offset, r.points};
}
Span RecordSpan(const FrameRow& r) {
  return {r.waveform_record_offset, r.waveform_records};
}
Span VoltSpan(const FrameRow& r) {
  return {r.waveform_volts_offset, uint64_t{r.waveform_records} * r.waveform_samples};
}
constexpr Span (*kSpans[3])(const FrameRow&) = {PointSpan, RecordSpan, VoltSpan};

uint64_t ChunkStart(uint64_t values) {
  return values - values % kTableChunkValues;
}

}  // namespace

void PendingRows::Add(const FrameRow& row) {
  any_points_ = any_points_ || row.points > 0;
  last_ = row;
  rows_.push_back(row);
  // A row is dropped once every one of its values lies in a whole chunk of its table.
  size_t keep = 0;
  while (keep < rows_.size()) {
    bool needed = false;
    for (auto span : kSpans) {
      const Span s = span(rows_[keep]), last = span(rows_.back());
      needed = needed || (s.count > 0 && s.offset + s.count > ChunkStart(last.offset + last.count));
    }
    if (needed) break;
    ++keep;
  }
  rows_.erase(rows_.begin(), rows_.begin() + static_cast<std::ptrdiff_t>(keep));
}

Status TablePlanner::Restore(const PendingRows& pending, const PointColumns& columns,
                             const FrameSource& again) {
  if (pending.any_points()) {
    columns_ = columns;
    columns_fixed_ = true;
  }
  if (!pending.last()) return {};
  const FrameRow& last = *pending.last();
  TableCutter* cutters[3] = {&points_, &beam_ids_, &volts_};
  uint64_t values[3], start[3];
  for (int t = 0; t < 3; ++t) {
    const Span end = kSpans[t](last);
    values[t] = end.offset + end.count;
    start[t] = ChunkStart(values[t]);
    cutters[t]->Restore(values[t], ChunkPlan{});
  }
  // Frame by frame, in order, each simulated again once for every table that waits on it (the
  // cutters copy what they keep once they would hold more than kMaxFramesHeld frames).
  for (const FrameRow& r : pending.rows()) {
    bool needed = false;
    for (int t = 0; t < 3; ++t) {
      const Span s = kSpans[t](r);
      needed = needed || (s.count > 0 && s.offset + s.count > start[t]);
    }
    if (!needed) continue;
    auto f = again(r.index);
    if (!f.ok()) return f.error();
    const Frame& frame = **f;
    const uint64_t got[3] = {frame.size(), frame.waveform_beams.size(),
                             frame.waveform_volts.size()};
    const auto fields = FrameFields(frame);
    bool same = frame.index == r.index;
    for (int t = 0; t < 3; ++t)
      same = same && got[t] == kSpans[t](r).count;
    for (size_t c : columns_)
      same = same && (r.points == 0 || fields.at(c).size == r.points);
    if (!same) {
      return Error{"frame " + std::to_string(r.index) +
                   " simulated again is not the frame its record holds (its points, fields or "
                   "waveform records differ: is the simulation deterministic?)"};
    }
    for (int t = 0; t < 3; ++t) {
      const Span s = kSpans[t](r);
      if (s.count == 0 || s.offset + s.count <= start[t]) continue;
      const uint64_t from = std::max(start[t], s.offset);
      cutters[t]->AddPending(*f, from - s.offset, std::min(values[t], s.offset + s.count) - from);
    }
  }
  for (int t = 0; t < 3; ++t) {
    if (cutters[t]->pending_values() != values[t] - start[t]) {
      return Error{"the journal's rows do not add up to the values of its last chunk"};
    }
  }
  return {};
}

FramePlan TablePlanner::Finish() {
  FramePlan plan;
  if (auto last = points_.Finish()) plan.points.push_back(std::move(*last));
  if (auto last = beam_ids_.Finish()) plan.beam_ids.push_back(std::move(*last));
  if (auto last = volts_.Finish()) plan.volts.push_back(std::move(*last));
  return plan;
}

namespace {

// One chunk of a table's column `c` gathered from its pieces (zero padded) and encoded;
// `values_of` gives the column's values in a frame.
template <typename ValuesOf>
EncodedChunk EncodeColumnChunk(const ChunkPlan& chunk, size_t c, size_t value_bytes,
                               ValuesOf values_of, std::string& raw) {
  raw.resize(kTableChunkValues * value_bytes);
  size_t at = 0;
  for (const FramePiece& piece : chunk.pieces) {
    const char* values =
        piece.frame ? static_cast<const char*>(static_cast<const void*>(values_of(*piece.frame))) +
                          piece.begin * value_bytes
                    : piece.copies->at(c).data();
    const size_t n = piece.count * value_bytes;
    if (n > raw.size() - at) std::abort();  // pieces past a chunk: a planner bug, never data
    std::memcpy(raw.data() + at, values, n);
    at += n;
  }
  std::memset(raw.data() + at, 0, raw.size() - at);  // a file's last chunk: HDF5's fill value
  return EncodeChunk(raw.data(), kTableChunkValues, value_bytes, chunk.index);
}

}  // namespace

EncodedFrame EncodePlan(const FramePlan& plan, const PointColumns& columns) {
  EncodedFrame e;
  e.row = plan.row;
  e.columns = columns;
  thread_local std::string raw;  // kept: a chunk's 512 KiB allocated afresh costs page faults
  e.points.resize(columns.size());
  if (!plan.points.empty()) {
    const auto fields = FrameFields(Frame{});
    for (size_t c = 0; c < columns.size(); ++c) {
      const size_t column = columns[c];
      const size_t bytes = FieldTypeBytes(fields[column].type);
      for (const ChunkPlan& chunk : plan.points) {
        e.points[c].push_back(EncodeColumnChunk(
            chunk, c, bytes, [column](const Frame& f) { return FrameColumn(f, column).data; },
            raw));
      }
    }
  }
  for (const ChunkPlan& chunk : plan.beam_ids) {
    e.beam_ids.push_back(EncodeColumnChunk(
        chunk, 0, sizeof(uint32_t), [](const Frame& f) { return f.waveform_beams.data(); }, raw));
  }
  for (const ChunkPlan& chunk : plan.volts) {
    e.volts.push_back(EncodeColumnChunk(
        chunk, 0, sizeof(float), [](const Frame& f) { return f.waveform_volts.data(); }, raw));
  }
  return e;
}

}  // namespace lt::hdf5
