// Regions of interest ("targets"): oriented boxes in the sensor frame inside which N_points,
// I_mean and d_mean are counted (seed 002 sec. 6.2.1), with an optional ground-truth centre
// for d_GT (eq. 14). From a targets YAML (configs/README.md) or from a scene's objects.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/status.h"
#include "lidartwin/physics/pose.h"
#include "lidartwin/sim/scene.h"

namespace lt::compare {

struct Target {
  std::string name;
  std::string material;                                          // a label; may be empty
  physics::Pose<double> box_to_sensor{{1, 0, 0, 0}, {0, 0, 0}};  // box centre and orientation
  std::array<double, 3> half_size_m{0, 0, 0};
  std::optional<std::array<double, 3>> ground_truth_centre_m;  // sensor frame

  bool Contains(double x, double y, double z) const;
  // d_GT of seed 002 eq. (14): from the sensor origin (0, 0, 0 in the sensor frame) to the
  // ground-truth centre.
  std::optional<double> GroundTruthDistance() const;

  // As the targets YAML gives it (keys relative to the entry): a name, a finite centre,
  // positive finite extents (`size_m`), a rotation (unit quaternion, `rotation_deg`), a
  // finite ground-truth centre.
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

// A list of targets: at least one, each valid, names unique (`targets[i]...`).
void CheckTargets(const std::vector<Target>& targets, ConfigCheck& check);

// targets:
//   - name: plate_r10_d05
//     centre_m: [x, y, z]          # box centre, sensor frame
//     size_m: [sx, sy, sz]         # full box extents along the box axes
//     rotation_deg: [r, p, y]      # optional, as scene objects
//     ground_truth_centre_m: [x, y, z]  # optional: enables d_GT and d_error
//     material: lambertian_10      # optional label
Expected<std::vector<Target>> LoadTargets(const std::filesystem::path& file);

// One target per object with a non-zero instance id: the box bounding its mesh in the object's
// own axes, grown by margin_m on every side, and its position as the ground-truth centre.
// The scene's world frame is taken as the sensor frame (a static sensor at the origin, as in
// the shipped lab scene).
std::vector<Target> TargetsFromScene(const Scene& scene, double margin_m);

// The margin TargetsFromScene may grow a box by: a finite number in [0, kMaxRoiMarginM] m. A
// negative margin shrinks boxes to nothing (every target 0 points); beyond 10 m a box holds
// its neighbours' points too.
constexpr double kMaxRoiMarginM = 10;
Status CheckRoiMargin(double margin_m);

}  // namespace lt::compare
