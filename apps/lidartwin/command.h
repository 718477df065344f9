// A lidartwin subcommand as data (the engine is base/command_line.h): its flags, the job keys
// they set, and its usage, docs/cli/NAME.txt unless given; and what every command shares: the
// config root, --threads' range, and a job's lines printed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lidartwin/base/command_line.h"
#include "lidartwin/jobs/job_log.h"

namespace lt::cli {

// --threads: 0 (every core the process may use) up to this.
inline constexpr uint64_t kMaxThreads = 1024;

struct Command {
  const char* name;        // "reconstruct"
  std::string usage;       // empty: docs/cli/NAME.txt
  ArgSpec args;            // --help is added
  OptionFlags flags;       // job key -> flag, e.g. {"voxel_m", "--voxel-m"}: exit 2
  OptionFlags names = {};  // keys named by their flag in errors that exit 1 (an output refused)
};

// RunCommandLine as "lidartwin NAME" (base/command_line.h).
int RunCommand(const Command& command, const std::vector<std::string>& argv,
               const CommandBody& body);

// A job's lines printed: info on stdout as it is, notes on stderr after "lidartwin NAME: ",
// warnings after "lidartwin NAME: warning: ".
jobs::JobLog PrintingLog(const char* command);

// What simulate's and convert's --out needs, for RefuseStandardOutput.
inline constexpr const char* kFramesOutput =
    "a file name: out.h5, out.ply/.pcd/.las (one file per frame), or a bag out.mcap/.db3";

}  // namespace lt::cli
