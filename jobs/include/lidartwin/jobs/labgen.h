// A virtual lab folder (`lidartwin labgen`): every measurement a lab would make of a unit,
// simulated from its "true" profile with the simulator and its noise (calib/virtual_lab.h), for
// the tests, the demo and trying `calibrate`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "lidartwin/base/status.h"
#include "lidartwin/jobs/job_log.h"

namespace lt::jobs {

struct LabgenOptions {
  std::filesystem::path profile;  // the unit's true profile
  std::filesystem::path out;      // the lab folder to write
  uint64_t seed = 1;
  // auto: the GPU when one is usable; the backends agree within their parity tolerances.
  std::string backend = "auto";
  std::string serial;  // the lab's unit serial; empty: "virtual-<seed>"
  JobLog log;          // info: what was written

  // `backend` one of auto, cpu, cuda (an error begins with the key).
  Status Validate() const;
};

Status Labgen(const LabgenOptions& options);

}  // namespace lt::jobs
