// The simulator interface (DESIGN.md sec. 4): scene + sensor + trajectory -> frames, on the
// backend the caller names. Callers never see which backends this build has; asking for one
// it lacks is an Error that says so.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/trajectory.h"

namespace lt {

struct SimulationOptions {
  uint64_t seed = 0;
  unsigned threads = 0;  // CPU: 0 means every core the process may use (UsableCores)
  // Moving objects are placed once per slice of the frame's beams (configs/README.md).
  uint32_t motion_slices = 16;
  // CUDA: beams simulated per kernel launch and triangles per BVH (0: what fits in the free
  // GPU memory). Frames and scenes larger than that run in batches.
  uint32_t max_beams_per_batch = 0;
  uint32_t max_triangles_per_bvh = 0;
  // Waveform detector: beams whose voltage records each frame carries (Frame::waveform_*),
  // sorted and unique, each below the profile's beam count; at most kMaxWaveformBeams.
  std::vector<uint32_t> waveform_beams{};
  static constexpr size_t kMaxWaveformBeams = 4096;

  // motion_slices in 1..100000 (the other options take any value). CreateSimulator calls it.
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

enum class Backend { kCpu, kCuda };

// "cpu" or "cuda"; anything else is an error naming the value.
Expected<Backend> ParseBackend(const std::string& name);
const char* BackendName(Backend backend);
// OK when this build has the backend and, for CUDA, a usable GPU; otherwise why not.
Status BackendAvailable(Backend backend);
// Starts the backend's device on a thread of its own (CUDA: its context, 0.1-0.3 s on an H200),
// so that a caller loads its scene meanwhile; wait for it before CreateSimulator. Nothing for
// the CPU backend. A failure shows when the simulator is made.
std::future<void> StartBackend(Backend backend);

class Simulator {
 public:
  virtual ~Simulator() = default;
  // Frame k covers [start + k T, start + (k + 1) T), T the profile's frame period. Not to be
  // called concurrently on one simulator: moving objects are moved in place.
  virtual Expected<Frame> Simulate(uint32_t frame_index) = 0;
  // Before a Simulate call: the frame the call after it will ask for, where the caller knows it
  // (a thread that takes frames as they come), so that a simulator may start that frame early;
  // nullopt where the caller knows that it does not know (start nothing). Without a call the
  // CUDA simulator expects the stride of its last two calls. A hint only: any frame may still
  // be asked for.
  virtual void ExpectFollowing(std::optional<uint32_t> /*frame_index*/) {}
  // Rays traced per frame (sub-rays included; surfaces behind glass or foliage not counted).
  virtual uint64_t RaysPerFrame() const = 0;
  virtual Backend backend() const = 0;
};

// scene and profile must outlive the simulator; the trajectory is copied.
Expected<std::unique_ptr<Simulator>> CreateSimulator(Backend backend, const Scene& scene,
                                                     const SensorProfile& profile,
                                                     const Trajectory& trajectory,
                                                     SimulationOptions options);

}  // namespace lt
