// What both backends prepare the same way around the per-beam pipeline: per-object data for
// the beams, and a frame's header (times, poses) before its points are appended.
#pragma once

#include <cstdint>
#include <vector>

#include "internal/beam_pipeline.h"
#include "lidartwin/base/frame.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/trajectory.h"

namespace lt {

// The angular raster a profile's beams gather from (pixels not set): the beams' azimuth and
// elevation span widened by the footprint's reach, at the profile's resolution; the full
// circle when that span wraps. An error when it would exceed kMaxRasterPixels.
inline constexpr uint64_t kMaxRasterPixels = uint64_t{64} << 20;
Expected<AngularRasterView> PlanRaster(const SensorProfile& profile);

// Raster gathering traces one raster per frame from one pose: the sensor and the scene must
// stand still. An error naming the reason otherwise.
Status CheckRasterGather(const SensorProfile& profile, const Scene& scene,
                         const Trajectory& trajectory);

// The return-signal detectors' chain as the beam pipeline takes it, with the scene's sunlight
// and weather; the rain's and snow's echoes are labelled with objects first_weather_object
// on (the scene's object count and the spray's plumes: ObjectInfos puts them last).
SignalChain FrameSignalChain(const SensorProfile& profile, const SceneDescription& scene,
                             uint32_t first_weather_object);

// R0 at the wavelength, surface response and labels of every scene object, in object order,
// then the weather's (AppendWeatherObjects).
std::vector<ObjectInfo> ObjectInfos(const Scene& scene, double wavelength_nm);

// A contiguous run of a frame's beams during which moving objects stay put, at time_s.
struct BeamSlice {
  uint32_t begin, end;
  double time_s;
};
// The frame's beams in `slices` equal runs (one when the scene has no moving objects), each
// placed at the mean of its first and last beam's firing time; beam times rise with the beam
// index in every scan pattern, so a run covers an interval of the frame.
std::vector<BeamSlice> MotionSlices(const physics::ScanPattern<double>& scan, uint32_t beams,
                                    double frame_start_s, uint32_t slices);

// An empty frame covering [start_s, start_s + period_s) with its poses on the trajectory.
Frame FrameHeader(uint32_t index, double start_s, double period_s, const Trajectory& trajectory);

}  // namespace lt
