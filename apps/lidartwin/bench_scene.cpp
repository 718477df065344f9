// lidartwin bench --scene FILE: the GPU bench's rays on a user's scene (bench/scene_bench.h).
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "bench_memory.h"
#include "built_in.h"
#include "lidartwin/bench/scene_bench.h"
#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::cli {
namespace {

nlohmann::json RaysJson(const bench::RayFigures& r, double lbvh, double sah) {
  nlohmann::json j = RayFiguresJson(r);
  j["gpu_lbvh_rays_per_s"] = lbvh;
  j["gpu_binned_sah_rays_per_s"] = sah;
  return j;
}

}  // namespace

nlohmann::json RayFiguresJson(const bench::RayFigures& r) {
  return {{"rays", r.rays},
          {"gpu_rays_per_s", r.gpu_rays_per_s},
          {"embree_rays_per_s", r.embree_rays_per_s},
          {"embree_best_rays_per_s", r.embree_best_rays_per_s},
          {"gpu_hits", r.gpu_hits},
          {"embree_hits", r.embree_hits},
          {"embree_best_hits", r.embree_best_hits},
          {"gpu_embree_best_same_triangle", r.gpu_embree_best_same},
          {"gpu_binned_sah_tree_differs", r.gpu_trees_differ}};
}

int BenchScene(const Args& args, const std::filesystem::path& sensor_path, unsigned threads,
               int repeats) {
  auto fail = [](const std::string& message, int code) {
    fmt::print(stderr, "lidartwin bench: {}\n", message);
    return code;
  };
  const std::filesystem::path file = args.Get("--scene");
  auto position = args.GetDoubleList("--sensor-position", {0, 0, 0});
  if (!position.ok()) return fail(position.message(), 2);
  if (position->size() != 3)
    return fail("option --sensor-position: three numbers x,y,z [m] in the scene's frame", 2);
  auto scene = bench::LoadSceneOrMesh(file, BuiltInMeshLoader());
  if (!scene.ok()) return fail("error: " + scene.message(), 1);
  auto os0 = LoadSensorProfile(sensor_path);
  if (!os0.ok()) return fail("error: " + os0.message(), 1);
  const physics::Vec3<double> sensor{(*position)[0], (*position)[1], (*position)[2]};
  auto r =
      bench::RunSceneTraceBench(*scene, *os0, sensor, repeats, threads, !args.Has("--no-embree"));
  if (!r.ok()) return fail("error: " + r.message(), 1);
  fmt::print(
      "scene:   {} ({} triangles), OS0-128 x 8 sub-rays from ({}, {}, {}) m, {} random rays\n",
      file.string(), r->triangles, sensor.x, sensor.y, sensor.z, r->random.rays);
  fmt::print("gpu:     {}\n", r->why_no_gpu.empty() ? r->device : "not measured: " + r->why_no_gpu);
  fmt::print("{:<10} {:>12} {:>12} {:>12} {:>16} {:>14} {:>10} {:>10}\n", "rays", "gpu/s",
             "gpu_lbvh/s", "gpu_sah/s", "embree_best/s", "embree_cpu/s", "hits", "same_tri");
  for (const auto& [name, f, lbvh, sah] :
       {std::tuple{"coherent", r->coherent, r->lbvh_coherent_rays_per_s,
                   r->sah_coherent_rays_per_s},
        std::tuple{"random", r->random, r->lbvh_random_rays_per_s, r->sah_random_rays_per_s}})
    fmt::print("{:<10} {:>12.4g} {:>12.4g} {:>12.4g} {:>16.4g} {:>14.4g} {:>10} {:>10}\n", name,
               f.gpu_rays_per_s, lbvh, sah, f.embree_best_rays_per_s, f.embree_rays_per_s,
               f.embree_best_hits, f.gpu_embree_best_same);
  if (args.Has("--json")) {
    const nlohmann::json j = {
        {"scene", file.string()},
        {"triangles", r->triangles},
        {"sensor_position_m", *position},
        {"gpu", r->why_no_gpu.empty() ? r->device : ""},
        {"coherent_os0_8_subrays",
         RaysJson(r->coherent, r->lbvh_coherent_rays_per_s, r->sah_coherent_rays_per_s)},
        {"random", RaysJson(r->random, r->lbvh_random_rays_per_s, r->sah_random_rays_per_s)}};
    if (Status s = WriteTextFileAtomically(args.Get("--json"), j.dump(2) + "\n"); !s.ok())
      return fail("error: " + s.message(), 1);
  }
  return 0;
}

}  // namespace lt::cli
