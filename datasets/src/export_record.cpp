#include "export_record.h"

#include <cstring>

namespace lt {

using hdf5::EncodedChunk;
using hdf5::EncodedFrame;

namespace {

// Payload: u8 1 when the record has a row, the row (RowColumns' values in order), u8 point
// column count and each column's index into FrameFields, then the chunk lists: one per point
// column, then /waveforms/beam_id, then /waveforms/volts, each a u32 count and per chunk u64
// chunk index, u32 filter mask, u64 bytes and the bytes.
constexpr size_t kMaxColumns = 64;
// A chunk's stored bytes never exceed its raw bytes (chunk_codec.h): 65,536 values of 8 bytes.
constexpr uint64_t kMaxChunkBytes = hdf5::kTableChunkValues * 8;

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
  auto chunks = [&](std::vector<EncodedChunk>& out) -> Status {
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
      if (bytes > kMaxChunkBytes || bytes > in.left()) return fail("a chunk ends past the record");
      c.bytes.resize(bytes);
      in.Bytes(c.bytes.data(), bytes);
      out.push_back(std::move(c));
    }
    return {};
  };
  e.points.resize(columns);
  for (auto& column : e.points) {
    if (Status s = chunks(column); !s.ok()) return s.error();
  }
  if (Status s = chunks(e.beam_ids); !s.ok()) return s.error();
  if (Status s = chunks(e.volts); !s.ok()) return s.error();
  if (in.left() != 0) return fail(std::to_string(in.left()) + " bytes left over");
  return e;
}

}  // namespace lt
