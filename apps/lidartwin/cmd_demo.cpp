// `lidartwin demo`: the main job on the built-in default (jobs/demo.h), its tables printed.
#include <fmt/core.h>

#include "built_in.h"
#include "command.h"
#include "commands.h"
#include "lidartwin/jobs/demo.h"

namespace lt::cli {

int DemoCommand(const std::vector<std::string>& argv) {
  const Command demo{"demo", "", {{"--out", "--seed"}, {}, 0}, {}};
  return RunCommand(demo, argv, [](const Args& args) -> Expected<int> {
    jobs::DemoOptions o;
    o.out_dir = "lidartwin-demo";
    if (Status s = FirstError({RefuseStandardOutput(args, {{"--out", "a folder"}}),
                               args.Into("--out", o.out_dir), args.Into("--seed", o.seed)});
        !s.ok())
      return s.error();
    o.root = ConfigRoot();
    o.mesh_loader = BuiltInMeshLoader();
    o.simulate = RunSimulationJob;
    o.log = PrintingLog("demo");
    if (Status s = jobs::RunDemo(o); !s.ok()) return s.error();
    return 0;
  });
}

}  // namespace lt::cli
