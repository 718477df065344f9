// lidartwin calibrate-real: the fits of issue 10's "Real measurements" over the shared
// real-data folder (the Spectralon panel's angular response, each Ouster capture's
// range-intensity and detection models), written as a Markdown report with SVG plots.
#include <fmt/core.h>

#include <algorithm>

#include "args.h"
#include "commands.h"
#include "lidartwin/calib/real_data_calibration.h"

namespace lt::cli {

int CalibrateRealCommand(const std::vector<std::string>& argv) {
  constexpr const char* kUsage =
      "usage: lidartwin calibrate-real REAL_DATA_DIR --report DIR [--wavelengths 850,905,...]\n"
      "         [--max-gap-columns N]\n"
      "  REAL_DATA_DIR holds spectralon-grit-lab/ and ouster-sdk/ (../shared/real-data).\n"
      "  Writes DIR/real_data_report.md and its SVG plots; a missing or malformed file is an\n"
      "  error naming it (exit 1, nothing written).\n";
  auto args =
      Args::Parse(argv, {{"--report", "--wavelengths", "--max-gap-columns"}, {"--help"}, 1});
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin calibrate-real: {}\n{}", args.message(), kUsage);
    return 2;
  }
  if (args->Has("--help") || args->positionals().empty() || !args->Has("--report")) {
    fmt::print("{}", kUsage);
    return args->Has("--help") ? 0 : 2;
  }
  calib::RealDataOptions options;
  auto wavelengths = args->GetDoubleList("--wavelengths", options.wavelengths_nm);
  auto gap = args->GetUInt("--max-gap-columns", options.samples.max_gap_columns);
  for (const Status& s : {wavelengths.status(), gap.status()}) {
    if (!s.ok()) {
      fmt::print(stderr, "lidartwin calibrate-real: {}\n", s.message());
      return 2;
    }
  }
  options.wavelengths_nm = *wavelengths;
  options.samples.max_gap_columns = static_cast<uint32_t>(std::min<uint64_t>(*gap, 1u << 20));
  if (auto s = options.Validate(); !s.ok()) {
    fmt::print(stderr, "lidartwin calibrate-real: {}\n", s.message());
    return 2;
  }
  auto result = calib::CalibrateRealData(args->positionals()[0], options);
  if (!result.ok()) {
    fmt::print(stderr, "lidartwin calibrate-real: error: {}\n", result.message());
    return 1;
  }
  const std::filesystem::path dir = args->Get("--report");
  if (Status s = calib::WriteRealDataReport(*result, dir); !s.ok()) {
    fmt::print(stderr, "lidartwin calibrate-real: error: {}\n", s.message());
    return 1;
  }
  for (const auto& w : result->spectralon.wavelengths) {
    fmt::print(
        "Spectralon {:g} nm: lambert r0 {:.4f} (RMS {:.2f}), lambert_specular RMS {:.2f}, "
        "{} preferred\n",
        w.wavelength_nm, w.lambert.Find("r0")->value, w.lambert.residual_rms,
        w.lambert_specular.residual_rms,
        w.comparison.full_preferred() ? "lambert_specular" : "lambert");
  }
  for (const auto& u : result->ouster) {
    fmt::print(
        "{}: range-intensity {}, detection {}\n", u.label, u.chosen ? "fitted" : "not fitted",
        u.detection_photons.outcome.fit || u.detection_link.outcome.fit ? "fitted" : "refused");
  }
  fmt::print("wrote {}\n", (dir / "real_data_report.md").string());
  return 0;
}

}  // namespace lt::cli
