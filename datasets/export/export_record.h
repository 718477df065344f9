// A frame's journal record in an export (frame_journal.h): what the frame added to its shard's
// HDF5 file, its /frames row, the point columns and the compressed chunks it completed, as
// Hdf5FrameWriter::AppendEncoded stores them. A resumed shard replays these records into a fresh
// file (the same calls, so the same bytes) instead of compressing the frames again, and the
// journal holds the compressed bytes (0.44 MB an OS0-128 lab frame), not the raw frame (2.1 MB).
// Private to datasets/.
#pragma once

#include <string>

#include "hdf5/frame_tables.h"
#include "lidartwin/base/status.h"
#include "lidartwin/datasets/frame_journal.h"

namespace lt {

// The record borrows the chunks' bytes: `frame` must outlive it.
FrameJournal::Record JournalRecordOf(const hdf5::EncodedFrame& frame);

// A record's payload back into the frame it encodes. Every count is checked against the bytes
// there are before anything is allocated; a chunk holds at most its column's raw bytes (exactly
// those when its filter mask says deflate was skipped, the only mask the writer uses); errors
// name the payload's byte offset.
Expected<hdf5::EncodedFrame> EncodedFrameOf(const std::string& payload);

// What the records replayed so far add up to: each next record must go on from it (its row's
// offsets where the totals stand, its chunks the next whole chunks of each table and all of
// them), so that a damaged journal cannot make the replay write chunks out of place or leave the
// planner pieces that do not add up.
struct ReplayTotals {
  uint64_t values[3] = {0, 0, 0};  // points, waveform records, waveform values
  uint64_t chunks[3] = {0, 0, 0};  // whole chunks written of each table's columns
};
Status CheckRecordFollows(const hdf5::EncodedFrame& frame, ReplayTotals& totals);

}  // namespace lt
