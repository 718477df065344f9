// RoboSense Helios-16P: the angle CSV and the MSOP data and DIFOP device packets (big-endian,
// 1248 bytes each), from a pcap or a bag (PacketSource). Layouts, nebula's decode and how its
// answer key was reproduced: docs/formats/velodyne-robosense-answer-keys.md.
#pragma once

#include <filesystem>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/frame_sink.h"
#include "lidartwin/datasets/pcap.h"

namespace lt {

struct RobosenseCalibration {
  std::filesystem::path file;  // for messages
  // By laser (the CSV's lines in order): vertical and horizontal angles in 0.01 deg, as the
  // driver keeps them (each degree value x 100, truncated).
  std::vector<int32_t> vertical_cdeg, horizontal_cdeg;
};

// The Helios-16P's 16 lasers' firing times within a firing sequence (us), the driver's table.
std::vector<double> RobosenseHelios16PFiringUs();

// Lines "vertical,horizontal" in degrees, one per laser (no header). Errors name the file and
// line.
Expected<RobosenseCalibration> LoadRobosenseCalibration(const std::filesystem::path& file);

// Frames of Helios-16P MSOP packets (UDP port 6699; DIFOP on 7788 sets the return mode and the
// spin rate; other ports skipped and counted), streamed to `sink` as each completes; a frame
// ends where a block's azimuth wraps past 0 deg, or back to the start of a field-of-view window,
// or after a second (a motor stopped). Each block fires the 16 lasers twice (channels
// 0-15, 16-31), or once with two returns in dual mode (DIFOP 0x00). Points outside 0.2-200 m
// are dropped. XYZ in the ROS convention; the receiver's 34.98 mm offset from the axis (the
// driver's lens offset) included. channel = the laser (CSV line, 0-based); intensity = the byte
// (0-255); timestamp = the packet's UTC time + the block's and firing's offsets.
Status ForEachRobosenseFrame(const PacketSource& packets, const RobosenseCalibration& calibration,
                             const FrameSink& sink, CaptureStats* stats = nullptr);

}  // namespace lt
