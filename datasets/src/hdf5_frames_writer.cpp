// The frames writer (schema v2, datasets/schema/frames_v2.md): every frame's points appended
// to the columns under /points, its waveform records to /waveforms, its row to /frames.
#include <hdf5.h>

#include <algorithm>
#include <cerrno>

#include "frame_tables.h"
#include "hdf5_attributes.h"
#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/datasets/hdf5_frames.h"

namespace lt {

using namespace hdf5;

namespace {

// Rows of /frames a chunk: they are written a whole chunk at a time, so memory holds at most
// this many rows whatever the frame count.
constexpr hsize_t kRowsPerChunk = 4096;

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

// Chunks of a column, as chunk_codec.h encoded them, written as they are.
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

}  // namespace

struct Hdf5FrameWriter::Impl {
  AtomicOutput output;
  Hdf5Id file;
  std::string where;
  TablePlanner planner;
  // Created with the first chunk of points (whose frame fixes the columns) or at Close.
  std::vector<GrowingColumn> points;
  PointColumns point_columns;
  GrowingColumn beam_ids, volts;
  std::vector<GrowingColumn> rows;  // RowColumns() order
  std::vector<FrameRow> pending_rows;
  uint64_t rows_written = 0;
  uint64_t point_values = 0, beam_values = 0, volt_values = 0;
  explicit Impl(const std::filesystem::path& p) : output(p), where(p.string()) {}

  Status CreatePointColumns(const PointColumns& columns) {
    const auto fields = FrameFields(Frame{});
    point_columns = columns;
    for (size_t c : columns) {
      auto column = CreateColumn(file.get(), std::string("/points/") + fields[c].name,
                                 fields[c].type, fields[c].unit, kTableChunkValues, 1, where);
      if (!column.ok()) return column.error();
      points.push_back(std::move(column.value()));
    }
    return {};
  }

  // The pending rows, appended to /frames.
  Status FlushRows() {
    if (pending_rows.empty()) return {};
    const auto& columns = RowColumns();
    const uint64_t total = rows_written + pending_rows.size();
    std::string bytes;
    for (size_t c = 0; c < columns.size(); ++c) {
      const RowColumn& rc = columns[c];
      const size_t row_bytes = FieldTypeBytes(rc.type) * rc.width;
      bytes.assign(pending_rows.size() * row_bytes, '\0');
      for (size_t r = 0; r < pending_rows.size(); ++r)
        rc.pack(pending_rows[r], &bytes[r * row_bytes]);
      GrowingColumn& column = rows[c];
      if (Status s = Resize(column, total, rc.width, where); !s.ok()) return s;
      const hsize_t start[2] = {rows_written, 0};
      const hsize_t count[2] = {pending_rows.size(), static_cast<hsize_t>(rc.width)};
      Hdf5Id file_space(H5Dget_space(column.ds.get()), H5Sclose);
      Hdf5Id memory(H5Screate_simple(rc.width > 1 ? 2 : 1, count, nullptr), H5Sclose);
      errno = 0;
      if (!file_space.ok() ||
          H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) <
              0 ||
          H5Dwrite(column.ds.get(), MemType(rc.type), memory.get(), file_space.get(), H5P_DEFAULT,
                   bytes.data()) < 0) {
        return Error{where + ": cannot write " + column.at + WriteFailureReason()};
      }
    }
    rows_written = total;
    pending_rows.clear();
    return {};
  }

  Status Write(const EncodedFrame& e) {
    if (points.empty() && std::any_of(e.points.begin(), e.points.end(),
                                      [](const auto& chunks) { return !chunks.empty(); })) {
      if (Status s = CreatePointColumns(e.columns); !s.ok()) return s;
    }
    if (!points.empty() && e.columns != point_columns &&
        std::any_of(e.points.begin(), e.points.end(), [](const auto& c) { return !c.empty(); })) {
      return Error{where + ": a frame's point columns changed within the file"};
    }
    for (size_t c = 0; c < e.points.size() && !points.empty(); ++c) {
      if (Status s = WriteChunks(points[c], e.points[c], where); !s.ok()) return s;
    }
    if (Status s = WriteChunks(beam_ids, e.beam_ids, where); !s.ok()) return s;
    if (Status s = WriteChunks(volts, e.volts, where); !s.ok()) return s;
    if (e.row) {
      if (rows_written + pending_rows.size() >= kMaxHdf5Frames) {
        return Error{where + ": more than " + std::to_string(kMaxHdf5Frames) +
                     " frames, the most a frames file holds"};
      }
      if (e.row->points > kMaxHdf5PointsPerFrame) {  // what the reader would refuse
        return Error{where + ": frame " + std::to_string(e.row->index) + " has " +
                     std::to_string(e.row->points) + " points, more than the " +
                     std::to_string(kMaxHdf5PointsPerFrame) + " a frames file holds per frame"};
      }
      point_values = e.row->point_offset + e.row->points;
      beam_values = e.row->waveform_record_offset + e.row->waveform_records;
      volt_values = e.row->waveform_volts_offset +
                    uint64_t{e.row->waveform_records} * e.row->waveform_samples;
      pending_rows.push_back(*e.row);
      if (pending_rows.size() == kRowsPerChunk) return FlushRows();
    }
    return {};
  }
};

Hdf5FrameWriter::Hdf5FrameWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Hdf5FrameWriter::~Hdf5FrameWriter() = default;

Expected<std::unique_ptr<Hdf5FrameWriter>> Hdf5FrameWriter::Create(
    const std::filesystem::path& path, const DatasetInfo& info) {
  SilenceHdf5Errors();
  auto impl = std::make_unique<Impl>(path);
  // No modification times in object headers: the same frames give the same bytes.
  Hdf5Id fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  H5Pset_obj_track_times(fcpl.get(), false);
  // The root group's attributes in dense storage (a fractal heap): compact attributes live in
  // the object header and are capped at 64 KiB, too small for the YAML of a 450-object scene.
  // Dense storage needs the 1.8 file format, which every HDF5 reader since 2008 opens.
  H5Pset_attr_phase_change(fcpl.get(), 0, 0);
  Hdf5Id fapl = StreamingFileAccess();
  H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
  errno = 0;
  impl->file = Hdf5Id(
      H5Fcreate(impl->output.temp_path().c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose);
  if (!impl->file.ok()) {
    return Error{path.string() + ": cannot create HDF5 file (is the directory writable?)"};
  }
  const hid_t f = impl->file.get();
  const double version = kFramesSchemaVersion;
  bool ok = WriteStringAttr(f, "schema", kFramesSchemaName) &&
            WriteDoublesAttr(f, "schema_version", &version, 1) &&
            WriteStringAttr(f, "software_version", info.software_version) &&
            WriteStringAttr(f, "sensor_name", info.sensor_name) &&
            WriteStringAttr(f, "sensor_profile", info.sensor_profile_yaml) &&
            WriteStringAttr(f, "scene", info.scene_yaml) &&
            WriteStringAttr(f, "backend", info.backend) && WriteU64Attr(f, "seed", info.seed) &&
            WriteDoublesAttr(f, "wavelength_nm", &info.wavelength_nm, 1);
  for (const char* group : {"/frames", "/points", "/waveforms"}) {
    Hdf5Id g(H5Gcreate2(f, group, H5P_DEFAULT, UntimedGroupProperties().get(), H5P_DEFAULT),
             H5Gclose);
    ok = ok && g.ok();
  }
  if (!ok) return Error{path.string() + ": cannot write HDF5 metadata" + WriteFailureReason()};
  const std::string where = path.string();
  for (const RowColumn& rc : RowColumns()) {
    auto column = CreateColumn(f, std::string("/frames/") + rc.name, rc.type, rc.unit,
                               kRowsPerChunk, rc.width, where);
    if (!column.ok()) return column.error();
    impl->rows.push_back(std::move(column.value()));
  }
  auto beams = CreateColumn(f, "/waveforms/beam_id", FieldType::kUInt32, "index", kTableChunkValues,
                            1, where);
  if (!beams.ok()) return beams.error();
  auto volts =
      CreateColumn(f, "/waveforms/volts", FieldType::kFloat32, "V", kTableChunkValues, 1, where);
  if (!volts.ok()) return volts.error();
  impl->beam_ids = std::move(beams.value());
  impl->volts = std::move(volts.value());
  return std::unique_ptr<Hdf5FrameWriter>(new Hdf5FrameWriter(std::move(impl)));
}

Expected<FramePlan> Hdf5FrameWriter::Plan(std::shared_ptr<const Frame> frame) {
  auto plan = impl_->planner.Plan(std::move(frame));
  if (!plan.ok()) return Error{impl_->where + ": " + plan.message()};
  return plan;
}

hdf5::TablePlanner& Hdf5FrameWriter::Planner() {
  return impl_->planner;
}

std::vector<size_t> Hdf5FrameWriter::PlannedColumns() const {
  return impl_->planner.columns();
}

Status Hdf5FrameWriter::Append(const Frame& frame) {
  auto plan = Plan(std::make_shared<const Frame>(frame));
  if (!plan.ok()) return plan.error();
  return AppendEncoded(EncodePlan(*plan, impl_->planner.columns()));
}

Status Hdf5FrameWriter::AppendEncoded(const EncodedFrame& encoded) {
  return impl_->Write(encoded);
}

Status Hdf5FrameWriter::Close() {
  Impl& w = *impl_;
  if (Status s = w.Write(EncodePlan(w.planner.Finish(), w.planner.columns())); !s.ok()) return s;
  if (w.points.empty()) {  // no frame had points
    if (Status s = w.CreatePointColumns(w.planner.columns()); !s.ok()) return s;
  }
  if (Status s = w.FlushRows(); !s.ok()) return s;
  for (GrowingColumn& column : w.points) {
    if (Status s = Resize(column, w.point_values, 1, w.where); !s.ok()) return s;
  }
  if (Status s = Resize(w.beam_ids, w.beam_values, 1, w.where); !s.ok()) return s;
  if (Status s = Resize(w.volts, w.volt_values, 1, w.where); !s.ok()) return s;
  w.points.clear();
  w.rows.clear();
  w.beam_ids.ds.Reset();
  w.volts.ds.Reset();
  errno = 0;
  if (H5Fclose(w.file.Release()) < 0) {
    return Error{w.output.target().string() + ": cannot finish HDF5 file" + WriteFailureReason()};
  }
  return w.output.Commit();
}

}  // namespace lt
