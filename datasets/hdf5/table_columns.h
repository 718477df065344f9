// The datasets of a frames file's tables as they are written (schema v2): growing columns, and
// /frames written a batch of rows at a time; the frames writer and the join share them
// (private to datasets/).
#pragma once

#include <hdf5.h>

#include <string>
#include <vector>

#include "chunk_codec.h"
#include "frame_tables.h"
#include "hdf5_id.h"
#include "lidartwin/base/status.h"

namespace lt::hdf5 {

// Rows of /frames a chunk.
inline constexpr hsize_t kRowsPerChunk = 4096;

// A column that grows: its dataset and the values it holds so far.
struct GrowingColumn {
  Hdf5Id ds;
  std::string at;  // "/points/x", for errors
  uint64_t extent = 0;
};

// An empty, extendible, chunked dataset at `path` (width values a row when width > 1), with
// its unit. Point and waveform columns are chunked kTableChunkValues, shuffled and deflated
// (chunk_codec.h writes their chunks); /frames rows kRowsPerChunk a chunk through libhdf5's
// own filters.
Expected<GrowingColumn> CreateColumn(hid_t file, const std::string& path, FieldType type,
                                     const char* unit, hsize_t chunk, int width,
                                     const std::string& where);

Status Resize(GrowingColumn& column, uint64_t values, int width, const std::string& where);

// Chunks of a column, as chunk_codec.h encoded them, written as they are.
Status WriteChunks(GrowingColumn& column, const std::vector<EncodedChunk>& chunks,
                   const std::string& where);

// /frames: a growing column for each of RowColumns(), rows appended in order.
class RowTableWriter {
 public:
  static Expected<RowTableWriter> Create(hid_t file, const std::string& where);
  Status Append(const std::vector<FrameRow>& rows);
  uint64_t rows() const { return rows_; }

 private:
  std::string where_;
  std::vector<GrowingColumn> columns_;  // RowColumns() order
  uint64_t rows_ = 0;
};

}  // namespace lt::hdf5
