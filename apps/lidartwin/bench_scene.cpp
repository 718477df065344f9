// lidartwin bench --scene FILE: the GPU bench's rays on a user's scene (bench/scene_bench.h).
#include <fmt/core.h>

#include "bench_modes.h"
#include "built_in.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/bench/bench_tables.h"
#include "lidartwin/bench/scene_bench.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::cli {
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
  fmt::print("{}", bench::SceneBenchTable(file.string(), sensor, *r));
  if (args.Has("--json")) {
    const auto j = bench::SceneBenchJson(file.string(), *position, *r);
    if (Status s = WriteTextFileAtomically(args.Get("--json"), j.dump(2) + "\n"); !s.ok())
      return fail("error: " + s.message(), 1);
  }
  return 0;
}

}  // namespace lt::cli
