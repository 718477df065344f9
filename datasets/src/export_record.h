// A frame's journal record in an export (frame_journal.h): what the frame added to its shard's
// HDF5 file, its /frames row, the point columns and the compressed chunks it completed, as
// Hdf5FrameWriter::AppendEncoded stores them. A resumed shard replays these records into a fresh
// file (the same calls, so the same bytes) instead of compressing the frames again, and the
// journal holds the compressed bytes (0.44 MB an OS0-128 lab frame), not the raw frame (2.1 MB).
// Private to datasets/.
#pragma once

#include <string>

#include "frame_tables.h"
#include "lidartwin/datasets/frame_journal.h"
#include "lidartwin/sim/status.h"

namespace lt {

// The record borrows the chunks' bytes: `frame` must outlive it.
FrameJournal::Record JournalRecordOf(const hdf5::EncodedFrame& frame);

// A record's payload back into the frame it encodes. Every count is checked against the bytes
// there are before anything is allocated; errors name the payload's byte offset.
Expected<hdf5::EncodedFrame> EncodedFrameOf(const std::string& payload);

}  // namespace lt
