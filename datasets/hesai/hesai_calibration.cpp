#include "lidartwin/datasets/hesai.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "hesai/hesai_at128.h"
#include "hesai/hesai_csv.h"
#include "lidartwin/base/message_text.h"
#include "lidartwin/base/text_file.h"

namespace lt {

// Rows of "number,number[,number]" after header lines (newer Hesai files have two: "EEFF,1,4"
// and the column names), up to a final line of 64 hex digits (a SHA-256 some files end with; not
// checked: what it covers is not published); errors name the line.
Expected<std::vector<std::vector<double>>> ReadNumberRows(const std::filesystem::path& file,
                                                          size_t columns) {
  // A unit has at most a few hundred channels, a few dozen bytes a row: 1 MiB is far more than
  // any real file, and a huge one is refused before it is read.
  constexpr uint64_t kMaxCsvBytes = uint64_t{1} << 20;
  auto text = ReadTextFile(file, "", kMaxCsvBytes);
  if (!text.ok()) return text.error();
  std::istringstream in(*text);
  std::vector<std::vector<double>> rows;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const bool numeric = std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == '-';
    if (rows.empty() && line_no <= 3 && !numeric) continue;  // a header line
    if (!rows.empty() && line.size() == 64 &&
        line.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos) {
      std::string rest;
      while (std::getline(in, rest))
        if (rest.find_first_not_of(" \t\r") != std::string::npos)
          return Error{fmt::format("{}: line {}: rows after the file's SHA-256 line", file.string(),
                                   line_no + 1)};
      break;
    }
    std::vector<double> row;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) {
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      // The whole cell, blanks around it aside: "14.8 37607" or "1abc" is not 14.8 or 1.
      const bool whole = end != cell.c_str() &&
                         cell.find_first_not_of(" \t", static_cast<size_t>(end - cell.c_str())) ==
                             std::string::npos;
      if (!whole || !std::isfinite(v))
        return Error{fmt::format("{}: line {}: '{}' is not a number", file.string(), line_no,
                                 ShortenedForMessage(cell))};
      row.push_back(v);
    }
    if (row.size() != columns)
      return Error{fmt::format("{}: line {}: expected {} values, got {}", file.string(), line_no,
                               columns, row.size())};
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return Error{fmt::format("{}: no rows", file.string())};
  return rows;
}

Expected<HesaiCalibration> LoadHesaiCalibration(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  if (ext == ".dat") return LoadHesaiAt128Correction(file);
  auto rows = ReadNumberRows(file, 3);
  if (!rows.ok()) return rows.error();
  HesaiCalibration c;
  c.file = file;
  for (size_t k = 0; k < rows->size(); ++k) {
    const auto& row = (*rows)[k];
    if (row[0] != static_cast<double>(k + 1))
      return Error{
          fmt::format("{}: data row {}: channel {} (expected {}: channels in order from 1)",
                      file.string(), k + 1, row[0], k + 1)};
    if (std::abs(row[1]) > 90 || std::abs(row[2]) > 180)
      return Error{fmt::format("{}: channel {}: elevation {} or azimuth {} deg out of range",
                               file.string(), k + 1, row[1], row[2])};
    c.elevation_deg.push_back(row[1]);
    c.azimuth_offset_deg.push_back(row[2]);
  }
  // Channels at one elevation scan one cone: a table of one elevation (all 0: a template never
  // filled in) is no calibration.
  if (c.elevation_deg.size() > 1 &&
      std::all_of(c.elevation_deg.begin(), c.elevation_deg.end(),
                  [&](double e) { return e == c.elevation_deg.front(); }))
    return Error{
        fmt::format("{}: every one of the {} channels has elevation {} deg; a "
                    "calibration gives each its own",
                    file.string(), c.elevation_deg.size(), c.elevation_deg.front())};
  return c;
}

Expected<std::vector<double>> LoadHesaiFiretimes(const std::filesystem::path& file) {
  auto rows = ReadNumberRows(file, 2);
  if (!rows.ok()) return rows.error();
  // The most channels a Hesai unit has (the 128-channel ones), with room to spare.
  constexpr double kMaxChannels = 512;
  constexpr double kMaxFiretimeUs = 1000;  // a firing lasts tens of us; blocks about 50
  std::vector<double> by_channel(rows->size(), std::nan(""));
  for (size_t k = 0; k < rows->size(); ++k) {
    const double channel = (*rows)[k][0], us = (*rows)[k][1];
    if (channel != std::floor(channel) || channel < 1 || channel > kMaxChannels)
      return Error{fmt::format("{}: data row {}: channel {} is not a channel number 1..{}",
                               file.string(), k + 1, channel, kMaxChannels)};
    const size_t c = static_cast<size_t>(channel) - 1;
    if (c >= by_channel.size())
      return Error{fmt::format("{}: data row {}: channel {} in a file of {} rows (channels 1..{})",
                               file.string(), k + 1, channel, rows->size(), rows->size())};
    if (!std::isnan(by_channel[c]))
      return Error{
          fmt::format("{}: data row {}: channel {} given twice", file.string(), k + 1, channel)};
    if (std::abs(us) > kMaxFiretimeUs)
      return Error{fmt::format("{}: channel {}: fire time {} us is not within {} us of its block",
                               file.string(), channel, us, kMaxFiretimeUs)};
    by_channel[c] = us;
  }
  return by_channel;
}

}  // namespace lt
