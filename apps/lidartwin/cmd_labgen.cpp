// lidartwin labgen --profile TRUE.yaml --out LAB_DIR --seed K: a virtual lab folder
// (jobs/labgen.h).
#include "command.h"
#include "commands.h"
#include "lidartwin/jobs/labgen.h"

namespace lt::cli {

int LabgenCommand(const std::vector<std::string>& argv) {
  const Command labgen{"labgen",
                       "",
                       {{"--profile", "--out", "--seed", "--backend", "--serial"}, {}, 0},
                       {{"backend", "--backend"}}};
  return RunCommand(labgen, argv, [](const Args& args) -> Expected<int> {
    jobs::LabgenOptions o;
    if (Status s = FirstError({Require(args, nullptr, {"--profile", "--out"}),
                               RefuseStandardOutput(args, {{"--out", "a folder"}}),
                               args.Into("--profile", o.profile), args.Into("--out", o.out),
                               args.Into("--seed", o.seed), args.Into("--backend", o.backend),
                               args.Into("--serial", o.serial), o.Validate()});
        !s.ok())
      return s.error();
    o.log = PrintingLog("labgen");
    if (Status s = jobs::Labgen(o); !s.ok()) return s.error();
    return 0;
  });
}

}  // namespace lt::cli
