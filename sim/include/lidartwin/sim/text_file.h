// A whole file as a string, for the parsers that take text (YAML, JSON, PCD, PLY).
#pragma once

#include <filesystem>
#include <string>

#include "lidartwin/sim/status.h"

namespace lt {

// The file's bytes; on failure the error reads "<file>: cannot open<what>" (what: e.g.
// " sensor profile", or "" for plain "cannot open").
Expected<std::string> ReadTextFile(const std::filesystem::path& file, const std::string& what = "");

}  // namespace lt
