#include "lidartwin/datasets/hdf5_frames.h"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "hdf5_id.h"
#include "lidartwin/datasets/atomic_file.h"

namespace lt {

namespace {

hid_t MemType(FieldType t) {
  switch (t) {
    case FieldType::kFloat32:
      return H5T_NATIVE_FLOAT;
    case FieldType::kFloat64:
      return H5T_NATIVE_DOUBLE;
    case FieldType::kUInt8:
      return H5T_NATIVE_UINT8;
    case FieldType::kUInt16:
      return H5T_NATIVE_UINT16;
    case FieldType::kUInt32:
      return H5T_NATIVE_UINT32;
  }
  return H5T_NATIVE_FLOAT;
}

// File type: little-endian, fixed, so files are the same bytes on every machine.
hid_t FileType(FieldType t) {
  switch (t) {
    case FieldType::kFloat32:
      return H5T_IEEE_F32LE;
    case FieldType::kFloat64:
      return H5T_IEEE_F64LE;
    case FieldType::kUInt8:
      return H5T_STD_U8LE;
    case FieldType::kUInt16:
      return H5T_STD_U16LE;
    case FieldType::kUInt32:
      return H5T_STD_U32LE;
  }
  return H5T_IEEE_F32LE;
}

bool WriteStringAttr(hid_t obj, const char* name, const std::string& value) {
  Hdf5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), std::max<size_t>(1, value.size()));
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id attr(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.ok()) return false;
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  return H5Awrite(attr.get(), type.get(), padded.data()) >= 0;
}

bool WriteDoublesAttr(hid_t obj, const char* name, const double* v, hsize_t n) {
  Hdf5Id space(n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  Hdf5Id attr(H5Acreate2(obj, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  return attr.ok() && H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, v) >= 0;
}

bool WriteU64Attr(hid_t obj, const char* name, uint64_t v) {
  Hdf5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Hdf5Id attr(H5Acreate2(obj, name, H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  return attr.ok() && H5Awrite(attr.get(), H5T_NATIVE_UINT64, &v) >= 0;
}

bool ReadStringAttr(hid_t obj, const char* name, std::string& out) {
  if (H5Aexists(obj, name) <= 0) return false;
  Hdf5Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  if (!attr.ok()) return false;
  Hdf5Id type(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) > 0) return false;
  const size_t size = H5Tget_size(type.get());
  if (size == 0 || size > (64u << 20)) return false;
  std::string buf(size, '\0');
  Hdf5Id mem(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mem.get(), size);
  H5Tset_strpad(mem.get(), H5T_STR_NULLPAD);  // NULLTERM would drop the last character
  if (H5Aread(attr.get(), mem.get(), buf.data()) < 0) return false;
  buf.resize(::strnlen(buf.data(), size));
  out = buf;
  return true;
}

bool ReadDoublesAttr(hid_t obj, const char* name, double* v, size_t n) {
  if (H5Aexists(obj, name) <= 0) return false;
  Hdf5Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Hdf5Id space(H5Aget_space(attr.get()), H5Sclose);
  if (!attr.ok() || H5Sget_simple_extent_npoints(space.get()) != static_cast<hssize_t>(n)) {
    return false;
  }
  return H5Aread(attr.get(), H5T_NATIVE_DOUBLE, v) >= 0;
}

bool ReadU64Attr(hid_t obj, const char* name, uint64_t& v) {
  if (H5Aexists(obj, name) <= 0) return false;
  Hdf5Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Hdf5Id space(H5Aget_space(attr.get()), H5Sclose);
  if (!attr.ok() || H5Sget_simple_extent_npoints(space.get()) != 1) return false;
  return H5Aread(attr.get(), H5T_NATIVE_UINT64, &v) >= 0;
}

Hdf5Id UntimedGroupProperties() {
  Hdf5Id gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
  H5Pset_obj_track_times(gcpl.get(), false);
  return gcpl;
}

void PoseToArray(const physics::Pose<double>& p, double out[7]) {
  out[0] = p.translation.x;
  out[1] = p.translation.y;
  out[2] = p.translation.z;
  out[3] = p.rotation.w;
  out[4] = p.rotation.x;
  out[5] = p.rotation.y;
  out[6] = p.rotation.z;
}

physics::Pose<double> PoseFromArray(const double a[7]) {
  return {{a[3], a[4], a[5], a[6]}, {a[0], a[1], a[2]}};
}

std::string FrameGroupName(uint32_t index) {
  char name[32];
  std::snprintf(name, sizeof(name), "/frames/%06u", index);
  return name;
}

}  // namespace

struct Hdf5FrameWriter::Impl {
  AtomicOutput output;
  Hdf5Id file;
  explicit Impl(const std::filesystem::path& p) : output(p) {}
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
  impl->file =
      Hdf5Id(H5Fcreate(impl->output.temp_path().c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT),
             H5Fclose);
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
  Hdf5Id frames(H5Gcreate2(f, "/frames", H5P_DEFAULT, UntimedGroupProperties().get(), H5P_DEFAULT),
                H5Gclose);
  if (!ok || !frames.ok()) return Error{path.string() + ": cannot write HDF5 metadata"};
  return std::unique_ptr<Hdf5FrameWriter>(new Hdf5FrameWriter(std::move(impl)));
}

Status Hdf5FrameWriter::Append(const Frame& frame) {
  const std::string where = impl_->output.target().string();
  const std::string group_name = FrameGroupName(frame.index);
  Hdf5Id group(H5Gcreate2(impl_->file.get(), group_name.c_str(), H5P_DEFAULT,
                          UntimedGroupProperties().get(), H5P_DEFAULT),
               H5Gclose);
  if (!group.ok()) return Error{where + ": cannot create group " + group_name};
  double pose[7];
  const double index = frame.index;
  const double corrected = frame.motion_corrected ? 1 : 0;
  bool ok = WriteDoublesAttr(group.get(), "frame_index", &index, 1) &&
            WriteDoublesAttr(group.get(), "start_time_s", &frame.start_time_s, 1) &&
            WriteDoublesAttr(group.get(), "end_time_s", &frame.end_time_s, 1) &&
            WriteDoublesAttr(group.get(), "motion_corrected", &corrected, 1);
  PoseToArray(frame.pose_start, pose);
  ok = ok && WriteDoublesAttr(group.get(), "pose_start_xyz_wxyz", pose, 7);
  PoseToArray(frame.pose_end, pose);
  ok = ok && WriteDoublesAttr(group.get(), "pose_end_xyz_wxyz", pose, 7);
  if (!ok) return Error{where + ": cannot write attributes of " + group_name};
  const size_t n = frame.size();
  for (const FieldView& field : FrameFields(frame)) {
    if (field.size == 0 && n > 0) continue;  // a field this frame does not carry
    if (field.size != n) {
      return Error{where + ": field '" + std::string(field.name) + "' has " +
                   std::to_string(field.size) + " values for " + std::to_string(n) + " points"};
    }
    const hsize_t dims = n;
    Hdf5Id space(H5Screate_simple(1, &dims, nullptr), H5Sclose);
    Hdf5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_obj_track_times(dcpl.get(), false);
    if (n > 0) {
      const hsize_t chunk = std::min<hsize_t>(n, 65536);
      H5Pset_chunk(dcpl.get(), 1, &chunk);
      H5Pset_shuffle(dcpl.get());
      H5Pset_deflate(dcpl.get(), 4);
    }
    Hdf5Id ds(H5Dcreate2(group.get(), field.name, FileType(field.type), space.get(), H5P_DEFAULT,
                         dcpl.get(), H5P_DEFAULT),
              H5Dclose);
    if (!ds.ok()) return Error{where + ": cannot create dataset " + group_name + "/" + field.name};
    if (n > 0 &&
        H5Dwrite(ds.get(), MemType(field.type), H5S_ALL, H5S_ALL, H5P_DEFAULT, field.data) < 0) {
      return Error{where + ": cannot write dataset " + group_name + "/" + field.name};
    }
    if (!WriteStringAttr(ds.get(), "unit", field.unit)) {
      return Error{where + ": cannot write unit of " + group_name + "/" + field.name};
    }
  }
  return {};
}

Status Hdf5FrameWriter::Close() {
  if (H5Fclose(impl_->file.get()) < 0) {
    return Error{impl_->output.target().string() + ": cannot finish HDF5 file"};
  }
  impl_->file = Hdf5Id();  // already closed
  return impl_->output.Commit();
}

namespace {

struct OpenedFile {
  Hdf5Id file;
  Hdf5Summary summary;
  std::vector<std::string> groups;
};

Expected<OpenedFile> OpenAndCheck(const std::filesystem::path& path) {
  SilenceHdf5Errors();
  const std::string where = path.string();
  if (!std::filesystem::exists(path)) return Error{where + ": no such file"};
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    return Error{where + ": not an HDF5 file (bad signature or truncated)"};
  }
  OpenedFile o;
  o.file = Hdf5Id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!o.file.ok()) return Error{where + ": cannot open HDF5 file (corrupt or truncated)"};
  const hid_t f = o.file.get();
  std::string schema;
  if (!ReadStringAttr(f, "schema", schema) || schema != kFramesSchemaName) {
    return Error{where + ": attribute 'schema' is missing or not '" +
                 std::string(kFramesSchemaName) + "': not a lidartwin frames file"};
  }
  double version = 0;
  if (!ReadDoublesAttr(f, "schema_version", &version, 1)) {
    return Error{where + ": attribute 'schema_version' is missing"};
  }
  if (version != kFramesSchemaVersion) {
    return Error{where + ": schema_version " + std::to_string(version) +
                 " is not supported (this build reads version " +
                 std::to_string(kFramesSchemaVersion) + ")"};
  }
  o.summary.schema_version = static_cast<int>(version);
  auto& info = o.summary.info;
  ReadStringAttr(f, "software_version", info.software_version);
  ReadStringAttr(f, "sensor_name", info.sensor_name);
  ReadStringAttr(f, "sensor_profile", info.sensor_profile_yaml);
  ReadStringAttr(f, "scene", info.scene_yaml);
  ReadStringAttr(f, "backend", info.backend);
  ReadU64Attr(f, "seed", info.seed);
  ReadDoublesAttr(f, "wavelength_nm", &info.wavelength_nm, 1);
  if (H5Lexists(f, "/frames", H5P_DEFAULT) <= 0) return Error{where + ": group /frames missing"};
  Hdf5Id frames(H5Gopen2(f, "/frames", H5P_DEFAULT), H5Gclose);
  H5G_info_t ginfo;
  if (!frames.ok() || H5Gget_info(frames.get(), &ginfo) < 0) {
    return Error{where + ": cannot read group /frames (corrupt?)"};
  }
  for (hsize_t i = 0; i < ginfo.nlinks; ++i) {
    char name[256];
    if (H5Lget_name_by_idx(frames.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof(name),
                           H5P_DEFAULT) < 0) {
      return Error{where + ": cannot read frame name " + std::to_string(i)};
    }
    o.groups.push_back(std::string("/frames/") + name);
  }
  return o;
}

Expected<Frame> ReadFrameGroup(hid_t file, const std::string& group_name, const std::string& where,
                               bool with_data,
                               std::vector<std::pair<std::string, std::string>>* fields) {
  Hdf5Id g(H5Gopen2(file, group_name.c_str(), H5P_DEFAULT), H5Gclose);
  if (!g.ok()) return Error{where + ": cannot open " + group_name};
  Frame f;
  double index = 0, corrected = 0, pose[7];
  if (!ReadDoublesAttr(g.get(), "frame_index", &index, 1) ||
      !ReadDoublesAttr(g.get(), "start_time_s", &f.start_time_s, 1) ||
      !ReadDoublesAttr(g.get(), "end_time_s", &f.end_time_s, 1)) {
    return Error{where + ": " + group_name + ": missing frame attributes"};
  }
  f.index = static_cast<uint32_t>(index);
  if (ReadDoublesAttr(g.get(), "motion_corrected", &corrected, 1)) {
    f.motion_corrected = corrected != 0;
  }
  if (ReadDoublesAttr(g.get(), "pose_start_xyz_wxyz", pose, 7)) f.pose_start = PoseFromArray(pose);
  if (ReadDoublesAttr(g.get(), "pose_end_xyz_wxyz", pose, 7)) f.pose_end = PoseFromArray(pose);
  if (H5Lexists(g.get(), "x", H5P_DEFAULT) <= 0) {
    return Error{where + ": " + group_name + ": dataset 'x' missing"};
  }
  hsize_t points = 0;
  {
    Hdf5Id ds(H5Dopen2(g.get(), "x", H5P_DEFAULT), H5Dclose);
    Hdf5Id space(H5Dget_space(ds.get()), H5Sclose);
    if (!ds.ok() || H5Sget_simple_extent_ndims(space.get()) != 1) {
      return Error{where + ": " + group_name + "/x: expected a 1-D dataset"};
    }
    H5Sget_simple_extent_dims(space.get(), &points, nullptr);
  }
  for (const FieldView& field : FrameFields(Frame{})) {
    if (H5Lexists(g.get(), field.name, H5P_DEFAULT) <= 0) continue;
    Hdf5Id ds(H5Dopen2(g.get(), field.name, H5P_DEFAULT), H5Dclose);
    Hdf5Id space(H5Dget_space(ds.get()), H5Sclose);
    hsize_t n = 0;
    if (!ds.ok() || H5Sget_simple_extent_ndims(space.get()) != 1) {
      return Error{where + ": " + group_name + "/" + field.name + ": expected a 1-D dataset"};
    }
    H5Sget_simple_extent_dims(space.get(), &n, nullptr);
    if (n != points) {
      return Error{where + ": " + group_name + "/" + field.name + " has " + std::to_string(n) +
                   " values, 'x' has " + std::to_string(points)};
    }
    if (fields) {
      std::string unit;
      ReadStringAttr(ds.get(), "unit", unit);
      fields->emplace_back(field.name, unit);
    }
    if (!with_data) {
      if (std::string(field.name) == "x") f.x_m.resize(n);  // the point count
      continue;
    }
    FieldType type;
    void* data = ResizeFrameField(f, field.name, n, &type);
    if (n > 0 && H5Dread(ds.get(), MemType(type), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
      return Error{where + ": " + group_name + "/" + field.name +
                   ": cannot read data (corrupt or truncated file)"};
    }
  }
  return f;
}

}  // namespace

Expected<Hdf5Summary> ReadHdf5Summary(const std::filesystem::path& path) {
  auto opened = OpenAndCheck(path);
  if (!opened.ok()) return opened.error();
  OpenedFile& o = opened.value();
  for (size_t i = 0; i < o.groups.size(); ++i) {
    auto frame = ReadFrameGroup(o.file.get(), o.groups[i], path.string(), false,
                                i == 0 ? &o.summary.fields : nullptr);
    if (!frame.ok()) return frame.error();
    o.summary.frames.push_back(
        {frame->index, frame->size(), frame->start_time_s, frame->end_time_s});
  }
  return std::move(o.summary);
}

Expected<std::vector<Frame>> ReadHdf5Frames(const std::filesystem::path& path) {
  auto opened = OpenAndCheck(path);
  if (!opened.ok()) return opened.error();
  std::vector<Frame> frames;
  for (const auto& g : opened->groups) {
    auto frame = ReadFrameGroup(opened->file.get(), g, path.string(), true, nullptr);
    if (!frame.ok()) return frame.error();
    frames.push_back(std::move(frame.value()));
  }
  return frames;
}

}  // namespace lt
