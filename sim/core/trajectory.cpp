#include "lidartwin/sim/trajectory.h"

#include <algorithm>
#include <cmath>

#include "lidartwin/base/config_reader.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/physics/scan_pattern.h"

namespace lt {

physics::Pose<double> Trajectory::At(double t) const {
  return physics::PoseAtTime(time_s.data(), poses.data(), static_cast<int>(poses.size()), t);
}

Trajectory Trajectory::Static() {
  return {};
}

namespace {
constexpr double kMostStartTimeS = 1e10;
}  // namespace

void Trajectory::Check(ConfigCheck& check) const {
  if (time_s.size() != poses.size()) {
    check.Fail("poses", std::to_string(time_s.size()) + " times for " +
                            std::to_string(poses.size()) + " poses");
    return;
  }
  for (size_t i = 0; i < poses.size(); ++i) {
    ConfigCheck pose = check.Sub("poses", i);
    const double t = time_s[i];
    if (!(std::abs(t) <= kMostStartTimeS)) {
      pose.Fail("time_s", "must be within +-1e10 s, got " + NumberText(t));
    } else if (i > 0 && !(t > time_s[i - 1])) {
      pose.Fail("time_s", "times must increase strictly (" + NumberText(t) + " after " +
                              NumberText(time_s[i - 1]) + ")");
    }
    const auto& p = poses[i].translation;
    if (const std::string problem = PositionLimitProblem(p.x, p.y, p.z); !problem.empty())
      pose.Fail("position_m", problem);
    const auto& q = poses[i].rotation;
    const double norm = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(std::abs(norm - 1) <= 1e-9)) {
      pose.Fail("rotation_deg",
                "is not a rotation (a quaternion of norm " + NumberText(norm) + ", not 1)");
    }
  }
  // Within 1e10 s (the year 2286 as Unix time) a double still tells 2 us apart; at 1e20 s every
  // frame had the same time (issue 36).
  if (!std::isfinite(start_time_s))
    check.Fail("start_time_s", "must be finite");
  else if (!(std::abs(start_time_s) <= kMostStartTimeS))
    check.Fail("start_time_s", "must be within +-1e10 s, got " + NumberText(start_time_s));
}

Status Trajectory::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("trajectory");
}

Expected<Trajectory> ParseTrajectory(const std::string& yaml_text,
                                     const std::filesystem::path& file) {
  auto parsed = ConfigMap::FromText(yaml_text, file.string());
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
    if (rpy.size() == 3) {
      if (const std::string problem = AngleLimitProblem(rpy[0], rpy[1], rpy[2]); !problem.empty())
        p.Fail("rotation_deg", problem);
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
  if (Status s = root.FirstError(); !s.ok()) return s.error();
  ConfigCheck check;
  traj.Check(check);
  if (!check.ok()) root.Fail(*check.problem());
  if (Status s = root.Finish(); !s.ok()) return s.error();
  if (traj.poses.empty()) return Error{file.string() + ": key 'poses': no poses given"};
  return traj;
}

Expected<Trajectory> LoadTrajectory(const std::filesystem::path& file) {
  auto text = ReadTextFile(file, " trajectory");
  if (!text.ok()) return text.error();
  return ParseTrajectory(*text, file);
}

}  // namespace lt
