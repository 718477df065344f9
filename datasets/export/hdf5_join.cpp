// One frames file over several (the shards of an export): the sources' /frames rows, one after
// another with their offsets moved on, written into the joined file; each column of /points and
// /waveforms an HDF5 virtual dataset that maps the same column of every source whole, one
// after another. The joined file is itself a schema v2 file (datasets/schema/frames_v2.md,
// "Joined files"): h5py, HDFView and our reader read it as if the data were in it, and it
// holds a few dozen objects whatever the frame count.
#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "hdf5/hdf5_attributes.h"
#include "hdf5/hdf5_rows.h"
#include "hdf5/table_columns.h"
#include "hdf5_join.h"
#include "lidartwin/base/atomic_file.h"

namespace lt {

using namespace hdf5;

namespace {

// Copies every attribute of `from` onto `to`, with its type and shape.
Status CopyAttributes(hid_t from, hid_t to, const std::string& where) {
  H5O_info_t info;
  if (H5Oget_info2(from, &info, H5O_INFO_NUM_ATTRS) < 0) {
    return Error{where + ": cannot list attributes"};
  }
  for (hsize_t i = 0; i < info.num_attrs; ++i) {
    Hdf5Id attr(H5Aopen_by_idx(from, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT),
                H5Aclose);
    char name[256];
    if (!attr.ok() || H5Aget_name(attr.get(), sizeof(name), name) < 0) {
      return Error{where + ": cannot read attribute " + std::to_string(i)};
    }
    Hdf5Id type(H5Aget_type(attr.get()), H5Tclose);
    Hdf5Id space(H5Aget_space(attr.get()), H5Sclose);
    const hssize_t n = space.ok() ? H5Sget_simple_extent_npoints(space.get()) : -1;
    const size_t size = type.ok() ? H5Tget_size(type.get()) : 0;
    if (n < 0 || size == 0) return Error{where + ": attribute '" + name + "' is unreadable"};
    std::vector<char> bytes(static_cast<size_t>(n) * size + 1);
    Hdf5Id copy(H5Acreate2(to, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (H5Aread(attr.get(), type.get(), bytes.data()) < 0 || !copy.ok() ||
        H5Awrite(copy.get(), type.get(), bytes.data()) < 0) {
      return Error{where + ": cannot copy attribute '" + name + "'" + WriteFailureReason()};
    }
  }
  return {};
}

// What the join needs of one source: its rows, totals and point columns.
struct Source {
  std::filesystem::path path;
  Hdf5Id file;
  std::vector<FrameRow> rows;
  uint64_t points = 0, records = 0, volts = 0;
  std::vector<std::string> point_columns;  // FrameFields order
};

Expected<Source> OpenSource(const std::filesystem::path& path) {
  Source s;
  s.path = path;
  const std::string where = path.string();
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return Error{where + ": cannot read its size: " + ec.message()};
  s.file = Hdf5Id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, StreamingFileAccess().get()), H5Fclose);
  if (!s.file.ok()) return Error{where + ": cannot open"};
  if (Status st = ReadFrameRows(s.file.get(), where, size, s.rows); !st.ok()) return st.error();
  if (Status st = CheckFrameRows(s.rows, where, s.points, s.records, s.volts); !st.ok()) {
    return st.error();
  }
  for (const FieldView& field : FrameFields(Frame{})) {
    if (H5Lexists(s.file.get(), (std::string("/points/") + field.name).c_str(), H5P_DEFAULT) > 0) {
      s.point_columns.push_back(field.name);
    }
  }
  return s;
}

// A virtual dataset at `path` mapping the same path of every source whole, one after another;
// `values_of` says how many values each source holds (sources with none are not mapped).
template <typename ValuesOf>
Status WriteVirtualColumn(hid_t file, const std::vector<Source>& sources, const std::string& path,
                          ValuesOf values_of, const std::string& where) {
  uint64_t total = 0;
  const Source* typed = &sources.front();  // the type and unit come from a source that has values
  for (const Source& s : sources) {
    if (values_of(s) > 0 && total == 0) typed = &s;
    total += values_of(s);
  }
  Hdf5Id first(H5Dopen2(typed->file.get(), path.c_str(), H5P_DEFAULT), H5Dclose);
  Hdf5Id type(first.ok() ? H5Dget_type(first.get()) : -1, H5Tclose);
  if (!type.ok()) return Error{typed->path.string() + ": cannot open " + path};
  const hsize_t dims = total;
  Hdf5Id space(H5Screate_simple(1, &dims, nullptr), H5Sclose);
  Hdf5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_obj_track_times(dcpl.get(), false);
  hsize_t start = 0;
  for (const Source& s : sources) {
    const hsize_t n = values_of(s), one = 1;
    if (n == 0) continue;
    Hdf5Id source_space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    const std::string name = s.path.filename().string();
    if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, &start, nullptr, &one, &n) < 0 ||
        H5Pset_virtual(dcpl.get(), space.get(), name.c_str(), path.c_str(), source_space.get()) <
            0) {
      return Error{where + ": cannot map " + name + ":" + path};
    }
    start += n;
  }
  H5Sselect_all(space.get());
  errno = 0;
  Hdf5Id ds(
      H5Dcreate2(file, path.c_str(), type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      H5Dclose);
  if (!ds.ok()) {
    return Error{where + ": cannot create virtual dataset " + path + WriteFailureReason()};
  }
  std::string unit;
  ReadStringAttr(first.get(), "unit", unit);
  if (!WriteStringAttr(ds.get(), "unit", unit)) {
    return Error{where + ": cannot write the unit of " + path + WriteFailureReason()};
  }
  return {};
}

}  // namespace

Status WriteJoinedFrames(AtomicOutput& output, const std::vector<std::filesystem::path>& sources) {
  SilenceHdf5Errors();
  const std::filesystem::path& out = output.target();
  const std::string where = out.string();
  if (sources.empty()) return Error{where + ": nothing to join"};
  for (const auto& s : sources) {
    if (s.parent_path() != out.parent_path()) {
      return Error{where + ": " + s.string() + " is not in the joined file's folder"};
    }
  }
  if (Status s = CheckOutputTarget(out); !s.ok()) return s;
  std::vector<Source> opened;
  std::vector<FrameRow> rows;
  uint64_t points = 0, records = 0, volts = 0;
  for (const auto& path : sources) {
    auto s = OpenSource(path);
    if (!s.ok()) return s.error();
    for (FrameRow r : s->rows) {
      r.point_offset += points;
      r.waveform_record_offset += records;
      r.waveform_volts_offset += volts;
      rows.push_back(r);
    }
    points += s->points;
    records += s->records;
    volts += s->volts;
    opened.push_back(std::move(s.value()));
  }
  // The joined rows again: a frame in two shards is refused here.
  if (Status s = CheckFrameRows(rows, where, points, records, volts); !s.ok()) return s;
  // The point columns: those of the sources with points, which must agree.
  const Source* columns_from = &opened.front();
  for (const Source& s : opened) {
    if (s.points > 0) {
      columns_from = &s;
      break;
    }
  }
  for (const Source& s : opened) {
    if (s.points > 0 && s.point_columns != columns_from->point_columns) {
      return Error{s.path.string() + ": its /points columns are not those of " +
                   columns_from->path.string()};
    }
  }
  Hdf5Id fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  H5Pset_obj_track_times(fcpl.get(), false);
  H5Pset_attr_phase_change(fcpl.get(), 0, 0);  // as the frames writer: dense root attributes
  Hdf5Id fapl = StreamingFileAccess();
  // Virtual datasets need the 1.10 object format.
  H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V110, H5F_LIBVER_LATEST);
  errno = 0;
  Hdf5Id file(H5Fcreate(output.temp_path().c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()),
              H5Fclose);
  if (!file.ok()) return Error{where + ": cannot create HDF5 file" + WriteFailureReason()};
  if (Status s = CopyAttributes(opened.front().file.get(), file.get(), where); !s.ok()) return s;
  for (const char* group : {"/frames", "/points", "/waveforms"}) {
    Hdf5Id g(
        H5Gcreate2(file.get(), group, H5P_DEFAULT, UntimedGroupProperties().get(), H5P_DEFAULT),
        H5Gclose);
    if (!g.ok()) return Error{where + ": cannot create " + group + WriteFailureReason()};
  }
  auto table = RowTableWriter::Create(file.get(), where);
  if (!table.ok()) return table.error();
  if (Status s = table->Append(rows); !s.ok()) return s;
  for (const std::string& column : columns_from->point_columns) {
    if (Status s = WriteVirtualColumn(
            file.get(), opened, "/points/" + column, [](const Source& s) { return s.points; },
            where);
        !s.ok()) {
      return s;
    }
  }
  if (Status s = WriteVirtualColumn(
          file.get(), opened, "/waveforms/beam_id", [](const Source& s) { return s.records; },
          where);
      !s.ok()) {
    return s;
  }
  if (Status s = WriteVirtualColumn(
          file.get(), opened, "/waveforms/volts", [](const Source& s) { return s.volts; }, where);
      !s.ok()) {
    return s;
  }
  errno = 0;
  if (H5Fclose(file.Release()) < 0) {
    return Error{where + ": cannot finish HDF5 file" + WriteFailureReason()};
  }
  return {};
}

}  // namespace lt
