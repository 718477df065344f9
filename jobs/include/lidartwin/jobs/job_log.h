// Where a workflow's lines for a person go: `info` the results and steps (the CLI prints them on
// stdout), `note` lines about the run rather than its results, such as what each part took
// (stderr), `warning` what went on despite a problem (stderr). Either may be empty (silent);
// tests and the Python layer collect them instead.
#pragma once

#include <functional>
#include <string>

namespace lt::jobs {

struct JobLog {
  std::function<void(const std::string&)> info;     // a line, with its newline
  std::function<void(const std::string&)> note;     // a line, without its newline
  std::function<void(const std::string&)> warning;  // a message, without "warning: "

  void Info(const std::string& line) const {
    if (info) info(line);
  }
  void Note(const std::string& line) const {
    if (note) note(line);
  }
  void Warn(const std::string& message) const {
    if (warning) warning(message);
  }
};

}  // namespace lt::jobs
