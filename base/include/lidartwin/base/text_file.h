// A whole file as a string, for the parsers that take text (YAML, JSON, PCD, PLY).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "lidartwin/base/status.h"

namespace lt {

// Why `file` cannot be opened for reading, as the system says it: "No such file or directory",
// "Permission denied", "Is a directory"; "unknown reason" when it can be opened after all.
std::string CannotOpenReason(const std::filesystem::path& file);

// OK when `file` is a regular file this process may read; otherwise an error "<file>: <why>":
// "No such file or directory", "Permission denied", "Too many levels of symbolic links",
// "is a directory", "not a regular file (a device, FIFO or socket)". Never blocks (a FIFO is
// opened non-blocking to look at it).
Status CheckReadableFile(const std::filesystem::path& file);

// The file's bytes; on failure the error reads "<file>: cannot open<what>: <reason>" (what: e.g.
// " sensor profile", or "" for plain "cannot open"). Only regular files (a device or FIFO is
// refused, not streamed), of at most max_bytes (1 GiB unless the caller knows better).
Expected<std::string> ReadTextFile(const std::filesystem::path& file, const std::string& what = "",
                                   uint64_t max_bytes = uint64_t{1} << 30);

// OK when `text` holds only characters YAML allows (YAML 1.2 sec. 5.1: valid UTF-8, no C0
// control characters but tab, line feed and carriage return, no DEL); otherwise an error
// "<file>: byte <offset>: ...". yaml-cpp 0.7 does not refuse them all itself, and a 1 KB
// file with a control character and a stray byte inside a flow list made it run for seconds
// and take gigabytes (found by fuzz_recording_files).
// (CheckYamlCharacters also runs CheckYamlFlowEnds.)
Status CheckYamlCharacters(const std::string& text, const std::string& file);

// OK unless a comma follows a top-level flow collection's close ("[], a"), which is not YAML
// and on which yaml-cpp 0.7 never returns; the error names the byte.
Status CheckYamlFlowEnds(const std::string& text, const std::string& file);

}  // namespace lt
