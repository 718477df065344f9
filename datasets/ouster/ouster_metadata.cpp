// Ouster metadata JSON, both layouts: legacy (fw <= 2.3: beam_altitude_angles, data_format,
// lidar_mode at the top level) and non-legacy (fw >= 2.4: beam_intrinsics, lidar_intrinsics,
// lidar_data_format, config_params, sensor_info).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/json_text.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/intensity_unit.h"
#include "lidartwin/datasets/ouster.h"
#include "lidartwin/physics/ouster_beam.h"

namespace lt {

namespace {

using nlohmann::json;

// Reads keys of one JSON object, remembering the first problem with its path.
// Offsets inside a sensor are millimetres to centimetres; 10 m is beyond any.
constexpr double kMaxOffsetMm = 10000;
// Ouster's largest formats: 128 beams, 4096 columns (4096x5), 16 columns a packet; twice
// each is allowed, more is not a sensor's and would size buffers from a file's claim.
constexpr double kMostBeams = 256, kMostColumns = 8192, kMostColumnsPerPacket = 64;
// lidar_mode's rate: 5, 10 or 20 Hz on every model.
constexpr double kLeastRateHz = 1, kMostRateHz = 100;

class JsonReader {
 public:
  JsonReader(const std::filesystem::path& file, std::string* error) : file_(file), error_(error) {}

  const json* Find(const json& parent, const std::string& path, const std::string& key,
                   bool required) {
    if (!parent.is_object() || !parent.contains(key)) {
      if (required) Fail(path + key, "is missing");
      return nullptr;
    }
    return &parent.at(key);
  }
  double Number(const json& parent, const std::string& path, const std::string& key) {
    const json* v = Find(parent, path, key, true);
    if (!v) return 0;
    if (!v->is_number()) {
      Fail(path + key, "must be a number");
      return 0;
    }
    return v->get<double>();
  }
  std::vector<double> Numbers(const json& parent, const std::string& path, const std::string& key,
                              size_t expected = 0) {
    const json* v = Find(parent, path, key, true);
    std::vector<double> out;
    if (!v) return out;
    if (!v->is_array()) {
      Fail(path + key, "must be an array of numbers");
      return out;
    }
    for (const auto& e : *v) {
      if (!e.is_number()) {
        Fail(path + key, "must be an array of numbers");
        return {};
      }
      out.push_back(e.get<double>());
    }
    if (expected && out.size() != expected) {
      Fail(path + key,
           "has " + std::to_string(out.size()) + " values, expected " + std::to_string(expected));
    }
    return out;
  }
  std::string String(const json& parent, const std::string& path, const std::string& key,
                     bool required) {
    const json* v = Find(parent, path, key, required);
    if (!v) return {};
    if (!v->is_string()) {
      Fail(path + key, "must be a string");
      return {};
    }
    return v->get<std::string>();
  }
  // Values within +-max_abs (angles in degrees, offsets in millimetres: a number beyond is a
  // corrupt file or the wrong unit, and would put points at infinity).
  void Within(const std::vector<double>& values, const std::string& key, double max_abs,
              const char* unit) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (!(std::abs(values[i]) <= max_abs)) {
        Fail(key, "[" + std::to_string(i) + "] = " + NumberText(values[i]) + " is beyond +-" +
                      NumberText(max_abs) + " " + unit);
        return;
      }
    }
  }
  void Fail(const std::string& key, const std::string& what) {
    if (error_->empty()) *error_ = file_.string() + ": key '" + key + "' " + what;
  }
  bool ok() const { return error_->empty(); }
  // A whole number in lo..hi (a count, an index, a shift), else a failure naming the key.
  double Whole(double v, const std::string& key, double lo, double hi) {
    if (ok() && !(v >= lo && v <= hi && v == std::floor(v))) {
      Fail(key, "must be a whole number in " + std::to_string(static_cast<int64_t>(lo)) + ".." +
                    std::to_string(static_cast<int64_t>(hi)));
      return lo;
    }
    return v;
  }

 private:
  std::filesystem::path file_;
  std::string* error_;
};

bool ParseProfile(const std::string& name, OusterProfile& profile, bool& fusa) {
  fusa = name.rfind("FUSA_", 0) == 0;
  if (name == "LEGACY") {
    profile = OusterProfile::kLegacy;
  } else if (name == "RNG19_RFL8_SIG16_NIR16") {
    profile = OusterProfile::kRng19Rfl8Sig16Nir16;
  } else if (name == "RNG19_RFL8_SIG16_NIR16_DUAL") {
    profile = OusterProfile::kRng19Rfl8Sig16Nir16Dual;
  } else if (name == "RNG15_RFL8_NIR8") {
    profile = OusterProfile::kRng15Rfl8Nir8;
  } else if (name == "RNG15_RFL8_NIR8_DUAL" || name == "FUSA_RNG15_RFL8_NIR8_DUAL") {
    profile = OusterProfile::kRng15Rfl8Nir8Dual;
  } else {
    return false;
  }
  return true;
}

}  // namespace

size_t OusterMetadata::ChannelBytes() const {
  switch (profile) {
    case OusterProfile::kLegacy:
    case OusterProfile::kRng19Rfl8Sig16Nir16:
      return 12;
    case OusterProfile::kRng19Rfl8Sig16Nir16Dual:
      return 16;
    case OusterProfile::kRng15Rfl8Nir8:
      return 4;
    case OusterProfile::kRng15Rfl8Nir8Dual:
      return 8;
  }
  return 0;
}
size_t OusterMetadata::ColumnBytes() const {
  const bool legacy = profile == OusterProfile::kLegacy;
  return (legacy ? 16 + 4 : 12) + pixels_per_column * ChannelBytes();
}
size_t OusterMetadata::PacketBytes() const {
  const bool legacy = profile == OusterProfile::kLegacy;
  return (legacy ? 0 : 64) + columns_per_packet * ColumnBytes();
}
bool OusterMetadata::Dual() const {
  return profile == OusterProfile::kRng19Rfl8Sig16Nir16Dual ||
         profile == OusterProfile::kRng15Rfl8Nir8Dual;
}

Expected<OusterMetadata> LoadOusterMetadata(const std::filesystem::path& file) {
  auto text = ReadTextFile(file);
  if (!text.ok()) return text.error();
  return ParseOusterMetadata(*text, file);
}

Expected<OusterMetadata> ParseOusterMetadata(const std::string& text,
                                             const std::filesystem::path& file) {
  auto parsed = ParseJsonText(text, file.string());
  if (!parsed.ok()) return parsed.error();
  json root = std::move(parsed.value());
  if (!root.is_object()) return Error{file.string() + ": the metadata is not a JSON object"};
  std::string error;
  JsonReader r(file, &error);
  OusterMetadata m;
  m.file = file;
  m.legacy_layout = !root.contains("beam_intrinsics");
  // Where each group of keys lives in either layout.
  const json empty = json::object();
  const json& beams = m.legacy_layout ? root : root["beam_intrinsics"];
  const std::string beams_path = m.legacy_layout ? "" : "beam_intrinsics.";
  const char* format_key = m.legacy_layout ? "data_format" : "lidar_data_format";
  const json* format = r.Find(root, "", format_key, !m.legacy_layout);
  // Firmware 1.12 wrote an error string here ("Command not recognized"): no data format.
  if (format && !format->is_object()) format = nullptr;
  const std::string format_path = std::string(format_key) + ".";
  const json& config =
      m.legacy_layout ? root : (root.contains("config_params") ? root["config_params"] : empty);
  const std::string config_path = m.legacy_layout ? "" : "config_params.";
  const json& info =
      m.legacy_layout ? root : (root.contains("sensor_info") ? root["sensor_info"] : empty);
  const json& intrinsics =
      m.legacy_layout ? root
                      : (root.contains("lidar_intrinsics") ? root["lidar_intrinsics"] : empty);

  m.product = r.String(info, "", "prod_line", false);
  m.serial = r.String(info, "", "prod_sn", false);
  m.altitude_deg = r.Numbers(beams, beams_path, "beam_altitude_angles");
  m.azimuth_deg = r.Numbers(beams, beams_path, "beam_azimuth_angles");
  r.Within(m.altitude_deg, beams_path + "beam_altitude_angles", 90, "deg");
  r.Within(m.azimuth_deg, beams_path + "beam_azimuth_angles", 360, "deg");
  if (r.ok() && m.altitude_deg.size() != m.azimuth_deg.size()) {
    r.Fail(beams_path + "beam_azimuth_angles", "has " + std::to_string(m.azimuth_deg.size()) +
                                                   " values but beam_altitude_angles has " +
                                                   std::to_string(m.altitude_deg.size()));
  }
  if (r.ok() &&
      std::all_of(m.altitude_deg.begin(), m.altitude_deg.end(), [](double a) { return a == 0; })) {
    r.Fail(beams_path + "beam_altitude_angles", "are all zero: the sensor is not calibrated");
  }
  if (r.Find(beams, beams_path, "lidar_origin_to_beam_origin_mm", false)) {
    m.lidar_origin_to_beam_origin_mm =
        r.Number(beams, beams_path, "lidar_origin_to_beam_origin_mm");
    r.Within({m.lidar_origin_to_beam_origin_mm}, beams_path + "lidar_origin_to_beam_origin_mm",
             kMaxOffsetMm, "mm");
  }
  m.beam_origin_x_mm = m.lidar_origin_to_beam_origin_mm;
  if (r.Find(beams, beams_path, "beam_to_lidar_transform", false)) {
    const auto t = r.Numbers(beams, beams_path, "beam_to_lidar_transform", 16);
    r.Within(t, beams_path + "beam_to_lidar_transform", kMaxOffsetMm, "(mm, or unitless)");
    if (t.size() == 16) {
      m.beam_origin_x_mm = t[3];
      m.beam_origin_z_mm = t[11];
      m.lidar_origin_to_beam_origin_mm = std::hypot(t[3], t[11]);
    }
  }
  if (r.Find(intrinsics, "", "lidar_to_sensor_transform", false)) {
    const auto t = r.Numbers(intrinsics, m.legacy_layout ? "" : "lidar_intrinsics.",
                             "lidar_to_sensor_transform", 16);
    r.Within(t, "lidar_to_sensor_transform", kMaxOffsetMm, "(mm, or unitless)");
    if (t.size() == 16) std::copy(t.begin(), t.end(), m.lidar_to_sensor.begin());
  }
  const std::string mode = r.String(config, config_path, "lidar_mode", true);
  uint32_t mode_columns = 0;
  if (r.ok()) {
    const auto x = mode.find('x');
    try {
      const double columns = std::stod(mode.substr(0, x));
      m.rotation_rate_hz = std::stod(mode.substr(x + 1));
      if (!(columns >= 1 && columns <= kMostColumns && columns == std::floor(columns)) ||
          !(m.rotation_rate_hz >= kLeastRateHz && m.rotation_rate_hz <= kMostRateHz)) {
        r.Fail(config_path + "lidar_mode",
               "'" + mode + "': columns in 1..8192 and a rate in 1..100 Hz expected");
      } else {
        mode_columns = static_cast<uint32_t>(columns);
      }
    } catch (...) {
      r.Fail(config_path + "lidar_mode", "'" + mode + "' is not of the form 1024x10");
    }
  }
  if (const json* port = r.Find(config, config_path, "udp_port_lidar", false);
      port && port->is_number_integer()) {
    m.lidar_port = port->get<uint16_t>();
  }
  std::string profile = "LEGACY";
  if (format) {
    const auto n =
        static_cast<uint32_t>(r.Whole(r.Number(*format, format_path, "pixels_per_column"),
                                      format_path + "pixels_per_column", 1, kMostBeams));
    m.pixels_per_column = n;
    m.columns_per_frame =
        static_cast<uint32_t>(r.Whole(r.Number(*format, format_path, "columns_per_frame"),
                                      format_path + "columns_per_frame", 1, kMostColumns));
    m.columns_per_packet = static_cast<uint32_t>(
        r.Whole(r.Number(*format, format_path, "columns_per_packet"),
                format_path + "columns_per_packet", 1, kMostColumnsPerPacket));
    m.column_last = m.columns_per_frame ? m.columns_per_frame - 1 : 0;
    if (r.Find(*format, format_path, "column_window", false)) {  // absent before fw 2.0
      const auto window = r.Numbers(*format, format_path, "column_window", 2);
      if (window.size() == 2) {
        m.column_first = static_cast<uint32_t>(
            r.Whole(window[0], format_path + "column_window", 0, kMostColumns));
        m.column_last = static_cast<uint32_t>(
            r.Whole(window[1], format_path + "column_window", 0, kMostColumns));
      }
    }
    if (r.Find(*format, format_path, "pixel_shift_by_row", !m.legacy_layout)) {
      for (double s : r.Numbers(*format, format_path, "pixel_shift_by_row", n)) {
        m.pixel_shift_by_row.push_back(static_cast<int>(
            r.Whole(s, format_path + "pixel_shift_by_row", -kMostColumns, kMostColumns)));
      }
    }
    if (r.Find(*format, format_path, "udp_profile_lidar", false)) {
      profile = r.String(*format, format_path, "udp_profile_lidar", true);
    }
  } else {
    // Firmware before data_format: 16 columns per packet, one pixel per beam, all columns.
    m.pixels_per_column = static_cast<uint32_t>(m.altitude_deg.size());
    m.columns_per_frame = mode_columns;
    m.columns_per_packet = 16;
    m.column_first = 0;
    m.column_last = mode_columns ? mode_columns - 1 : 0;
  }
  if (!r.ok()) return Error{error};
  if (!ParseProfile(profile, m.profile, m.fusa_header)) {
    return Error{file.string() + ": key '" + format_path + "udp_profile_lidar': profile '" +
                 profile + "' is not supported"};
  }
  if (m.pixels_per_column != m.altitude_deg.size()) {
    return Error{file.string() + ": key '" + format_path +
                 "pixels_per_column': " + std::to_string(m.pixels_per_column) + " but " +
                 std::to_string(m.altitude_deg.size()) + " beam angles"};
  }
  if (m.columns_per_frame == 0 || m.columns_per_packet == 0 || m.pixels_per_column == 0 ||
      m.column_last >= m.columns_per_frame || m.column_first > m.column_last ||
      !(m.rotation_rate_hz > 0)) {
    return Error{file.string() + ": key '" + format_path +
                 "': impossible data format (zero sizes, or a column window outside the frame)"};
  }
  if (mode_columns && mode_columns != m.columns_per_frame) {
    return Error{file.string() + ": key '" + config_path + "lidar_mode': " + mode + " but " +
                 std::to_string(m.columns_per_frame) + " columns per frame"};
  }
  return m;
}

std::array<double, 3> OusterPointXyz(const OusterMetadata& m, uint32_t row, uint32_t column,
                                     double range_mm) {
  const physics::Vec3<double> p = physics::OusterLidarPoint(
      range_mm, physics::OusterEncoderAngle(column, m.columns_per_frame), m.azimuth_deg[row],
      m.altitude_deg[row],
      {m.beam_origin_x_mm, m.beam_origin_z_mm, m.lidar_origin_to_beam_origin_mm});
  const auto& t = m.lidar_to_sensor;  // row-major 4x4, translation in mm
  return {(t[0] * p.x + t[1] * p.y + t[2] * p.z + t[3]) * 1e-3,
          (t[4] * p.x + t[5] * p.y + t[6] * p.z + t[7]) * 1e-3,
          (t[8] * p.x + t[9] * p.y + t[10] * p.z + t[11]) * 1e-3};
}

const char* OusterIntensityUnit(OusterProfile p) {
  return p == OusterProfile::kRng15Rfl8Nir8 || p == OusterProfile::kRng15Rfl8Nir8Dual
             ? kIntensityOusterReflectivity
             : kIntensityOusterSignal;
}

const char* OusterProfileName(OusterProfile p) {
  switch (p) {
    case OusterProfile::kLegacy:
      return "LEGACY";
    case OusterProfile::kRng19Rfl8Sig16Nir16:
      return "RNG19_RFL8_SIG16_NIR16";
    case OusterProfile::kRng19Rfl8Sig16Nir16Dual:
      return "RNG19_RFL8_SIG16_NIR16_DUAL";
    case OusterProfile::kRng15Rfl8Nir8:
      return "RNG15_RFL8_NIR8";
    case OusterProfile::kRng15Rfl8Nir8Dual:
      return "RNG15_RFL8_NIR8_DUAL";
  }
  return "?";
}

}  // namespace lt
