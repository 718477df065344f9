// One chunk of a frames file's tables through the HDF5 filter pipeline (shuffle, then deflate),
// run outside libhdf5 so that chunks can be compressed on many threads and written with
// H5Dwrite_chunk by one (export's pipeline, export_run.cpp). The bytes are those libhdf5's own
// filters give: the shuffle filter's byte transposition and zlib's compress2 at the same level
// into a buffer of the chunk's raw size; where that overflows, libhdf5 skips the optional
// deflate filter and marks it in the chunk's filter mask, and so does this (H5Zdeflate.c,
// H5Zshuffle.c).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lt::hdf5 {

inline constexpr uint64_t kTableChunkValues = 65536;  // values a chunk (schema v2)
// Level 1: 10.1 ms a lab OS0-128 frame against level 4's 13.9, for 2.4 % more bytes
// (docs/datasets.md, "Speed, compression, memory").
inline constexpr int kTableDeflateLevel = 1;

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
