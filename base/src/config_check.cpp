#include "lidartwin/base/config_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace lt {

ConfigCheck::ConfigCheck() : first_(std::make_shared<std::optional<ConfigProblem>>()) {}

void ConfigCheck::Fail(const std::string& key, const std::string& problem) {
  if (!first_->has_value()) *first_ = ConfigProblem{prefix_ + key, problem};
}

ConfigCheck ConfigCheck::Sub(const std::string& key) const {
  ConfigCheck sub = *this;
  sub.prefix_ = prefix_ + key + ".";
  return sub;
}

ConfigCheck ConfigCheck::Sub(const std::string& key, size_t index) const {
  ConfigCheck sub = *this;
  sub.prefix_ = prefix_ + key + "[" + std::to_string(index) + "].";
  return sub;
}

Status ConfigCheck::ToStatus(const std::string& what) const {
  if (ok()) return {};
  const ConfigProblem& p = **first_;
  return Error{what + ": key '" + p.key_path + "': " + p.problem};
}

std::string NumberText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string PositionLimitProblem(double x, double y, double z) {
  if (!(std::isfinite(x) && std::isfinite(y) && std::isfinite(z))) return "must be finite";
  const double far = std::max({std::abs(x), std::abs(y), std::abs(z)});
  if (far <= kMaxPositionM) return "";
  return "lies " + NumberText(far) + " m from the origin, beyond the " + NumberText(kMaxPositionM) +
         " m (10,000 km) any position may lie";
}

std::string AngleLimitProblem(double roll_deg, double pitch_deg, double yaw_deg) {
  const double rpy_deg[3] = {roll_deg, pitch_deg, yaw_deg};
  for (double a : rpy_deg) {
    if (!(std::abs(a) <= kMostAngleDeg)) {
      return "angles must be within +-" + NumberText(kMostAngleDeg) + " deg, got [" +
             NumberText(rpy_deg[0]) + ", " + NumberText(rpy_deg[1]) + ", " +
             NumberText(rpy_deg[2]) + "]";
    }
  }
  return "";
}

}  // namespace lt
