#include "export_record.h"

#include <cstring>

#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/sim/simulator.h"

namespace lt {

using hdf5::EncodedChunk;
using hdf5::EncodedFrame;

namespace {

// Payload: u8 1 when the record has a row, the row (RowColumns' values in order), u8 point
// column count and each column's index into FrameFields, then the chunk lists: one per point
// column, then /waveforms/beam_id, then /waveforms/volts, each a u32 count and per chunk u64
// chunk index, u32 filter mask, u64 bytes and the bytes.
constexpr size_t kMaxColumns = 64;

size_t RowBytes() {
  size_t bytes = 0;
  for (const hdf5::RowColumn& rc : hdf5::RowColumns())
    bytes += FieldTypeBytes(rc.type) * rc.width;
  return bytes;
}

void PutChunks(FrameJournal::Record& r, const std::vector<EncodedChunk>& chunks) {
  const uint32_t count = static_cast<uint32_t>(chunks.size());
  r.Copy(&count, 4);
  for (const EncodedChunk& c : chunks) {
    const uint64_t bytes = c.bytes.size();
    r.Copy(&c.index, 8);
    r.Copy(&c.filter_mask, 4);
    r.Copy(&bytes, 8);
    r.Borrow(c.bytes.data(), c.bytes.size());
  }
}

class PayloadReader {
 public:
  explicit PayloadReader(const std::string& s) : s_(s) {}
  template <typename T>
  bool Get(T& v) {
    return Bytes(&v, sizeof(T));
  }
  bool Bytes(void* out, uint64_t n) {
    if (n > s_.size() - pos_) return false;
    std::memcpy(out, s_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  uint64_t pos() const { return pos_; }
  uint64_t left() const { return s_.size() - pos_; }

 private:
  const std::string& s_;
  uint64_t pos_ = 0;
};

}  // namespace

FrameJournal::Record JournalRecordOf(const EncodedFrame& frame) {
  auto r = FrameJournal::Record::Start(frame.row ? frame.row->index : 0);
  const uint8_t has_row = frame.row ? 1 : 0;
  r.Copy(&has_row, 1);
  if (frame.row) {
    std::string row(RowBytes(), '\0');
    size_t at = 0;
    for (const hdf5::RowColumn& rc : hdf5::RowColumns()) {
      rc.pack(*frame.row, &row[at]);
      at += FieldTypeBytes(rc.type) * rc.width;
    }
    r.Copy(row.data(), row.size());
  }
  const uint8_t columns = static_cast<uint8_t>(frame.columns.size());
  r.Copy(&columns, 1);
  for (size_t c : frame.columns) {
    const uint8_t column = static_cast<uint8_t>(c);
    r.Copy(&column, 1);
  }
  for (const auto& chunks : frame.points)
    PutChunks(r, chunks);
  PutChunks(r, frame.beam_ids);
  PutChunks(r, frame.volts);
  r.Finish();
  return r;
}

Expected<EncodedFrame> EncodedFrameOf(const std::string& payload) {
  PayloadReader in(payload);
  auto fail = [&](const std::string& what) {
    return Error{"frame record, payload byte " + std::to_string(in.pos()) + ": " + what};
  };
  EncodedFrame e;
  uint8_t has_row = 0, columns = 0;
  if (!in.Get(has_row) || has_row > 1) return fail("no row flag");
  if (has_row) {
    std::string row(RowBytes(), '\0');
    if (!in.Bytes(row.data(), row.size())) return fail("ends inside the frame's row");
    hdf5::FrameRow r;
    size_t at = 0;
    for (const hdf5::RowColumn& rc : hdf5::RowColumns()) {
      rc.unpack(&row[at], r);
      at += FieldTypeBytes(rc.type) * rc.width;
    }
    e.row = r;
  }
  const size_t fields = FrameFields(Frame{}).size();
  if (!in.Get(columns) || columns > kMaxColumns) return fail("no point column count");
  for (uint8_t i = 0; i < columns; ++i) {
    uint8_t column = 0;
    if (!in.Get(column)) return fail("ends inside the point columns");
    if (column >= fields || (!e.columns.empty() && column <= e.columns.back())) {
      return fail("point column " + std::to_string(column) + " is not a field in order");
    }
    e.columns.push_back(column);
  }
  auto chunks = [&](std::vector<EncodedChunk>& out, size_t value_bytes) -> Status {
    uint32_t count = 0;
    if (!in.Get(count)) return fail("ends before a chunk count");
    // A chunk takes at least its 20-byte head: a count the payload cannot hold is corrupt.
    if (count > in.left() / 20) return fail(std::to_string(count) + " chunks cannot fit");
    for (uint32_t i = 0; i < count; ++i) {
      EncodedChunk c;
      uint64_t bytes = 0;
      if (!in.Get(c.index) || !in.Get(c.filter_mask) || !in.Get(bytes)) {
        return fail("ends inside a chunk's head");
      }
      const uint64_t raw = hdf5::kTableChunkValues * value_bytes;
      if (bytes > raw || bytes > in.left()) return fail("a chunk ends past the record");
      if ((c.filter_mask != 0 && c.filter_mask != 2) || (c.filter_mask == 2 && bytes != raw)) {
        return fail("a chunk's filter mask " + std::to_string(c.filter_mask) +
                    " is not what the writer stores");
      }
      c.bytes.resize(bytes);
      in.Bytes(c.bytes.data(), bytes);
      out.push_back(std::move(c));
    }
    return {};
  };
  e.points.resize(columns);
  const auto field_views = FrameFields(Frame{});
  for (size_t c = 0; c < e.points.size(); ++c) {
    if (Status s = chunks(e.points[c], FieldTypeBytes(field_views[e.columns[c]].type)); !s.ok()) {
      return s.error();
    }
  }
  if (Status s = chunks(e.beam_ids, sizeof(uint32_t)); !s.ok()) return s.error();
  if (Status s = chunks(e.volts, sizeof(float)); !s.ok()) return s.error();
  if (in.left() != 0) return fail(std::to_string(in.left()) + " bytes left over");
  return e;
}

Status CheckRecordFollows(const EncodedFrame& e, ReplayTotals& t) {
  if (!e.row) return Error{"holds no frame row"};
  const hdf5::FrameRow& r = *e.row;
  const std::string frame = "frame " + std::to_string(r.index) + ": ";
  if (r.points > kMaxHdf5PointsPerFrame ||
      r.waveform_records > SimulationOptions::kMaxWaveformBeams || r.waveform_samples > 16384 ||
      (r.waveform_records > 0) != (r.waveform_samples > 0)) {
    return Error{frame + "its row declares more than a frame holds"};
  }
  const uint64_t offsets[3] = {r.point_offset, r.waveform_record_offset, r.waveform_volts_offset};
  const uint64_t counts[3] = {r.points, r.waveform_records,
                              uint64_t{r.waveform_records} * r.waveform_samples};
  for (int k = 0; k < 3; ++k) {
    if (offsets[k] != t.values[k]) {
      return Error{frame + "its row's offsets are not where the frames before it end"};
    }
    t.values[k] += counts[k];
  }
  auto follows = [&](const std::vector<EncodedChunk>& chunks, int k) {
    if (chunks.size() != t.values[k] / hdf5::kTableChunkValues - t.chunks[k]) return false;
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (chunks[i].index != t.chunks[k] + i) return false;
    }
    return true;
  };
  for (const auto& column : e.points) {
    if (!follows(column, 0)) return Error{frame + "its point chunks are not the next ones"};
  }
  if (e.points.empty() && t.values[0] / hdf5::kTableChunkValues != t.chunks[0]) {
    return Error{frame + "completes point chunks it does not hold"};
  }
  if (!follows(e.beam_ids, 1) || !follows(e.volts, 2)) {
    return Error{frame + "its waveform chunks are not the next ones"};
  }
  for (int k = 0; k < 3; ++k)
    t.chunks[k] = t.values[k] / hdf5::kTableChunkValues;
  return {};
}

}  // namespace lt
