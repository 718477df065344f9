#include "command.h"

#include <fmt/core.h>

#include <cstdlib>

#include "commands.h"
#include "help_text.h"

namespace lt::cli {
namespace {

// The flag of the error's option, or null.
const std::string* FlagOf(const Error& error, const OptionFlags& flags) {
  if (error.option.empty()) return nullptr;
  for (const auto& [key, flag] : flags)
    if (key == error.option) return &flag;
  return nullptr;
}

// Error::option of a usage error (a flag's own begins with "--" too).
constexpr const char* kUsageOption = "--";

bool IsFlag(const std::string& option) {
  return option.size() >= 2 && option.compare(0, 2, "--") == 0;
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

Error Usage(std::string message) {
  return Error{std::move(message), kUsageOption};
}

Error ArgumentError(std::string message) {
  return Error{std::move(message), "--*"};
}

Status Require(const Args& args, const char* positional, std::initializer_list<const char*> flags) {
  if (positional && args.positionals().empty()) return Usage(std::string("missing ") + positional);
  for (const char* flag : flags)
    if (!args.Has(flag)) return Usage(std::string("missing required option ") + flag);
  return {};
}

int RunCommand(const Command& command, const std::vector<std::string>& argv,
               const CommandBody& body) {
  const std::string usage = command.usage.empty() ? HelpText(command.name) : command.usage;
  ArgSpec spec = command.args;
  spec.switches.insert("--help");
  auto args = Args::Parse(argv, spec);
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin {}: {}\n{}", command.name, args.message(), usage);
    return 2;
  }
  if (args->Has("--help")) {
    fmt::print("{}", usage);
    return 0;
  }
  auto exit_status = body(*args);
  if (exit_status.ok()) return *exit_status;
  const Error& e = exit_status.error();
  if (e.option == kUsageOption) {
    fmt::print(stderr, "lidartwin {}: {}\n{}", command.name, e.message, usage);
    return 2;
  }
  if (IsFlag(e.option) || IsAboutOption(e, command.flags)) {
    fmt::print(stderr, "lidartwin {}: {}\n", command.name, FlagMessage(e, command.flags));
    return 2;
  }
  fmt::print(stderr, "lidartwin {}: error: {}\n", command.name, FlagMessage(e, command.names));
  return 1;
}

std::string ConfigRoot() {
  if (const char* home = std::getenv("LIDARTWIN_HOME")) return home;
  return LT_SOURCE_DIR;
}

jobs::JobLog PrintingLog(const char* command) {
  jobs::JobLog log;
  log.info = [](const std::string& line) { fmt::print("{}", line); };
  log.note = [command](const std::string& line) {
    fmt::print(stderr, "lidartwin {}: {}\n", command, line);
  };
  log.warning = [command](const std::string& message) {
    fmt::print(stderr, "lidartwin {}: warning: {}\n", command, message);
  };
  return log;
}

}  // namespace lt::cli
