#include "lidartwin/bench/scene_bench.h"

#include <algorithm>

#include "lidartwin/bench/bench_rays.h"
#include "lidartwin/bench/city_scene.h"
#include "lidartwin/sim/ray_caster.h"
#if LT_WITH_CUDA
#include "lidartwin/sim/cuda_backend.h"
#endif

namespace lt::bench {

Expected<Scene> LoadSceneOrMesh(const std::filesystem::path& file, const MeshLoader& meshes) {
  const std::string ext = file.extension().string();
  if (ext == ".yaml" || ext == ".yml") return LoadScene(file, meshes);
  if (!meshes)
    return Error{file.string() + ": this build reads no mesh files (built without Open3D)"};
  auto mesh = meshes(file);
  if (!mesh.ok()) return mesh.error();
  Scene scene;
  SceneObject object;
  object.name = file.stem().string();
  object.type = "mesh";
  object.mesh = std::move(*mesh);
  scene.objects.push_back(std::move(object));
  return scene;
}

Expected<SceneTraceReport> RunSceneTraceBench(const Scene& scene, const SensorProfile& os0,
                                              const physics::Vec3<double>& sensor, int repeats,
                                              unsigned threads, bool with_embree) {
  SceneTraceReport report;
  report.triangles = PlacedTriangleCount(scene);  // instances flattened, as the soup is
  if (report.triangles == 0) return Error{"the scene has no triangles to trace"};
#if LT_WITH_CUDA
  if (Status s = CudaAvailable(); !s.ok())
    report.why_no_gpu = s.message();
  else
    report.device = CudaDeviceName();
#else
  report.why_no_gpu = "this build has no CUDA backend";
#endif
  const std::vector<float> soup = TriangleSoup(scene);
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (size_t i = 0; i < soup.size(); ++i) {
    lo[i % 3] = std::min(lo[i % 3], double(soup[i]));
    hi[i % 3] = std::max(hi[i % 3], double(soup[i]));
  }
  const std::unique_ptr<RayCaster> caster = with_embree ? RayCaster::Create(scene) : nullptr;
  if (with_embree && !caster) return Error{"Embree could not build the scene (out of memory?)"};
  if (Status s = MeasureRays(soup, CoherentRays(os0, sensor), caster.get(), true, repeats, threads,
                             report.coherent, &report.lbvh_coherent_rays_per_s,
                             &report.sah_coherent_rays_per_s);
      !s.ok())
    return s.error();
  if (Status s =
          MeasureRays(soup, RandomRays(lo, hi, 1u << 20), caster.get(), false, repeats, threads,
                      report.random, &report.lbvh_random_rays_per_s, &report.sah_random_rays_per_s);
      !s.ok())
    return s.error();
  return report;
}

}  // namespace lt::bench
