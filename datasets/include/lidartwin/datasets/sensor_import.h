// Sensor profiles from vendor intrinsics, so a real unit's beam table drives the simulator:
// Ouster metadata JSON, Velodyne calibration YAML (ros-drivers format), Hesai angle-correction
// CSV (with an optional fire-time CSV). The result is profile YAML text that
// LoadSensorProfile accepts (configs/README.md), with comments naming the source.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/status.h"

namespace lt {

struct SensorImportOptions {
  std::filesystem::path firetimes;  // Hesai fire-time CSV (optional)
  double rotation_rate_hz = 0;      // 0: from the metadata (Ouster) or 10 Hz
  std::string detector = "ideal";   // ideal | capability
  double max_range_m = 0;           // 0: the product's data-sheet range (or 100 m)
  std::string topic;                // a bag's lidar topic, where it has several

  // detector ideal or capability, rotation_rate_hz and max_range_m finite and >= 0 (keys by
  // field). ImportSensorProfile calls it.
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

// Picks the format by extension: .json Ouster, .yaml/.yml Velodyne, .csv Hesai.
Expected<std::string> ImportSensorProfile(const std::filesystem::path& metadata,
                                          const SensorImportOptions& options);

// The imported profile written to `out` (atomically), once it loads as written: its name and
// beams per frame, or the error (nothing written).
struct ImportedSensor {
  std::string name;
  uint64_t beams = 0;
};
Expected<ImportedSensor> ImportSensorProfileTo(const std::filesystem::path& metadata,
                                               const SensorImportOptions& options,
                                               const std::filesystem::path& out);

}  // namespace lt
