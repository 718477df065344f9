// A recording (and its poses) to a scene the simulator loads (`lidartwin reconstruct`,
// issue 12): the frames read whole and meshed together when they fit memory
// (kBatchReconstructionBudgetBytes), else, where the poses are known without ICP, streamed one
// at a time into an IncrementalReconstruction; refused with the estimate otherwise.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/jobs/job_log.h"
#include "lidartwin/jobs/option_names.h"
#include "lidartwin/reconstruct/reconstruction.h"

namespace lt::jobs {

// Columns per frame: a spinning lidar has at most a few thousand; more is a typo.
inline constexpr uint32_t kMaxColumns = 1 << 20;

struct ReconstructRecordingOptions {
  std::string recording;       // a recording file (recording.h)
  std::string sidecar;         // its metadata or calibration, where it needs one
  std::string format;          // a .bin's layout (kitti, nuscenes); empty: from its name
  std::string topic;           // a bag's or OSF file's lidar topic; empty: its only one
  std::string firetimes;       // a Hesai unit's fire-time file; empty: none
  std::vector<double> frames;  // frame indices; empty: every frame
  std::string poses;           // KITTI poses file; empty: the .h5's own, or ICP (batch only)
  double pose_fraction = 0;    // when within its frame a pose holds (PoseFractionOf)
  bool static_sensor = false;  // the sensor did not move
  bool incremental = false;    // stream the frames (range-image or surfels, poses known)
  uint32_t columns = 0;        // columns per frame, for each point's firing-time pose
  ReconstructOptions reconstruct;
  std::filesystem::path out;  // the scene's folder
  OptionNames names;          // how messages name the options
  JobLog log;                 // info: the summary; note: a switch to streaming
  // Progress: the batch path's steps, the streamed path's frames, and the end of either.
  std::function<void(int step, int count, const char* what)> on_step;
  std::function<void(const std::string& text)> on_frame;
  std::function<void()> on_finish;

  // Every value by its key (the reconstruction's, pose_fraction, columns), poses and
  // static_sensor not both, and incremental only with range-image or surfels.
  Status Validate() const;
};

// Reconstructs and writes the scene. An error about an option begins with its key (out: a
// folder that cannot be written, found before anything is read).
Status ReconstructRecording(const ReconstructRecordingOptions& options);

}  // namespace lt::jobs
