// The simulate job shared by `simulate` and `demo`: load configs, run frames, write outputs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/status.h"
#include "lidartwin/sim/trajectory.h"

namespace lt::cli {

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
};

struct SimulationResult {
  SensorProfile profile;
  Scene scene;
  std::vector<Frame> frames;
  double seconds = 0;  // simulation only, without loading and writing
  uint64_t rays = 0;
};

// The mesh loader of this build (Open3D), or an empty one.
MeshLoader BuiltInMeshLoader();

// Checks everything before writing anything; on error no output file exists.
Expected<SimulationResult> RunSimulation(const SimulationJob& job);

}  // namespace lt::cli
