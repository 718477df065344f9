// An append-only log of finished frames: what lets `lidartwin export` survive `kill -9`.
//
// A shard's HDF5 file is only consistent once it is closed (libhdf5 updates its metadata in
// place), so a killed run cannot continue it. Every frame therefore also leaves a record here,
// one self-checking record a frame, and a restarted run replays the records into a fresh HDF5
// file and goes on from the frame after the last complete record. What a record holds is the
// caller's: export's is what the frame added to the HDF5 file, its compressed chunks and its row
// (export_record.h). A record is complete when its bytes and its CRC-32 are all there: a kill
// mid-write leaves a torn last record, which Open() cuts off, as is a zero-filled tail some
// file systems leave after a crash. The data reach the kernel with each write(2), which is all a
// killed process needs; a power loss may lose the records the kernel had not yet written (see
// docs/datasets.md).
//
// Layout (little-endian): "LTJRNL2\n", u32 header bytes, the header (the run's identity, JSON
// text), u32 CRC-32 of the header; then per frame: u32 0x5246544C ("LTFR"), u32 frame index,
// u64 payload bytes, the payload, u32 CRC-32 of the payload.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

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

  // One record: built with Start, Copy and Borrow, then Finish (the payload's size and CRC).
  // Its bytes are pieces: what Copy gives is kept in the record, what Borrow gives is left
  // where it is (it must outlive the record), all gathered by writev(2).
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
    static Record Start(uint32_t frame_index);
    void Copy(const void* p, size_t n);
    void Borrow(const void* p, size_t n);
    void Finish();
    const char* Data(const Piece& p) const { return p.owned ? small.data() + p.offset : p.data; }
    std::string Bytes() const;  // the whole record
  };
  // Appends a finished record. With frames() > 0 its index must be next_index().
  Status AppendRecord(const Record& record);
  // A record's bytes as they are (tests write damaged ones).
  Status AppendRecord(uint32_t frame_index, const std::string& bytes);
  // Each complete record's frame index and payload, in order (one in memory at a time).
  using RecordSink = std::function<Status(uint32_t frame_index, std::string&& payload)>;
  Status Replay(const RecordSink& sink) const;
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

}  // namespace lt
