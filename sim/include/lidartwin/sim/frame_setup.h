// What both backends prepare the same way around the per-beam pipeline: per-object data for
// the beams, and a frame's header (times, poses) before its points are appended.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/sim/beam_pipeline.h"
#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/trajectory.h"

namespace lt {

// R0 at the wavelength and labels of every scene object, in object order.
std::vector<ObjectInfo> ObjectInfos(const Scene& scene, double wavelength_nm);

// An empty frame covering [start_s, start_s + period_s) with its poses on the trajectory.
Frame FrameHeader(uint32_t index, double start_s, double period_s, const Trajectory& trajectory);

}  // namespace lt
