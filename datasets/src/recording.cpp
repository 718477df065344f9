#include "lidartwin/datasets/recording.h"

#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/datasets/kitti_bin.h"
#include "lidartwin/datasets/ouster.h"
#include "lidartwin/datasets/point_cloud_readers.h"
#include "lidartwin/datasets/velodyne.h"

namespace lt {

Expected<Recording> ReadRecording(const std::filesystem::path& file,
                                  const std::filesystem::path& sidecar) {
  if (!std::filesystem::exists(file)) return Error{file.string() + ": does not exist"};
  const std::string ext = file.extension().string();
  const std::string side_ext = sidecar.extension().string();
  Recording r;
  if (ext == ".pcap") {
    if (sidecar.empty()) {
      return Error{file.string() +
                   ": a pcap needs its sensor's metadata (Ouster .json) or calibration "
                   "(Velodyne .yaml)"};
    }
    if (side_ext == ".json") {
      auto m = LoadOusterMetadata(sidecar);
      if (!m.ok()) return m.error();
      auto f = ReadOusterPcap(file, m.value());
      if (!f.ok()) return f.error();
      r.reader = "ouster-pcap";
      r.wavelength_nm = 865;
      r.sensor = m->product.empty() ? "ouster" : m->product;
      r.frames = std::move(f.value());
    } else if (side_ext == ".yaml" || side_ext == ".yml") {
      auto c = LoadVelodyneCalibration(sidecar);
      if (!c.ok()) return c.error();
      auto f = ReadVelodynePcap(file, c.value());
      if (!f.ok()) return f.error();
      r.reader = "velodyne-pcap";
      r.wavelength_nm = 903;
      r.sensor = sidecar.stem().string();
      r.frames = std::move(f.value());
    } else {
      return Error{sidecar.string() + ": expected an Ouster .json or a Velodyne .yaml"};
    }
    return r;
  }
  if (!sidecar.empty()) {
    return Error{sidecar.string() + ": only pcap recordings take metadata or calibration"};
  }
  if (ext == ".bin") {
    auto f = ReadKittiBin(file);
    if (!f.ok()) return f.error();
    r.reader = "kitti-bin";
    r.wavelength_nm = 905;
    r.sensor = "HDL-64E (KITTI)";
    r.frames.push_back(std::move(f.value()));
    return r;
  }
  if (ext == ".h5" || ext == ".hdf5") {
    auto summary = ReadHdf5Summary(file);
    if (!summary.ok()) return summary.error();
    auto f = ReadHdf5Frames(file);
    if (!f.ok()) return f.error();
    r.reader = "hdf5";
    r.wavelength_nm = summary->info.wavelength_nm;
    r.sensor = summary->info.sensor_name;
    r.frames = std::move(f.value());
    return r;
  }
  if (ext == ".pcd" || ext == ".ply") {
    auto f = ext == ".pcd" ? ReadPcd(file) : ReadPly(file);
    if (!f.ok()) return f.error();
    r.reader = ext.substr(1);
    r.frames.push_back(std::move(f.value()));
    return r;
  }
  return Error{file.string() + ": unknown recording type '" + ext +
               "' (expected .pcap, .bin, .h5, .pcd, .ply)"};
}

}  // namespace lt
