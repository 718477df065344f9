#include "lidartwin/base/message_text.h"

namespace lt {

std::string ShortenedForMessage(std::string_view text, size_t most) {
  if (text.size() <= most) return std::string(text);
  return std::string(text.substr(0, most)) + "... (" + std::to_string(text.size()) + " characters)";
}

}  // namespace lt
