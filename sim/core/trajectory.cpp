#include "lidartwin/sim/trajectory.h"

#include <algorithm>

#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/sim/config_reader.h"

namespace lt {

physics::Pose<double> Trajectory::At(double t) const {
  return physics::PoseAtTime(time_s.data(), poses.data(), static_cast<int>(poses.size()), t);
}

Trajectory Trajectory::Static() {
  return {};
}

Expected<Trajectory> LoadTrajectory(const std::filesystem::path& file) {
  auto parsed = ConfigMap::FromFile(file);
  if (!parsed.ok()) return parsed.error();
  ConfigMap& root = parsed.value();
  Trajectory traj;
  traj.motion_correction = root.Bool("motion_correction", false);
  for (ConfigMap& p : root.MapList("poses")) {
    const double t = p.Number("time_s");
    const auto pos = p.Numbers("position_m");
    const auto rpy =
        p.Has("rotation_deg") ? p.Numbers("rotation_deg") : std::vector<double>{0, 0, 0};
    if (pos.size() != 3) p.Fail("position_m", "expected 3 numbers");
    if (rpy.size() != 3) p.Fail("rotation_deg", "expected 3 numbers (roll, pitch, yaw)");
    if (!traj.time_s.empty() && !(t > traj.time_s.back())) {
      p.Fail("time_s", "times must increase strictly (" + std::to_string(t) + " after " +
                           std::to_string(traj.time_s.back()) + ")");
    }
    if (pos.size() == 3 && rpy.size() == 3) {
      traj.time_s.push_back(t);
      traj.poses.push_back(
          {physics::QuatFromRollPitchYaw(rpy[0] * physics::kDegToRad, rpy[1] * physics::kDegToRad,
                                         rpy[2] * physics::kDegToRad),
           {pos[0], pos[1], pos[2]}});
    }
  }
  traj.start_time_s = root.Number("start_time_s", traj.time_s.empty() ? 0.0 : traj.time_s.front());
  if (Status s = root.Finish(); !s.ok()) return s.error();
  if (traj.poses.empty()) return Error{file.string() + ": key 'poses': no poses given"};
  return traj;
}

}  // namespace lt
