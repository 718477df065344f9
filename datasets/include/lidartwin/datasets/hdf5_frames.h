// Frames in HDF5, schema v1 (datasets/schema/frames_v1.md): one group per frame under
// /frames, one dataset per field (chunked, deflate-compressed), units as attributes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/status.h"

namespace lt {

inline constexpr int kFramesSchemaVersion = 1;
inline constexpr const char* kFramesSchemaName = "lidartwin.frames";

struct DatasetInfo {
  std::string software_version;
  std::string sensor_name;
  std::string sensor_profile_yaml;
  std::string scene_yaml;
  std::string backend;  // "cpu", "cuda", or the reader for real recordings
  uint64_t seed = 0;
  double wavelength_nm = 0;
};

class Hdf5FrameWriter {
 public:
  // Starts a file; nothing appears at `path` until Close() succeeds.
  static Expected<std::unique_ptr<Hdf5FrameWriter>> Create(const std::filesystem::path& path,
                                                           const DatasetInfo& info);
  ~Hdf5FrameWriter();
  Status Append(const Frame& frame);
  // Finishes the file and moves it into place.
  Status Close();

 private:
  struct Impl;
  explicit Hdf5FrameWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct FrameSummary {
  uint32_t index = 0;
  uint64_t points = 0;
  double start_time_s = 0;
  double end_time_s = 0;
};

struct Hdf5Summary {
  int schema_version = 0;
  DatasetInfo info;
  std::vector<FrameSummary> frames;
  std::vector<std::pair<std::string, std::string>> fields;  // name, unit (of the first frame)
};

// Reads metadata and per-frame point counts; checks the schema name and version.
Expected<Hdf5Summary> ReadHdf5Summary(const std::filesystem::path& path);
// Reads every frame in full.
Expected<std::vector<Frame>> ReadHdf5Frames(const std::filesystem::path& path);

}  // namespace lt
