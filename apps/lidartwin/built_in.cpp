#include "built_in.h"

#include "lidartwin/base/terminal_progress.h"
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

Expected<SimulationResult> RunSimulationJob(SimulationJob job) {
  Progress progress("simulate", job.frames);
  job.mesh_loader = BuiltInMeshLoader();
  job.software_version = LT_VERSION;
  job.on_frame = [&progress](uint32_t frames, uint64_t rays) { progress.Update(frames, rays); };
  auto result = lt::RunSimulation(job);
  progress.Finish();
  return result;
}

}  // namespace lt::cli
