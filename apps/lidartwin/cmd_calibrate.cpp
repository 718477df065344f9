// lidartwin calibrate LAB_DIR --base P.yaml --out NEW.yaml --report DIR [--accept-poor-fits]
// (jobs/calibrate_lab.h).
// Any failure exits 1 and writes nothing.
#include "command.h"
#include "commands.h"
#include "lidartwin/jobs/calibrate_lab.h"

namespace lt::cli {

int CalibrateCommand(const std::vector<std::string>& argv) {
  const Command calibrate{
      "calibrate",
      "",
      {{"--base", "--out", "--report"}, {"--accept-poor-fits"}, 1},
      {},
      {{"out", "--out"}, {"report", "--report"}}};  // refused outputs exit 1 like the rest
  return RunCommand(calibrate, argv, [](const Args& args) -> Expected<int> {
    if (Status s = FirstError({Require(args, "LAB_DIR", {"--base", "--out", "--report"}),
                               RefuseStandardOutput(args, {{"--out", "a file (NEW.yaml)"},
                                                           {"--report", "a folder"}})});
        !s.ok())
      return s.error();
    jobs::CalibrateLabOptions o;
    o.lab = args.positionals()[0];
    o.base = args.Get("--base");
    o.out = args.Get("--out");
    o.report = args.Get("--report");
    o.accept_poor_fits = args.Has("--accept-poor-fits");
    o.log = PrintingLog("calibrate");
    if (Status s = jobs::CalibrateLab(o); !s.ok()) {
      // A poor fit refused: the flag that keeps it, named here (the library names none).
      if (!o.accept_poor_fits &&
          s.message().find("does not describe the measurements") != std::string::npos)
        return Error{s.message() + " (--accept-poor-fits keeps it)"};
      return s.error();
    }
    return 0;
  });
}

}  // namespace lt::cli
