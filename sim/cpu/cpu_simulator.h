// The CPU reference backend (private to sim/; callers use CreateSimulator).
#pragma once

#include <memory>
#include <vector>

#include "internal/beam_pipeline.h"
#include "internal/fog_table.h"
#include "internal/spray_setup.h"
#include "internal/waveform_setup.h"
#include "lidartwin/sim/ray_caster.h"
#include "lidartwin/sim/simulator.h"

namespace lt {

// A frame's context on the host: the profile's and trajectory's own tables, `objects` as
// ObjectInfos gives them, the waveform detector's tables (all outlive the context); the
// scene's sunlight and weather from `scene` (none where null).
FrameContext CpuFrameContext(const SensorProfile& profile, const Trajectory& trajectory,
                             const std::vector<ObjectInfo>& objects, uint64_t seed,
                             uint32_t frame_index, const SceneDescription* scene = nullptr,
                             const WaveformTables* waveform = nullptr);

class CpuSimulator final : public Simulator {
 public:
  CpuSimulator(const Scene& scene, const SensorProfile& profile, const Trajectory& trajectory,
               SimulationOptions options);
  ~CpuSimulator() override;
  Expected<Frame> Simulate(uint32_t frame_index) override;
  uint64_t RaysPerFrame() const override;
  Backend backend() const override { return Backend::kCpu; }
  // False when the ray caster could not be built (Embree out of memory); Simulate then fails.
  bool ready() const { return caster_ != nullptr; }

 private:
  const Scene& scene_;
  const SensorProfile& profile_;
  const Trajectory trajectory_;  // a copy: small, and callers pass temporaries
  SimulationOptions options_;
  std::unique_ptr<RayCaster> caster_;
  std::vector<ObjectInfo> objects_;  // R0 at the sensor wavelength, response and labels
  std::vector<RasterPixel> raster_;  // the frame's angular raster (raster gathering)
  WaveformTables waveform_;          // the waveform detector's circuit spectrum and twiddles
  // Road spray: the objects that throw it up, and the frame's plumes and clusters
  // (FrameSpray), which FrameContext::spray points at.
  std::vector<SpraySource> spray_sources_;
  std::vector<SprayPlume> spray_plumes_;
  std::vector<SprayCluster> spray_clusters_;
  FogTableCache fog_table_;  // the threshold detector's table of the fog's slabs
};

}  // namespace lt
