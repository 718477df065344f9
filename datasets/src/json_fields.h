// Reading fields of the export's JSON files (export.json, the manifest) that may be damaged:
// a missing key or a value of the wrong type reads as empty instead of throwing (private to
// datasets/).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace lt {

// j[key] when j is an object and that value a string; "" otherwise.
inline std::string StringAt(const nlohmann::ordered_json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace lt
