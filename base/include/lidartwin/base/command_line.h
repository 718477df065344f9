// A command line read and answered the way every lidartwin front end does it: --flag value
// pairs (or --flag=value), boolean --switches, positionals after them or after "--"; unknown
// flags are errors that name the flag. RunCommandLine then does for a command what each would
// do alike: parse, answer --help, and turn the body's error into the message and exit status
// the conventions give (docs/robustness.md):
//   - the line refused by the parser, or an argument missing (Usage): exit 2, the message and
//     the usage;
//   - an error about an option: a flag (FlagError, Usage) or a job's key that `flags` names
//     (OptionError; the message then names the flag): exit 2;
//   - any other error (a file, the run): exit 1, "error: ...", a key of `names` named by its
//     flag.
// Domain-free: the CLI (apps/lidartwin) declares its commands with it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt::cli {

struct ArgSpec {
  std::set<std::string> valued;    // flags that take a value, e.g. "--out"
  std::set<std::string> switches;  // flags without a value, e.g. "--json"
  size_t max_positionals = 0;
};

class Args {
 public:
  static Expected<Args> Parse(const std::vector<std::string>& argv, const ArgSpec& spec);
  bool Has(const std::string& flag) const;
  std::string Get(const std::string& flag, const std::string& fallback = "") const;
  // Parses an unsigned integer value; an error names the flag and the bad text.
  Expected<uint64_t> GetUInt(const std::string& flag, uint64_t fallback) const;
  // GetUInt, refused outside lo..hi with "option F: must be in lo..hi, got V" (the value as
  // given, so 4294967296 is never shown wrapped).
  Expected<uint64_t> GetUIntIn(const std::string& flag, uint64_t fallback, uint64_t lo,
                               uint64_t hi) const;
  // Parses a finite number; an error names the flag and the bad text.
  Expected<double> GetDouble(const std::string& flag, double fallback) const;
  // Parses a comma-separated list of finite numbers ("0,5,10").
  Expected<std::vector<double>> GetDoubleList(const std::string& flag,
                                              const std::vector<double>& fallback) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

  // Each sets `field` from the flag's value where the line gives one and leaves it otherwise:
  // text as it is, numbers parsed (an error names the flag, FlagError; a whole number must fit
  // the field's type, the job's Validate says its range).
  Status Into(const std::string& flag, std::string& field) const;
  Status Into(const std::string& flag, std::filesystem::path& field) const;
  Status Into(const std::string& flag, double& field) const;
  Status Into(const std::string& flag, std::vector<double>& field) const;
  Status Into(const std::string& flag, std::vector<uint32_t>& field) const;  // frame numbers
  Status Into(const std::string& flag, uint64_t& field) const;
  Status Into(const std::string& flag, uint32_t& field) const;
  Status Into(const std::string& flag, int& field) const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> switches_;
  std::vector<std::string> positionals_;
};

// An error about the value of `flag` (Error::option is the flag): a usage error, exit 2.
Error FlagError(const std::string& flag, std::string message);
// An error in the command line itself (a missing or conflicting argument): exit 2 with the
// usage.
Error Usage(std::string message);
// An argument's value refused by a rule that names no single flag (a job's Validate): exit 2,
// the message as it is.
Error ArgumentError(std::string message);
// "missing RECORDING" / "missing required option --out" as Usage, or success.
Status Require(const Args& args, const char* positional, std::initializer_list<const char*> flags);
// The first error of several, or success.
Status FirstError(std::initializer_list<Status> statuses);

// Library and workflow errors name an option by its key ("simulate_frame 3: the recording has
// 3 frames", "detector: 'magic' (...)") and say which in Error::option (OptionError); a command
// line's messages name the flag that was typed. These put the flag in place of the key, so a
// message reads as the command line was written.

// key -> flag, e.g. {"simulate_frame", "--simulate-frame"}.
using OptionFlags = std::vector<std::pair<std::string, std::string>>;

// The error's message with its option's key replaced: "key: ..." becomes "option --flag: ...",
// "key V..." becomes "--flag V..."; the message as it is when the error is about no option, or
// about one these flags do not name.
std::string FlagMessage(const Error& error, const OptionFlags& flags);

// Whether the error is about one of these options (an error in an argument, exit status 2).
bool IsAboutOption(const Error& error, const OptionFlags& flags);

struct CommandLine {
  std::string program;  // "lidartwin": messages begin "PROGRAM NAME: "
  std::string name;     // "reconstruct"
  std::string usage;    // printed by --help and after a refused command line
  ArgSpec args;         // --help (and -h) is added
  OptionFlags flags;    // job key -> flag, e.g. {"voxel_m", "--voxel-m"}: exit 2
  OptionFlags names;    // keys named by their flag in errors that exit 1 (an output refused)
};

// The command's work once its line is parsed: the exit status (0, or 3 for a failed gate), or
// the error.
using CommandBody = std::function<Expected<int>(const Args&)>;

// Parses `argv` by command.args, answers --help, runs the body and prints its error: the exit
// status.
int RunCommandLine(const CommandLine& command, const std::vector<std::string>& argv,
                   const CommandBody& body);

// Outputs checked before anything is read or created: usage errors (exit 2) naming the flag.
// Whether an output flag's value is "-", the usual name of standard output.
bool IsStandardOutput(const Args& args, const char* flag);
// "-" given to an output that is a file set or a folder, which cannot stream, naming what to
// give instead. Each output is (flag, what it needs), e.g. {"--out", "a folder"}.
Status RefuseStandardOutput(const Args& args,
                            std::initializer_list<std::pair<const char*, const char*>> outputs);
// An output that is one of the inputs named by `input_flags` (the same file, however spelled)
// or another output. Each output is (flag, path).
Status CheckOutputsApart(const Args& args, std::initializer_list<const char*> input_flags,
                         const std::vector<std::pair<std::string, std::string>>& outputs);

}  // namespace lt::cli
