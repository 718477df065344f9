// An append-only log of finished frames: what lets `lidartwin export` survive `kill -9`.
//
// A shard's HDF5 file is only consistent once it is closed (libhdf5 updates its metadata in
// place), so a killed run cannot continue it. Every frame is therefore also appended here, as
// one self-checking record, and a restarted run replays the records into a fresh HDF5 file and
// goes on from the frame after the last complete record. A record is complete when its bytes
// and its CRC-32 are all there: a kill mid-write leaves a torn last record, which Open() cuts
// off, as is a zero-filled tail some file systems leave after a crash. The data reach the
// kernel with each write(2), which is all a killed process needs; a
// power loss may lose the records the kernel had not yet written (see docs/datasets.md).
//
// Layout (little-endian): "LTJRNL1\n", u32 header bytes, the header (the run's identity, JSON
// text), u32 CRC-32 of the header; then per frame: u32 0x5246544C ("LTFR"), u32 frame index,
// u64 payload bytes, the payload (frame_journal.cpp, EncodeFrame), u32 CRC-32 of the payload.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/datasets/frame_sink.h"
#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/status.h"

namespace lt {

class FrameJournal {
 public:
  // A new journal holding `header` and no frames (an existing file at `path` is replaced).
  static Expected<FrameJournal> Create(const std::filesystem::path& path,
                                       const std::string& header);
  // An existing journal: reads its header and counts its complete records (each checked by its
  // CRC), cuts off a torn last record and positions for appending. Frames must be numbered
  // consecutively from the first; anything else is an error naming the byte offset.
  static Expected<FrameJournal> Open(const std::filesystem::path& path);
  // Open, or Create with `header` when the file is missing or holds no complete header (its
  // creation was killed).
  static Expected<FrameJournal> OpenOrCreate(const std::filesystem::path& path,
                                             const std::string& header);
  // The complete records of a journal, read without locking or changing it (for a join that
  // reports how far a shard got while it may still run).
  static Expected<uint64_t> CountFrames(const std::filesystem::path& path);

  FrameJournal(FrameJournal&&) noexcept;
  FrameJournal& operator=(FrameJournal&&) noexcept;
  ~FrameJournal();

  const std::string& header() const { return header_; }
  // Complete records, and the index the next frame must have (when frames() > 0).
  uint64_t frames() const { return frames_; }
  uint32_t next_index() const { return next_index_; }
  // Bytes dropped from the end by Open() (a record torn by a kill), 0 if none.
  uint64_t truncated_bytes() const { return truncated_; }

  // Appends one record. With frames() > 0 the frame's index must be next_index().
  Status Append(const Frame& frame);
  // The same in two steps: the record (any thread; its CRC is the costly part), then its write.
  // A record's bytes are pieces: its head, counts, names and CRC kept in it, the frame's value
  // arrays left where they are (so the frame must outlive the record), gathered by writev(2).
  struct Record {
    struct Piece {
      bool owned;        // in `small`, at `offset`
      size_t offset;     // owned pieces
      const char* data;  // borrowed pieces
      size_t size;
    };
    uint32_t index = 0;
    std::string small;
    std::vector<Piece> pieces;
    const char* Data(const Piece& p) const { return p.owned ? small.data() + p.offset : p.data; }
    std::string Bytes() const;  // the whole record
  };
  static Record EncodeRecord(const Frame& frame);
  Status AppendRecord(const Record& record);
  // A record's bytes as they are (tests write damaged ones).
  Status AppendRecord(uint32_t frame_index, const std::string& bytes);
  // Each complete record's frame, in order (one frame in memory at a time).
  Status Replay(const FrameSink& sink) const;

  // Whole journal (header and records) forced to the disk: for callers that must survive a
  // power loss, not only a kill.
  Status Sync();

 private:
  FrameJournal() = default;
  static Expected<FrameJournal> OpenFile(const std::filesystem::path& path,
                                         const std::string* create_header);
  Expected<bool> ReadHeader(uint64_t size);
  Expected<uint64_t> ScanRecords(uint64_t size);
  Status Start(const std::string& header);
  std::filesystem::path path_;
  int fd_ = -1;
  std::string header_;
  uint64_t header_end_ = 0;  // offset of the first record
  uint64_t frames_ = 0;
  uint32_t next_index_ = 0;
  uint64_t truncated_ = 0;
};

// The byte encoding of one frame (a journal record's payload), and its inverse. Decoding checks
// every count against the bytes there are before it allocates; errors name the offset within
// the payload.
std::string EncodeFrame(const Frame& frame);
Expected<Frame> DecodeFrame(const std::string& payload);

}  // namespace lt
