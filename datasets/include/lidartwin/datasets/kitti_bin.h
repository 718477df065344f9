// Headerless float32 point files (.bin), little endian:
//   KITTI velodyne scans: x, y, z [m] and reflectance [0, 1] per point, 16 bytes (KITTI raw
//   data devkit, readme "velodyne_points");
//   nuScenes LIDAR_TOP (.pcd.bin): x, y, z [m], intensity (0-255) and ring index per point,
//   20 bytes (nuScenes devkit, LidarPointCloud.from_file).
// Nothing in such a file says which layout it has, so the layout is never guessed silently
// (ChooseBinLayout).
#pragma once

#include <filesystem>
#include <string>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"

namespace lt {

// One frame: XYZ, range (|xyz|), reflectance, intensity = 100 x reflectance (the simulator's
// percent scale), and channel = the scan line in storage order, where the points are stored
// line by line as KITTI's are (NumberScanLines: KITTI's run from the top line, 0, to the bottom,
// 63, an order of elevation, not the HDL-64E's laser numbers; absent when they are not). A size
// that is not a multiple of 16 bytes, or NaN coordinates, are errors naming the file and byte
// offset.
Expected<Frame> ReadKittiBin(const std::filesystem::path& file);

// One frame: XYZ, range (|xyz|), intensity = the stored 0-255 value (the HDL-32E's calibrated
// reflectivity byte, as the Velodyne reader reports it), reflectance 0 (not reported),
// channel = ring index. A size that is not a multiple of 20 bytes, a value that is not finite
// or a ring index that is not a whole number in 0..1023 are errors naming the file and byte
// offset (the last catches most files of another layout).
Expected<Frame> ReadNuscenesBin(const std::filesystem::path& file);

enum class BinLayout { kKitti, kNuscenes };

// The layout of a .bin, by this rule:
//   1. `format` when given: "kitti" or "nuscenes";
//   2. else the name: *.pcd.bin is nuScenes; a file in a folder named velodyne (KITTI object
//      and odometry) or velodyne_points/data (KITTI raw) is KITTI;
//   3. else the size, when exactly one of 16 and 20 bytes divides it; `note` then says so.
// Errors name the file: a size both divide (a multiple of 80 bytes: "give --format"), a size
// neither divides, an unknown format.
Expected<BinLayout> ChooseBinLayout(const std::filesystem::path& file, const std::string& format,
                                    std::string* note = nullptr);

}  // namespace lt
