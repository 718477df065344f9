// rosbag2's sqlite3 storage (the default up to ROS 2 Humble): one SQLite database per bag file
// with the tables `topics(id, name, type, serialization_format, offered_qos_profiles)` and
// `messages(id, topic_id, timestamp, data)` (rosbag2_storage_default_plugins, sqlite3 storage;
// ros2/rosbag2 docs). A bag of several files is their messages in file order.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "lidartwin/datasets/ros_bag.h"

namespace lt::ros {

// `files`: the bag's .db3 files in order; `path` names the bag in messages.
Expected<std::unique_ptr<RosBag>> OpenSqliteBag(const std::filesystem::path& path,
                                                const std::vector<std::filesystem::path>& files);

}  // namespace lt::ros
