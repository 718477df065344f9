#include "table_columns.h"

#include <cerrno>

#include "hdf5_attributes.h"

namespace lt::hdf5 {

Expected<GrowingColumn> CreateColumn(hid_t file, const std::string& path, FieldType type,
                                     const char* unit, hsize_t chunk, int width,
                                     const std::string& where) {
  const int rank = width > 1 ? 2 : 1;
  const hsize_t dims[2] = {0, static_cast<hsize_t>(width)};
  const hsize_t max[2] = {H5S_UNLIMITED, static_cast<hsize_t>(width)};
  const hsize_t chunks[2] = {chunk, static_cast<hsize_t>(width)};
  Hdf5Id space(H5Screate_simple(rank, dims, max), H5Sclose);
  Hdf5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_obj_track_times(dcpl.get(), false);
  H5Pset_chunk(dcpl.get(), rank, chunks);
  H5Pset_shuffle(dcpl.get());
  H5Pset_deflate(dcpl.get(), kTableDeflateLevel);
  errno = 0;
  GrowingColumn column;
  column.at = path;
  column.ds = Hdf5Id(H5Dcreate2(file, path.c_str(), FileType(type), space.get(), H5P_DEFAULT,
                                dcpl.get(), H5P_DEFAULT),
                     H5Dclose);
  if (!column.ds.ok()) {
    return Error{where + ": cannot create dataset " + path + WriteFailureReason()};
  }
  if (!WriteStringAttr(column.ds.get(), "unit", unit)) {
    return Error{where + ": cannot write the unit of " + path};
  }
  return column;
}

Status Resize(GrowingColumn& column, uint64_t values, int width, const std::string& where) {
  const hsize_t dims[2] = {values, static_cast<hsize_t>(width)};
  errno = 0;
  if (H5Dset_extent(column.ds.get(), dims) < 0) {
    return Error{where + ": cannot extend " + column.at + WriteFailureReason()};
  }
  column.extent = values;
  return {};
}

Status WriteChunks(GrowingColumn& column, const std::vector<EncodedChunk>& chunks,
                   const std::string& where) {
  for (const EncodedChunk& chunk : chunks) {
    const uint64_t end = (chunk.index + 1) * kTableChunkValues;
    if (column.extent < end) {
      if (Status s = Resize(column, end, 1, where); !s.ok()) return s;
    }
    const hsize_t offset = chunk.index * kTableChunkValues;
    errno = 0;
    if (H5Dwrite_chunk(column.ds.get(), H5P_DEFAULT, chunk.filter_mask, &offset, chunk.bytes.size(),
                       chunk.bytes.data()) < 0) {
      return Error{where + ": cannot write " + column.at + WriteFailureReason()};
    }
  }
  return {};
}

Expected<RowTableWriter> RowTableWriter::Create(hid_t file, const std::string& where) {
  RowTableWriter table;
  table.where_ = where;
  for (const RowColumn& rc : RowColumns()) {
    auto column = CreateColumn(file, std::string("/frames/") + rc.name, rc.type, rc.unit,
                               kRowsPerChunk, rc.width, where);
    if (!column.ok()) return column.error();
    table.columns_.push_back(std::move(column.value()));
  }
  return table;
}

Status RowTableWriter::Append(const std::vector<FrameRow>& rows) {
  if (rows.empty()) return {};
  const auto& columns = RowColumns();
  const uint64_t total = rows_ + rows.size();
  std::string bytes;
  for (size_t c = 0; c < columns.size(); ++c) {
    const RowColumn& rc = columns[c];
    const size_t row_bytes = FieldTypeBytes(rc.type) * rc.width;
    bytes.assign(rows.size() * row_bytes, '\0');
    for (size_t r = 0; r < rows.size(); ++r)
      rc.pack(rows[r], &bytes[r * row_bytes]);
    GrowingColumn& column = columns_[c];
    if (Status s = Resize(column, total, rc.width, where_); !s.ok()) return s;
    const hsize_t start[2] = {rows_, 0};
    const hsize_t count[2] = {rows.size(), static_cast<hsize_t>(rc.width)};
    Hdf5Id file_space(H5Dget_space(column.ds.get()), H5Sclose);
    Hdf5Id memory(H5Screate_simple(rc.width > 1 ? 2 : 1, count, nullptr), H5Sclose);
    errno = 0;
    if (!file_space.ok() ||
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
        H5Dwrite(column.ds.get(), MemType(rc.type), memory.get(), file_space.get(), H5P_DEFAULT,
                 bytes.data()) < 0) {
      return Error{where_ + ": cannot write " + column.at + WriteFailureReason()};
    }
  }
  rows_ = total;
  return {};
}

}  // namespace lt::hdf5
