// The regression gate: the current headline metrics against a baseline's, each allowed to get
// worse by a tolerance (YAML, configs/regression/README in docs/validation.md).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/status.h"

namespace lt::reports {

// metric: {max_worse: A, max_worse_fraction: F}: the metric may get worse by
// max(A, F * |baseline|) in its bad direction (up for errors, down for agreement).
struct Tolerance {
  std::string metric;
  double max_worse = 0;
  double max_worse_fraction = 0;

  // A summary metric compare knows (docs/validation.md), max_worse and max_worse_fraction
  // finite and >= 0 (keys `<metric>.max_worse`, as in the tolerances YAML).
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

// A list of tolerances: each valid, no metric twice (LoadTolerances also wants at least one).
void CheckTolerances(const std::vector<Tolerance>& tolerances, ConfigCheck& check);

Expected<std::vector<Tolerance>> LoadTolerances(const std::filesystem::path& file);

// The "summary" object of a metrics.json or a report.json.
Expected<std::map<std::string, double>> LoadBaselineSummary(const std::filesystem::path& file);

struct GateRow {
  std::string metric;
  double baseline = 0, current = 0;
  double worse_by = 0;  // > 0: worse than the baseline
  double allowed = 0;
  bool missing = false;  // absent from the baseline or the current run
  bool regression = false;
};

std::vector<GateRow> ApplyGate(const std::map<std::string, double>& current,
                               const std::map<std::string, double>& baseline,
                               const std::vector<Tolerance>& tolerances);

}  // namespace lt::reports
