// What the workflows that read a recording with poses check alike (reproduce, reconstruct):
// the reconstruction's options and the poses' options, each error led by its key.
#pragma once

#include <fmt/core.h>

#include <string>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/status.h"
#include "lidartwin/reconstruct/reconstruction.h"

namespace lt::jobs {

inline Status CheckReconstructionAndPoses(const ReconstructOptions& reconstruct,
                                          double pose_fraction, bool static_sensor,
                                          const std::string& poses) {
  ConfigCheck check;
  reconstruct.Check(check);
  if (!check.ok())
    return OptionError(check.problem()->key_path,
                       check.problem()->key_path + ": " + check.problem()->problem);
  if (!(pose_fraction >= 0 && pose_fraction <= 1))
    return OptionError("pose_fraction",
                       fmt::format("pose_fraction: must be in 0..1, got {}", pose_fraction));
  if (static_sensor && !poses.empty())
    return OptionError("static_sensor", "static_sensor: a static sensor takes no poses file");
  return {};
}

}  // namespace lt::jobs
