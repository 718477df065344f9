#include "hdf5_attributes.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace lt::hdf5 {

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
    case FieldType::kUInt64:
      return H5T_NATIVE_UINT64;
  }
  return H5T_NATIVE_FLOAT;
}

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
    case FieldType::kUInt64:
      return H5T_STD_U64LE;
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

namespace {

// Opens an attribute holding exactly n elements of the given class.
AttrRead OpenAttr(hid_t obj, const char* name, H5T_class_t cls, hssize_t n, Hdf5Id& attr) {
  const htri_t exists = H5Aexists(obj, name);
  if (exists == 0) return AttrRead::kAbsent;
  if (exists < 0) return AttrRead::kUnreadable;
  attr = Hdf5Id(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  if (!attr.ok()) return AttrRead::kUnreadable;
  Hdf5Id type(H5Aget_type(attr.get()), H5Tclose);
  Hdf5Id space(H5Aget_space(attr.get()), H5Sclose);
  if (!type.ok() || !space.ok() || H5Tget_class(type.get()) != cls ||
      H5Sget_simple_extent_npoints(space.get()) != n) {
    return AttrRead::kUnreadable;
  }
  return AttrRead::kOk;
}

}  // namespace

AttrRead ReadStringAttr(hid_t obj, const char* name, std::string& out) {
  Hdf5Id attr;
  if (AttrRead r = OpenAttr(obj, name, H5T_STRING, 1, attr); r != AttrRead::kOk) return r;
  Hdf5Id type(H5Aget_type(attr.get()), H5Tclose);
  const htri_t variable = H5Tis_variable_str(type.get());
  if (variable < 0) return AttrRead::kUnreadable;
  // The file's character set (h5py writes UTF-8): libhdf5 does not convert between them.
  const H5T_cset_t cset = H5Tget_cset(type.get());
  if (variable > 0) {  // as h5py writes strings
    Hdf5Id mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    if (cset >= 0) H5Tset_cset(mem.get(), cset);
    char* text = nullptr;
    if (H5Aread(attr.get(), mem.get(), &text) < 0) return AttrRead::kUnreadable;
    out = text ? std::string(text, ::strnlen(text, 64u << 20)) : std::string();
    H5free_memory(text);
    return AttrRead::kOk;
  }
  const size_t size = H5Tget_size(type.get());
  if (size == 0 || size > (64u << 20)) return AttrRead::kUnreadable;
  std::string buf(size, '\0');
  Hdf5Id mem(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mem.get(), size);
  H5Tset_strpad(mem.get(), H5T_STR_NULLPAD);  // NULLTERM would drop the last character
  if (cset >= 0) H5Tset_cset(mem.get(), cset);
  if (H5Aread(attr.get(), mem.get(), buf.data()) < 0) return AttrRead::kUnreadable;
  buf.resize(::strnlen(buf.data(), size));
  out = buf;
  return AttrRead::kOk;
}

AttrRead ReadDoublesAttr(hid_t obj, const char* name, double* v, size_t n) {
  Hdf5Id attr;
  const auto count = static_cast<hssize_t>(n);
  if (AttrRead r = OpenAttr(obj, name, H5T_FLOAT, count, attr); r != AttrRead::kOk) return r;
  return H5Aread(attr.get(), H5T_NATIVE_DOUBLE, v) >= 0 ? AttrRead::kOk : AttrRead::kUnreadable;
}

AttrRead ReadU64Attr(hid_t obj, const char* name, uint64_t& v) {
  Hdf5Id attr;
  if (AttrRead r = OpenAttr(obj, name, H5T_INTEGER, 1, attr); r != AttrRead::kOk) return r;
  return H5Aread(attr.get(), H5T_NATIVE_UINT64, &v) >= 0 ? AttrRead::kOk : AttrRead::kUnreadable;
}

Hdf5Id StreamingFileAccess() {
  Hdf5Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  // By default the cache grows adaptively to 32 MiB as the columns' chunk indices grow with
  // the frames; 4 MiB holds the index nodes a chunk's write or a frame's read touches.
  H5AC_cache_config_t cache;
  cache.version = H5AC__CURR_CACHE_CONFIG_VERSION;
  if (H5Pget_mdc_config(fapl.get(), &cache) >= 0) {
    cache.set_initial_size = true;
    cache.initial_size = size_t{1} << 20;
    cache.min_size = size_t{1} << 20;
    cache.max_size = size_t{4} << 20;
    H5Pset_mdc_config(fapl.get(), &cache);
  }
  // Frames are written once and read once: the metadata of a dataset closed need not stay.
  H5Pset_evict_on_close(fapl.get(), true);
  return fapl;
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

std::string WriteFailureReason() {
  switch (errno) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case EIO:
    case EROFS:
      return std::string(": ") + std::strerror(errno);
    default:
      return "";
  }
}

}  // namespace lt::hdf5
