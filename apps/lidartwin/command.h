// One subcommand as data: its usage, the flags it takes and the job keys they set; RunCommand
// does for every command what each did alike: parse, answer --help, and turn the body's error
// into the message and exit status the conventions give (docs/robustness.md):
//   - the command line refused by the parser, or an argument missing (Usage): exit 2, the
//     message and the usage;
//   - an error about an option: a flag (Args' own errors, Usage) or a job's key that `flags`
//     names (OptionError; the message then names the flag): exit 2;
//   - any other error (a file, the run): exit 1, "error: ...", a key of `names` named by its
//     flag.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "lidartwin/base/status.h"
#include "lidartwin/jobs/job_log.h"

namespace lt::cli {

// Library and workflow errors name an option by its key ("simulate_frame 3: the recording has
// 3 frames", "detector: 'magic' (...)") and say which in Error::option (OptionError); the CLI's
// messages name the flag that was typed. These put the flag in place of the key, so a message
// reads as the command line was written.

// key -> flag, e.g. {"simulate_frame", "--simulate-frame"}.
using OptionFlags = std::vector<std::pair<std::string, std::string>>;

// The error's message with its option's key replaced: "key: ..." becomes "option --flag: ...",
// "key V..." becomes "--flag V..."; the message as it is when the error is about no option, or
// about one these flags do not name.
std::string FlagMessage(const Error& error, const OptionFlags& flags);

// Whether the error is about one of these options (an error in an argument, exit status 2).
bool IsAboutOption(const Error& error, const OptionFlags& flags);

struct Command {
  const char* name;  // "reconstruct"
  // Printed by --help and after a refused command line; empty: docs/cli/NAME.txt.
  std::string usage;
  ArgSpec args;            // --help is added
  OptionFlags flags;       // job key -> flag, e.g. {"voxel_m", "--voxel-m"}: exit 2
  OptionFlags names = {};  // keys named by their flag in errors that exit 1 (an output refused)
};

// The command's work once its line is parsed: the exit status (0, or 3 for a failed gate), or
// the error.
using CommandBody = std::function<Expected<int>(const Args&)>;

int RunCommand(const Command& command, const std::vector<std::string>& argv,
               const CommandBody& body);

// An error in the command line itself (a missing or conflicting argument): exit 2 with the
// usage.
Error Usage(std::string message);
// An argument's value refused by a rule that names no single flag (a job's Validate): exit 2,
// the message as it is.
Error ArgumentError(std::string message);
// "missing RECORDING" / "missing required option --out" as Usage, or success.
Status Require(const Args& args, const char* positional, std::initializer_list<const char*> flags);

// A job's lines printed: info on stdout as it is, notes on stderr after "lidartwin NAME: ",
// warnings after "lidartwin NAME: warning: ".
jobs::JobLog PrintingLog(const char* command);

}  // namespace lt::cli
