// Subcommands of the lidartwin CLI; each returns the process exit code.
#pragma once

#include <string>
#include <vector>

#include "lidartwin/base/config_root.h"

namespace lt::cli {

int SimulateCommand(const std::vector<std::string>& args);
int ExportCommand(const std::vector<std::string>& args);
int ConvertCommand(const std::vector<std::string>& args);
int InfoCommand(const std::vector<std::string>& args);
int DemoCommand(const std::vector<std::string>& args);
int BenchCommand(const std::vector<std::string>& args);
int CompareCommand(const std::vector<std::string>& args);
int ReportCommand(const std::vector<std::string>& args);
int ViewCommand(const std::vector<std::string>& args);
int ImportSensorCommand(const std::vector<std::string>& args);
int ReconstructCommand(const std::vector<std::string>& args);
int ReproduceCommand(const std::vector<std::string>& args);
int ResimulateCommand(const std::vector<std::string>& args);
int CalibrateCommand(const std::vector<std::string>& args);
int LabgenCommand(const std::vector<std::string>& args);
int LabCommand(const std::vector<std::string>& args);
int CalibrateRealCommand(const std::vector<std::string>& args);

// The directory holding configs/ (lidartwin/base/config_root.h).
inline std::string ConfigRoot() {
  return lt::ConfigRoot().string();
}

}  // namespace lt::cli
