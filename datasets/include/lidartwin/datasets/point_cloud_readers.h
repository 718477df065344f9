// Point clouds from other tools: PCD v0.7 (DATA ascii, binary and binary_compressed) and PLY
// (ascii, binary little- and big-endian), one frame per file. Fields named as our writers
// name them (x y z range intensity reflectance channel column timestamp ...) are read into the
// frame; the common aliases ring -> channel, t/time -> timestamp and reflectivity ->
// reflectance are understood; other fields are skipped. range is computed from x, y, z when
// the file has none. Errors name the file and the header line or byte offset.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"

namespace lt {

Expected<Frame> ReadPcd(const std::filesystem::path& path);
Expected<Frame> ReadPly(const std::filesystem::path& path);

// The same from bytes in memory; `name` stands for the file in messages (used by the fuzzers).
Expected<Frame> ParsePcd(std::string_view bytes, const std::string& name);
Expected<Frame> ParsePly(std::string_view bytes, const std::string& name);

}  // namespace lt
