// The frame's road spray (issue 43, physics/spray.h, spray_echoes.h): which objects spray, and
// the clusters their plumes hold during a frame, made on the host for both backends.
#pragma once

#include <cstdint>
#include <vector>

#include "internal/spray_echoes.h"
#include "lidartwin/physics/vec3.h"
#include "lidartwin/sim/scene.h"

namespace lt {

// An object that throws up spray: its box at scene time 0 (world), its velocity, the scene
// object it is, and the frame object its plume's echoes are labelled with.
struct SpraySource {
  uint32_t scene_object;
  uint32_t label_object;
  physics::Vec3<double> lo, hi;  // its axis-aligned box at t = 0 [m]
  physics::Vec3<double> velocity_m_s;
};

// The scene's spraying objects, in scene order: those moving faster than the spray's onset
// (physics::kSprayOnsetKmh, horizontally) when the weather has spray; none otherwise. Their
// plumes' labels are the frame objects first_label, first_label + 1, ... (AppendSprayObjects).
std::vector<SpraySource> SpraySources(const Scene& scene, uint32_t first_label);

// Clusters one plume holds at most; past it the oldest are left out (10 mm of water at 130
// km/h keeps its last 2.4 s, 2 mm its last 10 s).
inline constexpr uint32_t kMostSprayClustersPerPlume = 4096;

// The clusters alive during the frame [start_s, start_s + period_s] of every source, drawn
// from the seed (the same cluster in every frame it lives through: keys by spawn index, not
// frame), into `clusters` and `plumes`; the view points at them (the GPU replaces the
// pointers with its copies).
SprayView FrameSpray(const std::vector<SpraySource>& sources, const SprayDescription& spray,
                     uint64_t seed, double start_s, double period_s,
                     std::vector<SprayCluster>& clusters, std::vector<SprayPlume>& plumes);

}  // namespace lt
