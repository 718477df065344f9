// `lidartwin bench --scene FILE` (issue 14): the GPU bench's rays on a user's own scene, so
// anyone can check the tracer's figures on their data: an OS0-128's beams with 8 sub-rays from
// a sensor position, and 2^20 random rays inside the scene's bounding box, traced by the GPU
// (when there is one), Embree at its best and Embree as the CPU backend calls it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "lidartwin/base/status.h"
#include "lidartwin/bench/gpu_bench.h"
#include "lidartwin/physics/vec3.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::bench {

struct SceneTraceReport {
  std::string why_no_gpu;  // empty when the GPU figures were measured
  std::string device;
  uint64_t triangles = 0;
  RayFigures coherent, random;
  double lbvh_coherent_rays_per_s = 0, lbvh_random_rays_per_s = 0;
  double sah_coherent_rays_per_s = 0, sah_random_rays_per_s = 0;  // GPU binned-SAH trees
};

// A scene YAML as the simulator reads it, or one mesh file (PLY, OBJ) through `meshes` as a
// scene of one object; an error when `meshes` is empty (a build without Open3D).
Expected<Scene> LoadSceneOrMesh(const std::filesystem::path& file, const MeshLoader& meshes);

Expected<SceneTraceReport> RunSceneTraceBench(const Scene& scene, const SensorProfile& os0,
                                              const physics::Vec3<double>& sensor, int repeats,
                                              unsigned threads, bool with_embree);

}  // namespace lt::bench
