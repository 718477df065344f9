#include "robosense_models.h"

#include "lidartwin/datasets/robosense.h"

#include <ctime>

#include "capture/bytes.h"

namespace lt {
namespace {

using bytes::Be;

constexpr uint8_t kHeliosId[4] = {0x55, 0xAA, 0x05, 0x5A};
constexpr uint8_t kRsLidarId[8] = {0x55, 0xAA, 0x05, 0x0A, 0x5A, 0xA5, 0x50, 0xA0};
constexpr uint8_t kDifopId[8] = {0xA5, 0xFF, 0x00, 0x5A, 0x11, 0x11, 0x55, 0x55};

// RS-LiDAR-16 (its manual, appendix A): 16 lasers 2.8 us apart, a 55.5 us sequence (10.7 us
// of it recharging), two sequences a block.
constexpr std::array<float, 32> Rs16ChannelUs() {
  std::array<float, 32> t{};
  for (int c = 0; c < 32; ++c)
    t[c] = (c >= 16 ? 55.5f : 0.f) + 2.8f * static_cast<float>(c % 16);
  return t;
}

// RS-LiDAR-32 (its manual, appendix A.1): lasers in pairs 1.44 us apart, a pair every 2.88 us:
// channel c (n = c + 1) at 2.88 ((n - 1) mod 16) + 1.44 floor(n / 16) us (channels 15 and 31
// thus at 44.64 and 46.08), one 55.52 us sequence a block.
constexpr std::array<float, 32> Rs32ChannelUs() {
  std::array<float, 32> t{};
  for (int c = 0; c < 32; ++c) {
    const int n = c + 1;
    t[c] = 2.88f * static_cast<float>((n - 1) % 16) + 1.44f * static_cast<float>(n / 16);
  }
  return t;
}

// Helios (32 beams; rs_driver's decoder_RSHELIOS): channel c at 1.73 c us, one 55.56 us
// sequence a block. nebula's table differs by a few us (and swaps channels 17 and 18): the
// manual's was not found; the vendor's driver is followed.
constexpr std::array<float, 32> HeliosChannelUs() {
  std::array<float, 32> t{};
  for (int c = 0; c < 32; ++c)
    t[c] = 1.73f * static_cast<float>(c);
  return t;
}

// Helios-16P as nebula (c60082d5) decodes it: two firings of the 16 lasers a block, the
// second 55.56 us after the first, blocks 55.56 us apart; reproduces its answer key
// (docs/formats/velodyne-robosense-answer-keys.md).
constexpr std::array<float, 32> kHelios16PChannelUs = {
    0.00f,  3.15f,  6.30f,  9.45f,  13.26f, 17.08f, 20.56f, 23.71f, 26.53f, 27.77f, 31.49f,
    32.73f, 36.46f, 38.94f, 41.42f, 43.91f, 55.56f, 58.70f, 61.85f, 65.00f, 68.82f, 72.64f,
    76.12f, 79.27f, 82.08f, 83.32f, 87.05f, 88.29f, 92.01f, 94.50f, 96.98f, 99.46f};

constexpr RobosenseModel kRs16{"RS-LiDAR-16",   16,    true, 55.5f,    2,    111.0f,
                               Rs16ChannelUs(), false, true, 0.03825f, 0.4f, 230.f};
constexpr RobosenseModel kRs32{"RS-LiDAR-32",   32,   true,  55.52f,   1,    55.52f,
                               Rs32ChannelUs(), true, false, 0.03997f, 0.4f, 230.f};
constexpr RobosenseModel kHelios{"Helios",
                                 32,
                                 false,
                                 55.56f,
                                 1,
                                 55.56f,
                                 HeliosChannelUs(),
                                 true,
                                 false,
                                 static_cast<float>(kHeliosLensOffsetM),
                                 0.1f,
                                 180.f};
constexpr RobosenseModel kHelios16P{"Helios-16P",
                                    16,
                                    false,
                                    55.56f,
                                    2,
                                    55.56f,
                                    kHelios16PChannelUs,
                                    true,
                                    true,
                                    static_cast<float>(kHeliosLensOffsetM),
                                    0.2f,
                                    200.f};

bool Begins(const std::vector<uint8_t>& p, const uint8_t* id, size_t n) {
  return p.size() >= n && std::equal(id, id + n, p.begin());
}

}  // namespace

const RobosenseModel& RobosenseRs16() {
  return kRs16;
}
const RobosenseModel& RobosenseRs32() {
  return kRs32;
}
const RobosenseModel& RobosenseHelios() {
  return kHelios;
}
const RobosenseModel& RobosenseHelios16P() {
  return kHelios16P;
}

bool HasRobosenseMsopId(const std::vector<uint8_t>& p) {
  return HasRsLidarMsopId(p) || HasHeliosMsopId(p);
}
bool HasRsLidarMsopId(const std::vector<uint8_t>& p) {
  return Begins(p, kRsLidarId, 8);
}
bool HasHeliosMsopId(const std::vector<uint8_t>& p) {
  return Begins(p, kHeliosId, 4);
}
bool HasRobosenseDifopId(const std::vector<uint8_t>& p) {
  return Begins(p, kDifopId, 8);
}

Expected<const RobosenseModel*> RobosenseModelOf(const std::vector<uint8_t>& p, size_t lasers,
                                                 size_t* at, bool* pairing) {
  *pairing = false;
  *at = Begins(p, kRsLidarId, 8) ? 30 : Begins(p, kHeliosId, 4) ? 42 : 0;
  if (Begins(p, kRsLidarId, 8)) {
    const RobosenseModel* m = p[30] == 1 ? &kRs16 : p[30] == 2 ? &kRs32 : nullptr;
    if (!m)
      return Error{"model byte 0x" + bytes::HexByte(p[30]) +
                   " is neither an RS-LiDAR-16's (0x01) nor an RS-LiDAR-32's (0x02)"};
    *pairing = static_cast<size_t>(m->lasers) != lasers;
    if (*pairing)
      return Error{"the packets are an " + std::string(m->name) + "'s (" +
                   std::to_string(m->lasers) + " lasers) but the angle file has " +
                   std::to_string(lasers) + " lines"};
    return m;
  }
  if (Begins(p, kHeliosId, 4)) {
    if (p.size() > 43 && (p[42] != 0xFF || p[43] != 0xEE))
      return Error{bytes::HexByte(p[42]) + " " + bytes::HexByte(p[43]) +
                   " where a Helios's first block begins FF EE (a RoboSense unit of another "
                   "line: its 80-byte header is not read)"};
    if (lasers == 16) return &kHelios16P;
    if (lasers == 32) return &kHelios;
    *at = 0;
    *pairing = true;
    return Error{"a Helios's angle file has 16 (Helios-16P) or 32 (Helios) lines, not " +
                 std::to_string(lasers)};
  }
  return Error{"no MSOP id (55 AA 05 0A 5A A5 50 A0 or 55 AA 05 5A)"};
}

double RobosensePacketSeconds(const RobosenseModel& m, const std::vector<uint8_t>& p) {
  if (m.ymd_time) {
    std::tm t{};
    t.tm_year = 100 + p[20], t.tm_mon = p[21] - 1, t.tm_mday = p[22];
    t.tm_hour = p[23], t.tm_min = p[24], t.tm_sec = p[25];
    const double ms = static_cast<double>(Be(&p[26], 2) & 0x3FF);
    const double us = static_cast<double>(Be(&p[28], 2) & 0x3FF);
    return static_cast<double>(timegm(&t)) + ms * 1e-3 + us * 1e-6;
  }
  const uint64_t sub = Be(&p[26], 4);
  return static_cast<double>(Be(&p[20], 6)) +
         static_cast<double>(sub) * (sub >= 1000000 ? 1e-9 : 1e-6);
}

float RobosenseDistanceUnit(const RobosenseModel& m, const std::vector<uint8_t>& p) {
  if (m.ymd_time) return 0.005f;
  return p[17] == 0 ? 0.005f : 0.0025f;
}

}  // namespace lt
