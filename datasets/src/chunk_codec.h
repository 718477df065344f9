// The HDF5 filter pipeline of a frames dataset (shuffle, then deflate), run outside libhdf5 so
// that frames can be compressed on many threads and written with H5Dwrite_chunk by one
// (export's pipeline, export_run.cpp). The bytes are those libhdf5's own filters give: the
// shuffle filter's byte transposition and zlib's compress2 at the same level into a buffer of
// the chunk's raw size; where that overflows, libhdf5 skips the optional deflate filter and
// marks it in the chunk's filter mask, and so does this (H5Zdeflate.c, H5Zshuffle.c).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/status.h"

namespace lt::hdf5 {

inline constexpr uint64_t kFrameChunkValues = 65536;  // values a chunk (schema v1)
inline constexpr int kFrameDeflateLevel = 4;

struct EncodedChunk {
  std::string bytes;
  uint32_t filter_mask = 0;  // bit 1: deflate skipped (the chunk grew)
};

// One 1-D dataset: its values in chunks of min(n, 65536) values, the last padded with zeros
// (HDF5's fill value) to a whole chunk, each shuffled and deflated.
struct EncodedDataset {
  std::string name;
  std::string unit;
  FieldType type = FieldType::kFloat32;
  uint64_t values = 0;
  uint64_t chunk_values = 0;  // 0 for an empty dataset (contiguous, unfiltered)
  std::vector<EncodedChunk> chunks;
};

EncodedDataset EncodeDataset(const FieldView& field);

}  // namespace lt::hdf5

namespace lt::hdf5 {

// A frame ready for Hdf5FrameWriter::AppendEncoded: its attributes and every dataset encoded.
// Encoding is the costly part of writing and needs no HDF5 call, so any thread may do it.
struct EncodedFrame {
  Frame header;  // index, times, poses, motion_corrected, waveform_samples, waveform_dt_s
  uint64_t points = 0;
  bool waveforms = false;
  std::vector<EncodedDataset> datasets;  // FrameFields order, then the waveform records
};

// Checks the field lengths and the waveform record sizes; errors name the field.
Expected<EncodedFrame> EncodeFrame(const Frame& frame);

}  // namespace lt::hdf5
