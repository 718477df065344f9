// How much one beam holds: shared by the beam pipeline and the fog's slabs.
#pragma once

#include <cstdint>

namespace lt {

// Contributions one beam can hold: sub_rays * max_surfaces is checked against it when a
// profile is loaded; the particles' reserve fits beside them (ParticleSlots), the fog's slabs
// in what is left (BeamSlots).
inline constexpr uint32_t kMaxContributions = 128;

}  // namespace lt
