// RoboSense RS-LiDAR-16, RS-LiDAR-32, Helios and Helios-16P: the angle CSV and the MSOP data and
// DIFOP device packets (big-endian, 1248 bytes each), from a pcap or a bag (PacketSource).
// Layouts: docs/formats/robosense-models.md; the Helios-16P's nebula decode and how its answer
// key was reproduced: docs/formats/velodyne-robosense-answer-keys.md.
#pragma once

#include <filesystem>
#include <string>
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
  double rotation_rate_hz = 0;  // a DIFOP's spin rate; 0: not known (an angle file's)
};

// The lasers' firing times within a firing sequence (us): a Helios-16P's (16 lasers) or a
// Helios's (32).
std::vector<double> RobosenseFiringUs(size_t lasers);

// Lines "vertical,horizontal" in degrees, or the vertical angle alone, one per laser (no
// header): 16 or 32 of them. Errors name the file and line.
Expected<RobosenseCalibration> LoadRobosenseCalibration(const std::filesystem::path& file);

// A Helios's angle table from one DIFOP packet (1248 bytes; vertical angles at byte 468,
// horizontal at 564, 32 entries of a sign byte and a u16 in 0.01 deg): 32 lasers, or 16 where
// the last 16 entries are all zero (a Helios-16P's). `where` names the packet in messages and
// becomes the calibration's `file`. An entry with a sign byte other than 0 or 1, or an angle
// past 90 deg vertical or 180 horizontal, is an error naming its byte.
Expected<RobosenseCalibration> RobosenseDifopCalibration(const std::vector<uint8_t>& difop,
                                                         const std::string& where);

// The angle table of a capture's first DIFOP packet (UDP port 7788) that reads, for a recording
// given no angle file, as rs_driver reads it by default, and its spin rate. The first
// well-formed MSOP packet says whose layout it is: an error when its packets are an
// RS-LiDAR-16's or -32's (whose DIFOP layout is not read), or when the first 20,000 datagrams
// hold no Helios MSOP or no DIFOP that reads (the first damaged one's error then).
Expected<RobosenseCalibration> RobosenseCaptureCalibration(const PacketSource& packets);

// The Helios and Helios-16P receiver's distance from the spin axis, along the head's direction
// [m] (the drivers' RX); ranges are measured from it.
inline constexpr double kHeliosLensOffsetM = 0.03498;

// Frames of MSOP packets (UDP port 6699; DIFOP on 7788 sets the return mode and the spin rate,
// and a warning says when its angle table's lasers are not the calibration's; other ports
// skipped and counted), streamed to `sink` as each completes; a frame ends where a
// block's azimuth wraps past 0 deg, or back to the start of a field-of-view window, or after a
// second (a motor stopped). The model is the first MSOP packet's: an RS-LiDAR-16 or -32 by its
// model byte (the angle file must have its 16 or 32 lines), a Helios-16P or a Helios by the
// angle file's 16 or 32 lines; a later packet of another model is skipped and counted.
//   RS-LiDAR-16: two firings of the 16 lasers a block (channels 0-15, 16-31); dual return
//     (DIFOP 0x00): one firing a block, channels 16-31 its second returns.
//   RS-LiDAR-32, Helios: one firing of 32 lasers a block; dual: block pairs 2k, 2k+1 the same
//     firing's two returns (return_index 0 and 1).
//   Helios-16P (as nebula decodes it): two firings a block; dual: block pairs, channels 16-31
//     the second returns.
// Points outside the drivers' range limits are dropped (RS-LiDAR 0.4-230 m, Helios 0.1-180 m,
// Helios-16P 0.2-200 m). XYZ in the ROS convention; the receiver's offset from the axis (the
// driver's lens offset: 38.25, 39.97, 34.98 mm) included. channel = the laser (CSV line,
// 0-based); intensity = the byte (0-255); timestamp = the packet's UTC time + the block's and
// firing's offsets. Distances in 5 mm (RS-LiDAR), or in a Helios's 2.5 or 5 mm (header byte
// 17).
Status ForEachRobosenseFrame(const PacketSource& packets, const RobosenseCalibration& calibration,
                             const FrameSink& sink, CaptureStats* stats = nullptr);

}  // namespace lt
