// What a ROS bag holds, as `lidartwin info BAG` prints it: its storage and size, every
// topic with its type and message count, and for each lidar packet topic the sensor its first
// packets name (vendor, model where the packet says it, packet size, return mode).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/ros_bag.h"

namespace lt {

struct BagTopicSummary {
  BagTopic topic;
  // For a lidar packet topic: "Velodyne VLP-16, 1206-byte packets, dual return"; for a
  // PointCloud2 topic "point clouds"; empty for other topics.
  std::string sensor;
};

struct RosBagSummary {
  std::string storage;  // RosBag::storage()
  uint64_t bytes = 0;
  uint64_t messages = 0;
  std::vector<BagTopicSummary> topics;
  std::vector<std::string> warnings;  // what the reading passed over (a file cut short)
};

// Reads the topics and each lidar topic's first message (one pass, ended once each is seen).
Expected<RosBagSummary> SummarizeRosBag(const std::filesystem::path& bag);

// As a person reads it; lines end in "\n".
std::string RosBagSummaryText(const std::string& file, const RosBagSummary& summary);
// As JSON (two-space indent, no trailing newline).
std::string RosBagSummaryJson(const std::string& file, const RosBagSummary& summary);

}  // namespace lt
