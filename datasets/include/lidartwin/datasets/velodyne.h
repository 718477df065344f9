// Velodyne VLP-16, Puck Hi-Res, HDL-32E, VLP-32C and VLS-128: calibration YAML of the
// ros-drivers/velodyne format and data packets from a pcap or a bag (the models' user manuals:
// "Data packet format", "Firing timing").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/datasets/frame_sink.h"
#include "lidartwin/datasets/pcap.h"

namespace lt {

struct VelodyneLaser {
  double rot_correction_rad = 0;   // azimuth offset
  double vert_correction_rad = 0;  // elevation
  double dist_correction_m = 0;
  double vert_offset_m = 0, horiz_offset_m = 0;
};

struct VelodyneCalibration {
  std::filesystem::path file;         // where it was read from, for messages
  std::vector<VelodyneLaser> lasers;  // by laser_id (firing order)
  double distance_resolution_m = 0.002;
  // The model to decode packets as, whatever their product id and timing say: the optional
  // key 'model' ("VLP-16", "Puck Hi-Res", "HDL-32E"), for a unit whose factory byte and clock
  // both mislead. Empty: judged from the packets (ForEachVelodyneFrame).
  std::string model;
};

// Keys per laser: laser_id, rot_correction, vert_correction (required), dist_correction,
// vert_offset_correction, horiz_offset_correction (default 0); other keys of the format
// (two-point corrections, focal terms) are read past. Errors name the file, laser and key.
// The product id (the factory byte of data packets: 0x22 VLP-16, 0x24 Puck Hi-Res, 0x21
// HDL-32E, 0x28 VLP-32C) a calibration table is for, where its laser count and elevations say so
// unambiguously; 0 where they do not.
uint8_t VelodyneCalibrationProduct(const VelodyneCalibration& c);

Expected<VelodyneCalibration> LoadVelodyneCalibration(const std::filesystem::path& file);

// Frames of a VLP-16, Puck Hi-Res, HDL-32E, VLP-32C or VLS-128 capture, streamed to `sink` as
// each completes (data packets on port 2368, 1206 bytes), split where a firing's azimuth wraps
// (the first and last frames are partial revolutions). Single and dual return modes (a
// VLS-128's dual packet holds one firing: its four banks' two returns); each laser's time and
// azimuth interpolated by when it fires in its sequence (a VLP-32C's pairs, a VLS-128's groups
// of 8). Distances in the calibration's distance_resolution, a VLS-128's in 4 mm. XYZ in the ROS
// convention (x forward, y left, z up). channel = laser id, column = firing sequence within the
// frame, intensity = the calibrated reflectivity byte (0-255). The capture and the calibration must
// belong together: the product id byte of the first data packet (VLP-16 manual, "Factory bytes")
// names the model, which must have as many lasers as the calibration and, where the calibration's
// elevations identify a model (VLP-16 +-15 deg, Puck Hi-Res +-10 deg, HDL-32E -30.67..10.67 deg,
// VLP-32C -25..15 deg), be that model. The first packets' timing is judged too (1,327 us a packet
// for a VLP-16, 553 us for an HDL-32E in single return): where it contradicts the product id, the
// model the timing and the calibration agree on is decoded, with a warning; where they do not
// agree, an error names all three and the calibration's key 'model' that settles it. Packets are
// put in time order within a window of 16 (a capture's small reorderings); a packet older than one
// already decoded (reordered further, or a capture that repeats itself) is dropped and counted as
// late. The timestamp's hour wrap is followed. Field captures: position (GPS) packets on port 8308
// and other traffic are skipped and counted; a data packet with a bad field (size, block flag,
// azimuth, return mode, a product id other than the capture's) is skipped, counted and (the first
// few) named with its byte offset; an exact duplicate (the timestamp and first azimuth of a recent
// packet) is dropped and counted. Errors: no data packet at all (the message says what the capture
// holds instead), a model this reader does not decode (the HDL-64E, whose packets carry no product
// id: its status bytes are read as one), more than one in ten data packets undecodable.
Status ForEachVelodyneFrame(const std::filesystem::path& pcap,
                            const VelodyneCalibration& calibration, const FrameSink& sink,
                            CaptureStats* stats = nullptr);

// The same for packets from any source (a bag's VelodyneScan messages: PacketSource).
Status ForEachVelodyneFrame(const PacketSource& packets, const VelodyneCalibration& calibration,
                            const FrameSink& sink, CaptureStats* stats = nullptr);

// All frames of a capture (ForEachVelodyneFrame into a vector).
Expected<std::vector<Frame>> ReadVelodynePcap(const std::filesystem::path& pcap,
                                              const VelodyneCalibration& calibration,
                                              CaptureStats* stats = nullptr);

}  // namespace lt
