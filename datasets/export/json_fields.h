// Reading the export's JSON files (export.json, shard records) that may be damaged:
// a missing key or a value of the wrong type reads as empty instead of throwing (private to
// datasets/).
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

namespace lt {

// j[key] when j is an object and that value a string; "" otherwise.
inline std::string StringAt(const nlohmann::ordered_json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// How deep JSON text nests ("{}" 1, "{"a": [1]}" 2), strings skipped, in one pass: checked
// before parsing, so that text nested a million levels is refused without building it (nlohmann's
// parser callbacks, the other way to bound depth, take time growing with the square of a
// container's size).
inline int JsonNestingDepth(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace lt
