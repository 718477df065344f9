// Velodyne VLP-16, Puck Hi-Res, HDL-32E, VLP-32C, VLS-128 and HDL-64E S2/S3: calibration YAML of
// the ros-drivers/velodyne format or Velodyne's db.xml, and data packets from a pcap or a bag (the
// models' user manuals: "Data packet format", "Firing timing").
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
  double dist_correction_m = 0;    // the far correction (measured at 25.04 m)
  double vert_offset_m = 0, horiz_offset_m = 0;
  // The HDL-64E's near corrections in x and y (measured at 2.40 m and 1.93 m; its manual,
  // appendix F), interpolated with the far one where `two_point` is set.
  double dist_correction_x_m = 0, dist_correction_y_m = 0;
  bool two_point = false;
  // The HDL-64E's intensity correction (appendix F): focal distance, focal slope and the clamp.
  double focal_distance_m = 0, focal_slope = 0;
  double min_intensity = 0, max_intensity = 255;
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
// vert_offset_correction, horiz_offset_correction (default 0), dist_correction_x and _y
// (default dist_correction), two_pt_correction_available (default false), focal_distance,
// focal_slope (default 0), min_intensity and max_intensity (default 0 and 255). Errors name the
// file, laser and key. A `.xml` file is read as Velodyne's own db.xml (VeloView's and the
// HDL-64E's calibration: angles in degrees, distances in cm, `distLSB_` in cm; its enabled
// lasers only), with the keys converted as ros-drivers' gen_calibration.py converts them.
// The product id (the factory byte of data packets: 0x22 VLP-16, 0x24 Puck Hi-Res, 0x21
// HDL-32E, 0x28 VLP-32C) a calibration table is for, where its laser count and elevations say so
// unambiguously; 0 where they do not.
uint8_t VelodyneCalibrationProduct(const VelodyneCalibration& c);

Expected<VelodyneCalibration> LoadVelodyneCalibration(const std::filesystem::path& file);

// Frames of a VLP-16, Puck Hi-Res, HDL-32E, VLP-32C, VLS-128 or HDL-64E S2/S3 capture, streamed
// to `sink` as
// each completes (data packets on port 2368, 1206 bytes), split where a firing's azimuth wraps
// (the first and last frames are partial revolutions). Single and dual return modes (a
// VLS-128's dual packet holds one firing: its four banks' two returns); each laser's time and
// azimuth interpolated by when it fires in its sequence (a VLP-32C's pairs, a VLS-128's groups
// of 8, an HDL-64E's upper and lower banks together in groups of 4). An HDL-64E has no factory
// bytes: its packets are told by their block flags (upper, lower in turn), its dual return by
// blocks 0 and 2 sharing an azimuth (each firing's upper and lower first returns, then its
// second: return_index 0 and 1 in that order), and where the calibration gives them its
// near-range two-point correction and its intensity correction (focal distance and slope) are
// applied (docs/formats/velodyne-hdl64e.md; range_m stays the far-corrected distance, as the
// ros-drivers keep it). Distances in the calibration's
// distance_resolution, a VLS-128's in 4 mm. XYZ in the ROS
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
// holds instead), more than one in ten data packets undecodable.
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
