// The report's tables as plain data, rendered by both the Markdown and the HTML writers.
#pragma once

#include <string>
#include <vector>

#include "lidartwin/reports/report.h"

namespace lt::reports {

// One unit per quantity across every table and plot of a report: distances and depth errors in
// metres (as metrics.json and the summary metrics keep them), intensity in the recordings' own
// unit, written a.u. (arbitrary units: percent for calibrated reflectivity).
constexpr const char* kDistanceUnit = "m";
constexpr const char* kDepthUnit = "m";
constexpr const char* kIntensityUnit = "a.u.";

struct Table {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

Table RunsTable(const Report& r);
Table SummaryTable(const Report& r);  // with the gate's columns when there is a baseline
Table DistanceTable(const compare::ComparisonMetrics& m);
Table MaterialTable(const compare::ComparisonMetrics& m);
Table TargetTable(const compare::ComparisonMetrics& m);
// One line: "no regression against B" / "REGRESSION: ..." / "" without a baseline.
std::string GateVerdict(const Report& r);

}  // namespace lt::reports
