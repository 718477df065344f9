#include "lidartwin/datasets/simulation_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "lidartwin/base/cancellation.h"
#include "lidartwin/base/comma_list.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/frame_output.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/datasets/intensity_unit.h"
#include "lidartwin/sim/simulator.h"
#include "lidartwin/sim/weather_check.h"

namespace lt {

void SimulationJob::Check(ConfigCheck& check) const {
  if (sensor.empty()) check.Fail("sensor", "must name a sensor profile");
  if (scene.empty()) check.Fail("scene", "must name a scene");
  if (frames < 1 || frames > 1000000)
    check.Fail("frames", "must be in 1..1000000, got " + std::to_string(frames));
  SimulationOptions options;
  options.motion_slices = motion_slices;
  options.waveform_beams = waveform_beams;
  options.Check(check);
  if (auto b = ParseBackend(backend); !b.ok()) check.Fail("backend", b.message());
  const std::string ext = out.extension().string();
  if (const std::string unknown = UnknownOutputExtension(out); !unknown.empty())
    check.Fail("out", out.string() + ": " + unknown);
  if (!waveform_beams.empty() && ext != ".h5" && ext != ".hdf5") {
    check.Fail("out", out.string() + ": waveform records are written to HDF5 only (.h5)");
  }
}

Status SimulationJob::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("simulation job");
}

Expected<std::unique_ptr<Simulator>> CreateSimulatorLike(const LoadedSimulation& loaded,
                                                         const SimulationJob& job) {
  auto backend = ParseBackend(job.backend);
  if (!backend.ok()) return backend.error();
  SimulationOptions options;
  options.seed = job.seed;
  options.threads = job.threads;
  options.motion_slices = job.motion_slices;
  options.waveform_beams = job.waveform_beams;
  return CreateSimulator(*backend, loaded.scene, loaded.profile, loaded.trajectory, options);
}

Expected<std::unique_ptr<LoadedSimulation>> LoadSimulation(const SimulationJob& job) {
  auto backend = ParseBackend(job.backend);
  if (!backend.ok()) return backend.error();
  if (Status s = BackendAvailable(*backend); !s.ok()) {
    return OptionError("backend", "backend " + job.backend + ": " + s.message());
  }
  // The device starts while the profile and the scene load (a CUDA context took 0.3 s of a
  // 1.7-second street export on the H200, the street's 2.2 M triangles about 0.15 s).
  std::future<void> started = StartBackend(*backend);
  auto profile = LoadSensorProfile(job.sensor);
  if (!profile.ok()) return profile.error();
  auto scene = LoadScene(job.scene, job.mesh_loader);
  if (!scene.ok()) return scene.error();
  for (const auto& o : scene->objects) {
    if (o.degenerate_triangles_dropped > 0) {
      std::fprintf(stderr, "warning: %s: object '%s': dropped %zu degenerate triangles\n",
                   job.scene.c_str(), o.name.c_str(), o.degenerate_triangles_dropped);
    }
  }
  if (Status s = CheckWeather(*profile, scene->description); !s.ok())
    return Error{job.scene.string() + ": " + s.message()};
  auto owned = std::make_unique<LoadedSimulation>();
  LoadedSimulation& loaded = *owned;
  if (job.trajectory) {
    auto text = ReadTextFile(*job.trajectory, " trajectory");
    if (!text.ok()) return text.error();
    auto t = ParseTrajectory(*text, *job.trajectory);
    if (!t.ok()) return t.error();
    loaded.trajectory = std::move(t.value());
    loaded.trajectory_text = std::move(text.value());
  }
  loaded.profile = std::move(profile.value());
  loaded.scene = std::move(scene.value());
  started.wait();
  auto simulator = CreateSimulatorLike(loaded, job);
  if (!simulator.ok()) return simulator.error();
  loaded.simulator = std::move(simulator.value());
  DatasetInfo& info = loaded.info;
  info.software_version = job.software_version;
  info.sensor_name = loaded.profile.name;
  info.sensor_profile_yaml = loaded.profile.source_text;
  info.scene_yaml = loaded.scene.source_text;
  info.backend = job.backend;
  info.seed = job.seed;
  info.wavelength_nm = loaded.profile.wavelength_nm;
  const DetectorConfig& detector = loaded.profile.detector;
  info.intensity_unit = detector.kind == DetectorKind::kWaveform
                            ? WaveformIntensityUnit(detector.waveform.intensity_max)
                            : kIntensityPercent;
  for (const auto& m : loaded.scene.materials.materials)
    info.material_names.push_back(m.name);
  return owned;
}

Expected<SimulationResult> RunSimulation(const SimulationJob& job) {
  if (Status s = job.Validate(); !s.ok()) return s.error();
  auto loaded = LoadSimulation(job);
  if (!loaded.ok()) return loaded.error();
  SimulationResult result;
  Simulator& simulator = *(*loaded)->simulator;
  const uint64_t rays_per_frame = simulator.RaysPerFrame();
  auto output = FrameOutput::Open(job.out, (*loaded)->info);
  if (!output.ok()) return output.error();
  for (uint32_t k = 0; k < job.frames; ++k) {
    if (Status s = CheckCancelled(); !s.ok()) return s.error();
    const auto t0 = std::chrono::steady_clock::now();
    auto simulated = simulator.Simulate(k);
    if (!simulated.ok()) return simulated.error();
    Frame frame = std::move(simulated.value());
    result.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.rays += rays_per_frame;
    result.points += frame.size();
    if (job.on_frame) job.on_frame(k + 1, result.rays);
    // Streamed: the writer has the frame; only callers that need every frame keep them.
    if (Status s = output->Write(frame); !s.ok()) return s.error();
    if (job.keep_frames) result.frames.push_back(std::move(frame));
  }
  if (Status s = output->Close(); !s.ok()) return s.error();
  (*loaded)->simulator.reset();  // it refers to the profile and scene that move out now
  result.profile = std::move((*loaded)->profile);
  result.scene = std::move((*loaded)->scene);
  result.frames_written = output->frames_written();
  result.written = output->written();
  return result;
}

Expected<std::vector<uint32_t>> ParseBeamList(const std::string& text, size_t max_beams) {
  auto number = [](const std::string& t, uint32_t& out) {
    if (t.empty() || t.size() > 10 || t.find_first_not_of("0123456789") != std::string::npos)
      return false;
    const uint64_t v = std::stoull(t);
    if (v > UINT32_MAX) return false;
    out = static_cast<uint32_t>(v);
    return true;
  };
  std::set<uint32_t> beams;
  for (const std::string& item : CommaSeparated(text)) {
    const size_t dash = item.find('-');
    uint32_t lo = 0, hi = 0;
    const bool ok = dash == std::string::npos
                        ? number(item, lo) && number(item, hi)
                        : number(item.substr(0, dash), lo) && number(item.substr(dash + 1), hi);
    if (!ok) return Error{"'" + item + "' is not a beam number or a range A-B"};
    if (hi < lo) return Error{"the range '" + item + "' falls"};
    if (uint64_t{hi} - lo + beams.size() >= max_beams) {
      return Error{"more than " + std::to_string(max_beams) + " beams"};
    }
    for (uint64_t b = lo; b <= hi; ++b)
      beams.insert(static_cast<uint32_t>(b));
  }
  return std::vector<uint32_t>(beams.begin(), beams.end());
}

Expected<SimulationResult> RunSimulationWith(const SimulationRunner& runner, SimulationJob job) {
  return runner ? runner(std::move(job)) : RunSimulation(job);
}

}  // namespace lt
