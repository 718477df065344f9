// Velodyne VLP-16 and HDL-32E: calibration YAML of the ros-drivers/velodyne format and data
// packets from a pcap (VLP-16 and HDL-32E user manuals: "Data packet format", "Firing
// timing").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/status.h"

namespace lt {

struct VelodyneLaser {
  double rot_correction_rad = 0;   // azimuth offset
  double vert_correction_rad = 0;  // elevation
  double dist_correction_m = 0;
  double vert_offset_m = 0, horiz_offset_m = 0;
};

struct VelodyneCalibration {
  std::vector<VelodyneLaser> lasers;  // by laser_id (firing order)
  double distance_resolution_m = 0.002;
};

// Keys per laser: laser_id, rot_correction, vert_correction (required), dist_correction,
// vert_offset_correction, horiz_offset_correction (default 0); other keys of the format
// (two-point corrections, focal terms) are read past. Errors name the file, laser and key.
Expected<VelodyneCalibration> LoadVelodyneCalibration(const std::filesystem::path& file);

// Frames of a VLP-16 or HDL-32E capture (data packets on port 2368, 1206 bytes; GPS
// packets skipped), split where the azimuth wraps (the first and last frames are partial
// revolutions). Single and dual return modes; per-firing time and interpolated azimuth. XYZ
// in the ROS convention (x forward, y left, z up). channel = laser id, column = firing
// sequence within the frame, intensity = the calibrated reflectivity byte (0-255).
Expected<std::vector<Frame>> ReadVelodynePcap(const std::filesystem::path& pcap,
                                              const VelodyneCalibration& calibration);

}  // namespace lt
