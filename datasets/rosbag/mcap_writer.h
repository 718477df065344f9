// An MCAP file of ROS 2 messages (mcap.dev/spec; profile "ros2", schemas "ros2msg", messages
// "cdr"), as rosbag2's mcap storage writes it: messages in chunks (zstd-compressed, each with
// its CRC-32 and a message index), then a summary section (schemas, channels, statistics, chunk
// indexes) with its offsets and CRC, so readers can list and seek without a pass over the data.
// Written to a temporary file beside the target and renamed into place by Close().
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "lidartwin/base/status.h"

namespace lt::ros {

class McapWriter {
 public:
  static Expected<std::unique_ptr<McapWriter>> Create(const std::filesystem::path& target);
  ~McapWriter();

  // Ids for the channels' messages. The QoS text goes into the channel's
  // "offered_qos_profiles" metadata (ros2 bag play offers it: /tf_static needs transient local).
  uint16_t AddSchema(const std::string& name, const std::string& text);
  uint16_t AddChannel(uint16_t schema, const std::string& topic, const std::string& qos_yaml);
  Status Write(uint16_t channel, int64_t time_ns, std::span<const uint8_t> cdr);
  // The last chunk, the summary and the footer; then the file replaces `target`.
  Status Close();

 private:
  struct Impl;
  explicit McapWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// QoS profiles as rosbag2 records them (offered_qos_profiles): reliable, volatile for sensor
// data; reliable, transient local for /tf_static.
std::string QosProfiles(bool transient_local);

}  // namespace lt::ros
