// A simulation run (simulate, demo, reproduce): load the configs, run the frames on the chosen
// backend, write them where --out says (frame_output.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/simulator.h"
#include "lidartwin/sim/trajectory.h"

namespace lt {

struct SimulationJob {
  std::filesystem::path sensor;
  std::filesystem::path scene;
  std::optional<std::filesystem::path> trajectory;
  uint32_t frames = 1;
  uint64_t seed = 0;
  unsigned threads = 0;
  uint32_t motion_slices = 16;
  std::string backend = "cpu";
  std::filesystem::path out;  // .h5, .ply or .pcd
  MeshLoader mesh_loader;     // for scenes with mesh objects; may be empty
  std::string software_version;
  // Called after each frame with the frames and rays done so far (progress display).
  std::function<void(uint32_t frames_done, uint64_t rays_done)> on_frame;
  // Keep every frame in SimulationResult::frames (demo, reproduce compare them afterwards).
  // simulate leaves it off: frames stream to the writer and memory does not grow with --frames.
  bool keep_frames = true;
  // Waveform detector: beams whose voltage records each frame writes (HDF5 output only).
  std::vector<uint32_t> waveform_beams;

  // Keys by field: sensor and scene named, frames in 1..1000000, motion_slices as
  // SimulationOptions, a known backend (cpu, cuda; whether this machine has it is checked
  // when the run starts), out ending in .h5, .hdf5, .ply or .pcd. RunSimulation calls it.
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

struct SimulationResult {
  SensorProfile profile;
  Scene scene;
  std::vector<Frame> frames;  // empty unless SimulationJob::keep_frames
  uint32_t frames_written = 0;
  uint64_t points = 0;
  std::vector<std::filesystem::path> written;  // the files, in frame order
  double seconds = 0;                          // simulation only, without loading and writing
  uint64_t rays = 0;
};

// A job's configs loaded and its simulator made, before any frame is simulated: what
// RunSimulation and export (export_run.h) share.
// The simulator refers to the profile, scene and trajectory beside it, so the whole lives on
// the heap and never moves.
struct LoadedSimulation {
  SensorProfile profile;
  Scene scene;
  Trajectory trajectory = Trajectory::Static();
  std::string trajectory_text;  // empty for a static sensor
  std::unique_ptr<Simulator> simulator;
  DatasetInfo info;  // what the frames file says of the run
};
// Loads the sensor, the scene (warning on stderr about dropped degenerate triangles) and the
// trajectory, and makes the simulator on the job's backend. Does not check `out`.
Expected<std::unique_ptr<LoadedSimulation>> LoadSimulation(const SimulationJob& job);

// A simulator over a loaded job's scene, profile and trajectory with the job's options (the same
// frames as loaded.simulator): LoadSimulation's, and export's second on a GPU.
Expected<std::unique_ptr<Simulator>> CreateSimulatorLike(const LoadedSimulation& loaded,
                                                         const SimulationJob& job);

// Checks everything before writing anything; on error no output file exists.
Expected<SimulationResult> RunSimulation(const SimulationJob& job);

// How a workflow runs a simulation: RunSimulation, or the caller's wrapper around it (the CLI's
// adds a progress display). RunSimulationWith calls it, or RunSimulation when it is empty.
using SimulationRunner = std::function<Expected<SimulationResult>(SimulationJob)>;
Expected<SimulationResult> RunSimulationWith(const SimulationRunner& runner, SimulationJob job);

// Beam indices from "0,17,3000-3010": numbers and inclusive ranges, comma-separated, sorted
// and each kept once; more than `max_beams` beams, a range that falls, or text that is not a
// whole number is an error that names it.
Expected<std::vector<uint32_t>> ParseBeamList(const std::string& text, size_t max_beams);

}  // namespace lt
