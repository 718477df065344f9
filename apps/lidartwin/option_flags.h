// Library and workflow errors name an option by its key ("simulate_frame 3: the recording has
// 3 frames", "detector: 'magic' (...)") and say which in Error::option (OptionError); the CLI's
// messages name the flag that was typed. These put the flag in place of the key, so a message
// reads as the command line was written.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt::cli {

// key -> flag, e.g. {"simulate_frame", "--simulate-frame"}.
using OptionFlags = std::vector<std::pair<std::string, std::string>>;

// The error's message with its option's key replaced: "key: ..." becomes "option --flag: ...",
// "key V..." becomes "--flag V..."; the message as it is when the error is about no option, or
// about one these flags do not name.
std::string FlagMessage(const Error& error, const OptionFlags& flags);

// Whether the error is about one of these options (an error in an argument, exit status 2).
bool IsAboutOption(const Error& error, const OptionFlags& flags);

}  // namespace lt::cli
