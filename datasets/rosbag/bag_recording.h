// A ROS bag as a recording (OpenRecording): its lidar topic chosen and handed to the vendor's
// packet decoder with the calibration the sidecar names.
#pragma once

#include <filesystem>
#include <optional>

#include "lidartwin/datasets/ouster.h"
#include "lidartwin/datasets/recording.h"
#include "lidartwin/datasets/robosense.h"

namespace lt::ros {

Expected<RecordingSource> OpenBagRecording(const std::filesystem::path& bag_path,
                                           const std::filesystem::path& sidecar,
                                           const RecordingOptions& options);

// The Ouster metadata a bag records on its metadata topic (ouster-ros: std_msgs/String on
// <namespace>/metadata), for import-sensor; an error where it has none.
Expected<OusterMetadata> BagOusterMetadata(const std::filesystem::path& bag_path);

// The angles of a bag's RoboSense unit from its first DIFOP packet (RobosenseCaptureCalibration),
// for import-sensor: nothing where its lidar topic (`topic`, or the bag's one) holds another
// vendor's packets, or where no topic is named and the bag has several; an error where it holds
// no DIFOP that gives the angles.
Expected<std::optional<RobosenseCalibration>> BagRobosenseCalibration(
    const std::filesystem::path& bag_path, const std::string& topic);

}  // namespace lt::ros
