#include "option_flags.h"

namespace lt::cli {
namespace {

// The entry whose key begins the message as a word (followed by ':' or ' '), or null.
const std::pair<std::string, std::string>* LeadingKey(const std::string& message,
                                                      const OptionFlags& flags) {
  for (const auto& entry : flags) {
    const std::string& key = entry.first;
    if (message.size() > key.size() && message.compare(0, key.size(), key) == 0 &&
        (message[key.size()] == ':' || message[key.size()] == ' '))
      return &entry;
  }
  return nullptr;
}

}  // namespace

std::string WithFlagNames(const std::string& message, const OptionFlags& flags) {
  const auto* entry = LeadingKey(message, flags);
  if (entry == nullptr) return message;
  const std::string rest = message.substr(entry->first.size());
  return rest[0] == ':' ? "option " + entry->second + rest : entry->second + rest;
}

bool NamesAnOption(const std::string& message, const OptionFlags& flags) {
  return LeadingKey(message, flags) != nullptr;
}

}  // namespace lt::cli
