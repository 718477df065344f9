// lidartwin calibrate LAB_DIR --base P.yaml --out NEW.yaml --report DIR (jobs/calibrate_lab.h).
// Any failure exits 1 and writes nothing.
#include <fmt/core.h>

#include "args.h"
#include "commands.h"
#include "lidartwin/jobs/calibrate_lab.h"
#include "option_flags.h"

namespace lt::cli {

int CalibrateCommand(const std::vector<std::string>& argv) {
  constexpr const char* kUsage =
      "usage: lidartwin calibrate LAB_DIR --base PROFILE.yaml --out NEW.yaml --report DIR\n"
      "  LAB_DIR: a lab folder (manifest.yaml and its measurement files, docs/calibration.md)\n";
  auto args = Args::Parse(argv, {{"--base", "--out", "--report"}, {"--help"}, 1});
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin calibrate: {}\n{}", args.message(), kUsage);
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("{}", kUsage);
    return 0;
  }
  for (const char* flag : {"--base", "--out", "--report"}) {
    if (!args->Has(flag)) {
      fmt::print(stderr, "lidartwin calibrate: {} is required\n{}", flag, kUsage);
      return 2;
    }
  }
  if (args->positionals().empty()) {
    fmt::print(stderr, "lidartwin calibrate: LAB_DIR is required\n{}", kUsage);
    return 2;
  }
  jobs::CalibrateLabOptions o;
  o.lab = args->positionals()[0];
  o.base = args->Get("--base");
  o.out = args->Get("--out");
  o.report = args->Get("--report");
  o.log.info = [](const std::string& line) { fmt::print("{}", line); };
  if (Status s = jobs::CalibrateLab(o); !s.ok()) {
    // Refused outputs name their flag; they exit 1 like every other failure here.
    fmt::print(stderr, "lidartwin calibrate: error: {}\n",
               FlagMessage(s.error(), {{"out", "--out"}, {"report", "--report"}}));
    return 1;
  }
  return 0;
}

}  // namespace lt::cli
