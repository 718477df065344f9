// lidartwin convert as a library call: a recording streamed frame by frame into a FrameOutput
// (one .h5, or one .ply/.pcd per frame), never the whole recording in memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/recording.h"

namespace lt {

struct ConvertOptions {
  std::filesystem::path recording;
  std::filesystem::path sidecar;  // Ouster metadata or Velodyne calibration of a pcap
  std::filesystem::path out;      // .h5/.hdf5, .ply or .pcd
  RecordingOptions read;
  std::string software_version;  // recorded for sources that are not .h5
  // After each frame is written: frames and points so far, fraction of the input read (0..1).
  std::function<void(uint32_t frames, uint64_t points, double fraction)> on_frame;
};

struct ConvertResult {
  Recording source;  // header and notes (what was skipped or dropped); no frames
  uint32_t frames = 0;
  uint64_t points = 0;
  std::vector<std::filesystem::path> written;  // the files, in frame order
};

// Streams the recording into `out`. An .h5 source keeps its description (sensor profile and
// scene YAML, software version, seed, backend); other sources are described by their reader.
// A recording without frames is an error and writes nothing.
Expected<ConvertResult> ConvertRecording(const ConvertOptions& options);

}  // namespace lt
