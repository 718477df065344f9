// The one place that knows which backends this build has (DESIGN.md sec. 4): callers name a
// backend and get a Simulator or an Error.
#include "cpu/cpu_simulator.h"
#include "lidartwin/sim/simulator.h"
#include "lidartwin/sim/weather_check.h"
#if LT_WITH_CUDA
#include "lidartwin/sim/cuda_backend.h"
#endif

namespace lt {

Expected<Backend> ParseBackend(const std::string& name) {
  if (name == "cpu") return Backend::kCpu;
  if (name == "cuda") return Backend::kCuda;
  return Error{"unknown backend '" + name + "' (expected cpu or cuda)"};
}

void SimulationOptions::Check(ConfigCheck& check) const {
  if (motion_slices < 1 || motion_slices > 100000) {
    check.Fail("motion_slices", "must be in 1..100000 (moving objects placed per frame), got " +
                                    std::to_string(motion_slices));
  }
  if (waveform_beams.size() > kMaxWaveformBeams) {
    check.Fail("waveform_beams", std::to_string(waveform_beams.size()) + " beams; at most " +
                                     std::to_string(kMaxWaveformBeams) +
                                     " records a frame are kept");
  }
  for (size_t k = 1; k < waveform_beams.size(); ++k) {
    if (waveform_beams[k] <= waveform_beams[k - 1]) {
      check.Fail("waveform_beams", "must rise, each beam once");
      break;
    }
  }
}

namespace {

// Records of selected beams need the waveform detector and beams the profile has.
Status CheckWaveformBeams(const SimulationOptions& o, const SensorProfile& p) {
  if (o.waveform_beams.empty()) return {};
  if (p.detector.kind != DetectorKind::kWaveform) {
    return Error{"waveform records (waveform_beams) need the waveform detector; " + p.name +
                 "'s is not (detector.type: waveform)"};
  }
  if (o.waveform_beams.back() >= p.BeamCount()) {
    return Error{"waveform records (waveform_beams): beam " +
                 std::to_string(o.waveform_beams.back()) + " is beyond " + p.name + "'s " +
                 std::to_string(p.BeamCount()) + " beams (0.." + std::to_string(p.BeamCount() - 1) +
                 ")"};
  }
  return {};
}

}  // namespace

Status SimulationOptions::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("simulation options");
}

const char* BackendName(Backend backend) {
  return backend == Backend::kCuda ? "cuda" : "cpu";
}

Status BackendAvailable(Backend backend) {
  if (backend == Backend::kCpu) return {};
#if LT_WITH_CUDA
  return CudaAvailable();
#else
  return Error{"this build has no CUDA backend (configure with nvcc present or -DLT_WITH_CUDA=ON)"};
#endif
}

std::future<void> StartBackend(Backend backend) {
#if LT_WITH_CUDA
  if (backend == Backend::kCuda) {
    try {
      return std::async(std::launch::async, CudaStartContext);
    } catch (const std::exception&) {  // no thread: the first CUDA call starts it instead
    }
  }
#endif
  (void)backend;
  std::promise<void> none;
  none.set_value();
  return none.get_future();
}

Expected<std::unique_ptr<Simulator>> CreateSimulator(Backend backend, const Scene& scene,
                                                     const SensorProfile& profile,
                                                     const Trajectory& trajectory,
                                                     SimulationOptions options) {
  if (Status s = options.Validate(); !s.ok()) return s.error();
  if (Status s = CheckWaveformBeams(options, profile); !s.ok()) return s.error();
  if (Status s = CheckWeather(profile, scene.description); !s.ok()) return s.error();
  if (backend == Backend::kCpu) {
    auto cpu = std::make_unique<CpuSimulator>(scene, profile, trajectory, options);
    if (!cpu->ready()) {
      return Error{"the CPU backend could not build its ray caster (Embree) for " +
                   std::to_string(scene.TriangleCount()) + " triangles: out of memory"};
    }
    return std::unique_ptr<Simulator>(std::move(cpu));
  }
#if LT_WITH_CUDA
  auto gpu = CudaSimulator::Create(scene, profile, trajectory, options);
  if (!gpu.ok()) return gpu.error();
  return std::unique_ptr<Simulator>(std::move(gpu.value()));
#else
  return OptionError("backend", "backend cuda: " + BackendAvailable(backend).message());
#endif
}

}  // namespace lt
