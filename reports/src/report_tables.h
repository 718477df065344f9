// The report's tables as plain data, rendered by both the Markdown and the HTML writers.
#pragma once

#include <string>
#include <vector>

#include "lidartwin/reports/report.h"

namespace lt::reports {

// One unit per quantity across every table and plot of a report: distances and depth errors in
// metres (as metrics.json and the summary metrics keep them), intensity in the recordings' own
// unit (IntensityUnit).
constexpr const char* kDistanceUnit = "m";
constexpr const char* kDepthUnit = "m";
// A run's intensity unit, as compare recorded it for each side (datasets' intensity_unit.h):
// the one unit where both sides agree, "real U / sim V" where they do not, "a.u." for a
// metrics.json written before units were carried.
std::string IntensityUnit(const compare::ComparisonMetrics& m);

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
// Per column: whether it holds text (left-aligned) rather than numbers (right-aligned). A
// column is numeric when every cell is a number, a "a / b" pair of them, or a placeholder
// ("-", "no points"); the first column (the row's name) is always text.
std::vector<bool> TextColumns(const Table& t);
// One line: "no regression against B" / "REGRESSION: ..." / "" without a baseline.
std::string GateVerdict(const Report& r);

}  // namespace lt::reports
