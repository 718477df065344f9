#include "command.h"

#include <fmt/core.h>

#include "commands.h"
#include "help_text.h"

namespace lt::cli {

int RunCommand(const Command& command, const std::vector<std::string>& argv,
               const CommandBody& body) {
  const std::string usage = command.usage.empty() ? HelpText(command.name) : command.usage;
  return RunCommandLine(
      {"lidartwin", command.name, usage, command.args, command.flags, command.names}, argv, body);
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
