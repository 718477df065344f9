// The calibration report (issue 10 "Output"): per fit its parameters with standard
// deviations, residual RMS, points used and rejected, and plots of the data against the fit
// with the residuals (SVG in the HTML page); the profile keys changed, before and after.
// Written as report.md and report.html in `dir`, each atomically.
#pragma once

#include <filesystem>
#include <string>

#include "lidartwin/base/status.h"
#include "lidartwin/calib/calibration.h"
#include "lidartwin/calib/lab_folder.h"

namespace lt::calib {

struct CalibrationReport {
  std::string markdown, html;
};

CalibrationReport RenderCalibrationReport(const Calibration& c, const LabFolder& lab,
                                          const std::string& base_profile,
                                          const std::string& out_profile);

// Renders and writes report.md and report.html into `dir` (created if missing).
Status WriteCalibrationReport(const Calibration& c, const LabFolder& lab,
                              const std::string& base_profile, const std::string& out_profile,
                              const std::filesystem::path& dir);

}  // namespace lt::calib
