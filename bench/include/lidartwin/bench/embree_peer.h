// Embree at its best, the GPU tracer's peer (issue 14): a high-quality build of the triangle
// soup (RTC_BUILD_QUALITY_HIGH, no robust flag), 8-wide ray packets (rtcIntersect8) with a
// coherent context where the rays are coherent, on every thread; beside it the bench keeps
// the figure of Embree as the CPU backend calls it (8-wide packets too, but on its ROBUST
// scene, with its double refinement), so both are reported from the same rays in the same run.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt::bench {

struct EmbreePeerHits {
  double rays_per_s = 0;          // median of the repeats
  std::vector<int32_t> triangle;  // closest triangle of each ray in the soup, -1: none
  std::vector<float> distance;    // its distance along the (unit) direction
  uint64_t hits = 0;
};

// soup: 9 floats a triangle; origins, directions: 3 floats a ray. Rays are traced on `threads`
// threads (0: every hardware thread) in packets of 8, `repeats` times (the timing is the
// median; hits are from the last).
Expected<EmbreePeerHits> EmbreePacketClosestHits(const std::vector<float>& soup,
                                                 const std::vector<float>& origins,
                                                 const std::vector<float>& directions, float t_min,
                                                 float t_max, bool coherent, unsigned threads,
                                                 int repeats);

}  // namespace lt::bench
