#include "simulation_job.h"

#include <chrono>
#include <cstdio>

#include "frame_output.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/sim/simulator.h"
#include "progress.h"
#if LT_WITH_CUDA
#include "lidartwin/sim/cuda_backend.h"
#endif
#if LT_WITH_OPEN3D
#include "lidartwin/datasets/open3d_mesh_loader.h"
#endif

namespace lt::cli {

MeshLoader BuiltInMeshLoader() {
#if LT_WITH_OPEN3D
  return LoadMeshWithOpen3d;
#else
  return {};
#endif
}

Expected<SimulationResult> RunSimulation(const SimulationJob& job) {
  if (job.backend != "cpu" && job.backend != "cuda") {
    return Error{"--backend " + job.backend + ": unknown backend (expected cpu or cuda)"};
  }
#if !LT_WITH_CUDA
  if (job.backend == "cuda") {
    return Error{
        "--backend cuda: this build has no CUDA backend (configure with nvcc present "
        "or -DLT_WITH_CUDA=ON)"};
  }
#endif
  if (job.frames == 0) return Error{"--frames must be at least 1"};
  const std::string ext = job.out.extension().string();
  if (ext != ".h5" && ext != ".hdf5" && ext != ".ply" && ext != ".pcd") {
    return Error{"--out " + job.out.string() + ": unknown extension '" + ext +
                 "' (expected .h5, .hdf5, .ply or .pcd)"};
  }
  auto profile = LoadSensorProfile(job.sensor);
  if (!profile.ok()) return profile.error();
  auto scene = LoadScene(job.scene, BuiltInMeshLoader());
  if (!scene.ok()) return scene.error();
  for (const auto& o : scene->objects) {
    if (o.degenerate_triangles_dropped > 0) {
      std::fprintf(stderr, "warning: %s: object '%s': dropped %zu degenerate triangles\n",
                   job.scene.c_str(), o.name.c_str(), o.degenerate_triangles_dropped);
    }
  }
  Trajectory trajectory = Trajectory::Static();
  if (job.trajectory) {
    auto t = LoadTrajectory(*job.trajectory);
    if (!t.ok()) return t.error();
    trajectory = std::move(t.value());
  }

  SimulationResult result;
  result.profile = std::move(profile.value());
  result.scene = std::move(scene.value());
  SimulationOptions options;
  options.seed = job.seed;
  options.threads = job.threads;
  options.motion_slices = job.motion_slices;
  std::unique_ptr<CpuSimulator> cpu;
#if LT_WITH_CUDA
  std::unique_ptr<CudaSimulator> gpu;
  if (job.backend == "cuda") {
    auto created = CudaSimulator::Create(result.scene, result.profile, trajectory, options);
    if (!created.ok()) return created.error();
    gpu = std::move(created.value());
  }
#endif
  if (job.backend == "cpu") {
    cpu = std::make_unique<CpuSimulator>(result.scene, result.profile, trajectory, options);
  }
  const uint64_t rays_per_frame = result.profile.RaysPerFrame();
  auto simulate = [&](uint32_t k) -> Expected<Frame> {
#if LT_WITH_CUDA
    if (gpu) return gpu->Simulate(k);
#endif
    return cpu->Simulate(k);
  };

  DatasetInfo info;
  info.software_version = LT_VERSION;
  info.sensor_name = result.profile.name;
  info.sensor_profile_yaml = result.profile.source_text;
  info.scene_yaml = result.scene.source_text;
  info.backend = job.backend;
  info.seed = job.seed;
  info.wavelength_nm = result.profile.wavelength_nm;
  auto output = FrameOutput::Open(job.out, job.frames, info);
  if (!output.ok()) return output.error();
  Progress progress("simulate", job.frames);
  for (uint32_t k = 0; k < job.frames; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    auto simulated = simulate(k);
    if (!simulated.ok()) return simulated.error();
    Frame frame = std::move(simulated.value());
    result.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.rays += rays_per_frame;
    progress.Update(k + 1, result.rays);
    if (Status s = output->Write(frame, k); !s.ok()) return s.error();
    result.frames.push_back(std::move(frame));
  }
  progress.Finish();
  if (Status s = output->Close(); !s.ok()) return s.error();
  return result;
}

}  // namespace lt::cli
