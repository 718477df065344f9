// ASCII lower case, for comparing file extensions and names that users spell in either case.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>

namespace lt {

inline std::string AsciiLowerCase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace lt
