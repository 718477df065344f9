// The items of a comma-separated list as a person types it ("0,17,3000-3010", "0,1"): in order,
// empty items kept ("a,,b" has three, "" has one) so that each reader can name the bad one.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace lt {

inline std::vector<std::string> CommaSeparated(std::string_view text) {
  std::vector<std::string> items;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    items.emplace_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

}  // namespace lt
