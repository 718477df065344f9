// Hesai's calibration files are CSVs of numbers after a header line: the angle corrections
// (channel, elevation, azimuth) and the fire times (channel, microseconds).
#pragma once

#include <filesystem>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt {

// Rows of `columns` numbers each, a non-numeric first line taken as the header; errors name the
// file and line.
Expected<std::vector<std::vector<double>>> ReadNumberRows(const std::filesystem::path& file,
                                                          size_t columns);

}  // namespace lt
