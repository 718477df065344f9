#include "lidartwin/datasets/hdf5_summary_text.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace lt {
namespace {

uint64_t TotalPoints(const Hdf5Summary& s) {
  uint64_t total = 0;
  for (const auto& f : s.frames)
    total += f.points;
  return total;
}

// The frame fields the file has no column for (FrameFields order).
std::vector<std::string> AbsentColumns(const Hdf5Summary& s) {
  std::vector<std::string> out;
  for (const FieldView& field : FrameFields(Frame{})) {
    const bool there = std::any_of(s.fields.begin(), s.fields.end(),
                                   [&](const auto& f) { return f.first == field.name; });
    if (!there) out.push_back(field.name);
  }
  return out;
}

}  // namespace

std::string Hdf5SummaryText(const std::string& file, const Hdf5Summary& s) {
  std::string out = fmt::format("file:     {}\n", file);
  out +=
      fmt::format("schema:   lidartwin.frames v{} (written by lidartwin {}, backend {}, seed {})\n",
                  s.schema_version, s.info.software_version, s.info.backend, s.info.seed);
  out += fmt::format("sensor:   {} ({} nm)\n", s.info.sensor_name, s.info.wavelength_nm);
  out += fmt::format("frames:   {} ({} points in all)\n", s.frames.size(), TotalPoints(s));
  out += fmt::format("  {:>6}  {:>9}  {:>12}  {:>12}\n", "frame", "points", "start_s", "end_s");
  for (const auto& f : s.frames)
    out += fmt::format("  {:>6}  {:>9}  {:>12.6f}  {:>12.6f}\n", f.index, f.points, f.start_time_s,
                       f.end_time_s);
  out += "fields:  ";
  for (const auto& [name, unit] : s.fields)
    out += fmt::format(" {} [{}]", name, unit);
  out += "\n";
  const auto absent = AbsentColumns(s);
  if (!absent.empty()) {
    out += "absent:  ";
    for (const std::string& name : absent)
      out += " " + name;
    out += " (the frames do not have them: no column, never zeros)\n";
  }
  return out;
}

std::string Hdf5SummaryJson(const std::string& file, const Hdf5Summary& s) {
  nlohmann::json j;
  j["file"] = file;
  j["schema_version"] = s.schema_version;
  j["software_version"] = s.info.software_version;
  j["sensor"] = {{"name", s.info.sensor_name}, {"wavelength_nm", s.info.wavelength_nm}};
  j["backend"] = s.info.backend;
  j["seed"] = s.info.seed;
  j["total_points"] = TotalPoints(s);
  for (const auto& f : s.frames) {
    j["frames"].push_back({{"index", f.index},
                           {"points", f.points},
                           {"start_time_s", f.start_time_s},
                           {"end_time_s", f.end_time_s}});
  }
  for (const auto& [name, unit] : s.fields)
    j["fields"].push_back({{"name", name}, {"unit", unit}});
  j["absent_fields"] = AbsentColumns(s);
  return j.dump(2);
}

}  // namespace lt
