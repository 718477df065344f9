// Point clouds for other tools: binary little-endian PLY and binary PCD (v0.7), with every
// per-point field of the frame as a property. Written atomically.
#pragma once

#include <filesystem>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"

namespace lt {

Status WritePly(const Frame& frame, const std::filesystem::path& path);
Status WritePcd(const Frame& frame, const std::filesystem::path& path);

}  // namespace lt
