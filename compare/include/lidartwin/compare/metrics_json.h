// metrics.json (schema "lidartwin.metrics", version 1): what `lidartwin compare` writes and
// `lidartwin report` reads. Statistics are stored as n / mean / std so that runs pool exactly.
#pragma once

#include <filesystem>
#include <string>

#include "lidartwin/base/status.h"
#include "lidartwin/compare/metrics.h"

namespace lt::compare {

inline constexpr const char* kMetricsSchemaName = "lidartwin.metrics";
inline constexpr int kMetricsSchemaVersion = 1;

// The JSON text (pretty-printed), with the run's summary included for a reader's eyes and for
// use as a baseline.
std::string MetricsToJson(const ComparisonMetrics& m);
// Parses metrics.json; errors name the file and the key.
Expected<ComparisonMetrics> MetricsFromJson(const std::string& text, const std::string& file);
Expected<ComparisonMetrics> ReadMetricsFile(const std::filesystem::path& file);

}  // namespace lt::compare
