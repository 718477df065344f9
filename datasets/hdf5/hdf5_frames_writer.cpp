// The frames writer (schema v2, datasets/schema/frames_v2.md): every frame's points appended
// to the columns under /points, its waveform records to /waveforms, its row to /frames.
#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "frame_tables.h"
#include "hdf5_attributes.h"
#include "hdf5_id.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "table_columns.h"

namespace lt {

using namespace hdf5;

struct Hdf5FrameWriter::Impl {
  AtomicOutput output;
  Hdf5Id file;
  std::string where;
  TablePlanner planner;
  // Created with the first chunk of points (whose frame fixes the columns) or at Close.
  std::vector<GrowingColumn> points;
  PointColumns point_columns;
  GrowingColumn beam_ids, volts;
  std::optional<RowTableWriter> rows;
  std::vector<FrameRow> pending_rows;  // written kRowsPerChunk at a time
  uint64_t point_values = 0, beam_values = 0, volt_values = 0;
  std::string intensity_unit;  // DatasetInfo::intensity_unit
  explicit Impl(const std::filesystem::path& p) : output(p), where(p.string()) {}

  Status CreatePointColumns(const PointColumns& columns) {
    const auto fields = FrameFields(Frame{});
    point_columns = columns;
    for (size_t c : columns) {
      // The intensity in the recording's own unit, every other field in its fixed one.
      const bool intensity = std::string_view(fields[c].name) == "intensity";
      const char* unit =
          intensity && !intensity_unit.empty() ? intensity_unit.c_str() : fields[c].unit;
      auto column = CreateColumn(file.get(), std::string("/points/") + fields[c].name,
                                 fields[c].type, unit, kTableChunkValues, 1, where);
      if (!column.ok()) return column.error();
      points.push_back(std::move(column.value()));
    }
    // The fields the frames lack (a recording's labels, a KITTI scan's column), named on
    // /points: their columns are not there, and a reader need not guess why.
    std::string absent;
    for (size_t c = 0; c < fields.size(); ++c) {
      if (std::find(columns.begin(), columns.end(), c) == columns.end())
        absent += (absent.empty() ? "" : ",") + std::string(fields[c].name);
    }
    Hdf5Id group(H5Gopen2(file.get(), "/points", H5P_DEFAULT), H5Gclose);
    if (group.get() < 0 || !WriteStringAttr(group.get(), "absent_fields", absent))
      return Error{where + ": cannot write /points attribute absent_fields" + WriteFailureReason()};
    return {};
  }

  // The pending rows, appended to /frames.
  Status FlushRows() {
    if (Status s = rows->Append(pending_rows); !s.ok()) return s;
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
      if (rows->rows() + pending_rows.size() >= kMaxHdf5Frames) {
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
  impl->intensity_unit = info.intensity_unit;
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
  if (!info.material_names.empty()) {
    std::string names;
    for (const std::string& n : info.material_names)
      names += (names.empty() ? "" : "\n") + n;
    ok = ok && WriteStringAttr(f, "material_names", names);
  }
  for (const char* group : {"/frames", "/points", "/waveforms"}) {
    Hdf5Id g(H5Gcreate2(f, group, H5P_DEFAULT, UntimedGroupProperties().get(), H5P_DEFAULT),
             H5Gclose);
    ok = ok && g.ok();
  }
  if (!ok) return Error{path.string() + ": cannot write HDF5 metadata" + WriteFailureReason()};
  const std::string where = path.string();
  auto rows = RowTableWriter::Create(f, where);
  if (!rows.ok()) return rows.error();
  impl->rows.emplace(std::move(rows.value()));
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

Status Hdf5FrameWriter::Append(const Frame& frame) {
  auto plan = Plan(std::make_shared<const Frame>(frame));
  if (!plan.ok()) return plan.error();
  return AppendEncoded(EncodePlan(*plan, impl_->planner.columns()));
}

Status Hdf5FrameWriter::AppendEncoded(const EncodedFrame& encoded) {
  SilenceHdf5Errors();  // this thread may be new to libhdf5 (its error printing is per thread)
  return impl_->Write(encoded);
}

Status Hdf5FrameWriter::Close() {
  SilenceHdf5Errors();
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
  w.rows.reset();
  w.beam_ids.ds.Reset();
  w.volts.ds.Reset();
  errno = 0;
  if (H5Fclose(w.file.Release()) < 0) {
    return Error{w.output.target().string() + ": cannot finish HDF5 file" + WriteFailureReason()};
  }
  return w.output.Commit();
}

}  // namespace lt
