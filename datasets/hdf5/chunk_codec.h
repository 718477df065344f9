// One chunk of a frames file's tables through the HDF5 filter pipeline (shuffle, then deflate),
// run outside libhdf5 so that chunks can be compressed on many threads and written with
// H5Dwrite_chunk by one (export's pipeline, export_run.cpp). What libhdf5's filters read back:
// the shuffle filter's byte transposition (H5Zshuffle.c), then one zlib stream of the shuffled
// bytes into a buffer of the chunk's raw size; where that overflows, the chunk is stored
// shuffled with the optional deflate filter marked as skipped in its filter mask, as libhdf5
// does (H5Zdeflate.c). Unlike libhdf5's compress2, the stream is written a byte plane at a time
// (ADR 0021): the planes that look random (a float's low mantissa bytes) stored, those that
// repeat their byte before (labels, exponents) as runs, the rest deflated by libdeflate: a
// half of zlib's time for 1-2 % more bytes (docs/datasets.md, "Speed, compression, memory").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lt::hdf5 {

inline constexpr uint64_t kTableChunkValues = 65536;  // values a chunk (schema v2)
// libdeflate's level for the planes it deflates. zlib's level 1 took 9.8 ms a lab OS0-128
// frame against level 4's 13.8, for 2.4 % more bytes (docs/datasets.md).
inline constexpr int kTableDeflateLevel = 1;
// A byte plane whose sampled bytes need more bits than this is stored, not deflated.
inline constexpr double kStoredBitsPerByte = 7.2;
// A byte plane of which at least this share of sampled bytes repeat the byte before is written
// as runs (deflate_blocks.h), without a search for matches.
inline constexpr double kRunsRepeatShare = 0.9;

struct EncodedChunk {
  uint64_t index = 0;  // the chunk's place in its dataset: values [index C, (index + 1) C)
  std::string bytes;
  uint32_t filter_mask = 0;  // bit 1: deflate skipped (the chunk grew)
};

// `raw` holds chunk_values values of value_bytes each (a dataset's last chunk zero padded,
// HDF5's fill value).
EncodedChunk EncodeChunk(const char* raw, uint64_t chunk_values, size_t value_bytes,
                         uint64_t index);

}  // namespace lt::hdf5
