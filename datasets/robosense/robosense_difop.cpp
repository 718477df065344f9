// A Helios unit's angle table from its DIFOP packet (docs/formats/robosense-models.md): what
// rs_driver reads by default, the angle file being its fallback. RoboSense's Helios manual and
// rs_driver's RSHELIOSDifopPkt (read, not copied): the vertical angles at byte 468, the
// horizontal at 564, 32 entries each of a sign byte (0 positive, 1 negative) and a big-endian
// u16 in 0.01 deg.
#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "capture/bytes.h"
#include "lidartwin/datasets/robosense.h"
#include "robosense_models.h"

namespace lt {
namespace {

constexpr size_t kVerticalAt = 468, kHorizontalAt = 564, kEntries = 32;
// A Helios sends a DIFOP a second and 750-1500 MSOP packets in between: a capture that holds
// none in its first 20,000 datagrams is taken to hold none.
constexpr uint64_t kSearchedDatagrams = 20000;

bool IsDifop(const UdpDatagram& d) {
  return d.dst_port == kRobosenseDifopPort && d.payload.size() == kRobosensePacketBytes &&
         HasRobosenseDifopId(d.payload);
}

}  // namespace

Expected<RobosenseCalibration> RobosenseDifopCalibration(const std::vector<uint8_t>& difop,
                                                         const std::string& where) {
  if (difop.size() != kRobosensePacketBytes || !HasRobosenseDifopId(difop))
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
        return Error{
            fmt::format("{}: the DIFOP's {} angle {} (its byte {}): sign byte {} and {} x 0.01 deg "
                        "(expected sign 0 or 1 and at most {} deg): the unit sent no angle table",
                        where, table == kVerticalAt ? "vertical" : "horizontal", k, at, sign, value,
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
  // The spin rate (bytes 8-9, rpm), where the unit says one.
  const uint64_t rpm = bytes::Be(&difop[8], 2);
  if (rpm >= 60) c.rotation_rate_hz = static_cast<double>(rpm) / 60;
  return c;
}

Expected<RobosenseCalibration> RobosenseCaptureCalibration(const PacketSource& packets) {
  // The packets' generation from the first well-formed MSOP (1248 bytes, its id, a block's
  // FF EE at byte 42): a Helios's DIFOP layout is read, an RS-LiDAR's is not. The first DIFOP
  // whose table reads gives the angles (a damaged one is passed over, as rs_driver waits for
  // one that loads); its error is kept for when none does.
  std::optional<RobosenseCalibration> found;
  std::optional<Error> first_error;
  enum class Generation { kUnknown, kHelios, kRsLidar } generation = Generation::kUnknown;
  uint64_t seen = 0;
  CaptureStats stats;
  const std::string kEnough = "(the DIFOP is read)";
  Status read = packets.read(
      [&](const UdpDatagram& d) -> Status {
        ++seen;
        const auto& p = d.payload;
        if (generation == Generation::kUnknown && d.dst_port == kRobosenseMsopPort &&
            p.size() == kRobosensePacketBytes && p[42] == 0xFF && p[43] == 0xEE) {
          if (HasRsLidarMsopId(p))
            generation = Generation::kRsLidar;
          else if (HasHeliosMsopId(p))
            generation = Generation::kHelios;
        }
        if (IsDifop(d) && !found) {
          auto c = RobosenseDifopCalibration(p, PacketPlace(packets.file, d, 0));
          if (c.ok())
            found = std::move(c.value());
          else if (!first_error)
            first_error = c.error();
        }
        if ((found && generation != Generation::kUnknown) || seen >= kSearchedDatagrams)
          return Error{kEnough};
        return {};
      },
      stats);
  if (!read.ok() && read.message() != kEnough) return read.error();
  if (generation == Generation::kRsLidar)
    return Error{packets.file.string() +
                 ": an RS-LiDAR-16 or -32's packets: their DIFOP's angles are not read; the "
                 "unit's angle file (.csv) is needed"};
  if (generation == Generation::kUnknown)
    return Error{fmt::format(
        "{}: no Helios MSOP packet (UDP port 6699, 1248 bytes beginning 55 AA 05 5A) among its "
        "first {} datagrams to say whose DIFOP layout to read; the unit's angle file (.csv) is "
        "needed",
        packets.file.string(), seen)};
  if (found) return *std::move(found);
  if (first_error) return *first_error;
  return Error{fmt::format(
      "{}: no RoboSense DIFOP packet (UDP port 7788, A5 FF 00 5A) among its first {} datagrams "
      "to give the unit's angles; the unit's angle file (.csv) is needed",
      packets.file.string(), seen)};
}

}  // namespace lt
