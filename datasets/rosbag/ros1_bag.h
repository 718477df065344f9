// ROS 1 bags, format 2.0 (wiki.ros.org/Bags/Format/2.0): "#ROSBAG V2.0\n", then records of a
// header (fields "name=value", each with its u32 length) and data. Messages live in chunks
// (uncompressed, bz2 or lz4) beside the connection records that name their topic and type; the
// index records after them are passed over, the file is read in one pass in its order.
#pragma once

#include <filesystem>
#include <memory>

#include "lidartwin/datasets/ros_bag.h"

namespace lt::ros {

Expected<std::unique_ptr<RosBag>> OpenRos1Bag(const std::filesystem::path& path);

}  // namespace lt::ros
