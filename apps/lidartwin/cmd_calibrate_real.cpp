// lidartwin calibrate-real: the fits of issue 10's "Real measurements" over the shared
// real-data folder (the Spectralon panel's angular response, each Ouster capture's
// range-intensity and detection models), written as a Markdown report with SVG plots.
#include <fmt/core.h>

#include "command.h"
#include "commands.h"
#include "lidartwin/calib/real_data_calibration.h"

namespace lt::cli {

int CalibrateRealCommand(const std::vector<std::string>& argv) {
  const Command calibrate_real{
      "calibrate-real", "", {{"--report", "--wavelengths", "--max-gap-columns"}, {}, 1}, {}};
  return RunCommand(calibrate_real, argv, [](const Args& args) -> Expected<int> {
    calib::RealDataOptions o;
    if (Status s = FirstError({Require(args, "REAL_DATA_DIR", {"--report"}),
                               RefuseStandardOutput(args, {{"--report", "a folder"}}),
                               args.Into("--wavelengths", o.wavelengths_nm),
                               args.Into("--max-gap-columns", o.samples.max_gap_columns)});
        !s.ok())
      return s.error();
    // The options' own rules name their keys, which are not flags: a usage error all the same.
    if (Status s = o.Validate(); !s.ok()) return ArgumentError(s.message());
    auto result = calib::CalibrateRealData(args.positionals()[0], o);
    if (!result.ok()) return result.error();
    const std::filesystem::path dir = args.Get("--report");
    if (Status s = calib::WriteRealDataReport(*result, dir); !s.ok()) return s.error();
    fmt::print("{}wrote {}\n", calib::RealDataSummaryText(*result),
               (dir / "real_data_report.md").string());
    return 0;
  });
}

}  // namespace lt::cli
