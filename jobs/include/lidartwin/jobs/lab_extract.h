// Lab tables from a unit's recordings of flat targets (`lidartwin lab extract`, issue 40): any
// recording `convert` reads, the targets' corners and reflectances in a small YAML, and the lab
// folder `calibrate` fits written from them (calib/lab_extraction.h).
#pragma once

#include <filesystem>
#include <string>

#include "lidartwin/base/status.h"
#include "lidartwin/jobs/job_log.h"

namespace lt::jobs {

struct LabExtractOptions {
  std::filesystem::path recording;
  std::filesystem::path sidecar;  // Ouster metadata or a vendor calibration; empty for .osf/.h5
  std::string topic;              // a bag's lidar topic where it has several
  std::filesystem::path targets;  // the targets YAML
  std::filesystem::path out;      // the lab folder to write
  JobLog log;                     // info: per target and frame, what was found

  // recording, targets and out given (an error begins with the key).
  Status Validate() const;
};

Status LabExtract(const LabExtractOptions& options);

}  // namespace lt::jobs
