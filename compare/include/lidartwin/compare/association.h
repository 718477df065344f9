// Pairing real and simulated points (DESIGN.md sec. 6): by beam and column where both frames
// carry the same beam identities, otherwise by angular nearest neighbour from the common
// sensor origin, otherwise by 3-D nearest neighbour. Pairs are one-to-one.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"

namespace lt::compare {

enum class AssociationMethod { kAuto, kBeam, kAngular, kNearest3d };

const char* AssociationMethodName(AssociationMethod m);
Expected<AssociationMethod> ParseAssociationMethod(const std::string& text);

struct AssociationOptions {
  AssociationMethod method = AssociationMethod::kAuto;
  // Angular gate: twice the OS0-128's column spacing (360/1024 deg) so a real point finds its
  // simulated twin one column off, but not a different surface two beams away.
  double max_angle_deg = 0.7;
  // 3-D gate.
  double max_distance_m = 0.5;
  // Beam association is accepted (in auto mode) only when paired points point the same way:
  // the median angle between paired directions must be below this. Catches two frames whose
  // channel/column numbers mean different things (another sensor or another profile).
  double beam_direction_tolerance_deg = 1.0;

  // The three gates positive and finite, max_angle_deg at most 180 (keys by field). Associate
  // calls it.
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

struct Association {
  AssociationMethod method = AssociationMethod::kAuto;  // the one used
  std::string reason;                                   // why auto chose it
  std::vector<std::pair<uint32_t, uint32_t>> pairs;     // (real index, sim index)
};

Expected<Association> Associate(const Frame& real, const Frame& sim,
                                const AssociationOptions& options);

}  // namespace lt::compare
