// One closest-hit query: what the beam pipeline asks of a ray caster (and, traced ahead in
// packets, what the CPU backend hands Embree in batches).
#pragma once

#include "lidartwin/physics/vec3.h"

namespace lt {

struct RayQuery {
  physics::Vec3<double> origin;
  physics::Vec3<double> unit_direction;
  double t_min = 0, t_max = 0;  // [m] along the direction
};

}  // namespace lt
