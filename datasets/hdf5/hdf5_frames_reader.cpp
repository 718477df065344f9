// The frames reader (schema v2, datasets/schema/frames_v2.md). Every size a file declares is
// checked against limits and against the bytes the file really stores before anything is
// allocated, and the structure is first walked in a child process (isolated_call.h), since
// libhdf5 1.10 itself can crash on a corrupted object header.
// Over 700 lines: the checks of every declared size share this file's private helpers (the
// stored-chunk walk, the virtual layout, the isolated structure walk); to be split with the
// HDF5 family's folder, ADR 0022 step 2.
#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <system_error>

#include "frame_tables.h"
#include "hdf5_attributes.h"
#include "hdf5_own_objects.h"
#include "hdf5_rows.h"
#include "isolated_call.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/sim/simulator.h"

namespace lt {

using namespace hdf5;

namespace {

// Deflate cannot compress better than about 1032:1 (RFC 1951: at most 258 bytes per
// 2-bit-long match code, plus headers), so a dataset that declares more than this many bytes per
// byte it stores is corrupt, not compressed. Slack for the smallest chunks.
constexpr double kMaxCompressionRatio = 1100;
constexpr hsize_t kStorageSlackBytes = 1 << 16;
constexpr hsize_t kMaxChunks = hsize_t{1} << 22;
constexpr hsize_t kMaxChunkValues = hsize_t{1} << 20;

const char* const kRequiredFields[] = {"x", "y", "z"};

// A frame's waveform records: at most 16,384 samples a record (the detector's limit).
constexpr uint32_t kMaxWaveformSamples = 16384;

// One source of a joined file's column (hdf5_join.h): values [begin, begin + count) are the
// whole of the same column in a shard beside the joined file, named by file name alone.
struct ColumnSource {
  std::string file_name;
  uint64_t begin = 0, count = 0;
};

// A column of /points or /waveforms: where its values are.
struct ColumnLayout {
  std::string path;   // "/points/x"
  std::string field;  // "x"
  uint64_t values = 0;
  std::vector<ColumnSource> sources;  // empty: in this file
};

}  // namespace

struct Hdf5FrameReader::Impl {
  std::filesystem::path path;
  uint64_t file_size = 0;
  Hdf5Id file;
  Hdf5Summary summary;
  std::vector<FrameRow> rows;
  std::vector<ColumnLayout> points;  // the fields present, in FrameFields order
  std::optional<ColumnLayout> beam_ids, volts;
  // Source files a joined file's reads opened, kept open (opening a 1 GB shard a read would
  // dominate reading the file).
  mutable std::map<std::string, std::shared_ptr<Hdf5Id>> sources;
};

namespace {

// "/points/x": both steps hard links (soft and external links point elsewhere, another file or
// a FIFO: frames files use none).
Status RequireHardPath(hid_t file, const std::string& group, const std::string& name,
                       const std::string& where) {
  if (Status s = RequireHardLink(file, group.c_str(), where, "frames files"); !s.ok()) return s;
  Hdf5Id g(H5Gopen2(file, group.c_str(), H5P_DEFAULT), H5Gclose);
  if (!g.ok()) return Error{where + "/" + group + ": cannot open group (corrupt file?)"};
  return RequireHardLink(g.get(), name.c_str(), where + "/" + group, "frames files");
}

struct Shape {
  uint64_t rows = 0;
  hsize_t width = 1;  // values a row (2-D datasets)
  size_t type_size = 0;
};

// The chunks that hold rows [begin, begin + count) of a chunked dataset: each inside the file
// and, where its filters were skipped, at least its raw size (libhdf5 1.10.8 would overflow the
// chunk's buffer reading it: found by fuzz_hdf5). Checked before each read rather than once for
// the whole file: a file of 10,000 frames has 6,000 chunks a column, and libhdf5 1.10 looks each
// up in time that grows with the index (2.2 s for the 93,000 of such a file).
Status CheckChunkRange(hid_t ds, uint64_t begin, uint64_t count, uint64_t file_size,
                       const std::string& at) {
  Hdf5Id dcpl(H5Dget_create_plist(ds), H5Pclose);
  Hdf5Id type(H5Dget_type(ds), H5Tclose);
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  if (!dcpl.ok() || !type.ok() || !space.ok()) return Error{at + ": unreadable (corrupt file)"};
  if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED || count == 0) return {};
  const int rank = H5Sget_simple_extent_ndims(space.get());
  hsize_t chunk[2] = {0, 1};
  if (rank < 1 || rank > 2 || H5Pget_chunk(dcpl.get(), rank, chunk) != rank || chunk[0] == 0) {
    return Error{at + ": its chunk layout cannot be read (corrupt file)"};
  }
  const hsize_t raw = H5Tget_size(type.get()) * chunk[0] * chunk[1];
  for (hsize_t c = begin / chunk[0]; c * chunk[0] < begin + count; ++c) {
    hsize_t offset[2] = {c * chunk[0], 0};
    unsigned mask = 0;
    haddr_t address = 0;
    hsize_t size = 0;
    if (H5Dget_chunk_info_by_coord(ds, offset, &mask, &address, &size) < 0) {
      return Error{at + ": unreadable chunk index (corrupt file)"};
    }
    if (address == HADDR_UNDEF) continue;  // never written: reads as zeros
    if (address > file_size || size > file_size - address) {
      return Error{at + ": chunk " + std::to_string(c) + " lies outside the file (corrupt)"};
    }
    if (mask != 0 && size < raw) {
      return Error{at + ": a chunk stored with its filters skipped holds " + std::to_string(size) +
                   " bytes of its " + std::to_string(raw) + " (corrupt file)"};
    }
  }
  return {};
}

// A dataset that holds its own data: numeric, of rank 1 (or 2 with `width` values a row),
// stored bytes consistent with the declared size, a readable chunk layout (its chunks are
// checked before each read: CheckChunkRange).
Expected<Shape> CheckStoredDataset(hid_t ds, const std::string& at, uint64_t file_size,
                                   hsize_t width = 1) {
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  const int rank = space.ok() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  hsize_t dims[2] = {0, 1};
  if (rank != (width > 1 ? 2 : 1) || H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0 ||
      (width > 1 && dims[1] != width)) {
    return Error{at + ": expected a " +
                 (width > 1 ? "2-D dataset of " + std::to_string(width) + " values a row"
                            : std::string("1-D dataset"))};
  }
  Shape shape;
  shape.rows = dims[0];
  shape.width = width;
  if (shape.rows > kMaxHdf5ColumnValues) {
    return Error{at + ": declares " + std::to_string(shape.rows) +
                 " values; this reader accepts at most " + std::to_string(kMaxHdf5ColumnValues)};
  }
  Hdf5Id type(H5Dget_type(ds), H5Tclose);
  const H5T_class_t cls = type.ok() ? H5Tget_class(type.get()) : H5T_NO_CLASS;
  shape.type_size = type.ok() ? H5Tget_size(type.get()) : 0;
  if ((cls != H5T_FLOAT && cls != H5T_INTEGER) || shape.type_size == 0 || shape.type_size > 8) {
    return Error{at + ": not a numeric dataset"};
  }
  Hdf5Id dcpl(H5Dget_create_plist(ds), H5Pclose);
  if (!dcpl.ok()) return Error{at + ": unreadable storage properties (corrupt file)"};
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  // Data kept in other files (external storage, virtual datasets other than a joined file's
  // columns) could be anything, a FIFO included: a frames file holds its own data.
  if (KeepsDataElsewhere(dcpl.get())) {
    return Error{at +
                 ": stores its data in other files (a virtual dataset or external storage); "
                 "frames files hold their own data (only a joined file's columns map its "
                 "shards')"};
  }
  const double declared = static_cast<double>(shape.rows) * static_cast<double>(width) *
                          static_cast<double>(shape.type_size);
  const hsize_t stored = H5Dget_storage_size(ds);
  if (stored > file_size) {
    return Error{at + ": stores " + std::to_string(stored) + " bytes in a file of " +
                 std::to_string(file_size) + " (corrupt file)"};
  }
  if (declared > kMaxCompressionRatio * static_cast<double>(stored) + kStorageSlackBytes) {
    return Error{at + ": declares " + std::to_string(shape.rows * width) + " values (" +
                 std::to_string(static_cast<uint64_t>(declared)) + " bytes) but stores only " +
                 std::to_string(stored) + " bytes (corrupt file)"};
  }
  if (layout == H5D_CHUNKED) {
    hsize_t chunk[2] = {0, 1};
    if (H5Pget_chunk(dcpl.get(), rank, chunk) != rank || chunk[0] == 0 ||
        (rank == 2 && chunk[1] != width)) {
      return Error{at + ": its chunk layout cannot be read (corrupt file)"};
    }
    if ((shape.rows + chunk[0] - 1) / chunk[0] > kMaxChunks) {
      return Error{at + ": more than 2^22 chunks (corrupt file?)"};
    }
    // A chunk is read whole: one of a few values per frame could otherwise make a frame's read
    // inflate gigabytes (the writer's hold 65,536 values or 4,096 rows).
    if (chunk[0] * chunk[1] > kMaxChunkValues) {
      return Error{at + ": chunks of " + std::to_string(chunk[0] * chunk[1]) +
                   " values, more than 2^20 (corrupt file?)"};
    }
  }
  return shape;
}

// The file beside `joined` named `name`, opened (once a reader: `cache`), its group and
// column hard links. HDF5 itself would read a missing source as zeros; here it is an error.
Expected<std::shared_ptr<Hdf5Id>> OpenSourceFile(
    const std::filesystem::path& joined, const std::string& name, const std::string& where,
    std::map<std::string, std::shared_ptr<Hdf5Id>>& cache, uint64_t* size_out) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return Error{where + ": its source '" + name +
                 "' is not a file beside this one (joined files name their sources by file "
                 "name)"};
  }
  const std::filesystem::path path = joined.parent_path() / name;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec))) {
    return Error{where + " (source " + path.string() +
                 "): the source file is missing or not a regular file"};
  }
  if (auto it = cache.find(name); it != cache.end()) {
    hsize_t size = 0;
    if (H5Fget_filesize(it->second->get(), &size) < 0) {
      return Error{where + " (source " + path.string() + "): cannot read its size"};
    }
    *size_out = size;
    return it->second;
  }
  // Checked and opened through one descriptor (O_NONBLOCK: a FIFO swapped in does not block),
  // and libhdf5 opens that very file through /proc/self/fd: a path swapped between the check
  // and the open cannot make it read a FIFO or another file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    return Error{where + " (source " + path.string() +
                 "): the source file is missing or not a regular file"};
  }
  *size_out = static_cast<uint64_t>(st.st_size);
  const std::string checked = "/proc/self/fd/" + std::to_string(fd);
  const bool proc = std::filesystem::exists(checked, ec);
  auto file = std::make_shared<Hdf5Id>(
      H5Fopen(proc ? checked.c_str() : path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  ::close(fd);
  if (!file->ok()) {
    return Error{where + " (source " + path.string() + "): cannot open the source file"};
  }
  cache[name] = file;
  return file;
}

// A source's column dataset, checked: `path` by hard links, holding `count` values of `type`.
Expected<Hdf5Id> OpenSourceColumn(hid_t source_file, uint64_t source_size, const std::string& path,
                                  hid_t type, uint64_t count, const std::string& where) {
  const size_t slash = path.rfind('/');
  if (Status s =
          RequireHardPath(source_file, path.substr(1, slash - 1), path.substr(slash + 1), where);
      !s.ok()) {
    return s.error();
  }
  Hdf5Id ds(H5Dopen2(source_file, path.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) return Error{where + ": the source has no dataset " + path};
  Hdf5Id source_type(H5Dget_type(ds.get()), H5Tclose);
  if (!source_type.ok() || H5Tequal(source_type.get(), type) <= 0) {
    return Error{where + ": the source's type is not the virtual dataset's"};
  }
  auto shape = CheckStoredDataset(ds.get(), where, source_size);
  if (!shape.ok()) return shape.error();
  if (shape->rows != count) {
    return Error{where + ": holds " + std::to_string(shape->rows) + " values, the joined file " +
                 "maps " + std::to_string(count)};
  }
  return ds;
}

// A joined file's column: each mapping the whole of the same column of a file beside it, the
// mappings in order and tiling the column.
Status ReadVirtualLayout(hid_t ds, hid_t dcpl, hid_t type, const std::filesystem::path& file,
                         const std::string& at, ColumnLayout& layout,
                         std::map<std::string, std::shared_ptr<Hdf5Id>>& cache) {
  size_t count = 0;
  if (H5Pget_virtual_count(dcpl, &count) < 0 || count > 100000) {
    return Error{at + ": unreadable virtual dataset mappings (corrupt file)"};
  }
  uint64_t next = 0;
  for (size_t i = 0; i < count; ++i) {
    const std::string where = at + " (mapping " + std::to_string(i) + ")";
    char file_name[256], dataset_name[256];
    const ssize_t fn = H5Pget_virtual_filename(dcpl, i, file_name, sizeof(file_name));
    const ssize_t dn = H5Pget_virtual_dsetname(dcpl, i, dataset_name, sizeof(dataset_name));
    Hdf5Id vspace(H5Pget_virtual_vspace(dcpl, i), H5Sclose);
    Hdf5Id sspace(H5Pget_virtual_srcspace(dcpl, i), H5Sclose);
    hsize_t start = 0, stride = 0, blocks = 0, block = 0;
    if (fn <= 0 || fn >= static_cast<ssize_t>(sizeof(file_name)) || dn <= 0 ||
        dn >= static_cast<ssize_t>(sizeof(dataset_name)) || !vspace.ok() || !sspace.ok() ||
        H5Sget_select_type(sspace.get()) != H5S_SEL_ALL ||
        H5Sget_select_type(vspace.get()) != H5S_SEL_HYPERSLABS ||
        H5Sis_regular_hyperslab(vspace.get()) <= 0 ||
        H5Sget_regular_hyperslab(vspace.get(), &start, &stride, &blocks, &block) < 0 ||
        blocks != 1) {
      return Error{where + ": a joined column must map whole source datasets, one after another"};
    }
    if (std::string(dataset_name) != layout.path) {
      return Error{where + ": maps '" + std::string(dataset_name) + "', not the shard's " +
                   layout.path};
    }
    if (start != next) {
      return Error{where + ": maps values from " + std::to_string(start) + ", not " +
                   std::to_string(next) + " (mappings must tile the column in order)"};
    }
    uint64_t source_size = 0;
    auto source = OpenSourceFile(file, file_name, where, cache, &source_size);
    if (!source.ok()) return source.error();
    auto column = OpenSourceColumn((*source)->get(), source_size, layout.path, type, block,
                                   where + " (source " + file_name + ")");
    if (!column.ok()) return column.error();
    layout.sources.push_back({file_name, start, block});
    next = start + block;
  }
  if (next != layout.values) {
    return Error{at + ": its mappings cover " + std::to_string(next) + " of its " +
                 std::to_string(layout.values) + " values"};
  }
  (void)ds;
  return {};
}

// A column of /points or /waveforms: `expected` values, stored here or (a joined file) mapped.
Status ReadColumnLayout(hid_t f, const std::filesystem::path& file, uint64_t file_size,
                        const std::string& group, const std::string& field, uint64_t expected,
                        ColumnLayout& layout,
                        std::map<std::string, std::shared_ptr<Hdf5Id>>& cache) {
  const std::string where = file.string() + ": ";
  layout.path = "/" + group + "/" + field;
  layout.field = field;
  const std::string at = where + layout.path;
  if (Status s = RequireHardPath(f, group, field, file.string() + ": "); !s.ok()) return s;
  Hdf5Id ds(H5Dopen2(f, layout.path.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) return Error{at + ": cannot open dataset (corrupt file?)"};
  Hdf5Id dcpl(H5Dget_create_plist(ds.get()), H5Pclose);
  if (!dcpl.ok()) return Error{at + ": unreadable storage properties (corrupt file)"};
  if (H5Pget_layout(dcpl.get()) != H5D_VIRTUAL) {
    auto shape = CheckStoredDataset(ds.get(), at, file_size);
    if (!shape.ok()) return shape.error();
    layout.values = shape->rows;
  } else {
    Hdf5Id space(H5Dget_space(ds.get()), H5Sclose);
    hsize_t n = 0;
    if (!space.ok() || H5Sget_simple_extent_ndims(space.get()) != 1 ||
        H5Sget_simple_extent_dims(space.get(), &n, nullptr) < 0 || n > kMaxHdf5ColumnValues) {
      return Error{at + ": expected a 1-D dataset of at most 2^38 values"};
    }
    layout.values = n;
    Hdf5Id type(H5Dget_type(ds.get()), H5Tclose);
    if (!type.ok()) return Error{at + ": unreadable type (corrupt file)"};
    if (Status s = ReadVirtualLayout(ds.get(), dcpl.get(), type.get(), file, at, layout, cache);
        !s.ok()) {
      return s;
    }
  }
  if (layout.values != expected) {
    return Error{at + " has " + std::to_string(layout.values) +
                 " values; the frames' rows add up to " + std::to_string(expected)};
  }
  return {};
}

// A backend that is a recording's reader (convert writes it), not a simulation's.
bool IsRealReader(const std::string& backend) {
  return backend != "cpu" && backend != "cuda" && backend != "python" && !backend.empty();
}

void Warn(Hdf5Summary& s, const std::string& where, const char* name, AttrRead r) {
  if (r == AttrRead::kUnreadable) {
    s.warnings.push_back(where + ": attribute '" + name +
                         "' is present but unreadable (wrong type or corrupt); left empty");
  }
}

Status ReadFileAttributes(hid_t f, const std::string& where, Hdf5Summary& s) {
  std::string schema;
  if (ReadStringAttr(f, "schema", schema) != AttrRead::kOk || schema != kFramesSchemaName) {
    return Error{where + ": attribute 'schema' is missing or not '" +
                 std::string(kFramesSchemaName) + "': not a lidartwin frames file"};
  }
  double version = 0;
  if (ReadDoublesAttr(f, "schema_version", &version, 1) != AttrRead::kOk) {
    return Error{where + ": attribute 'schema_version' is missing or unreadable"};
  }
  if (version == 1) {
    return Error{where +
                 ": schema_version 1 (a group a frame, written by lidartwin before the flat "
                 "tables of version 2) is no longer read; simulate or export it again"};
  }
  if (version != kFramesSchemaVersion) {
    char shown[32];
    std::snprintf(shown, sizeof(shown), "%g", version);
    return Error{where + ": schema_version " + std::string(shown) +
                 " is not supported (this build reads version " +
                 std::to_string(kFramesSchemaVersion) + ")"};
  }
  s.schema_version = kFramesSchemaVersion;
  DatasetInfo& info = s.info;
  Warn(s, where, "software_version", ReadStringAttr(f, "software_version", info.software_version));
  Warn(s, where, "sensor_name", ReadStringAttr(f, "sensor_name", info.sensor_name));
  Warn(s, where, "sensor_profile", ReadStringAttr(f, "sensor_profile", info.sensor_profile_yaml));
  Warn(s, where, "scene", ReadStringAttr(f, "scene", info.scene_yaml));
  Warn(s, where, "backend", ReadStringAttr(f, "backend", info.backend));
  Warn(s, where, "seed", ReadU64Attr(f, "seed", info.seed));
  Warn(s, where, "wavelength_nm", ReadDoublesAttr(f, "wavelength_nm", &info.wavelength_nm, 1));
  std::string names;
  Warn(s, where, "material_names", ReadStringAttr(f, "material_names", names));
  for (size_t at = 0; !names.empty() && at <= names.size();) {
    const size_t end = std::min(names.find('\n', at), names.size());
    info.material_names.push_back(names.substr(at, end - at));
    at = end + 1;
  }
  return {};
}

}  // namespace

Status hdf5::ReadFrameRows(hid_t f, const std::string& where, uint64_t file_size,
                           std::vector<FrameRow>& rows) {
  if (H5Lexists(f, "/frames", H5P_DEFAULT) <= 0) return Error{where + ": group /frames missing"};
  const auto& columns = RowColumns();
  std::string bytes;
  for (size_t c = 0; c < columns.size(); ++c) {
    const RowColumn& rc = columns[c];
    const std::string at = where + ": /frames/" + rc.name;
    if (H5Lexists(f, ("/frames/" + std::string(rc.name)).c_str(), H5P_DEFAULT) <= 0) {
      return Error{at + ": missing"};
    }
    if (Status s = RequireHardPath(f, "frames", rc.name, where + ": "); !s.ok()) return s;
    Hdf5Id ds(H5Dopen2(f, (std::string("/frames/") + rc.name).c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.ok()) return Error{at + ": cannot open dataset (corrupt file?)"};
    auto shape = CheckStoredDataset(ds.get(), at, file_size, rc.width);
    if (!shape.ok()) return shape.error();
    if (shape->rows > kMaxHdf5Frames) {
      return Error{at + ": holds " + std::to_string(shape->rows) +
                   " frames; this reader accepts at most " + std::to_string(kMaxHdf5Frames)};
    }
    if (c == 0) {
      rows.assign(shape->rows, FrameRow{});
    } else if (shape->rows != rows.size()) {
      return Error{at + " has " + std::to_string(shape->rows) + " rows, /frames/" +
                   columns[0].name + " has " + std::to_string(rows.size())};
    }
    if (rows.empty()) continue;
    if (Status st = CheckChunkRange(ds.get(), 0, rows.size(), file_size, at); !st.ok()) return st;
    const size_t row_bytes = FieldTypeBytes(rc.type) * rc.width;
    bytes.assign(rows.size() * row_bytes, '\0');
    if (H5Dread(ds.get(), MemType(rc.type), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) < 0) {
      return Error{at + ": cannot read data (corrupt or truncated file)"};
    }
    for (size_t r = 0; r < rows.size(); ++r)
      rc.unpack(&bytes[r * row_bytes], rows[r]);
  }
  return {};
}

Status hdf5::CheckFrameRows(const std::vector<FrameRow>& rows, const std::string& where,
                            uint64_t& points, uint64_t& records, uint64_t& volts) {
  std::set<uint32_t> indices;
  points = records = volts = 0;
  for (size_t k = 0; k < rows.size(); ++k) {
    const FrameRow& r = rows[k];
    const std::string at =
        where + ": /frames row " + std::to_string(k) + " (frame " + std::to_string(r.index) + ")";
    if (!indices.insert(r.index).second) {
      return Error{at + ": frame_index " + std::to_string(r.index) +
                   " is also the index of an earlier frame"};
    }
    if (!std::isfinite(r.start_time_s) || !std::isfinite(r.end_time_s)) {
      return Error{at + ": start_time_s or end_time_s is not a finite number"};
    }
    if (!std::all_of(r.pose_start, r.pose_start + 7, [](double v) { return std::isfinite(v); }) ||
        !std::all_of(r.pose_end, r.pose_end + 7, [](double v) { return std::isfinite(v); })) {
      return Error{at + ": a pose holds a non-finite number"};
    }
    if (r.points > kMaxHdf5PointsPerFrame) {
      return Error{at + ": declares " + std::to_string(r.points) +
                   " points; this reader accepts at most " +
                   std::to_string(kMaxHdf5PointsPerFrame) + " per frame"};
    }
    if (r.point_offset != points) {
      return Error{at + ": point_offset " + std::to_string(r.point_offset) + ", but the frames " +
                   "before it hold " + std::to_string(points) + " points"};
    }
    points += r.points;
    if (r.waveform_records > SimulationOptions::kMaxWaveformBeams) {
      return Error{at + ": " + std::to_string(r.waveform_records) +
                   " waveform records; a frame holds at most " +
                   std::to_string(SimulationOptions::kMaxWaveformBeams)};
    }
    if (r.waveform_records == 0 &&
        (r.waveform_samples != 0 || r.waveform_sample_interval_ns != 0)) {
      return Error{at + ": waveform_samples and waveform_sample_interval_ns without records"};
    }
    if (r.waveform_records > 0) {
      if (r.waveform_samples < 1 || r.waveform_samples > kMaxWaveformSamples) {
        return Error{at + ": waveform_samples must be in 1..16384"};
      }
      if (!(r.waveform_sample_interval_ns > 0 && r.waveform_sample_interval_ns < 1e6)) {
        return Error{at + ": waveform_sample_interval_ns must be in (0, 1e6) ns"};
      }
    }
    if (r.waveform_record_offset != records || r.waveform_volts_offset != volts) {
      return Error{at +
                   ": waveform_record_offset or waveform_volts_offset is not where the "
                   "frames before it end"};
    }
    records += r.waveform_records;
    volts += uint64_t{r.waveform_records} * r.waveform_samples;
  }
  return {};
}

namespace {

// Chunks a dataset of `values` values has (0 when not chunked).
uint64_t ChunkCount(hid_t ds, uint64_t values) {
  Hdf5Id dcpl(H5Dget_create_plist(ds), H5Pclose);
  hsize_t chunk = 0;
  if (!dcpl.ok() || H5Pget_layout(dcpl.get()) != H5D_CHUNKED ||
      H5Pget_chunk(dcpl.get(), 1, &chunk) != 1 || chunk == 0) {
    return 0;
  }
  return (values + chunk - 1) / chunk;
}

// libhdf5 1.10.8 looks a chunk up in time that grows faster than the index: a column of 5,000
// chunks takes 0.1 s, of 40,000 11 s. A column past this is checked read by read only.
constexpr uint64_t kWalkedChunksAtMost = 4096;

// Every chunk of every column (CheckChunkRange), in this file or a joined file's sources: the
// walk a foreign file gets in the forked child, where libhdf5 crashing on a corrupt chunk index
// takes only the child (in-process, each read checks the chunks it reads). Columns of more than
// kWalkedChunksAtMost chunks (a file of some 6,000 OS0-128 lab frames) rely on those checks alone.
Status WalkEveryChunk(const Hdf5FrameReader::Impl& impl, const ColumnLayout& column) {
  const std::string at = impl.path.string() + ": " + column.path;
  if (column.sources.empty()) {
    Hdf5Id ds(H5Dopen2(impl.file.get(), column.path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.ok()) return Error{at + ": cannot open dataset (corrupt file?)"};
    if (ChunkCount(ds.get(), column.values) > kWalkedChunksAtMost) return {};
    return CheckChunkRange(ds.get(), 0, column.values, impl.file_size, at);
  }
  for (const ColumnSource& source : column.sources) {
    uint64_t size = 0;
    auto file = OpenSourceFile(impl.path, source.file_name, at, impl.sources, &size);
    if (!file.ok()) return file.error();
    Hdf5Id ds(H5Dopen2((*file)->get(), column.path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.ok()) return Error{at + " (source " + source.file_name + "): cannot open dataset"};
    if (ChunkCount(ds.get(), source.count) > kWalkedChunksAtMost) continue;
    if (Status s = CheckChunkRange(ds.get(), 0, source.count, size,
                                   at + " (source " + source.file_name + ")");
        !s.ok()) {
      return s;
    }
  }
  return {};
}

Expected<std::unique_ptr<Hdf5FrameReader::Impl>> OpenInProcess(const std::filesystem::path& path,
                                                               bool walk_every_chunk) {
  const std::string where = path.string();
  auto impl = std::make_unique<Hdf5FrameReader::Impl>();
  impl->path = path;
  std::error_code ec;
  const uint64_t file_size = std::filesystem::file_size(path, ec);
  if (ec) return Error{where + ": cannot read its size: " + ec.message()};
  impl->file_size = file_size;
  impl->file = Hdf5Id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, StreamingFileAccess().get()), H5Fclose);
  if (!impl->file.ok()) return Error{where + ": cannot open HDF5 file (corrupt or truncated)"};
  const hid_t f = impl->file.get();
  Hdf5Summary& s = impl->summary;
  if (Status st = ReadFileAttributes(f, where, s); !st.ok()) return st.error();
  if (Status st = ReadFrameRows(f, where, file_size, impl->rows); !st.ok()) return st.error();
  uint64_t points = 0, records = 0, volts = 0;
  if (Status st = CheckFrameRows(impl->rows, where, points, records, volts); !st.ok()) {
    return st.error();
  }
  if (H5Lexists(f, "/points", H5P_DEFAULT) <= 0) return Error{where + ": group /points missing"};
  // Written since units were carried: /points names the absent fields (possibly none).
  bool carries_units = false;
  {
    Hdf5Id group(H5Gopen2(f, "/points", H5P_DEFAULT), H5Gclose);
    std::string absent;
    carries_units =
        group.get() >= 0 && ReadStringAttr(group.get(), "absent_fields", absent) == AttrRead::kOk;
  }
  for (const FieldView& field : FrameFields(Frame{})) {
    const bool required =
        std::any_of(std::begin(kRequiredFields), std::end(kRequiredFields),
                    [&](const char* r) { return std::strcmp(r, field.name) == 0; });
    if (H5Lexists(f, (std::string("/points/") + field.name).c_str(), H5P_DEFAULT) <= 0) {
      if (required) {
        return Error{where + ": /points/" + field.name + " missing (x, y, z are required)"};
      }
      continue;
    }
    ColumnLayout layout;
    if (Status st = ReadColumnLayout(f, path, file_size, "points", field.name, points, layout,
                                     impl->sources);
        !st.ok()) {
      return st.error();
    }
    Hdf5Id ds(H5Dopen2(f, layout.path.c_str(), H5P_DEFAULT), H5Dclose);
    std::string unit;
    Warn(s, where + ": " + layout.path, "unit", ReadStringAttr(ds.get(), "unit", unit));
    s.fields.emplace_back(field.name, unit);
    // Files written before units were carried say "percent" whatever their source: a real
    // recording's (backend names its reader) is then not known. A file written since says.
    if (std::string_view(field.name) == "intensity")
      s.info.intensity_unit =
          !carries_units && unit == "percent" && IsRealReader(s.info.backend) ? "unknown" : unit;
    impl->points.push_back(std::move(layout));
  }
  // Waveform records: both columns or neither, as long as the rows say.
  const bool beams = H5Lexists(f, "/waveforms", H5P_DEFAULT) > 0 &&
                     H5Lexists(f, "/waveforms/beam_id", H5P_DEFAULT) > 0;
  const bool volts_there = H5Lexists(f, "/waveforms", H5P_DEFAULT) > 0 &&
                           H5Lexists(f, "/waveforms/volts", H5P_DEFAULT) > 0;
  if (beams != volts_there) {
    return Error{where + ": /waveforms/beam_id and /waveforms/volts come together; only " +
                 (beams ? "beam_id" : "volts") + " is there"};
  }
  if (!beams && records > 0) {
    return Error{where + ": the rows hold " + std::to_string(records) +
                 " waveform records but /waveforms is missing"};
  }
  if (beams) {
    impl->beam_ids.emplace();
    impl->volts.emplace();
    if (Status st = ReadColumnLayout(f, path, file_size, "waveforms", "beam_id", records,
                                     *impl->beam_ids, impl->sources);
        !st.ok()) {
      return st.error();
    }
    if (Status st = ReadColumnLayout(f, path, file_size, "waveforms", "volts", volts, *impl->volts,
                                     impl->sources);
        !st.ok()) {
      return st.error();
    }
  }
  for (const FrameRow& r : impl->rows) {
    s.frames.push_back({r.index, r.points, r.start_time_s, r.end_time_s});
  }
  if (walk_every_chunk) {
    for (const ColumnLayout& column : impl->points)
      if (Status st = WalkEveryChunk(*impl, column); !st.ok()) return st.error();
    for (const auto* column : {&impl->beam_ids, &impl->volts})
      if (*column)
        if (Status st = WalkEveryChunk(*impl, **column); !st.ok()) return st.error();
  }
  return impl;
}

// Values [begin, begin + count) of a stored 1-D dataset, the chunks they lie in checked first
// (a file changed since it was opened must not overflow the buffer or libhdf5's).
Status ReadStoredRange(hid_t ds, hid_t mem_type, uint64_t begin, uint64_t count, void* out,
                       uint64_t expected_values, uint64_t file_size, const std::string& at) {
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  hsize_t n = 0;
  if (!space.ok() || H5Sget_simple_extent_ndims(space.get()) != 1 ||
      H5Sget_simple_extent_dims(space.get(), &n, nullptr) < 0 || n != expected_values) {
    return Error{at + ": no longer holds the " + std::to_string(expected_values) +
                 " values it held when the file was opened"};
  }
  Hdf5Id dcpl(H5Dget_create_plist(ds), H5Pclose);
  Hdf5Id type(H5Dget_type(ds), H5Tclose);
  if (!dcpl.ok() || !type.ok() || H5Pget_layout(dcpl.get()) == H5D_VIRTUAL) {
    return Error{at + ": its storage changed since the file was opened"};
  }
  if (Status st = CheckChunkRange(ds, begin, count, file_size, at); !st.ok()) return st;
  const hsize_t start = begin, length = count;
  Hdf5Id memory(H5Screate_simple(1, &length, nullptr), H5Sclose);
  if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, &start, nullptr, &length, nullptr) < 0 ||
      H5Dread(ds, mem_type, memory.get(), space.get(), H5P_DEFAULT, out) < 0) {
    return Error{at + ": cannot read data (corrupt or truncated file)"};
  }
  return {};
}

// Values [begin, begin + count) of a column. A joined file's are read from the source that
// holds them (never through libhdf5's own lookup, which HDF5_VDS_PREFIX can redirect); a frame
// never spans two sources.
Status ReadColumnRange(const Hdf5FrameReader::Impl& impl, const ColumnLayout& layout,
                       hid_t mem_type, uint64_t begin, uint64_t count, void* out) {
  const std::string at = impl.path.string() + ": " + layout.path;
  if (count == 0) return {};
  if (layout.sources.empty()) {
    Hdf5Id ds(H5Dopen2(impl.file.get(), layout.path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.ok()) return Error{at + ": cannot open dataset (corrupt or truncated file)"};
    return ReadStoredRange(ds.get(), mem_type, begin, count, out, layout.values, impl.file_size,
                           at);
  }
  auto it = std::upper_bound(layout.sources.begin(), layout.sources.end(), begin,
                             [](uint64_t v, const ColumnSource& s) { return v < s.begin; });
  if (it == layout.sources.begin())
    return Error{at + ": no source holds value " + std::to_string(begin)};
  const ColumnSource& source = *std::prev(it);
  const std::string where = at + " (source " + source.file_name + ")";
  if (begin + count > source.begin + source.count) {
    return Error{where + ": a frame's values run past its source"};
  }
  uint64_t source_size = 0;
  auto file = OpenSourceFile(impl.path, source.file_name, at, impl.sources, &source_size);
  if (!file.ok()) return file.error();
  Hdf5Id ds(H5Dopen2((*file)->get(), layout.path.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) return Error{where + ": the source has no dataset " + layout.path};
  return ReadStoredRange(ds.get(), mem_type, begin - source.begin, count, out, source.count,
                         source_size, where);
}

}  // namespace

Hdf5FrameReader::Hdf5FrameReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Hdf5FrameReader::Hdf5FrameReader(Hdf5FrameReader&&) noexcept = default;
Hdf5FrameReader& Hdf5FrameReader::operator=(Hdf5FrameReader&&) noexcept = default;
Hdf5FrameReader::~Hdf5FrameReader() = default;

Expected<Hdf5FrameReader> Hdf5FrameReader::Open(const std::filesystem::path& path,
                                                Hdf5Origin origin) {
  SilenceHdf5Errors();
  const std::string where = path.string();
  if (Status s = CheckReadableFile(path); !s.ok()) return s.error();
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    return Error{where + ": not an HDF5 file (bad signature or truncated)"};
  }
  // The structure walk, first where a crash of libhdf5 cannot take this process with it (a file
  // from elsewhere).
  if (origin == Hdf5Origin::kForeign) {
    if (Status s = RunIsolated(where, [&] { return OpenInProcess(path, true).ok(); }); !s.ok()) {
      return s.error();
    }
  }
  auto impl = OpenInProcess(path, false);
  if (!impl.ok()) return impl.error();
  return Hdf5FrameReader(std::move(impl.value()));
}

const Hdf5Summary& Hdf5FrameReader::summary() const {
  return impl_->summary;
}

Expected<Frame> Hdf5FrameReader::ReadFrame(size_t k) const {
  SilenceHdf5Errors();  // this thread may be new to libhdf5 (its error printing is per thread)
  if (k >= impl_->rows.size()) {
    return Error{impl_->path.string() + ": no frame entry " + std::to_string(k) + " (it holds " +
                 std::to_string(impl_->rows.size()) + ")"};
  }
  const FrameRow& row = impl_->rows[k];
  Frame f;
  f.index = row.index;
  f.start_time_s = row.start_time_s;
  f.end_time_s = row.end_time_s;
  f.motion_corrected = row.motion_corrected;
  f.pose_start = PoseFromArray(row.pose_start);
  f.pose_end = PoseFromArray(row.pose_end);
  for (const ColumnLayout& column : impl_->points) {
    FieldType type;
    void* data = ResizeFrameField(f, column.field, row.points, &type);
    if (Status s =
            ReadColumnRange(*impl_, column, MemType(type), row.point_offset, row.points, data);
        !s.ok()) {
      return s.error();
    }
  }
  if (row.waveform_records > 0 && impl_->beam_ids && impl_->volts) {
    f.waveform_samples = row.waveform_samples;
    f.waveform_dt_s = row.waveform_sample_interval_ns * 1e-9;
    f.waveform_beams.resize(row.waveform_records);
    f.waveform_volts.resize(uint64_t{row.waveform_records} * row.waveform_samples);
    if (Status s =
            ReadColumnRange(*impl_, *impl_->beam_ids, H5T_NATIVE_UINT32, row.waveform_record_offset,
                            row.waveform_records, f.waveform_beams.data());
        !s.ok()) {
      return s.error();
    }
    if (Status s =
            ReadColumnRange(*impl_, *impl_->volts, H5T_NATIVE_FLOAT, row.waveform_volts_offset,
                            f.waveform_volts.size(), f.waveform_volts.data());
        !s.ok()) {
      return s.error();
    }
    for (size_t i = 1; i < f.waveform_beams.size(); ++i) {
      if (f.waveform_beams[i] <= f.waveform_beams[i - 1]) {
        return Error{impl_->path.string() + ": frame " + std::to_string(row.index) +
                     ": /waveforms/beam_id must rise within a frame (each beam once), entry " +
                     std::to_string(i) + " does not"};
      }
    }
  }
  return f;
}

Expected<Hdf5Summary> ReadHdf5Summary(const std::filesystem::path& path, Hdf5Origin origin) {
  auto reader = Hdf5FrameReader::Open(path, origin);
  if (!reader.ok()) return reader.error();
  return reader->summary();
}

Expected<std::vector<Frame>> ReadHdf5Frames(const std::filesystem::path& path) {
  auto reader = Hdf5FrameReader::Open(path);
  if (!reader.ok()) return reader.error();
  std::vector<Frame> frames;
  for (size_t k = 0; k < reader->summary().frames.size(); ++k) {
    auto frame = reader->ReadFrame(k);
    if (!frame.ok()) return frame.error();
    frames.push_back(std::move(frame.value()));
  }
  return frames;
}

}  // namespace lt
