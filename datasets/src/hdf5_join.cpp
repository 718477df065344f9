// One frames file over several (the shards of an export): every frame group of every source,
// with its attributes, whose datasets are HDF5 virtual datasets mapping the source's dataset
// whole. The joined file is itself a schema v1 file (datasets/schema/frames_v1.md, "Joined
// files"): h5py, HDFView and our reader read it as if the data were in it.
#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "hdf5_attributes.h"
#include "hdf5_join.h"
#include "lidartwin/datasets/atomic_file.h"

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

// A virtual dataset at `group`/`name` that maps source_file:source_path whole.
Status CreateVirtual(hid_t source_ds, hid_t group, const char* name, const std::string& source_file,
                     const std::string& source_path, const std::string& where) {
  Hdf5Id type(H5Dget_type(source_ds), H5Tclose);
  Hdf5Id space(H5Dget_space(source_ds), H5Sclose);
  Hdf5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_obj_track_times(dcpl.get(), false);
  if (!type.ok() || !space.ok() ||
      H5Pset_virtual(dcpl.get(), space.get(), source_file.c_str(), source_path.c_str(),
                     space.get()) < 0) {
    return Error{where + ": cannot map " + source_file + ":" + source_path};
  }
  Hdf5Id ds(H5Dcreate2(group, name, type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
            H5Dclose);
  if (!ds.ok()) {
    return Error{where + ": cannot create virtual dataset " + source_path + WriteFailureReason()};
  }
  return CopyAttributes(source_ds, ds.get(), where + ": " + source_path);
}

// Every frame group of one source, as groups of virtual datasets in `frames`.
Status JoinSource(hid_t out_frames, const std::filesystem::path& source, const std::string& where) {
  const std::string file = source.filename().string();
  Hdf5Id src(H5Fopen(source.c_str(), H5F_ACC_RDONLY, StreamingFileAccess().get()), H5Fclose);
  Hdf5Id frames(src.ok() ? H5Gopen2(src.get(), "/frames", H5P_DEFAULT) : -1, H5Gclose);
  H5G_info_t ginfo;
  if (!frames.ok() || H5Gget_info(frames.get(), &ginfo) < 0) {
    return Error{source.string() + ": cannot open /frames"};
  }
  std::vector<std::string> names;
  if (!MemberNames(frames.get(), 63, names) || names.size() != ginfo.nlinks) {
    return Error{source.string() + ": frame entry " + std::to_string(names.size()) +
                 " has no name"};
  }
  for (const std::string& frame_name : names) {
    const char* name = frame_name.c_str();
    const std::string group_path = std::string("/frames/") + name;
    Hdf5Id in(H5Gopen2(frames.get(), name, H5P_DEFAULT), H5Gclose);
    Hdf5Id out(
        H5Gcreate2(out_frames, name, H5P_DEFAULT, UntimedGroupProperties().get(), H5P_DEFAULT),
        H5Gclose);
    if (!in.ok()) return Error{source.string() + ": cannot open " + group_path};
    if (!out.ok()) {
      return Error{where + ": cannot create " + group_path + " (is frame " + name +
                   " in two shards?)" + WriteFailureReason()};
    }
    if (Status s = CopyAttributes(in.get(), out.get(), where + ": " + group_path); !s.ok()) {
      return s;
    }
    std::vector<std::string> members;
    if (!MemberNames(in.get(), 63, members)) {
      return Error{source.string() + ": cannot list " + group_path};
    }
    for (const std::string& member : members) {
      const char* field = member.c_str();
      Hdf5Id ds(H5Dopen2(in.get(), field, H5P_DEFAULT), H5Dclose);
      if (!ds.ok())
        return Error{source.string() + ": " + group_path + "/" + field + ": unreadable"};
      if (Status s =
              CreateVirtual(ds.get(), out.get(), field, file, group_path + "/" + field, where);
          !s.ok()) {
        return s;
      }
    }
  }
  return {};
}

}  // namespace

Status WriteJoinedFrames(const std::filesystem::path& out,
                         const std::vector<std::filesystem::path>& sources) {
  SilenceHdf5Errors();
  const std::string where = out.string();
  if (sources.empty()) return Error{where + ": nothing to join"};
  for (const auto& s : sources) {
    if (s.parent_path() != out.parent_path()) {
      return Error{where + ": " + s.string() + " is not in the joined file's folder"};
    }
  }
  if (Status s = CheckOutputTarget(out); !s.ok()) return s;
  AtomicOutput output(out);
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
  {
    Hdf5Id first(H5Fopen(sources.front().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!first.ok()) return Error{sources.front().string() + ": cannot open"};
    if (Status s = CopyAttributes(first.get(), file.get(), where); !s.ok()) return s;
  }
  Hdf5Id frames(
      H5Gcreate2(file.get(), "/frames", H5P_DEFAULT, UntimedGroupProperties().get(), H5P_DEFAULT),
      H5Gclose);
  if (!frames.ok()) return Error{where + ": cannot create /frames" + WriteFailureReason()};
  for (const auto& source : sources) {
    if (Status s = JoinSource(frames.get(), source, where); !s.ok()) return s;
  }
  frames.Reset();
  errno = 0;
  if (H5Fclose(file.Release()) < 0) {
    return Error{where + ": cannot finish HDF5 file" + WriteFailureReason()};
  }
  return output.Commit();
}

}  // namespace lt
