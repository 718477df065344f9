// The real-vs-sim loop on one recording (issue 12; `lidartwin reproduce`): import the sensor
// from its metadata; learn its intensity reading and detection bound from the reconstruction
// frames; reconstruct the scene from those frames; simulate the held-out frame from its poses;
// compare it with the recorded frame, and the recorded frame with its real neighbour (the floor
// a simulation can reach); report. Everything is written into a staging folder inside `out` and
// moved into place as one set (CommitOutputSet): a failure or an interruption leaves the
// earlier run's outputs, whole.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/simulation_run.h"
#include "lidartwin/jobs/job_log.h"
#include "lidartwin/jobs/option_names.h"
#include "lidartwin/reconstruct/reconstruction.h"

namespace lt::jobs {

// What a run writes into `out`, replaced as one set.
inline constexpr const char* kReproduceFiles[] = {"sensor.yaml", "trajectory.yaml", "sim.h5",
                                                  "metrics.json", "floor_metrics.json"};
inline constexpr const char* kReproduceFolders[] = {"scene", "report"};

inline constexpr uint32_t kMaxChannelStep = 64;
// The threshold detector's sub-rays a beam (ReproduceOptions::detector): on the OS-1-128's
// folds 4 cost 0.6 cm of p90 against 8, and 16 gave what 8 did (docs/validation.md).
inline constexpr uint32_t kFootprintSubRays = 8;
inline constexpr uint32_t kMaxResimulatedFrames = 1000000;

struct ReproduceOptions {
  std::string recording;  // a recording file (recording.h)
  // Its sensor's metadata JSON or calibration YAML; empty for an OSF file, which holds it.
  std::string sidecar;
  std::string topic;  // a bag's or OSF file's lidar topic; empty: its only one
  // A sensor profile to simulate with (a lab or field calibration's, issue 40) instead of the
  // one imported from the metadata and fitted on the reconstruction frames; empty: import.
  // Its scan must have the recording's channels; detector is then not used.
  std::string sensor;
  // `--as`: the held-out frame simulated through this profile (another sensor, or a subset of
  // the recorded lasers) from the scene the recording's own sensor reconstructed. Where its
  // channels are the recording's own lasers (RecordedChannelsOf), the held-out frame's returns
  // on them are its truth and the run compares as usual; otherwise there is no truth: the run
  // writes the simulation (sensor.yaml, scene/, trajectory.yaml, sim.h5) and no metrics.
  // Not with `sensor`.
  std::string as_sensor;
  std::string firetimes;  // a Hesai unit's fire-time file; empty: none
  uint32_t simulate_frame = 0;
  // `resimulate` ("what would sensor B have seen on this drive?"): no frame is held out. The
  // scene comes from every frame (or reconstruct_frames), and the stretch of simulate_frames
  // frames from simulate_frame on is simulated through as_sensor (required) from the recorded
  // poses, mounted as the recorded sensor, in its own channels and units: sim.h5 with those
  // frames, sensor.yaml, scene/ and trajectory.yaml, no metrics. simulate_frames in
  // 0..kMaxResimulatedFrames (0: to the recording's end); 1 for a held-out frame.
  bool resimulate = false;
  uint32_t simulate_frames = 1;
  std::vector<double> reconstruct_frames;  // frame indices; empty: every other frame
  // The scene from the reconstruction frames' channels 0, N, 2N, .. only (1: all): a sparser
  // sensor's share of the lasers, re-simulated as the full sensor (issue 41's sparse-to-dense
  // check: the held-out frame's every channel is the truth). In 1..kMaxChannelStep.
  uint32_t reconstruct_channel_step = 1;
  std::string poses;           // KITTI poses file; empty: the .h5's own, or ICP
  double pose_fraction = 0;    // when within its frame a pose holds (PoseFractionOf)
  bool static_sensor = false;  // no poses file, no ICP: the sensor did not move
  // 0: the metadata's, or measured from a Velodyne capture; else in kMinRotationRateHz..
  // kMaxRotationRateHz.
  double rotation_rate_hz = 0;
  // ideal: every surface the reconstruction holds returns (it holds what the sensor detected;
  // docs/adr/0029); threshold: the beam's footprint (the imported profile's data-sheet
  // divergence, kFootprintSubRays sub-rays) and the threshold detector, at the power that
  // nearly every return of the reconstruction frames brought back (docs/adr/0035); auto:
  // threshold where the imported profile knows its divergence and the sensor moved, else ideal;
  // recording: the capability detector bounded by the reconstruction frames' weakest return;
  // capability: the data sheet's range.
  std::string detector = "auto";
  std::string intensity = "auto";  // auto, reflectivity or raw
  ReconstructOptions reconstruct;
  // The reconstruction reaches out to the sensor profile's max_range_m where that is beyond
  // reconstruct.max_range_m (false: reconstruct.max_range_m as given).
  bool reconstruct_to_sensor_range = true;
  uint64_t seed = 0;
  std::filesystem::path out;
  MeshLoader mesh_loader;  // for the reconstructed scene's meshes and the report's viewer
  // Runs the simulation (RunSimulation when empty; the CLI adds its progress display).
  SimulationRunner simulate;
  OptionNames names;  // how messages name the options
  JobLog log;         // info: each step's result; note: the reader's notes; warning

  // Every value by its key (detector, intensity, rotation_rate_hz, pose_fraction, the
  // reconstruction's keys), and poses and static_sensor not both; what the recording decides
  // (its frame count) is checked by Reproduce.
  Status Validate() const;
};

// Runs the loop. An error about an option begins with its key ("simulate_frame 3: the
// recording has 3 frames (0..2)"), so a caller can tell a bad argument from a failed run.
Status Reproduce(const ReproduceOptions& options);

// The option keys Reproduce's errors may begin with.
inline constexpr const char* kReproduceKeys[] = {"recording",
                                                 "sidecar",
                                                 "sensor",
                                                 "as_sensor",
                                                 "topic",
                                                 "firetimes",
                                                 "simulate_frame",
                                                 "simulate_frames",
                                                 "reconstruct_frames",
                                                 "reconstruct_channel_step",
                                                 "poses",
                                                 "pose_fraction",
                                                 "static_sensor",
                                                 "rotation_rate_hz",
                                                 "detector",
                                                 "intensity",
                                                 "seed",
                                                 "out"};

}  // namespace lt::jobs
