// A Helios unit's angle table from its DIFOP packet (docs/formats/robosense-models.md): what
// rs_driver reads by default, the angle file being its fallback. RoboSense's Helios manual and
// rs_driver's RSHELIOSDifopPkt (read, not copied): the vertical angles at byte 468, the
// horizontal at 564, 32 entries each of a sign byte (0 positive, 1 negative) and a big-endian
// u16 in 0.01 deg.
#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>

#include "capture/bytes.h"
#include "lidartwin/datasets/robosense.h"
#include "robosense_models.h"

namespace lt {
namespace {

constexpr uint16_t kMsopPort = 6699, kDifopPort = 7788;
constexpr size_t kPacketBytes = 1248, kVerticalAt = 468, kHorizontalAt = 564, kEntries = 32;
constexpr uint8_t kDifopId[8] = {0xA5, 0xFF, 0x00, 0x5A, 0x11, 0x11, 0x55, 0x55};
constexpr uint8_t kRsLidarId[8] = {0x55, 0xAA, 0x05, 0x0A, 0x5A, 0xA5, 0x50, 0xA0};
// A Helios sends a DIFOP a second and 750-1500 MSOP packets in between: a capture that holds
// none in its first 20,000 datagrams is taken to hold none.
constexpr uint64_t kSearchedDatagrams = 20000;

bool IsDifop(const UdpDatagram& d) {
  return d.dst_port == kDifopPort && d.payload.size() == kPacketBytes &&
         std::equal(kDifopId, kDifopId + 8, d.payload.begin());
}

}  // namespace

Expected<RobosenseCalibration> RobosenseDifopCalibration(const std::vector<uint8_t>& difop,
                                                         const std::string& where) {
  if (difop.size() != kPacketBytes || !std::equal(kDifopId, kDifopId + 8, difop.begin()))
    return Error{where + ": not a RoboSense DIFOP packet (1248 bytes beginning A5 FF 00 5A)"};
  RobosenseCalibration c;
  c.file = where;
  for (const size_t table : {kVerticalAt, kHorizontalAt}) {
    for (size_t k = 0; k < kEntries; ++k) {
      const size_t at = table + 3 * k;
      const uint8_t sign = difop[at];
      const int32_t value = static_cast<int32_t>(bytes::Be(&difop[at + 1], 2));
      const int32_t limit = table == kVerticalAt ? 9000 : 18000;
      if (sign > 1 || value > limit)
        return Error{fmt::format(
            "{}, byte {}: {} angle {} of the DIFOP: sign byte {} and {} x 0.01 deg (expected sign "
            "0 or 1 and at most {} deg): the unit sent no angle table",
            where, at, table == kVerticalAt ? "vertical" : "horizontal", k, sign, value,
            limit / 100)};
      (table == kVerticalAt ? c.vertical_cdeg : c.horizontal_cdeg).push_back(sign ? -value : value);
    }
  }
  // A Helios-16P fills the first 16 entries (rs_driver reads 16 for it); a table whose last 16
  // are all zero is taken as one.
  const auto zero = [](int32_t a) { return a == 0; };
  if (std::all_of(c.vertical_cdeg.begin() + 16, c.vertical_cdeg.end(), zero) &&
      std::all_of(c.horizontal_cdeg.begin() + 16, c.horizontal_cdeg.end(), zero)) {
    c.vertical_cdeg.resize(16);
    c.horizontal_cdeg.resize(16);
  }
  return c;
}

Expected<RobosenseCalibration> RobosenseCaptureCalibration(const PacketSource& packets) {
  Expected<RobosenseCalibration> found = Error{""};
  bool have = false, rs_lidar = false;
  uint64_t seen = 0;
  CaptureStats stats;
  const std::string kEnough = "(the DIFOP is read)";
  Status read = packets.read(
      [&](const UdpDatagram& d) -> Status {
        if (d.dst_port == kMsopPort && d.payload.size() >= 8 &&
            std::equal(kRsLidarId, kRsLidarId + 8, d.payload.begin()))
          rs_lidar = true;
        if (IsDifop(d) && !have) {
          found = RobosenseDifopCalibration(d.payload, PacketPlace(packets.file, d, 0));
          have = true;
        }
        // The packet generation decides whose DIFOP layout this is: stop once both are known.
        const bool msop_seen = d.dst_port == kMsopPort || rs_lidar;
        if ((have && msop_seen) || ++seen >= kSearchedDatagrams) return Error{kEnough};
        return {};
      },
      stats);
  if (!read.ok() && read.message() != kEnough) return read.error();
  if (rs_lidar)
    return Error{packets.file.string() +
                 ": an RS-LiDAR-16 or -32's packets: their DIFOP's angles are not read; the "
                 "unit's angle file (.csv) is needed"};
  if (!have)
    return Error{fmt::format(
        "{}: no RoboSense DIFOP packet (UDP port 7788, A5 FF 00 5A) in its first {} datagrams "
        "to give the unit's angles; the unit's angle file (.csv) is needed",
        packets.file.string(), kSearchedDatagrams)};
  return found;
}

}  // namespace lt
