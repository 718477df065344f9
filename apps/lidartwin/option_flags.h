// Library and workflow errors name an option by its key ("simulate_frame 3: the recording has
// 3 frames", "detector: 'magic' (...)"); the CLI's name the flag that was typed. These put the
// flag in place of a leading key, so a message reads as the command line was written.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace lt::cli {

// key -> flag, e.g. {"simulate_frame", "--simulate-frame"}.
using OptionFlags = std::vector<std::pair<std::string, std::string>>;

// The message with a leading key replaced: "key: ..." becomes "option --flag: ...", "key V..."
// becomes "--flag V..."; any other message is returned as it is.
std::string WithFlagNames(const std::string& message, const OptionFlags& flags);

// Whether the message begins with one of the keys (an error in an argument, exit status 2).
bool NamesAnOption(const std::string& message, const OptionFlags& flags);

}  // namespace lt::cli
