#include "option_flags.h"

namespace lt::cli {
namespace {

// The flag of the error's option, or null.
const std::string* FlagOf(const Error& error, const OptionFlags& flags) {
  if (error.option.empty()) return nullptr;
  for (const auto& [key, flag] : flags)
    if (key == error.option) return &flag;
  return nullptr;
}

}  // namespace

std::string FlagMessage(const Error& error, const OptionFlags& flags) {
  const std::string* flag = FlagOf(error, flags);
  const std::string& m = error.message;
  const size_t n = error.option.size();
  if (flag == nullptr || m.size() <= n || m.compare(0, n, error.option) != 0 ||
      (m[n] != ':' && m[n] != ' '))
    return m;
  const std::string rest = m.substr(n);
  return rest[0] == ':' ? "option " + *flag + rest : *flag + rest;
}

bool IsAboutOption(const Error& error, const OptionFlags& flags) {
  return FlagOf(error, flags) != nullptr;
}

}  // namespace lt::cli
