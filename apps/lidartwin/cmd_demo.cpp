// `lidartwin demo`: the main job on the built-in default (jobs/demo.h), its tables printed.
#include <fmt/core.h>

#include "args.h"
#include "built_in.h"
#include "commands.h"
#include "lidartwin/jobs/demo.h"

namespace lt::cli {

int DemoCommand(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {{"--out", "--seed"}, {"--help"}, 0});
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin demo: {}\n", args.message());
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("usage: lidartwin demo [--out DIR] [--seed K]\n");
    return 0;
  }
  const std::filesystem::path out_dir = args->Get("--out", "lidartwin-demo");
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    fmt::print(stderr, "lidartwin demo: cannot create {}: {}\n", out_dir.string(), ec.message());
    return 1;
  }
  auto seed = args->GetUInt("--seed", 0);
  if (!seed.ok()) {
    fmt::print(stderr, "lidartwin demo: {}\n", seed.message());
    return 2;
  }
  jobs::DemoOptions o;
  o.root = ConfigRoot();
  o.out_dir = out_dir;
  o.seed = *seed;
  o.mesh_loader = BuiltInMeshLoader();
  o.simulate = RunSimulationJob;
  o.log.info = [](const std::string& line) { fmt::print("{}", line); };
  if (Status s = jobs::RunDemo(o); !s.ok()) {
    fmt::print(stderr, "lidartwin demo: error: {}\n", s.message());
    return 1;
  }
  return 0;
}

}  // namespace lt::cli
