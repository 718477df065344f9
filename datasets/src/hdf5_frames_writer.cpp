// The frames writer (schema v1, datasets/schema/frames_v1.md).
#include <hdf5.h>

#include <algorithm>
#include <cerrno>

#include "chunk_codec.h"
#include "hdf5_attributes.h"
#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/datasets/hdf5_frames.h"

namespace lt {

using namespace hdf5;

struct Hdf5FrameWriter::Impl {
  AtomicOutput output;
  Hdf5Id file;
  explicit Impl(const std::filesystem::path& p) : output(p) {}
};

namespace {

// One 1-D dataset of a frame group, chunked (65,536 values), shuffled and deflate-compressed,
// with its unit: the chunks as chunk_codec.h encoded them, written as they are.
Status WriteDataset(hid_t group, const std::string& group_name, const std::string& where,
                    const EncodedDataset& d) {
  const hsize_t dims = d.values;
  Hdf5Id space(H5Screate_simple(1, &dims, nullptr), H5Sclose);
  Hdf5Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_obj_track_times(dcpl.get(), false);
  if (d.chunk_values > 0) {
    const hsize_t chunk = d.chunk_values;
    H5Pset_chunk(dcpl.get(), 1, &chunk);
    H5Pset_shuffle(dcpl.get());
    H5Pset_deflate(dcpl.get(), kFrameDeflateLevel);
  }
  const std::string at = group_name + "/" + d.name;
  Hdf5Id ds(H5Dcreate2(group, d.name.c_str(), FileType(d.type), space.get(), H5P_DEFAULT,
                       dcpl.get(), H5P_DEFAULT),
            H5Dclose);
  if (!ds.ok()) return Error{where + ": cannot create dataset " + at + WriteFailureReason()};
  for (size_t c = 0; c < d.chunks.size(); ++c) {
    const hsize_t offset = c * d.chunk_values;
    const EncodedChunk& chunk = d.chunks[c];
    if (H5Dwrite_chunk(ds.get(), H5P_DEFAULT, chunk.filter_mask, &offset, chunk.bytes.size(),
                       chunk.bytes.data()) < 0) {
      return Error{where + ": cannot write dataset " + at + WriteFailureReason()};
    }
  }
  if (!WriteStringAttr(ds.get(), "unit", d.unit)) {
    return Error{where + ": cannot write unit of " + at};
  }
  return {};
}

}  // namespace

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
  Hdf5Id frames(H5Gcreate2(f, "/frames", H5P_DEFAULT, UntimedGroupProperties().get(), H5P_DEFAULT),
                H5Gclose);
  if (!ok || !frames.ok()) {
    return Error{path.string() + ": cannot write HDF5 metadata" + WriteFailureReason()};
  }
  return std::unique_ptr<Hdf5FrameWriter>(new Hdf5FrameWriter(std::move(impl)));
}

Status Hdf5FrameWriter::Append(const Frame& frame) {
  auto encoded = EncodeFrame(frame);
  if (!encoded.ok()) {
    return Error{impl_->output.target().string() + ": frame " + std::to_string(frame.index) + ": " +
                 encoded.message()};
  }
  return AppendEncoded(*encoded);
}

Status Hdf5FrameWriter::AppendEncoded(const EncodedFrame& encoded) {
  const Frame& frame = encoded.header;
  const std::string where = impl_->output.target().string();
  const std::string group_name = FrameGroupName(frame.index);
  if (encoded.points > kMaxHdf5PointsPerFrame) {  // what the reader would refuse
    return Error{where + ": frame " + std::to_string(frame.index) + " has " +
                 std::to_string(encoded.points) + " points, more than the " +
                 std::to_string(kMaxHdf5PointsPerFrame) + " a frames file holds per frame"};
  }
  errno = 0;
  Hdf5Id group(H5Gcreate2(impl_->file.get(), group_name.c_str(), H5P_DEFAULT,
                          UntimedGroupProperties().get(), H5P_DEFAULT),
               H5Gclose);
  if (!group.ok()) {
    return Error{where + ": cannot create group " + group_name + WriteFailureReason()};
  }
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
  const size_t waveform_datasets = encoded.waveforms ? 2 : 0;
  const size_t fields = encoded.datasets.size() - waveform_datasets;
  for (size_t i = 0; i < fields; ++i) {
    if (Status s = WriteDataset(group.get(), group_name, where, encoded.datasets[i]); !s.ok()) {
      return s;
    }
  }
  if (encoded.waveforms) {
    const double samples = frame.waveform_samples, dt_ns = frame.waveform_dt_s * 1e9;
    if (!WriteDoublesAttr(group.get(), "waveform_samples", &samples, 1) ||
        !WriteDoublesAttr(group.get(), "waveform_sample_interval_ns", &dt_ns, 1)) {
      return Error{where + ": cannot write the waveform attributes of " + group_name};
    }
    for (size_t i = fields; i < encoded.datasets.size(); ++i) {
      if (Status s = WriteDataset(group.get(), group_name, where, encoded.datasets[i]); !s.ok()) {
        return s;
      }
    }
  }
  return {};
}

Status Hdf5FrameWriter::Close() {
  errno = 0;
  if (H5Fclose(impl_->file.Release()) < 0) {
    return Error{impl_->output.target().string() + ": cannot finish HDF5 file" +
                 WriteFailureReason()};
  }
  return impl_->output.Commit();
}

}  // namespace lt
