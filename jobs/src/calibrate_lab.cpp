// A lab folder calibrated into files; see calibrate_lab.h.
#include "lidartwin/jobs/calibrate_lab.h"

#include <fmt/core.h>

#include <unistd.h>

#include <chrono>
#include <ctime>

#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/output_set.h"
#include "lidartwin/calib/calibration.h"
#include "lidartwin/calib/calibration_report.h"
#include "lidartwin/calib/lab_folder.h"
#include "lidartwin/sim/beam_kernel.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::jobs {

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

Status CalibrateLabOptions::Validate() const {
  namespace fs = std::filesystem;
  if (auto s = CheckOutputTarget(out); !s.ok()) return OptionError("out", "out " + s.message());
  std::error_code ec;
  if (fs::exists(out, ec) && fs::equivalent(out, base, ec)) {
    return OptionError(
        "out", "out " + out.string() + " is the base profile; write the calibrated one elsewhere");
  }
  if (report.empty()) return OptionError("report", "report needs a folder name");
  if (fs::weakly_canonical(report, ec) == fs::weakly_canonical(out, ec))
    return OptionError("report", "report " + report.string() +
                                     " is the calibrated profile's name too; give each its own");
  if (fs::exists(report, ec) && !fs::is_directory(report, ec)) {
    return OptionError("report", "report " + report.string() + " exists and is not a folder");
  }
  const fs::path lab_real = fs::weakly_canonical(lab, ec);
  for (const auto& [key, path] : {std::pair{"out", out}, std::pair{"report", report}}) {
    const auto rel = fs::weakly_canonical(path, ec).lexically_relative(lab_real);
    if (!rel.empty() && *rel.begin() != "..") {
      return OptionError(key,
                         std::string(key) + " " + path.string() +
                             " is inside the lab folder; the measurements are never written to");
    }
  }
  return {};
}

namespace {

// Outputs are written to temporary files first and moved into place together at the end, as
// one set (CommitOutputSet: the earlier files stay if anything fails or the run is killed).
class OutputSet {
 public:
  Status Add(const std::filesystem::path& target, const std::string& text) {
    outputs_.emplace_back(target);
    return WriteText(outputs_.back(), text);
  }
  const std::filesystem::path& TempPath(size_t i) const { return outputs_[i].temp_path(); }
  Status CommitAll() {
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> moves;
    for (const auto& o : outputs_)
      moves.emplace_back(o.temp_path(), o.target());
    return CommitOutputSet(moves);
  }

 private:
  std::vector<AtomicOutput> outputs_;
};

}  // namespace

Status CalibrateLab(const CalibrateLabOptions& o) {
  if (Status s = o.Validate(); !s.ok()) return s;
  auto fail = [](const std::string& m) { return Status(Error{m}); };
  const std::string lab_dir = o.lab.string();
  const std::filesystem::path& out = o.out;
  const std::filesystem::path& report = o.report;
  auto lab = calib::ReadLabFolder(lab_dir);
  if (!lab.ok()) return fail(lab.message());
  auto base = LoadSensorProfile(o.base);
  if (!base.ok()) return fail(base.message());
  calib::CalibrationOptions options;
  options.accept_poor_fits = o.accept_poor_fits;
  auto c = calib::Calibrate(*lab, *base, lab_dir, NowUtc(), options);
  if (!c.ok()) return fail(c.message());
  const std::string header = "Calibrated by lidartwin calibrate from " + lab_dir + " (SHA-256 " +
                             lab->checksum + ")\nbase profile: " + o.base.string();
  OutputSet outputs;
  // A tabulated kernel goes beside the profile, which names it.
  std::filesystem::path kernel_file;
  if (c->kernel_table) {
    kernel_file =
        std::filesystem::absolute(out).parent_path() / (out.stem().string() + ".kernel.csv");
    if (auto s = CheckOutputTarget(kernel_file); !s.ok()) return fail(s.message());
    if (auto s = outputs.Add(kernel_file, KernelGridText(*c->kernel_table)); !s.ok())
      return fail(s.message());
    // The profile must load as written: checked against the kernel's temporary file.
    c->profile.kernel_file = outputs.TempPath(0).string();
    if (auto back = ParseSensorProfile(SaveSensorProfile(c->profile, header), out); !back.ok())
      return fail("the calibrated profile does not load: " + back.message());
    // Named relative to the profile, so the two files move together.
    c->profile.kernel_file = kernel_file.filename().string();
  } else if (auto back = ParseSensorProfile(SaveSensorProfile(c->profile, header), out);
             !back.ok()) {
    return fail("the calibrated profile does not load: " + back.message());
  }
  if (auto s = outputs.Add(out, SaveSensorProfile(c->profile, header)); !s.ok())
    return fail(s.message());
  const calib::CalibrationReport r =
      calib::RenderCalibrationReport(*c, *lab, o.base.string(), out.string());
  std::error_code ec;
  const bool report_existed = std::filesystem::is_directory(report, ec);
  if (!report_existed && !std::filesystem::create_directories(report, ec)) {
    return fail(report.string() + ": cannot create the report folder (" + ec.message() + ")");
  }
  Status written = outputs.Add(report / "report.md", r.markdown);
  if (written.ok()) written = outputs.Add(report / "report.html", r.html);
  if (written.ok()) written = outputs.CommitAll();
  if (!written.ok()) {
    if (!report_existed) std::filesystem::remove_all(report, ec);
    return fail(written.message());
  }
  for (const auto& u : c->updates)
    o.log.Info(fmt::format("{:<40} {:>12.6g} -> {:>12.6g} +- {:.3g}  ({})\n", u.key, u.before,
                           u.after, u.stddev, u.fit));
  for (const auto& u : c->materials)
    o.log.Info(fmt::format("{:<40} {:>12.6g} +- {:.3g}  ({})\n", u.key, u.after, u.stddev, u.fit));
  for (const auto& w : c->warnings)
    o.log.Warn(w);
  o.log.Info(fmt::format("wrote {} and {}\n", out.string(), (report / "report.html").string()));
  return {};
}

}  // namespace lt::jobs
