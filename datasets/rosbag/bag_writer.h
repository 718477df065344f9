// A ROS 2 bag being written, whatever its storage: MCAP (.mcap, McapWriter) or rosbag2's
// sqlite3 (.db3, Rosbag2SqliteWriter). Each writes to a temporary file beside the target and
// renames it into place on Close(): a failed or killed run leaves no half-written bag.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "lidartwin/base/status.h"

namespace lt::ros {

class BagWriter {
 public:
  virtual ~BagWriter() = default;
  // A topic of messages of `type` ("sensor_msgs/msg/PointCloud2"), whose .msg text is `schema`,
  // recorded with `qos` (rosbag2's offered_qos_profiles YAML); returns its id for Write.
  virtual uint16_t AddTopic(const std::string& name, const std::string& type,
                            const std::string& schema, const std::string& qos) = 0;
  virtual Status Write(uint16_t topic, int64_t time_ns, std::span<const uint8_t> cdr) = 0;
  virtual Status Close() = 0;
};

// By the target's extension: .mcap or .db3.
Expected<std::unique_ptr<BagWriter>> CreateBagWriter(const std::filesystem::path& target);
// The sqlite3 storage's (rosbag2_sqlite_writer.cpp).
Expected<std::unique_ptr<BagWriter>> CreateRosbag2SqliteWriter(const std::filesystem::path& target);

}  // namespace lt::ros
