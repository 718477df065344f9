// lidartwin lab extract REC [--metadata M | --calibration C] [--topic T] --targets T.yaml
// --out LAB_DIR: a lab folder from recordings of flat targets (jobs/lab_extract.h).
#include "command.h"
#include "commands.h"
#include "help_text.h"
#include "lidartwin/jobs/lab_extract.h"

namespace lt::cli {

int LabCommand(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0] != "extract") {
    std::fprintf(stderr,
                 "lidartwin lab: expected a subcommand: extract (try lidartwin lab extract "
                 "--help)\n");
    return 2;
  }
  const std::vector<std::string> rest(argv.begin() + 1, argv.end());
  // Named as typed ("lab extract"), its help from docs/cli/lab-extract.txt.
  const Command extract{"lab extract",
                        HelpText("lab-extract"),
                        {{"--metadata", "--calibration", "--topic", "--targets", "--out"}, {}, 1},
                        {{"recording", "REC"}, {"targets", "--targets"}, {"out", "--out"}}};
  return RunCommand(extract, rest, [](const Args& args) -> Expected<int> {
    jobs::LabExtractOptions o;
    if (args.Has("--metadata") && args.Has("--calibration"))
      return FlagError("--calibration", "give --metadata or --calibration, not both");
    if (Status s = FirstError(
            {Require(args, "REC", {"--targets", "--out"}),
             RefuseStandardOutput(args, {{"--out", "a folder"}}), args.Into("--targets", o.targets),
             args.Into("--out", o.out), args.Into("--topic", o.topic),
             args.Into(args.Has("--metadata") ? "--metadata" : "--calibration", o.sidecar)});
        !s.ok())
      return s.error();
    o.recording = args.positionals()[0];
    o.log = PrintingLog("lab extract");
    if (Status s = jobs::LabExtract(o); !s.ok()) return s.error();
    return 0;
  });
}

}  // namespace lt::cli
