// lidartwin calibrate LAB_DIR --base P.yaml --out NEW.yaml --report DIR: every fit the lab
// folder supports, the fitted values with their uncertainties and the lab's checksum written
// into a copy of the base profile, and a report of the data against the fits. Any failure
// exits non-zero and writes nothing.
#include <fmt/core.h>

#include <chrono>
#include <ctime>

#include "args.h"
#include "commands.h"
#include "lidartwin/calib/calibration.h"
#include "lidartwin/calib/calibration_report.h"
#include "lidartwin/calib/lab_folder.h"
#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/sim/beam_kernel.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::cli {

namespace {

std::string NowUtc() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

int CalibrateCommand(const std::vector<std::string>& argv) {
  constexpr const char* kUsage =
      "usage: lidartwin calibrate LAB_DIR --base PROFILE.yaml --out NEW.yaml --report DIR\n"
      "  LAB_DIR: a lab folder (manifest.yaml and its measurement files, docs/calibration.md)\n";
  auto args = Args::Parse(argv, {{"--base", "--out", "--report"}, {"--help"}, 1});
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin calibrate: {}\n{}", args.message(), kUsage);
    return 2;
  }
  if (args->Has("--help") || args->positionals().empty() || !args->Has("--base") ||
      !args->Has("--out") || !args->Has("--report")) {
    fmt::print("{}", kUsage);
    return args->Has("--help") ? 0 : 2;
  }
  auto fail = [](const std::string& m) {
    fmt::print(stderr, "lidartwin calibrate: error: {}\n", m);
    return 1;
  };
  const std::string lab_dir = args->positionals()[0];
  auto lab = calib::ReadLabFolder(lab_dir);
  if (!lab.ok()) return fail(lab.message());
  auto base = LoadSensorProfile(args->Get("--base"));
  if (!base.ok()) return fail(base.message());
  auto c = calib::Calibrate(*lab, *base, lab_dir, NowUtc());
  if (!c.ok()) return fail(c.message());
  const std::filesystem::path out = args->Get("--out");
  // A tabulated kernel goes beside the profile, first: the profile names it and is loaded
  // back with it before it is written; if that fails, the kernel file is removed again.
  std::filesystem::path kernel_file;
  if (c->kernel_table) {
    kernel_file =
        std::filesystem::absolute(out).parent_path() / (out.stem().string() + ".kernel.csv");
    c->profile.kernel_file = kernel_file.string();
    if (auto s = WriteTextFileAtomically(kernel_file, KernelGridText(*c->kernel_table)); !s.ok())
      return fail(s.message());
  }
  auto fail_and_clean = [&](const std::string& m) {
    std::error_code ec;
    if (!kernel_file.empty()) std::filesystem::remove(kernel_file, ec);
    return fail(m);
  };
  const std::string yaml = SaveSensorProfile(
      c->profile, "Calibrated by lidartwin calibrate from " + lab_dir + " (SHA-256 " +
                      lab->checksum + ")\nbase profile: " + args->Get("--base"));
  // The profile must load as written, or nothing is written.
  if (auto back = ParseSensorProfile(yaml, out); !back.ok()) {
    return fail_and_clean("the calibrated profile does not load: " + back.message());
  }
  if (auto s = calib::WriteCalibrationReport(*c, *lab, args->Get("--base"), out.string(),
                                             args->Get("--report"));
      !s.ok())
    return fail_and_clean(s.message());
  if (auto s = WriteTextFileAtomically(out, yaml); !s.ok()) return fail_and_clean(s.message());
  for (const auto& u : c->updates)
    fmt::print("{:<40} {:>12.6g} -> {:>12.6g} +- {:.3g}  ({})\n", u.key, u.before, u.after,
               u.stddev, u.fit);
  for (const auto& u : c->materials)
    fmt::print("{:<40} {:>12.6g} +- {:.3g}  ({})\n", u.key, u.after, u.stddev, u.fit);
  fmt::print("wrote {} and {}/report.html\n", out.string(), args->Get("--report"));
  return 0;
}

}  // namespace lt::cli
