// The frames reader (schema v1, datasets/schema/frames_v1.md). Every size a file declares is
// checked against limits and against the bytes the file really stores before anything is
// allocated, and the structure is first walked in a child process (isolated_call.h), since
// libhdf5 1.10 itself can crash on a corrupted object header.
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <system_error>

#include "hdf5_attributes.h"
#include "isolated_call.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/sim/text_file.h"

namespace lt {

using namespace hdf5;

namespace {

// Deflate cannot compress better than about 1032:1 (RFC 1951: at most 258 bytes per
// 2-bit-long match code, plus headers), so a dataset that declares more than this many bytes per
// byte it stores is corrupt, not compressed. Slack for the smallest chunks.
constexpr double kMaxCompressionRatio = 1100;
constexpr hsize_t kStorageSlackBytes = 1 << 16;

const char* const kRequiredFields[] = {"x", "y", "z"};

struct FrameLayout {
  std::string group;
  uint64_t points = 0;
  std::vector<std::string> fields;  // present, in FrameFields order
  // Waveform records (waveform_beam_id, waveform_volts), when the frame has them.
  uint64_t waveform_beams = 0;
  uint32_t waveform_samples = 0;
  double waveform_dt_s = 0;
};

// A frame's waveform records: at most 16,384 samples a record (the detector's limit).
constexpr double kMaxWaveformSamples = 16384;

}  // namespace

struct Hdf5FrameReader::Impl {
  std::filesystem::path path;
  Hdf5Id file;
  Hdf5Summary summary;
  std::vector<FrameLayout> layouts;
};

namespace {

std::string Where(const std::filesystem::path& path) {
  return path.string();
}

// The one source of a virtual dataset (a joined file's, hdf5_join.h): the whole of a
// dataset in a regular file beside the joined file, named by its file name alone (so never the
// joined file itself, a FIFO, or a path elsewhere). HDF5 itself would read a missing source as
// zeros; here it is an error.
struct VirtualSource {
  std::shared_ptr<Hdf5Id> file;
  Hdf5Id ds;
  uint64_t file_size = 0;
  std::string where;  // "joined.h5/frames/000001/x (source shard-00000-of-00002.h5)"
};

Status RequireHardLink(hid_t parent, const char* name, const std::string& where);

// The source files a joined file's check or frame read opened, kept open for its other
// datasets: opening a 1 GB shard once per dataset dominated reading a joined file. Set for the
// duration of one walk or read (SourceFilesOpen), on that thread.
thread_local std::map<std::string, std::shared_ptr<Hdf5Id>>* open_sources = nullptr;

class SourceFilesOpen {
 public:
  SourceFilesOpen() : outer_(open_sources) {
    if (!outer_) open_sources = &files_;
  }
  ~SourceFilesOpen() {
    if (!outer_) open_sources = nullptr;
  }
  SourceFilesOpen(const SourceFilesOpen&) = delete;
  SourceFilesOpen& operator=(const SourceFilesOpen&) = delete;

 private:
  std::map<std::string, std::shared_ptr<Hdf5Id>>* outer_;
  std::map<std::string, std::shared_ptr<Hdf5Id>> files_;
};

Expected<VirtualSource> OpenVirtualSource(hid_t ds, hid_t dcpl, const std::string& at) {
  size_t count = 0;
  if (H5Pget_virtual_count(dcpl, &count) < 0 || count != 1) {
    return Error{at + ": a virtual dataset must map exactly one source, this one maps " +
                 std::to_string(count)};
  }
  char file_name[256], dataset_name[256];
  const ssize_t fn = H5Pget_virtual_filename(dcpl, 0, file_name, sizeof(file_name));
  const ssize_t dn = H5Pget_virtual_dsetname(dcpl, 0, dataset_name, sizeof(dataset_name));
  Hdf5Id vspace(H5Pget_virtual_vspace(dcpl, 0), H5Sclose);
  Hdf5Id sspace(H5Pget_virtual_srcspace(dcpl, 0), H5Sclose);
  if (fn <= 0 || fn >= static_cast<ssize_t>(sizeof(file_name)) || dn <= 0 ||
      dn >= static_cast<ssize_t>(sizeof(dataset_name)) || !vspace.ok() || !sspace.ok() ||
      H5Sget_select_type(vspace.get()) != H5S_SEL_ALL ||
      H5Sget_select_type(sspace.get()) != H5S_SEL_ALL) {
    return Error{at + ": a virtual dataset must map one whole source dataset"};
  }
  const std::string name(file_name);
  if (name == "." || name == ".." || name.find('/') != std::string::npos) {
    return Error{at + ": its source '" + name +
                 "' is not a file beside this one (joined files name their sources by file "
                 "name)"};
  }
  char self[4096];
  const ssize_t sn = H5Fget_name(ds, self, sizeof(self));
  if (sn <= 0 || sn >= static_cast<ssize_t>(sizeof(self))) return Error{at + ": no file name"};
  const std::filesystem::path path = std::filesystem::path(self).parent_path() / name;
  VirtualSource source;
  source.where = at + " (source " + path.string() + ")";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec))) {
    return Error{source.where + ": the source file is missing or not a regular file"};
  }
  source.file_size = std::filesystem::file_size(path, ec);
  if (ec) return Error{source.where + ": cannot read its size: " + ec.message()};
  if (open_sources) {
    if (auto it = open_sources->find(path.string()); it != open_sources->end()) {
      source.file = it->second;
    }
  }
  // The source dataset is /frames/<digits>/<field>, every step a hard link inside the source
  // file: a soft or external link there would lead anywhere (another file, a FIFO).
  const std::string dsname(dataset_name);
  const size_t slash = dsname.find('/', 8);
  if (dsname.rfind("/frames/", 0) != 0 || slash == std::string::npos || slash == 8 ||
      slash - 8 > 10 || dsname.find_first_not_of("0123456789", 8) != slash ||
      slash + 1 >= dsname.size() || dsname.find('/', slash + 1) != std::string::npos) {
    return Error{source.where + ": maps '" + dsname +
                 "', not a frame's dataset (/frames/NNNNNN/field)"};
  }
  if (!source.file) {
    source.file =
        std::make_shared<Hdf5Id>(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!source.file->ok()) return Error{source.where + ": cannot open the source file"};
    // Once a source file: its /frames is the same link for every dataset it maps.
    if (Status s = RequireHardLink(source.file->get(), "frames", source.where); !s.ok()) {
      return s.error();
    }
    if (open_sources) (*open_sources)[path.string()] = source.file;
  }
  {
    const std::string group = dsname.substr(0, slash), frame = dsname.substr(8, slash - 8);
    const std::string field = dsname.substr(slash + 1);
    Hdf5Id frames(H5Gopen2(source.file->get(), "/frames", H5P_DEFAULT), H5Gclose);
    if (!frames.ok()) return Error{source.where + ": the source has no /frames"};
    if (Status s = RequireHardLink(frames.get(), frame.c_str(), source.where); !s.ok()) {
      return s.error();
    }
    Hdf5Id g(H5Gopen2(source.file->get(), group.c_str(), H5P_DEFAULT), H5Gclose);
    if (!g.ok()) return Error{source.where + ": the source has no " + group};
    if (Status s = RequireHardLink(g.get(), field.c_str(), source.where); !s.ok()) {
      return s.error();
    }
  }
  source.ds = Hdf5Id(H5Dopen2(source.file->get(), dataset_name, H5P_DEFAULT), H5Dclose);
  if (!source.ds.ok()) {
    return Error{source.where + ": the source has no dataset " + std::string(dataset_name)};
  }
  return source;
}

// One dataset of a frame group: 1-D, numeric, as many values as `points` (when known), and
// stored bytes consistent with the declared size; chunks inside the file. A virtual dataset
// (allowed when `virtual_allowed`: not in a joined file's sources) is checked through its
// source, which must have its extent.
Expected<uint64_t> CheckOpenDataset(hid_t ds, const std::string& at, uint64_t file_size,
                                    bool virtual_allowed) {
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  if (!space.ok() || H5Sget_simple_extent_ndims(space.get()) != 1) {
    return Error{at + ": expected a 1-D dataset"};
  }
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  if (n > kMaxHdf5PointsPerFrame) {
    return Error{at + ": declares " + std::to_string(n) + " points; this reader accepts at most " +
                 std::to_string(kMaxHdf5PointsPerFrame) + " per frame"};
  }
  Hdf5Id type(H5Dget_type(ds), H5Tclose);
  const H5T_class_t cls = type.ok() ? H5Tget_class(type.get()) : H5T_NO_CLASS;
  const size_t type_size = type.ok() ? H5Tget_size(type.get()) : 0;
  if ((cls != H5T_FLOAT && cls != H5T_INTEGER) || type_size == 0 || type_size > 8) {
    return Error{at + ": not a numeric dataset"};
  }
  Hdf5Id dcpl(H5Dget_create_plist(ds), H5Pclose);
  if (!dcpl.ok()) return Error{at + ": unreadable storage properties (corrupt file)"};
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  if (layout == H5D_VIRTUAL && virtual_allowed) {
    auto source = OpenVirtualSource(ds, dcpl.get(), at);
    if (!source.ok()) return source.error();
    Hdf5Id source_type(H5Dget_type(source->ds.get()), H5Tclose);
    if (!source_type.ok() || H5Tequal(source_type.get(), type.get()) <= 0) {
      return Error{source->where + ": the source's type is not the virtual dataset's"};
    }
    auto m = CheckOpenDataset(source->ds.get(), source->where, source->file_size, false);
    if (!m.ok()) return m.error();
    if (*m != n) {
      return Error{source->where + ": holds " + std::to_string(*m) + " values, the virtual " +
                   "dataset " + std::to_string(n)};
    }
    return static_cast<uint64_t>(n);
  }
  // Data kept in other files (external storage, virtual datasets other than a joined file's)
  // could be anything, a FIFO included: a frames file holds its own points.
  if (layout == H5D_VIRTUAL || H5Pget_external_count(dcpl.get()) != 0) {
    return Error{at +
                 ": stores its data in other files (a virtual dataset or external storage); "
                 "frames files hold their own points (only a joined file maps its shards')"};
  }
  const double declared = static_cast<double>(n) * static_cast<double>(type_size);
  const hsize_t stored = H5Dget_storage_size(ds);
  if (stored > file_size) {
    return Error{at + ": stores " + std::to_string(stored) + " bytes in a file of " +
                 std::to_string(file_size) + " (corrupt file)"};
  }
  if (declared > kMaxCompressionRatio * static_cast<double>(stored) + kStorageSlackBytes) {
    return Error{at + ": declares " + std::to_string(n) + " values (" +
                 std::to_string(static_cast<uint64_t>(declared)) + " bytes) but stores only " +
                 std::to_string(stored) + " bytes (corrupt file)"};
  }
  if (layout == H5D_CHUNKED) {
    hsize_t chunks = 0;
    if (H5Dget_num_chunks(ds, space.get(), &chunks) < 0 || chunks > n + 1) {
      return Error{at + ": unreadable chunk index (corrupt file)"};
    }
    for (hsize_t c = 0; c < chunks; ++c) {
      hsize_t offset = 0, size = 0;
      haddr_t addr = 0;
      unsigned mask = 0;
      if (H5Dget_chunk_info(ds, space.get(), c, &offset, &mask, &addr, &size) < 0 ||
          addr == HADDR_UNDEF || addr > file_size || size > file_size - addr) {
        return Error{at + ": chunk " + std::to_string(c) + " lies outside the file (corrupt)"};
      }
    }
  }
  return static_cast<uint64_t>(n);
}

Expected<uint64_t> CheckDataset(hid_t group, const std::string& name, const std::string& where,
                                uint64_t file_size) {
  const std::string at = where + "/" + name;
  Hdf5Id ds(H5Dopen2(group, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) return Error{at + ": cannot open dataset (corrupt file?)"};
  return CheckOpenDataset(ds.get(), at, file_size, true);
}

// Soft and external links point elsewhere (another file, a FIFO): frames files use none.
Status RequireHardLink(hid_t parent, const char* name, const std::string& where) {
  H5L_info_t info;
  if (H5Lget_info(parent, name, &info, H5P_DEFAULT) < 0) {
    return Error{where + "/" + name + ": unreadable link (corrupt file)"};
  }
  if (info.type != H5L_TYPE_HARD) {
    return Error{where + "/" + name + ": is a " +
                 (info.type == H5L_TYPE_EXTERNAL ? "link to another file" : "soft link") +
                 "; frames files hold their own objects"};
  }
  return {};
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
  if (version != kFramesSchemaVersion) {
    return Error{where + ": schema_version " + std::to_string(version) +
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
  return {};
}

// A frame group's attributes and the layout of its datasets.
Status ReadFrameLayout(hid_t f, const std::string& group_name, const std::string& file_where,
                       uint64_t file_size, FrameLayout& layout, FrameSummary& summary) {
  const std::string where = file_where + ": " + group_name;
  Hdf5Id g(H5Gopen2(f, group_name.c_str(), H5P_DEFAULT), H5Gclose);
  if (!g.ok()) return Error{where + ": cannot open group (corrupt file?)"};
  double index = 0;
  if (ReadDoublesAttr(g.get(), "frame_index", &index, 1) != AttrRead::kOk ||
      ReadDoublesAttr(g.get(), "start_time_s", &summary.start_time_s, 1) != AttrRead::kOk ||
      ReadDoublesAttr(g.get(), "end_time_s", &summary.end_time_s, 1) != AttrRead::kOk) {
    return Error{where +
                 ": missing or unreadable frame attributes (frame_index, start_time_s, "
                 "end_time_s)"};
  }
  if (!std::isfinite(summary.start_time_s) || !std::isfinite(summary.end_time_s)) {
    return Error{where + ": start_time_s or end_time_s is not a finite number"};
  }
  if (!(index >= 0 && index <= 4294967295.0) || index != static_cast<uint32_t>(index)) {
    return Error{where + ": frame_index " + std::to_string(index) + " is not a frame number"};
  }
  summary.index = static_cast<uint32_t>(index);
  layout.group = group_name;
  bool first = true;
  for (const FieldView& field : FrameFields(Frame{})) {
    const htri_t exists = H5Lexists(g.get(), field.name, H5P_DEFAULT);
    const bool required =
        std::find_if(std::begin(kRequiredFields), std::end(kRequiredFields), [&](const char* r) {
          return std::strcmp(r, field.name) == 0;
        }) != std::end(kRequiredFields);
    if (exists <= 0) {
      if (required) {
        return Error{where + ": dataset '" + field.name + "' missing (x, y, z are required)"};
      }
      continue;
    }
    if (Status s = RequireHardLink(g.get(), field.name, where); !s.ok()) return s;
    auto n = CheckDataset(g.get(), field.name, where, file_size);
    if (!n.ok()) return n.error();
    if (first) {
      layout.points = *n;
      first = false;
    } else if (*n != layout.points) {
      return Error{where + "/" + field.name + " has " + std::to_string(*n) + " values, '" +
                   layout.fields.front() + "' has " + std::to_string(layout.points)};
    }
    layout.fields.push_back(field.name);
  }
  summary.points = layout.points;
  // Waveform records (schema: "Waveform records"): both datasets or neither, their sizes
  // consistent with the group's attributes.
  const bool beams = H5Lexists(g.get(), "waveform_beam_id", H5P_DEFAULT) > 0;
  const bool volts = H5Lexists(g.get(), "waveform_volts", H5P_DEFAULT) > 0;
  if (beams != volts) {
    return Error{where + ": waveform_beam_id and waveform_volts come together; only " +
                 (beams ? "waveform_beam_id" : "waveform_volts") + " is there"};
  }
  if (!beams) return {};
  for (const char* name : {"waveform_beam_id", "waveform_volts"})
    if (Status s = RequireHardLink(g.get(), name, where); !s.ok()) return s;
  auto k = CheckDataset(g.get(), "waveform_beam_id", where, file_size);
  if (!k.ok()) return k.error();
  auto v = CheckDataset(g.get(), "waveform_volts", where, file_size);
  if (!v.ok()) return v.error();
  double samples = 0, dt_ns = 0;
  if (ReadDoublesAttr(g.get(), "waveform_samples", &samples, 1) != AttrRead::kOk ||
      ReadDoublesAttr(g.get(), "waveform_sample_interval_ns", &dt_ns, 1) != AttrRead::kOk) {
    return Error{where +
                 ": waveform records need the attributes waveform_samples and "
                 "waveform_sample_interval_ns"};
  }
  if (!(samples >= 1 && samples <= kMaxWaveformSamples && samples == std::floor(samples))) {
    return Error{where + ": attribute waveform_samples must be a whole number in 1..16384"};
  }
  if (!(dt_ns > 0 && dt_ns < 1e6)) {
    return Error{where + ": attribute waveform_sample_interval_ns must be in (0, 1e6) ns"};
  }
  if (*v != *k * static_cast<uint64_t>(samples)) {
    return Error{where + "/waveform_volts has " + std::to_string(*v) + " values for " +
                 std::to_string(*k) + " records of " + std::to_string(uint64_t(samples)) +
                 " samples"};
  }
  layout.waveform_beams = *k;
  layout.waveform_samples = static_cast<uint32_t>(samples);
  layout.waveform_dt_s = dt_ns * 1e-9;
  return {};
}

Expected<std::unique_ptr<Hdf5FrameReader::Impl>> OpenInProcess(const std::filesystem::path& path) {
  SourceFilesOpen sources;
  const std::string where = Where(path);
  auto impl = std::make_unique<Hdf5FrameReader::Impl>();
  impl->path = path;
  std::error_code ec;
  const uint64_t file_size = std::filesystem::file_size(path, ec);
  if (ec) return Error{where + ": cannot read its size: " + ec.message()};
  impl->file = Hdf5Id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, StreamingFileAccess().get()), H5Fclose);
  if (!impl->file.ok()) return Error{where + ": cannot open HDF5 file (corrupt or truncated)"};
  const hid_t f = impl->file.get();
  Hdf5Summary& s = impl->summary;
  if (Status st = ReadFileAttributes(f, where, s); !st.ok()) return st.error();
  if (H5Lexists(f, "/frames", H5P_DEFAULT) <= 0) return Error{where + ": group /frames missing"};
  if (Status st = RequireHardLink(f, "frames", where + ": "); !st.ok()) return st.error();
  Hdf5Id frames(H5Gopen2(f, "/frames", H5P_DEFAULT), H5Gclose);
  H5G_info_t ginfo;
  if (!frames.ok() || H5Gget_info(frames.get(), &ginfo) < 0) {
    return Error{where + ": cannot read group /frames (corrupt?)"};
  }
  if (ginfo.nlinks > kMaxHdf5Frames) {
    return Error{where + ": /frames holds " + std::to_string(ginfo.nlinks) +
                 " entries; this reader accepts at most " + std::to_string(kMaxHdf5Frames)};
  }
  std::set<uint32_t> indices;
  std::vector<std::string> names;
  if (!MemberNames(frames.get(), 63, names) || names.size() != ginfo.nlinks) {
    return Error{where + ": frame entry " + std::to_string(names.size()) + " has no readable name"};
  }
  for (hsize_t i = 0; i < ginfo.nlinks; ++i) {
    const char* name = names[i].c_str();
    FrameLayout layout;
    FrameSummary summary;
    const std::string group = std::string("/frames/") + name;
    if (Status st = RequireHardLink(frames.get(), name, where + ": /frames"); !st.ok()) {
      return st.error();
    }
    if (Status st = ReadFrameLayout(f, group, where, file_size, layout, summary); !st.ok()) {
      return st.error();
    }
    if (i == 0) {
      for (const auto& field : layout.fields) {
        Hdf5Id ds(H5Dopen2(f, (group + "/" + field).c_str(), H5P_DEFAULT), H5Dclose);
        std::string unit;
        Warn(s, where + ": " + group + "/" + field, "unit", ReadStringAttr(ds.get(), "unit", unit));
        s.fields.emplace_back(field, unit);
      }
    }
    if (!indices.insert(summary.index).second) {
      return Error{where + ": " + group + ": frame_index " + std::to_string(summary.index) +
                   " is also the index of an earlier frame"};
    }
    s.frames.push_back(summary);
    impl->layouts.push_back(std::move(layout));
  }
  return impl;
}

// libhdf5 1.10.8 copies a chunk whose filters are marked as skipped as if it held the chunk's
// raw bytes: a corrupted filter mask on a compressed chunk makes H5Dread overflow the chunk's
// buffer (found by fuzz_hdf5: a 1,119-byte chunk read as 1,380). So before a dataset is read,
// every chunk stored with a filter skipped must hold at least its raw size. 1-D and 2-D
// datasets (ours); at most 2^20 chunks.
Status CheckChunks(hid_t ds, const std::string& where) {
  Hdf5Id dcpl(H5Dget_create_plist(ds), H5Pclose);
  if (dcpl.ok() && H5Pget_layout(dcpl.get()) == H5D_VIRTUAL) {
    return Error{where + ": a virtual dataset where its source's data were expected"};
  }
  if (!dcpl.ok() || H5Pget_layout(dcpl.get()) != H5D_CHUNKED) return {};
  hsize_t chunk[2] = {1, 1}, dims[2] = {1, 1};
  const int rank = H5Pget_chunk(dcpl.get(), 2, chunk);
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  Hdf5Id type(H5Dget_type(ds), H5Tclose);
  if (rank < 1 || rank > 2 || !space.ok() || !type.ok() ||
      H5Sget_simple_extent_ndims(space.get()) != rank ||
      H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0 || chunk[0] == 0 ||
      chunk[rank - 1] == 0) {
    return Error{where + ": its chunk layout cannot be read (corrupt file)"};
  }
  const hsize_t across[2] = {(dims[0] + chunk[0] - 1) / chunk[0],
                             rank == 2 ? (dims[1] + chunk[1] - 1) / chunk[1] : 1};
  if (across[0] * across[1] > (hsize_t{1} << 20)) {
    return Error{where + ": " + std::to_string(across[0] * across[1]) +
                 " chunks, more than 2^20 (corrupt file?)"};
  }
  const hsize_t raw = H5Tget_size(type.get()) * chunk[0] * (rank == 2 ? chunk[1] : 1);
  for (hsize_t i = 0; i < across[0]; ++i) {
    for (hsize_t j = 0; j < across[1]; ++j) {
      hsize_t offset[2] = {i * chunk[0], j * chunk[1]};
      unsigned mask = 0;
      haddr_t address = 0;
      hsize_t size = 0;
      if (H5Dget_chunk_info_by_coord(ds, offset, &mask, &address, &size) < 0) continue;
      if (mask != 0 && size < raw) {
        return Error{where + ": a chunk stored with its filters skipped holds " +
                     std::to_string(size) + " bytes of its " + std::to_string(raw) +
                     " (corrupt file)"};
      }
    }
  }
  return {};
}

// Reads dataset `name` of a frame group whole, its chunks checked first. A joined file's
// virtual dataset is read from the source its check opened (never through libhdf5's own
// lookup, which HDF5_VDS_PREFIX can redirect), one level deep.
Status ReadWhole(hid_t group, const char* name, hid_t mem_type, void* data, uint64_t values,
                 const std::string& where) {
  const std::string at = where + "/" + name;
  Hdf5Id ds(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) return Error{at + ": cannot open dataset (corrupt or truncated file)"};
  Hdf5Id dcpl(H5Dget_create_plist(ds.get()), H5Pclose);
  hid_t read_from = ds.get();
  std::string read_at = at;
  Expected<VirtualSource> source = Error{""};
  if (dcpl.ok() && H5Pget_layout(dcpl.get()) == H5D_VIRTUAL) {
    source = OpenVirtualSource(ds.get(), dcpl.get(), at);
    if (!source.ok()) return source.error();
    read_from = source->ds.get();
    read_at = source->where;
  }
  // The buffer holds `values`: a source changed since the file was opened must not overflow it.
  Hdf5Id space(H5Dget_space(read_from), H5Sclose);
  hsize_t n = 0;
  if (!space.ok() || H5Sget_simple_extent_ndims(space.get()) != 1 ||
      H5Sget_simple_extent_dims(space.get(), &n, nullptr) < 0 || n != values) {
    return Error{read_at + ": no longer holds the " + std::to_string(values) +
                 " values it held when the file was opened"};
  }
  if (Status s = CheckChunks(read_from, read_at); !s.ok()) return s;
  if (H5Dread(read_from, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    return Error{read_at + ": cannot read data (corrupt or truncated file)"};
  }
  return {};
}

}  // namespace

Hdf5FrameReader::Hdf5FrameReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Hdf5FrameReader::Hdf5FrameReader(Hdf5FrameReader&&) noexcept = default;
Hdf5FrameReader& Hdf5FrameReader::operator=(Hdf5FrameReader&&) noexcept = default;
Hdf5FrameReader::~Hdf5FrameReader() = default;

Expected<Hdf5FrameReader> Hdf5FrameReader::Open(const std::filesystem::path& path,
                                                Hdf5Origin origin) {
  SilenceHdf5Errors();
  const std::string where = Where(path);
  if (Status s = CheckReadableFile(path); !s.ok()) return s.error();
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    return Error{where + ": not an HDF5 file (bad signature or truncated)"};
  }
  // The structure walk, first where a crash of libhdf5 cannot take this process with it (a file
  // from elsewhere).
  if (origin == Hdf5Origin::kForeign) {
    if (Status s = RunIsolated(where, [&] { return OpenInProcess(path).ok(); }); !s.ok()) {
      return s.error();
    }
  }
  auto impl = OpenInProcess(path);
  if (!impl.ok()) return impl.error();
  return Hdf5FrameReader(std::move(impl.value()));
}

const Hdf5Summary& Hdf5FrameReader::summary() const {
  return impl_->summary;
}

Expected<Frame> Hdf5FrameReader::ReadFrame(size_t k) const {
  SourceFilesOpen sources;
  const FrameLayout& layout = impl_->layouts.at(k);
  const FrameSummary& summary = impl_->summary.frames.at(k);
  const std::string where = Where(impl_->path) + ": " + layout.group;
  Hdf5Id g(H5Gopen2(impl_->file.get(), layout.group.c_str(), H5P_DEFAULT), H5Gclose);
  if (!g.ok()) return Error{where + ": cannot open group"};
  Frame f;
  f.index = summary.index;
  f.start_time_s = summary.start_time_s;
  f.end_time_s = summary.end_time_s;
  double corrected = 0, pose[7];
  if (ReadDoublesAttr(g.get(), "motion_corrected", &corrected, 1) == AttrRead::kOk) {
    f.motion_corrected = corrected != 0;
  }
  for (const auto& [name, target] : {std::pair{"pose_start_xyz_wxyz", &f.pose_start},
                                     std::pair{"pose_end_xyz_wxyz", &f.pose_end}}) {
    if (ReadDoublesAttr(g.get(), name, pose, 7) != AttrRead::kOk) continue;
    if (!std::all_of(pose, pose + 7, [](double v) { return std::isfinite(v); })) {
      return Error{where + ": attribute '" + name + "' holds a non-finite number"};
    }
    *target = PoseFromArray(pose);
  }
  for (const std::string& name : layout.fields) {
    FieldType type;
    void* data = ResizeFrameField(f, name, layout.points, &type);
    if (layout.points == 0) continue;
    if (Status s = ReadWhole(g.get(), name.c_str(), MemType(type), data, layout.points, where);
        !s.ok()) {
      return s.error();
    }
  }
  if (layout.waveform_beams > 0) {
    f.waveform_beams.resize(layout.waveform_beams);
    f.waveform_volts.resize(layout.waveform_beams * layout.waveform_samples);
    f.waveform_samples = layout.waveform_samples;
    f.waveform_dt_s = layout.waveform_dt_s;
    for (const auto& [name, type, data] :
         {std::tuple{"waveform_beam_id", H5T_NATIVE_UINT32,
                     static_cast<void*>(f.waveform_beams.data())},
          std::tuple{"waveform_volts", H5T_NATIVE_FLOAT,
                     static_cast<void*>(f.waveform_volts.data())}}) {
      if (Status s = ReadWhole(g.get(), name, type, data,
                               std::string(name) == "waveform_beam_id"
                                   ? layout.waveform_beams
                                   : layout.waveform_beams * layout.waveform_samples,
                               where);
          !s.ok())
        return s.error();
    }
    for (size_t i = 1; i < f.waveform_beams.size(); ++i) {
      if (f.waveform_beams[i] <= f.waveform_beams[i - 1]) {
        return Error{where + "/waveform_beam_id: must rise (each beam once), entry " +
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
