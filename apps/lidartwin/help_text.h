// The commands' help texts. They live in docs/cli/NAME.txt, the CLI reference, and are built
// into the program (apps/CMakeLists.txt), so that --help and the documentation never differ.
#pragma once

#include <string>

namespace lt::cli {

// docs/cli/NAME.txt ("export", "compare-inputs", "lidartwin" for the program's own), or empty.
std::string HelpText(const std::string& name);

}  // namespace lt::cli
