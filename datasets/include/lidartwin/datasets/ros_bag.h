// ROS bags as containers of messages: rosbag2 with the sqlite3 storage (a `.db3` file) or the
// mcap storage (an `.mcap` file, any MCAP of ROS 2 messages), or the bag's folder with its
// metadata.yaml. Messages are handed out one at a time (rosbag2's sqlite3 storage in time
// order, MCAP in the file's order, which recorders keep in time),
// their bytes as stored (CDR for rosbag2), with the topic and where they came from for messages
// (ADR 0023). What the messages mean is for the readers of each message type
// (rosbag/packet_messages.h, rosbag/point_cloud_messages.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt {

struct BagTopic {
  std::string name;           // "/pandar_packets"
  std::string type;           // "pandar_msgs/msg/PandarScan" (ROS 2) or "pandar_msgs/PandarScan"
  std::string serialization;  // "cdr" for ROS 2, "ros1" for a ROS 1 bag
  uint64_t messages = 0;
  // The type's message definition where the bag stores it (a ROS 1 connection's
  // message_definition), for the readers of types whose drivers changed their layout.
  std::string definition;
};

struct BagMessage {
  const BagTopic* topic = nullptr;
  int64_t time_ns = 0;  // the recorder's receive time
  uint64_t index = 0;   // 0-based, in the bag's time order over every topic read
  std::span<const uint8_t> data;
  // "FILE: message 3 of /pandar_packets" (and the byte of the file where known), to begin an
  // error about this message with.
  std::string where;
};

// Called once per message, in the bag's order; an error stops the reading and is returned.
using BagMessageSink = std::function<Status(const BagMessage&)>;

class RosBag {
 public:
  virtual ~RosBag() = default;
  // The path given to OpenRosBag, for messages.
  const std::filesystem::path& path() const { return path_; }
  // "rosbag2-sqlite3", "mcap"
  const std::string& storage() const { return storage_; }
  const std::vector<BagTopic>& topics() const { return topics_; }
  // What the last reading passed over with a warning (a file cut short), for the notes.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Bytes of the bag's files in all, and read so far (for progress).
  uint64_t bytes_total() const { return bytes_total_; }
  virtual uint64_t bytes_read() const = 0;
  // Streams the messages of the named topics (every topic when empty) to `sink`. Memory is
  // bounded by the largest message (at most kMaxMessageBytes), whatever the bag's length.
  virtual Status ForEachMessage(const std::vector<std::string>& topics,
                                const BagMessageSink& sink) = 0;

  // Larger messages are refused by name: a lidar scan of a whole revolution is a few MB.
  static constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 30;

 protected:
  std::filesystem::path path_;
  std::string storage_;
  std::vector<BagTopic> topics_;
  uint64_t bytes_total_ = 0;
  std::vector<std::string> warnings_;
};

// Whether `path` looks like a bag by its name: a `.db3` or `.mcap` file, or a folder holding a
// metadata.yaml.
bool LooksLikeRosBag(const std::filesystem::path& path);

// Opens a bag and reads its topics. Errors name the file and what is wrong: not a bag (an
// SQLite file without rosbag2's tables, not SQLite at all), a metadata.yaml that names no file
// or a storage this build does not read, compressed rosbag2 files.
Expected<std::unique_ptr<RosBag>> OpenRosBag(const std::filesystem::path& path);

}  // namespace lt
