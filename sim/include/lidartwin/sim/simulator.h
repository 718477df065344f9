// The CPU reference simulator: scene + sensor + trajectory -> frames.
#pragma once

#include <cstdint>
#include <memory>

#include "lidartwin/sim/beam_pipeline.h"
#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/ray_caster.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/trajectory.h"

namespace lt {

struct SimulationOptions {
  uint64_t seed = 0;
  unsigned threads = 0;  // 0: all hardware threads
  // Moving objects are placed once per slice of the frame's beams (configs/README.md).
  uint32_t motion_slices = 16;
  // CUDA: beams simulated per kernel launch and triangles per BVH (0: what fits in the free
  // GPU memory). Frames and scenes larger than that run in batches.
  uint32_t max_beams_per_batch = 0;
  uint32_t max_triangles_per_bvh = 0;
};

class CpuSimulator {
 public:
  // scene, profile and trajectory must outlive the simulator.
  CpuSimulator(const Scene& scene, const SensorProfile& profile, const Trajectory& trajectory,
               SimulationOptions options);
  ~CpuSimulator();
  // Frame k covers [start + k T, start + (k + 1) T), T the profile's frame period.
  // Not to be called concurrently on one simulator: moving objects are moved in place.
  Frame Simulate(uint32_t frame_index);
  // Rays cast for one frame (one per beam in this tier).
  uint64_t RaysPerFrame() const;

 private:
  const Scene& scene_;
  const SensorProfile& profile_;
  const Trajectory& trajectory_;
  SimulationOptions options_;
  std::unique_ptr<RayCaster> caster_;
  std::vector<ObjectInfo> objects_;  // R0 at the sensor wavelength and labels, per object
};

}  // namespace lt
