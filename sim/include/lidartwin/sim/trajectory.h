// Sensor trajectory: timestamped poses, interpolated at each beam's firing time.
#pragma once

#include <filesystem>
#include <vector>

#include <string>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/status.h"
#include "lidartwin/physics/pose.h"

namespace lt {

struct Trajectory {
  std::vector<double> time_s;  // strictly increasing
  std::vector<physics::Pose<double>> poses;
  bool motion_correction = false;  // express points in the frame's last pose (seed 003)
  double start_time_s = 0;         // start of frame 0 on this clock

  // Pose at time t: linear in position, slerp in rotation; held constant outside the
  // sampled interval. A trajectory without poses is the identity pose.
  physics::Pose<double> At(double t) const;
  static Trajectory Static();

  // One pose per time, times finite and strictly increasing, positions finite, rotations unit
  // quaternions, the start time finite (key paths `poses[i].time_s`, `poses[i].position_m`,
  // `poses[i].rotation_deg`, `start_time_s`). No poses is valid (Static()); a file must give
  // at least one.
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

// Loads a trajectory YAML (configs/README.md, "Trajectories"); errors name the file, the key
// path and its line.
Expected<Trajectory> LoadTrajectory(const std::filesystem::path& file);
Expected<Trajectory> ParseTrajectory(const std::string& yaml_text,
                                     const std::filesystem::path& file);

// The trajectory as YAML that ParseTrajectory reads back to the same poses (the one writer
// beside the one loader; tests/sim/trajectory_test.cpp): rotations as roll, pitch, yaw in
// degrees, so a rotation reads back to within 1e-15 of itself (not bit for bit); a trajectory
// without poses is written as the identity pose at start_time_s, which moves the sensor
// the same way. `header` (may be empty) goes first, as '#' comment lines.
std::string SaveTrajectory(const Trajectory& trajectory, const std::string& header = "");

}  // namespace lt
