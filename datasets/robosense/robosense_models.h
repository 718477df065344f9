// RoboSense units as their MSOP packets and the angle file show them (docs/formats/
// robosense-models.md: RoboSense's user manuals and rs_driver, nebula's decoders; read, not
// copied). Two generations: the RS-LiDAR-16 and -32, whose MSOP packets begin with an 8-byte id
// and a broken-down UTC date-time, and the Helios, whose begin 55 AA 05 5A and a Unix time in
// seconds and microseconds. Every packet is 1248 bytes of 12 blocks of 32 channels from byte 42.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt {

struct RobosenseModel {
  const char* name;
  int lasers;             // 16 or 32: a channel's laser is channel % lasers
  bool ymd_time;          // the RS-LiDAR generation's date-time header
  float firing_us;        // one firing sequence of the lasers
  int firings_per_block;  // single return: sequences a block holds (channels / lasers)
  // Single return: the time from one block to the next (an RS-LiDAR-16's block holds two
  // firings: 111 us).
  float single_block_us;
  // When each channel of a block fires (us after the block's start) in single return.
  std::array<float, 32> channel_us;
  // Dual return: the block pairs 2k, 2k+1 are one firing's two returns at one azimuth (the
  // RS-LiDAR-32, Helios); else each block is one firing (an RS-LiDAR-16's).
  bool dual_block_pairs;
  // Dual return: channels 16-31 hold the second return of channels 0-15's lasers (the
  // RS-LiDAR-16's, and nebula's Helios-16P); else a block pair's second block does.
  bool dual_channel_halves;
  float lens_offset_m;  // the receiver's distance from the spin axis (the drivers' RX)
  float min_m, max_m;   // points outside are dropped (the drivers' limits)
};

// The models this build decodes.
const RobosenseModel& RobosenseRs16();
const RobosenseModel& RobosenseRs32();
const RobosenseModel& RobosenseHelios();
const RobosenseModel& RobosenseHelios16P();

// The model of an MSOP packet (1248 bytes, its id checked) with an angle file of `lasers` lines:
// the RS-LiDAR generation by its model byte 30 (1: RS-LiDAR-16, 2: RS-LiDAR-32), which must
// have that many lasers; a Helios by the angle file (16 lines: Helios-16P, 32: Helios). An error
// says what the packet is and why it does not fit; `at` is the byte it is about, `pairing`
// whether it is the angle file that does not fit (else the packet is damaged or of another line).
Expected<const RobosenseModel*> RobosenseModelOf(const std::vector<uint8_t>& msop, size_t lasers,
                                                 size_t* at, bool* pairing);

// The UDP ports RoboSense's drivers receive on (the manuals' defaults) and the size of every
// model's MSOP and DIFOP packets.
inline constexpr uint16_t kRobosenseMsopPort = 6699, kRobosenseDifopPort = 7788;
inline constexpr size_t kRobosensePacketBytes = 1248;

// Whether the bytes begin as an MSOP packet of either generation, of the RS-LiDAR generation
// (55 AA 05 0A 5A A5 50 A0) or of a Helios (55 AA 05 5A), or as a DIFOP packet (A5 FF 00 5A 11 11
// 55 55, every model).
bool HasRobosenseMsopId(const std::vector<uint8_t>& packet);
bool HasRsLidarMsopId(const std::vector<uint8_t>& packet);
bool HasHeliosMsopId(const std::vector<uint8_t>& packet);
bool HasRobosenseDifopId(const std::vector<uint8_t>& packet);

// The packet's time (s): the RS-LiDAR generation's UTC date-time at bytes 20-29 (year - 2000,
// month, day, hour, minute, second, u16 ms, u16 us), or a Helios's u48 seconds and u32
// microseconds (a value of a million or more read as nanoseconds, as some firmware sends).
double RobosensePacketSeconds(const RobosenseModel& model, const std::vector<uint8_t>& msop);

// The distance unit of a packet (m): a Helios's byte 17 (1: 2.5 mm, 0: 5 mm); the RS-LiDAR
// generation's 5 mm (rs_driver's; ros_rslidar's 1 cm firmware of before 2018 is not read).
float RobosenseDistanceUnit(const RobosenseModel& model, const std::vector<uint8_t>& msop);

}  // namespace lt
