// A lab folder calibrated into files (`lidartwin calibrate`, issue 10): every fit the lab
// folder supports, the fitted values with their uncertainties and the lab's checksum written
// into a copy of the base profile (a tabulated kernel beside it), and a report of the data
// against the fits. The outputs move into place as one set: any failure writes nothing.
#pragma once

#include <filesystem>
#include <string>

#include "lidartwin/base/status.h"
#include "lidartwin/jobs/job_log.h"

namespace lt::jobs {

struct CalibrateLabOptions {
  std::filesystem::path lab;     // the lab folder (manifest.yaml and its measurement files)
  std::filesystem::path base;    // the profile the fits start from
  std::filesystem::path out;     // the calibrated profile
  std::filesystem::path report;  // the report's folder
  // A fit that does not describe its measurements within their sigmas fails the run unless
  // accepted: then it is kept with scaled uncertainties and a warning (calib/calibration.h).
  bool accept_poor_fits = false;
  JobLog log;  // info: each fitted value, and what was written; warning: each poor fit kept

  // Where the outputs may go: `out` a file that may be written (never a folder, link or
  // device) and not the base profile, `report` a folder, neither inside the lab folder. An
  // error begins with the option's key (out, report).
  Status Validate() const;
};

Status CalibrateLab(const CalibrateLabOptions& options);

}  // namespace lt::jobs
