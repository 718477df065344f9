// MCAP files (mcap.dev/spec, format version 0): rosbag2's mcap storage (the default from ROS 2
// Iron) and any MCAP of ROS 2 messages (profile "ros2", message encoding "cdr"). Records are
// read in file order; chunks uncompressed, zstd or lz4 (frame format), each checked against
// its uncompressed size and CRC-32. The topics and their counts come from one pass over the
// data when the bag is opened (the summary section is not read: the pass also proves every
// record frames before any frame is decoded); ADR 0023.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "lidartwin/datasets/ros_bag.h"

namespace lt::ros {

// `files`: the bag's .mcap files in order; `path` names the bag in messages.
Expected<std::unique_ptr<RosBag>> OpenMcapBag(const std::filesystem::path& path,
                                              const std::vector<std::filesystem::path>& files);

}  // namespace lt::ros
