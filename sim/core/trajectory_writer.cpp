// SaveTrajectory: the one writer of the trajectory schema, beside its loader (trajectory.cpp;
// house rule 13). Every key is the loader's.
#include "core/config_writer.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/sim/trajectory.h"

namespace lt {

namespace {

using config_writer::List;
using config_writer::Put;

void WritePose(YAML::Emitter& e, double t, const physics::Pose<double>& p) {
  const auto rpy = physics::RollPitchYaw(p.rotation);
  const double k = 1 / physics::kDegToRad;
  e << YAML::Flow << YAML::BeginMap;
  Put(e, "time_s", t);
  List(e, "position_m", std::array<double, 3>{p.translation.x, p.translation.y, p.translation.z});
  List(e, "rotation_deg", std::array<double, 3>{rpy.x * k, rpy.y * k, rpy.z * k});
  e << YAML::EndMap;
}

}  // namespace

std::string SaveTrajectory(const Trajectory& trajectory, const std::string& header) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  Put(e, "motion_correction", trajectory.motion_correction);
  Put(e, "start_time_s", trajectory.start_time_s);
  e << YAML::Key << "poses" << YAML::Value << YAML::BeginSeq;
  if (trajectory.poses.empty()) WritePose(e, trajectory.start_time_s, Trajectory::Static().At(0));
  for (size_t i = 0; i < trajectory.poses.size(); ++i)
    WritePose(e, trajectory.time_s[i], trajectory.poses[i]);
  e << YAML::EndSeq << YAML::EndMap;
  return config_writer::Document(header, e);
}

}  // namespace lt
