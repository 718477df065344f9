// `lidartwin demo`: the main job on the built-in default. The lab scene of seed 002 sec. 6.2
// seen by the Ouster OS0-128 data-sheet profile, its targets' N_points, I_mean and d_error; the
// sensor effects (bloom, two echoes through glass), the waveform detector in the lab and in the
// sun, a fidelity report against the next seed and, with Ceres, a unit calibrated from its lab.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/simulation_run.h"
#include "lidartwin/jobs/job_log.h"

namespace lt::jobs {

struct DemoOptions {
  std::filesystem::path root;     // the folder holding configs/ (the sensors and scenes)
  std::filesystem::path out_dir;  // created if absent
  uint64_t seed = 0;
  MeshLoader mesh_loader;
  // Runs each simulation (RunSimulation when empty; the CLI adds its progress display).
  SimulationRunner simulate;
  JobLog log;  // info: the demo's tables
};

// Runs every chapter; the first failure ends the demo. The calibration chapter fails when the
// calibrated model is not the closer one to the unit's recording.
Status RunDemo(const DemoOptions& options);

}  // namespace lt::jobs
