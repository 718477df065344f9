// Any recording the toolkit reads, by file type: Ouster pcap + metadata JSON or OSF, Velodyne pcap
// + calibration YAML, a ROS bag of lidar packets + its calibration (ros_bag.h), KITTI or nuScenes
// .bin, PCD, PLY, our HDF5 frames. Streamed frame by frame
// (OpenRecording, ForEachRecordingFrame) or read whole (ReadRecording).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/datasets/frame_sink.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/datasets/intensity_unit.h"
#include "lidartwin/datasets/pcap.h"

namespace lt {

struct RecordingOptions {
  // Layout of a headerless .bin: "" (by name, else by size; see ChooseBinLayout), "kitti" or
  // "nuscenes". Only .bin files take it.
  std::string format;
  // A ROS bag's topic to read; empty: the bag's one lidar topic. Only bags take it.
  std::string topic;
  // A Hesai unit's fire-time correction file (LoadHesaiFiretimes): each point then carries its
  // channel's firing time. Only Hesai packet recordings take it.
  std::filesystem::path firetimes;
};

struct Recording {
  // "ouster-pcap", "ouster-osf", "velodyne-pcap", "velodyne-bag", "kitti-bin", "nuscenes-bin",
  // "pcd", "ply", "las", "hdf5"
  std::string reader;
  std::string sensor;        // product line or calibration file name
  double wavelength_nm = 0;  // data sheets: Ouster 865, Velodyne 903, HDL-64E 905
  // What Frame::intensity holds (intensity_unit.h): "ouster signal photons", "percent", ...
  std::string intensity_unit = "unknown";
  // .h5: the file's own description (sensor profile and scene YAML, software version, seed,
  // backend), for a converter to carry over; empty for the other types.
  DatasetInfo source;
  bool has_source = false;
  // Frames known before reading (1 for a single scan, the count of an .h5); 0 for a capture,
  // whose frames are known at its end.
  uint32_t frames_known = 0;
  // What was skipped, dropped or guessed while reading (lines for stderr; CaptureStats::Notes).
  std::vector<std::string> notes;
  std::vector<Frame> frames;  // ReadRecording only; empty when streamed
};

// A recording opened for streaming: its type is checked and its metadata, calibration or
// header read; ForEachFrame then reads the frames one at a time.
class RecordingSource {
 public:
  using Reader = std::function<Status(const FrameSink&, CaptureStats&, std::vector<std::string>&)>;
  RecordingSource(Recording header, Reader reader);
  const Recording& header() const { return header_; }
  // Streams every frame to `sink`; afterwards header().notes says what was skipped. Call once.
  Status ForEachFrame(const FrameSink& sink);
  // Fraction of the input read so far (0..1), for progress.
  double Fraction() const;

 private:
  Recording header_;
  Reader reader_;
  std::shared_ptr<CaptureStats> stats_;
  uint32_t frames_done_ = 0;
};

// sidecar: the Ouster metadata (.json) or Velodyne calibration (.yaml) a pcap needs (a
// RoboSense Helios's pcap or bag without one takes its DIFOP's angles); ignored (must be empty)
// for the other types. Errors name the file and what is wrong.
Expected<RecordingSource> OpenRecording(const std::filesystem::path& file,
                                        const std::filesystem::path& sidecar,
                                        const RecordingOptions& options = {});

// OpenRecording, then every frame to `sink` as it is completed (memory bounded by a frame for
// captures); returns the header with its notes (frames empty).
Expected<Recording> ForEachRecordingFrame(const std::filesystem::path& file,
                                          const std::filesystem::path& sidecar,
                                          const RecordingOptions& options, const FrameSink& sink);

// A recording's size without holding it: the points of each frame, read through once (for a
// command to judge before it holds the frames whether they fit in memory).
struct RecordingSize {
  std::string reader;  // as Recording::reader
  std::vector<uint64_t> points_per_frame;
};
Expected<RecordingSize> MeasureRecording(const std::filesystem::path& file,
                                         const std::filesystem::path& sidecar,
                                         const RecordingOptions& options = {});

// The whole recording in memory (ForEachRecordingFrame into Recording::frames).
Expected<Recording> ReadRecording(const std::filesystem::path& file,
                                  const std::filesystem::path& sidecar,
                                  const RecordingOptions& options = {});

}  // namespace lt
