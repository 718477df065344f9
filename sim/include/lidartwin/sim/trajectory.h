// Sensor trajectory: timestamped poses, interpolated at each beam's firing time.
#pragma once

#include <filesystem>
#include <vector>

#include "lidartwin/physics/pose.h"
#include "lidartwin/sim/status.h"

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
};

Expected<Trajectory> LoadTrajectory(const std::filesystem::path& file);

}  // namespace lt
