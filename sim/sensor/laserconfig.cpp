// Seed 003 "Custom Laser Configuration": a JSON file with azimuthResolution,
// elevationOffsets, azimuthOffsets (degrees) and firingSequence (seconds) for one firing
// sequence. The seed's frame is Unity's left-handed one (Y up, Z+ forward, X+ right), where
// a positive azimuth turns to the right; ours turns to the left (counter-clockwise seen from
// above), so azimuth offsets change sign on import. Elevation is up in both.
#include <nlohmann/json.hpp>

#include <cmath>

#include "lidartwin/base/text_file.h"
#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt {

namespace {
Expected<std::vector<double>> NumberArray(const nlohmann::json& j, const char* key,
                                          const std::string& file) {
  if (!j.contains(key)) return Error{file + ": missing key '" + key + "'"};
  const auto& a = j.at(key);
  if (!a.is_array()) return Error{file + ": key '" + key + "' must be an array of numbers"};
  std::vector<double> out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number() || !std::isfinite(a[i].get<double>())) {
      return Error{file + ": key '" + key + "' element " + std::to_string(i) +
                   " is not a finite number"};
    }
    out.push_back(a[i].get<double>());
  }
  return out;
}
}  // namespace

Status LoadLaserConfig(const std::filesystem::path& path, uint32_t horizontal_samples,
                       SensorProfile& p) {
  const std::string file = path.string();
  auto text = ReadTextFile(path, " laserconfig file");
  if (!text.ok()) return text.error();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    return Error{file + ": invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what()};
  } catch (const nlohmann::json::exception& e) {  // a number beyond double range (1e400)
    return Error{file + ": not readable JSON: " + e.what()};
  }
  if (!j.is_object()) return Error{file + ": expected a JSON object"};
  static const char* kKnown[] = {"azimuthResolution", "elevationOffsets", "azimuthOffsets",
                                 "firingSequence"};
  for (const auto& item : j.items()) {
    bool known = false;
    for (const char* k : kKnown)
      known = known || item.key() == k;
    if (!known) {
      return Error{file + ": unknown key '" + item.key() +
                   "' (known: azimuthResolution, elevationOffsets, azimuthOffsets, "
                   "firingSequence)"};
    }
  }
  if (!j.contains("azimuthResolution") || !j["azimuthResolution"].is_number_integer() ||
      j["azimuthResolution"].get<int64_t>() < 1) {
    return Error{file + ": key 'azimuthResolution' must be a whole number >= 1"};
  }
  // A column count: beyond the beams a frame may hold it is a typo, and beyond 2^32 it would
  // wrap in the cast below (issue 36).
  if (j["azimuthResolution"].get<int64_t>() > static_cast<int64_t>(kMaxBeamsPerFrame)) {
    return Error{file + ": key 'azimuthResolution' is " +
                 std::to_string(j["azimuthResolution"].get<int64_t>()) + ", more than the " +
                 std::to_string(kMaxBeamsPerFrame) + " beams a frame may hold"};
  }
  const auto resolution = static_cast<uint32_t>(j["azimuthResolution"].get<int64_t>());
  auto elevation = NumberArray(j, "elevationOffsets", file);
  if (!elevation.ok()) return elevation.error();
  auto azimuth = NumberArray(j, "azimuthOffsets", file);
  if (!azimuth.ok()) return azimuth.error();
  auto firing = NumberArray(j, "firingSequence", file);
  if (!firing.ok()) return firing.error();
  const size_t n = elevation->size();
  if (n == 0) return Error{file + ": 'elevationOffsets' is empty"};
  if (azimuth->size() != n || firing->size() != n) {
    return Error{file + ": arrays differ in length: elevationOffsets has " + std::to_string(n) +
                 ", azimuthOffsets " + std::to_string(azimuth->size()) + ", firingSequence " +
                 std::to_string(firing->size()) + " entries"};
  }
  if (horizontal_samples % resolution != 0) {
    return Error{file + ": azimuthResolution " + std::to_string(resolution) +
                 " does not divide horizontal_samples " + std::to_string(horizontal_samples) +
                 " (the number of firing sequences per sweep must be whole)"};
  }
  // One firing sequence covers `resolution` columns; it repeats to fill the sweep.
  p.columns = horizontal_samples / resolution;
  const double sequence_period_s = 1.0 / (p.columns * p.rotation_rate_hz);
  p.elevation_rad.resize(n);
  p.azimuth_offset_rad.resize(n);
  p.firing_offset_s.resize(n);
  for (size_t k = 0; k < n; ++k) {
    if ((*elevation)[k] < -90 || (*elevation)[k] > 90) {
      return Error{file + ": elevationOffsets[" + std::to_string(k) +
                   "] = " + std::to_string((*elevation)[k]) + " is outside -90..90 deg"};
    }
    if ((*firing)[k] < 0 || (*firing)[k] >= sequence_period_s) {
      return Error{file + ": firingSequence[" + std::to_string(k) +
                   "] = " + std::to_string((*firing)[k]) + " s is outside [0, " +
                   std::to_string(sequence_period_s) + " s), the firing sequence period"};
    }
    p.elevation_rad[k] = (*elevation)[k] * physics::kDegToRad;
    p.azimuth_offset_rad[k] = -(*azimuth)[k] * physics::kDegToRad;
    p.firing_offset_s[k] = (*firing)[k];
  }
  return {};
}

}  // namespace lt
