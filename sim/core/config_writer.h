// What the writers of the configuration schemas share (SaveMaterialLibrary, SaveScene,
// SaveTrajectory; house rule 13): numbers as the shortest text that reads back to the same
// double (0.2, not 0.20000000000000001), so written files stay as people write them and
// load -> save -> load is exact; a '#' comment header (private to sim/).
#pragma once

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <concepts>
#include <sstream>
#include <string>

namespace lt::config_writer {

// The shortest decimal text that reads back to exactly `v` (std::to_chars).
inline std::string Number(double v) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  return std::string(buf, end);
}

// key: value
inline void Put(YAML::Emitter& e, const char* key, double v) {
  e << YAML::Key << key << YAML::Value << Number(v);
}
template <std::integral T>
requires(!std::same_as<T, bool>) void Put(YAML::Emitter& e, const char* key, T v) {
  e << YAML::Key << key << YAML::Value << std::to_string(v);
}
inline void Put(YAML::Emitter& e, const char* key, bool v) {
  e << YAML::Key << key << YAML::Value << v;
}
inline void Put(YAML::Emitter& e, const char* key, const std::string& v) {
  e << YAML::Key << key << YAML::Value << v;
}
inline void Put(YAML::Emitter& e, const char* key, const char* v) {
  e << YAML::Key << key << YAML::Value << v;
}

// key: [x, y, ...] (numbers)
template <typename Numbers>
void List(YAML::Emitter& e, const char* key, const Numbers& values) {
  e << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (double v : values)
    e << Number(v);
  e << YAML::EndSeq;
}

// `header` (may be empty) as '#' comment lines, then the emitted document.
inline std::string Document(const std::string& header, const YAML::Emitter& e) {
  std::string out;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);)
    out += "# " + line + "\n";
  return out + e.c_str() + "\n";
}

}  // namespace lt::config_writer
