// KITTI velodyne scans (.bin): float32 x, y, z [m] and reflectance [0, 1] per point, little
// endian, no header (KITTI raw data devkit, readme "velodyne_points").
#pragma once

#include <filesystem>

#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/status.h"

namespace lt {

// One frame: XYZ, range (|xyz|), reflectance, intensity = 100 x reflectance (the simulator's
// percent scale). A size that is not a multiple of 16 bytes, or NaN coordinates, are errors
// naming the file and byte offset.
Expected<Frame> ReadKittiBin(const std::filesystem::path& file);

}  // namespace lt
