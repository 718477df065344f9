// Validate(): the checks a configuration struct's values must pass, whether it was read from
// a file or built in code (STYLE.md rule 7). A check names the value by its key path as the
// schema spells it ("detector.threshold_nw", "objects[2].size_m", configs/README.md), so that
// code which built the struct reads the words a file's author would, and a loader can point
// at the line it read the value from (ConfigMap::Fail(const ConfigProblem&)).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "lidartwin/base/status.h"

namespace lt {

// One value out of range: its key path and what is wrong with it.
struct ConfigProblem {
  std::string key_path;
  std::string problem;
};

// Collects the first failed check of a Validate() run (later ones often follow from it).
// Sub() gives a check of a nested map or list entry that shares the same first problem.
class ConfigCheck {
 public:
  ConfigCheck();

  // Records `problem` about the key `key` (relative to this check's map) unless a problem is
  // recorded already.
  void Fail(const std::string& key, const std::string& problem);
  // The nested map under `key`, or entry `index` of the list under `key`.
  ConfigCheck Sub(const std::string& key) const;
  ConfigCheck Sub(const std::string& key, size_t index) const;

  bool ok() const { return !first_->has_value(); }
  const std::optional<ConfigProblem>& problem() const { return *first_; }
  // OK, or an Error "<what>: key '<path>': <problem>".
  Status ToStatus(const std::string& what) const;

 private:
  std::shared_ptr<std::optional<ConfigProblem>> first_;
  std::string prefix_;  // "" or "detector." or "objects[2]."
};

// A number as a person writes it (100000, 0.5, 6.666666667), for messages.
std::string NumberText(double v);

// Positions (scene objects, trajectory poses) lie within 10,000 km of the origin: earth-centred
// coordinates fit, and the ray caster's single-precision geometry (Embree asserts on ray origins
// beyond about 1.8e18 m) is never handed a position it cannot represent.
inline constexpr double kMaxPositionM = 1e7;
// The message for a position beyond kMaxPositionM, or empty when it is within.
std::string PositionLimitProblem(double x, double y, double z);
// Rotations in degrees (objects, poses, regions) within +-1e6 deg: the unwrapped yaw of a long
// drive stays far inside, and a double still holds the degree's 1e-9 there (1e308 was taken).
inline constexpr double kMostAngleDeg = 1e6;
// The message for a roll, pitch, yaw beyond kMostAngleDeg (or not finite), or empty.
std::string AngleLimitProblem(double roll_deg, double pitch_deg, double yaw_deg);
// Objects move at most 10 km/s (faster than any vehicle a lidar watches) and turn at most
// 1e6 deg/s: over a frame they stay near the positions checked above.
inline constexpr double kMostSpeedMS = 1e4, kMostYawRateDegS = 1e6;

}  // namespace lt
