// One lane of an Embree 8-wide ray packet, filled for a closest-hit query: shared by the CPU
// backend's batch queries and the bench's peer, which otherwise set the same dozen fields.
#pragma once

#include <embree3/rtcore.h>

namespace lt {

inline void SetPacketLane(RTCRayHit8& rh, int k, float ox, float oy, float oz, float dx, float dy,
                          float dz, float t_min, float t_max) {
  rh.ray.org_x[k] = ox;
  rh.ray.org_y[k] = oy;
  rh.ray.org_z[k] = oz;
  rh.ray.dir_x[k] = dx;
  rh.ray.dir_y[k] = dy;
  rh.ray.dir_z[k] = dz;
  rh.ray.tnear[k] = t_min;
  rh.ray.tfar[k] = t_max;
  rh.ray.mask[k] = 0xFFFFFFFFu;
  rh.ray.flags[k] = 0;
  rh.ray.time[k] = 0;
  rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
  rh.hit.instID[0][k] = RTC_INVALID_GEOMETRY_ID;
}

}  // namespace lt
