// Any recording the toolkit reads, by file type: Ouster pcap + metadata JSON, Velodyne pcap +
// calibration YAML, KITTI .bin, PCD, PLY, our HDF5 frames.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/status.h"

namespace lt {

struct Recording {
  std::string reader;        // "ouster-pcap", "velodyne-pcap", "kitti-bin", "pcd", "ply", "hdf5"
  std::string sensor;        // product line or calibration file name
  double wavelength_nm = 0;  // data sheets: Ouster 865, Velodyne 903, HDL-64E 905
  std::vector<Frame> frames;
};

// sidecar: the Ouster metadata (.json) or Velodyne calibration (.yaml) a pcap needs; ignored
// (must be empty) for the other types. Errors name the file and what is wrong.
Expected<Recording> ReadRecording(const std::filesystem::path& file,
                                  const std::filesystem::path& sidecar);

}  // namespace lt
