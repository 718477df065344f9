// Hesai lidars: the angle-correction CSV (or an AT128's .dat) and the UDP data packets of the
// Pandar40P, Pandar64, PandarQT64 (protocol 3.1), PandarXT16/XT32 (6.1), Pandar128E3X and OT128
// (1.4), QT128C2X (3.2) and AT128E2X (4.3), from a pcap or a bag (PacketSource). The family is told
// by the packet's own bytes (its header's protocol version, laser and block counts), never by a
// file name; docs/formats/hesai-answer-keys.md has the layouts and their sources.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/datasets/frame_sink.h"
#include "lidartwin/datasets/pcap.h"

namespace lt {

// An AT128's angle correction (its binary "Angle Correction File.dat", version 1.5): the
// mirror's faces as encoder-angle intervals, each channel's azimuth and elevation, and their
// adjustments every 2 deg of encoder angle. Angles in 1/25600 deg (the file's values times its
// resolution byte); adjustments in 0.01 deg (times the resolution).
struct HesaiMirrorCorrection {
  std::vector<int64_t> face_start, face_end;              // per face
  std::vector<int64_t> azimuth, elevation;                // per channel
  static constexpr int kAdjustSteps = 180;                // one every 2 deg of encoder angle
  std::vector<int32_t> azimuth_adjust, elevation_adjust;  // channel x kAdjustSteps
};

struct HesaiCalibration {
  std::filesystem::path file;  // for messages
  // By channel (the CSV's rows in order, channel 1 first): degrees, azimuth clockwise-positive
  // as Hesai gives it. An AT128's: its correction's channel angles, unadjusted.
  std::vector<double> elevation_deg, azimuth_offset_deg;
  // An AT128's correction (a .dat); empty for the rotating units' CSVs.
  std::vector<HesaiMirrorCorrection> mirror;
  // By channel: when the channel fires, in us, relative to its block's time (the unit's
  // "Firetime Correction File"; LoadHesaiFiretimes). Empty: not given, and a point's time is
  // its block's.
  std::vector<double> firetime_us;
  std::filesystem::path firetime_file;  // for messages
};

// "Channel,Elevation,Azimuth" (or "Laser id,...") rows, channels 1..N in order (newer files'
// "EEFF,1,4" first line and SHA-256 last line passed over), or an AT128's binary .dat (by its
// extension; its trailing SHA-256 is not checked either). Errors name the file and the line or
// byte.
Expected<HesaiCalibration> LoadHesaiCalibration(const std::filesystem::path& file);

// A "Firetime Correction File": a header line ("Channel,fire time(us)"), then "channel,us" rows
// for channels 1..N in any order (Hesai lists them in firing order), each once; values within
// 1 ms. By channel (0-based). Errors name the file and the line.
Expected<std::vector<double>> LoadHesaiFiretimes(const std::filesystem::path& file);

// Whether a packet's bytes start as a Hesai data packet does (FF EE, or EE FF and a header).
bool LooksLikeHesaiPacket(const std::vector<uint8_t>& payload);

// Frames of Hesai data packets (UDP port 2368; other ports skipped and counted), streamed to
// `sink` as each completes. A frame is one revolution from 0 deg: each point belongs to the
// frame its own corrected azimuth (block azimuth + the channel's offset) falls in, so the
// frames are cut exactly at 0 deg for every channel (the first and last frames are partial). A
// unit that sends a field-of-view window of each revolution has a frame a window; a frame is
// cut after a second whatever its azimuths (a motor stopped).
// Single, dual and triple return modes: a return that repeats another of its firing (within
// 0.1 m; the last in the packet's order is kept, as nebula keeps it) is dropped, and the kept
// returns are numbered 0, 1, .. in the packet's order (return_index 0: the firing's first
// distinct return, which every single-return consumer takes). Ranges outside the unit's own limits
// (data sheets: 40P and 64 0.3-200 m, QT64 0.1-60 m, XT 0.05-120 m) are dropped. XYZ in the ROS
// convention (x forward = Hesai's 0 deg, y left, z up); intensity = reflectivity byte (0-255);
// channel = the CSV's row (0-based); column = the firing's sequence in the frame; timestamp = the
// packet's UTC date and microseconds, plus (40P, 64, QT64, XT) the block's offset and the
// calibration's fire time for the channel where it has them (hesai-answer-keys.md, "Point time").
// Packets of a size, header or family other than the stream's first are skipped, counted and (the
// first few) named by file and byte; the calibration must have the packets' laser count.
Status ForEachHesaiFrame(const PacketSource& packets, const HesaiCalibration& calibration,
                         const FrameSink& sink, CaptureStats* stats = nullptr);

}  // namespace lt
