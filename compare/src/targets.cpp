#include "lidartwin/compare/targets.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "lidartwin/base/config_reader.h"
#include "lidartwin/physics/scan_pattern.h"

namespace lt::compare {
namespace {

std::optional<std::array<double, 3>> Triple(ConfigMap& m, const std::string& key, bool required) {
  if (!required && !m.Has(key)) return std::nullopt;
  const auto v = m.Numbers(key);
  if (v.size() != 3) {
    m.Fail(key, fmt::format("must be a list of 3 numbers, got {}", v.size()));
    return std::array<double, 3>{0, 0, 0};
  }
  for (double x : v)
    if (!std::isfinite(x)) m.Fail(key, "must be finite");
  return std::array<double, 3>{v[0], v[1], v[2]};
}

}  // namespace

bool Target::Contains(double x, double y, double z) const {
  const auto local = physics::InverseTransformPoint(box_to_sensor, physics::Vec3<double>{x, y, z});
  return std::fabs(local.x) <= half_size_m[0] && std::fabs(local.y) <= half_size_m[1] &&
         std::fabs(local.z) <= half_size_m[2];
}

std::optional<double> Target::GroundTruthDistance() const {
  if (!ground_truth_centre_m) return std::nullopt;
  const auto& c = *ground_truth_centre_m;
  return std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

void Target::Check(ConfigCheck& check) const {
  if (name.empty()) check.Fail("name", "must not be empty");
  const auto& c = box_to_sensor.translation;
  // Within the scene's position limit, as objects are (issue 36: 1e308 made the ground-truth
  // distance infinite, written as null).
  if (const std::string problem = PositionLimitProblem(c.x, c.y, c.z); !problem.empty())
    check.Fail("centre_m", problem);
  for (double h : half_size_m) {
    if (!(h > 0 && h <= kMaxPositionM)) {
      check.Fail("size_m", "every extent must be in (0, " + NumberText(2 * kMaxPositionM) +
                               "] m, got " + NumberText(2 * h));
      break;
    }
  }
  const auto& q = box_to_sensor.rotation;
  const double norm = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  if (!(std::abs(norm - 1) <= 1e-9)) {
    check.Fail("rotation_deg",
               "is not a rotation (a quaternion of norm " + NumberText(norm) + ", not 1)");
  }
  if (ground_truth_centre_m) {
    const auto& g = *ground_truth_centre_m;
    if (const std::string problem = PositionLimitProblem(g[0], g[1], g[2]); !problem.empty())
      check.Fail("ground_truth_centre_m", problem);
  }
}

Status Target::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("target '" + name + "'");
}

void CheckTargets(const std::vector<Target>& targets, ConfigCheck& check) {
  for (size_t i = 0; i < targets.size(); ++i) {
    ConfigCheck entry = check.Sub("targets", i);
    targets[i].Check(entry);
    for (size_t j = 0; j < i; ++j) {
      if (targets[i].name == targets[j].name) {
        entry.Fail("name",
                   "'" + targets[i].name + "' is used twice (targets[" + std::to_string(j) + "])");
        break;
      }
    }
  }
}

Expected<std::vector<Target>> LoadTargets(const std::filesystem::path& file) {
  auto root = ConfigMap::FromFile(file);
  if (!root.ok()) return root.error();
  std::vector<Target> targets;
  for (ConfigMap& t : root->MapList("targets")) {
    Target target;
    target.name = t.String("name");
    target.material = t.String("material", "");
    const auto centre = *Triple(t, "centre_m", true);
    const auto size = *Triple(t, "size_m", true);
    const auto rpy = Triple(t, "rotation_deg", false).value_or(std::array<double, 3>{0, 0, 0});
    if (const std::string problem = AngleLimitProblem(rpy[0], rpy[1], rpy[2]); !problem.empty())
      t.Fail("rotation_deg", problem);
    target.half_size_m = {0.5 * size[0], 0.5 * size[1], 0.5 * size[2]};
    target.box_to_sensor.translation = {centre[0], centre[1], centre[2]};
    target.box_to_sensor.rotation = physics::QuatFromRollPitchYaw(
        rpy[0] * physics::kDegToRad, rpy[1] * physics::kDegToRad, rpy[2] * physics::kDegToRad);
    target.ground_truth_centre_m = Triple(t, "ground_truth_centre_m", false);
    targets.push_back(std::move(target));
  }
  if (Status s = root->FirstError(); !s.ok()) return s.error();
  ConfigCheck check;
  if (targets.empty()) check.Fail("targets", "the list is empty");
  CheckTargets(targets, check);
  if (!check.ok()) root->Fail(*check.problem());
  if (Status s = root->Finish(); !s.ok()) return s.error();
  return targets;
}

Status CheckRoiMargin(double margin_m) {
  if (!(margin_m >= 0 && margin_m <= kMaxRoiMarginM))
    return Error{
        fmt::format("must be in [0, {:g}] m, got {}", kMaxRoiMarginM, NumberText(margin_m))};
  return {};
}

std::vector<Target> TargetsFromScene(const Scene& scene, double margin_m) {
  std::vector<Target> targets;
  for (const SceneObject& o : scene.objects) {
    if (o.instance_id == 0 || o.stored().vertices.empty()) continue;
    std::array<double, 3> lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    for (const auto& v : VerticesAt(o, 0)) {
      const auto local =
          physics::InverseTransformPoint(o.pose, physics::Vec3<double>{v[0], v[1], v[2]});
      const double l[3] = {local.x, local.y, local.z};
      for (int k = 0; k < 3; ++k) {
        lo[k] = std::min(lo[k], l[k]);
        hi[k] = std::max(hi[k], l[k]);
      }
    }
    Target t;
    t.name = o.name;
    t.material = o.material_id < scene.materials.materials.size()
                     ? scene.materials.materials[o.material_id].name
                     : "";
    const physics::Vec3<double> local_centre{0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]),
                                             0.5 * (lo[2] + hi[2])};
    t.box_to_sensor.rotation = o.pose.rotation;
    t.box_to_sensor.translation = physics::TransformPoint(o.pose, local_centre);
    for (int k = 0; k < 3; ++k)
      t.half_size_m[k] = 0.5 * (hi[k] - lo[k]) + margin_m;
    t.ground_truth_centre_m =
        std::array<double, 3>{o.pose.translation.x, o.pose.translation.y, o.pose.translation.z};
    targets.push_back(std::move(t));
  }
  return targets;
}

}  // namespace lt::compare
