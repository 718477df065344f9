// Velodyne calibration tables (the ros-drivers/velodyne YAML format, or Velodyne's db.xml through
// velodyne_xml.h) and the model a table is for.
#include "lidartwin/base/config_check.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/velodyne.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "lidartwin/physics/units.h"
#include "velodyne_models.h"
#include "velodyne_xml.h"

namespace lt {

namespace {

using physics::kPi;

}  // namespace

// The model a calibration table is for, where its elevations say so unambiguously (the
// nominal tables of the ros-drivers and VeloView: VLP-16 +-15 deg, Puck Hi-Res +-10 deg,
// HDL-32E -30.67..+10.67 deg, VLP-32C -25..+15 deg); 0 where they do not.
uint8_t VelodyneCalibrationProduct(const VelodyneCalibration& c) {
  double lo = 90, hi = -90;
  for (const VelodyneLaser& l : c.lasers) {
    lo = std::min(lo, l.vert_correction_rad * 180 / kPi);
    hi = std::max(hi, l.vert_correction_rad * 180 / kPi);
  }
  const auto near = [](double a, double b) { return std::abs(a - b) < 1.0; };
  if (c.lasers.size() == 16 && near(lo, -15) && near(hi, 15)) return 0x22;
  if (c.lasers.size() == 16 && near(lo, -10) && near(hi, 10)) return 0x24;
  if (c.lasers.size() == 32 && near(lo, -30.67) && near(hi, 10.67)) return 0x21;
  if (c.lasers.size() == 32 && near(lo, -25) && near(hi, 15)) return 0x28;
  if (c.lasers.size() == 128) return 0xA1;  // the only 128-laser model
  return 0;
}

namespace {

constexpr double kMaxCorrectionM = 10;

// "key 'X' (line N) appears twice (first at line M)" for the first repeated key of any map
// under `node`, or empty: YAML readers keep one of two equal keys silently. `budget` counts the
// nodes still to be visited: a tree read from n bytes has at most about n nodes ("a:" is two)
// unless aliases (*name) share subtrees, and nested aliases ("b: &b [*a, *a]", 40 deep) would make
// the walk take 2^40 steps (found by fuzz_recording_files in CI). Past the budget the walk stops
// with that message.
std::string DuplicateKey(const YAML::Node& node, size_t& budget) {
  if (budget == 0)
    return "YAML aliases (*name) repeat more nodes than a calibration of this size can hold";
  --budget;
  if (node.IsSequence()) {
    for (const auto& item : node)
      if (auto d = DuplicateKey(item, budget); !d.empty()) return d;
  } else if (node.IsMap()) {
    std::map<std::string, int> lines;
    for (const auto& kv : node) {
      const int line = kv.first.Mark().line + 1;
      if (!kv.first.IsScalar()) return "line " + std::to_string(line) + ": a key is a list or map";
      const auto [it, inserted] = lines.emplace(kv.first.Scalar(), line);
      if (!inserted) {
        return "key '" + kv.first.Scalar() + "' (line " + std::to_string(line) +
               ") appears twice (first at line " + std::to_string(it->second) + ")";
      }
      if (auto d = DuplicateKey(kv.second, budget); !d.empty()) return d;
    }
  }
  return "";
}

// A laser's values within what a real calibration holds; errors begin with `where`.
Status CheckLaser(const VelodyneLaser& v, const std::string& where) {
  if (!(std::abs(v.vert_correction_rad) <= kPi / 2) ||
      !(std::abs(v.rot_correction_rad) <= 2 * kPi)) {
    return Error{where + ": vert_correction " + NumberText(v.vert_correction_rad * 180 / kPi) +
                 " deg or rot_correction " + NumberText(v.rot_correction_rad * 180 / kPi) +
                 " deg is beyond +-90 and +-360 deg (a YAML's are in radians)"};
  }
  // Corrections of a few centimetres to tens of centimetres in real calibrations; 10 m
  // would move points by more than the sensor's own size allows.
  for (const auto& [key, value] : {std::pair{"dist_correction", v.dist_correction_m},
                                   std::pair{"vert_offset_correction", v.vert_offset_m},
                                   std::pair{"horiz_offset_correction", v.horiz_offset_m},
                                   std::pair{"dist_correction_x", v.dist_correction_x_m},
                                   std::pair{"dist_correction_y", v.dist_correction_y_m}}) {
    if (!(std::abs(value) <= kMaxCorrectionM)) {
      return Error{where + ": key '" + key + "': " + NumberText(value) +
                   " m is beyond the 10 m a calibration correction may be"};
    }
  }
  if (!(v.focal_distance_m >= 0 && v.focal_distance_m <= 1000) || !(std::abs(v.focal_slope) <= 100))
    return Error{where + ": keys 'focal_distance', 'focal_slope': " +
                 NumberText(v.focal_distance_m) + " m and " + NumberText(v.focal_slope) +
                 " are beyond a focal distance of 0-1000 m and a slope of +-100"};
  if (!(v.min_intensity >= 0 && v.min_intensity <= v.max_intensity && v.max_intensity <= 255))
    return Error{where + ": keys 'min_intensity', 'max_intensity': " + NumberText(v.min_intensity) +
                 " and " + NumberText(v.max_intensity) +
                 " are not 0 <= min <= max <= 255 intensity counts"};
  return {};
}

// The table as a whole: each laser its own elevation, a distance unit in range.
Expected<VelodyneCalibration> CheckTable(VelodyneCalibration c) {
  const std::string file = c.file.string();
  // Lasers at one elevation scan one cone, not a sensor's fan: a table whose every
  // vert_correction is the same (all 0: a template never filled in) is no calibration.
  if (c.lasers.size() > 1 &&
      std::all_of(c.lasers.begin(), c.lasers.end(), [&](const VelodyneLaser& l) {
        return l.vert_correction_rad == c.lasers.front().vert_correction_rad;
      })) {
    return Error{file + ": every one of the " + std::to_string(c.lasers.size()) +
                 " lasers has vert_correction " + NumberText(c.lasers.front().vert_correction_rad) +
                 " rad; a calibration gives each laser its own elevation"};
  }
  if (!(c.distance_resolution_m > 0 && c.distance_resolution_m <= 1))
    return Error{file + ": key 'distance_resolution' must be in (0, 1] m, got " +
                 NumberText(c.distance_resolution_m)};
  return c;
}

}  // namespace

Expected<VelodyneCalibration> LoadVelodyneCalibration(const std::filesystem::path& file) {
  const bool xml_file = file.extension() == ".xml" || file.extension() == ".XML";
  // A real db.xml is under 100 kB; 4 MB bounds a hostile one's reading.
  auto text =
      ReadTextFile(file, " Velodyne calibration", xml_file ? uint64_t{4} << 20 : uint64_t{1} << 30);
  if (!text.ok()) return text.error();
  if (xml_file) {
    auto xml = ParseVelodyneXml(*text, file);
    if (!xml.ok()) return xml.error();
    for (size_t i = 0; i < xml->lasers.size(); ++i)
      if (Status s = CheckLaser(xml->lasers[i],
                                file.string() + ": laser " + std::to_string(i) +
                                    " (its <px>, in the ros-drivers' keys and units: metres)");
          !s.ok())
        return s.error();
    return CheckTable(std::move(*xml));
  }
  if (Status s = CheckYamlCharacters(*text, file.string()); !s.ok()) return s.error();
  YAML::Node root;
  try {
    const std::vector<YAML::Node> documents = YAML::LoadAll(*text);
    if (documents.size() > 1) {
      return Error{file.string() + ": holds " + std::to_string(documents.size()) +
                   " YAML documents (separated by ---); a calibration is one"};
    }
    if (!documents.empty()) root = documents.front();
  } catch (const YAML::Exception& e) {
    return Error{file.string() + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
  if (!root.IsMap()) return Error{file.string() + ": expected a mapping with a 'lasers' list"};
  const YAML::Node lasers = root["lasers"];
  if (!lasers || !lasers.IsSequence() || lasers.size() == 0) {
    return Error{file.string() + ": key 'lasers' is missing or empty"};
  }
  size_t node_budget = 2 * text->size() + 16;  // twice the most a tree without aliases holds
  if (auto dup = DuplicateKey(root, node_budget); !dup.empty()) {
    return Error{file.string() + ": " + dup};
  }
  VelodyneCalibration c;
  c.file = file;
  c.lasers.resize(lasers.size());
  std::vector<bool> seen(lasers.size(), false);
  for (size_t i = 0; i < lasers.size(); ++i) {
    const YAML::Node l = lasers[i];
    const std::string where = file.string() + ": lasers[" + std::to_string(i) + "]";
    if (!l.IsMap() || !l["laser_id"] || !l["rot_correction"] || !l["vert_correction"]) {
      return Error{where + ": needs laser_id, rot_correction and vert_correction"};
    }
    // A number under `key`, or the error naming the key and its line.
    std::string problem;
    const auto number = [&](const char* key, double fallback) {
      const YAML::Node n = l[key];
      if (!n) return fallback;
      try {
        const double v = n.as<double>();
        if (std::isfinite(v)) return v;
      } catch (const YAML::Exception&) {
      }
      if (problem.empty()) {
        problem = where + ": key '" + key + "' (line " + std::to_string(n.Mark().line + 1) +
                  "): expected a finite number";
      }
      return fallback;
    };
    const double id_value = number("laser_id", -1);
    if (!problem.empty()) return Error{problem};
    // Range first: casting a double beyond int's range is undefined (found by UBSan in CI).
    const bool whole_in_range = id_value >= 0 && id_value < static_cast<double>(lasers.size()) &&
                                id_value == std::floor(id_value);
    const size_t id = whole_in_range ? static_cast<size_t>(id_value) : 0;
    if (!whole_in_range || seen[id]) {
      return Error{where + ": key 'laser_id': " + NumberText(id_value) +
                   " is out of range or repeated"};
    }
    seen[id] = true;
    VelodyneLaser& v = c.lasers[id];
    v.rot_correction_rad = number("rot_correction", 0);
    v.vert_correction_rad = number("vert_correction", 0);
    v.dist_correction_m = number("dist_correction", 0);
    v.vert_offset_m = number("vert_offset_correction", 0);
    v.horiz_offset_m = number("horiz_offset_correction", 0);
    v.dist_correction_x_m = number("dist_correction_x", v.dist_correction_m);
    v.dist_correction_y_m = number("dist_correction_y", v.dist_correction_m);
    v.focal_distance_m = number("focal_distance", 0);
    v.focal_slope = number("focal_slope", 0);
    v.min_intensity = number("min_intensity", 0);
    v.max_intensity = number("max_intensity", 255);
    if (!problem.empty()) return Error{problem};
    if (const YAML::Node two = l["two_pt_correction_available"]) {
      try {
        v.two_point = two.as<bool>();
      } catch (const YAML::Exception&) {
        return Error{where + ": key 'two_pt_correction_available' (line " +
                     std::to_string(two.Mark().line + 1) + "): expected true or false"};
      }
    }
    if (Status s = CheckLaser(v, where); !s.ok()) return s.error();
  }
  if (const YAML::Node model = root["model"]) {  // lidartwin's own key (issue 36 item 7)
    const VelodyneModel* m = model.IsScalar() ? VelodyneModelNamed(model.Scalar()) : nullptr;
    if (!m) {
      return Error{file.string() + ": key 'model' (line " + std::to_string(model.Mark().line + 1) +
                   "): expected one of " + VelodyneModelNames()};
    }
    c.model = m->name;
  }
  try {
    if (root["num_lasers"] && root["num_lasers"].as<size_t>() != c.lasers.size()) {
      return Error{file.string() + ": key 'num_lasers' disagrees with the " +
                   std::to_string(c.lasers.size()) + " lasers listed"};
    }
    if (root["distance_resolution"])
      c.distance_resolution_m = root["distance_resolution"].as<double>();
  } catch (const YAML::Exception& e) {
    return Error{file.string() + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
  return CheckTable(std::move(c));
}

}  // namespace lt
