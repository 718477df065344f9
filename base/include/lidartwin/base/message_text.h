// Text from a file as an error message quotes it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lt {

// Whole up to `most` characters, else its start, "..." and its length, so that a 200 KB cell
// or line does not become 200 KB of stderr (issue 36).
std::string ShortenedForMessage(std::string_view text, size_t most = 60);

}  // namespace lt
