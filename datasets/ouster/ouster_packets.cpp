// Ouster lidar packets -> frames. Layouts (Ouster Software User Manual, "Lidar data format"):
// legacy: 16 columns of [timestamp u64, measurement id u16, frame id u16, encoder u32,
// pixels, status u32]; other profiles: a 32-byte packet header (frame id), columns of
// [timestamp u64, measurement id u16, status u16, pixels], a 32-byte footer. Pixel fields are
// little-endian bit fields at the offsets below (bit offset, width, left shift).
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "capture/bytes.h"
#include "lidartwin/datasets/ouster.h"
#include "ouster/ouster_points.h"

namespace lt {

namespace {

using bytes::Le;

struct BitField {
  int offset, bits, shift;
};

struct PixelLayout {
  BitField range, reflectivity, signal, near_ir;  // bits == 0: absent
  BitField range2, reflectivity2, signal2;
};

PixelLayout Layout(OusterProfile p) {
  switch (p) {
    case OusterProfile::kLegacy:
      // Reflectivity is a 16-bit field here: firmware 2.1 and later fill it with the
      // calibrated 0..255 scale, firmware 2.0 with an uncalibrated value (about signal x R^2
      // [m^2], up to 65535) that 8 bits would wrap.
      return {{0, 20, 0}, {32, 16, 0}, {48, 16, 0}, {64, 16, 0}, {}, {}, {}};
    case OusterProfile::kRng19Rfl8Sig16Nir16:
      return {{0, 19, 0}, {32, 8, 0}, {48, 16, 0}, {64, 16, 0}, {}, {}, {}};
    case OusterProfile::kRng19Rfl8Sig16Nir16Dual:
      return {{0, 19, 0},  {24, 8, 0}, {64, 16, 0}, {96, 16, 0},
              {32, 19, 0}, {56, 8, 0}, {80, 16, 0}};
    case OusterProfile::kRng15Rfl8Nir8:  // range in units of 8 mm, near-IR of 16
      return {{0, 15, 3}, {16, 8, 0}, {}, {24, 8, 4}, {}, {}, {}};
    case OusterProfile::kRng15Rfl8Nir8Dual:
      return {{0, 15, 3}, {16, 8, 0}, {}, {24, 8, 4}, {32, 15, 3}, {48, 8, 0}, {}};
  }
  return {};
}

uint64_t Get(const uint8_t* p, BitField f) {
  uint64_t v = 0;
  const int first = f.offset / 8, last = (f.offset + f.bits - 1) / 8;
  for (int b = last; b >= first; --b)
    v = (v << 8) | p[b];
  v >>= f.offset % 8;
  v &= (f.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << f.bits) - 1);
  return v << f.shift;
}

constexpr size_t kMaxUdpPayload = 65535 - 8;

// What the capture looks like instead, when nothing matched.
std::string FamilyHint(const CaptureStats& stats, uint16_t lidar_port) {
  for (const CaptureStats::Seen& s : stats.seen) {
    if ((s.port == 2368 && s.bytes == 1206) || s.port == 8308) {
      return ": this looks like a Velodyne capture (port 2368, 1206-byte data packets); read "
             "it with its Velodyne calibration (.yaml) instead";
    }
  }
  for (const CaptureStats::Seen& s : stats.seen) {
    if (s.port == lidar_port) {
      return ": the packets on the lidar port are of another size, so the metadata is of "
             "another sensor, lidar mode or UDP profile";
    }
  }
  return "";
}

}  // namespace

Status ForEachOusterFrame(const std::filesystem::path& pcap, const OusterMetadata& m,
                          const FrameSink& sink, CaptureStats* stats) {
  return ForEachOusterFrame(PcapPackets(pcap), m, sink, stats);
}

Status ForEachOusterFrame(const PacketSource& packets, const OusterMetadata& m,
                          const FrameSink& sink, CaptureStats* stats_out) {
  const std::filesystem::path& pcap = packets.file;
  CaptureStats local;
  CaptureStats& stats = stats_out ? *stats_out : local;
  const bool legacy = m.profile == OusterProfile::kLegacy;
  const size_t packet_bytes = m.PacketBytes(), column_bytes = m.ColumnBytes();
  const size_t header = legacy ? 0 : 32, pixel_at = legacy ? 16 : 12;
  // The serial number the metadata gives, where it is a number (packets carry it from
  // firmware 2.2 on, outside the legacy and FuSa layouts).
  std::optional<uint64_t> expected_serial;
  if (!m.serial.empty() && m.serial.size() <= 13 &&
      m.serial.find_first_not_of("0123456789") == std::string::npos) {
    expected_serial = std::stoull(m.serial);
  }
  const PixelLayout layout = Layout(m.profile);
  const double period = 1.0 / m.rotation_rate_hz;
  const std::string metadata_name = m.file.empty() ? "the metadata" : m.file.string();
  const std::string expected =
      "UDP port " + std::to_string(m.lidar_port) + ", " + std::to_string(packet_bytes) +
      "-byte packets (" + std::to_string(m.columns_per_packet) + " columns x " +
      std::to_string(m.pixels_per_column) + " pixels, profile " + OusterProfileName(m.profile) +
      ", " + std::to_string(m.columns_per_frame) + " columns per frame)";
  // Nothing is sized from the metadata before it is known to describe a UDP datagram.
  if (packet_bytes > kMaxUdpPayload) {
    return Error{metadata_name + ": its data format needs " + std::to_string(packet_bytes) +
                 "-byte lidar packets (" + expected + "), more than a UDP datagram holds (" +
                 std::to_string(kMaxUdpPayload) + ")"};
  }
  Frame f;
  bool open = false;  // a frame is being filled
  uint32_t emitted = 0;
  int64_t current_id = -1;
  std::array<int64_t, 4> completed_ids{-1, -1, -1, -1};  // the latest completed frames
  // Measurement ids seen in this frame (ids are 16-bit, whatever the metadata claims).
  std::vector<uint8_t> seen(std::min<uint32_t>(m.columns_per_frame, 65536), 0);
  std::vector<uint16_t> measurements(m.columns_per_packet);
  std::vector<uint8_t> valid(m.columns_per_packet);
  const auto emit = [&]() -> Status {
    if (!open) return {};
    if (f.start_time_s < 0) f.start_time_s = 0;
    f.end_time_s = f.start_time_s + period;  // one revolution from its first column
    completed_ids[emitted % completed_ids.size()] = current_id;
    ++emitted;
    open = false;
    DropFields(f, kLabelFields);  // an Ouster measures reflectivity, never labels
    return sink(std::move(f));
  };
  Status read = packets.read(
      [&](const UdpDatagram& d) -> Status {
        const auto bad = [&](uint64_t at, const std::string& what) {
          stats.BadPacket(PacketPlace(pcap, d, at), what);
        };
        stats.SawUdp(d.dst_port, d.payload.size());
        if (d.dst_port != m.lidar_port) {
          // IMU packets: 48 bytes on udp_port_imu (7502 + 1 by default).
          if (d.payload.size() == 48) {
            ++stats.imu_packets;
          } else {
            ++stats.other_udp;
          }
          return {};
        }
        if (d.payload.size() != packet_bytes) {
          bad(0, "lidar packet of " + std::to_string(d.payload.size()) +
                     " bytes, the metadata's format needs " + std::to_string(packet_bytes));
          // Nothing fits: stop early rather than read a long capture of the wrong sensor.
          if (stats.lidar_packets == 0 && stats.bad_packets >= 1000) {
            return Error{pcap.string() + ": the first " + std::to_string(stats.bad_packets) +
                         " packets on the lidar port do not match " + metadata_name +
                         " (expected " + expected + "; seen " + stats.SeenSummary() + ")"};
          }
          return {};
        }
        const uint8_t* p = d.payload.data();
        // The packet header names the sensor (prod_sn, 40 bits at byte 7, Ouster sensor
        // docs "Lidar data format", packet header): a capture paired with another unit's
        // metadata decodes to plausible but wrong points, so it is refused.
        if (!legacy && !m.fusa_header && expected_serial) {
          uint64_t serial = 0;
          for (int k = 4; k >= 0; --k)
            serial = serial << 8 | p[7 + k];
          if (serial != *expected_serial) {
            return Error{
                PacketPlace(pcap, d, 7) + ": the packets come from the sensor with serial number " +
                std::to_string(serial) + ", but " + metadata_name + " is the metadata of serial " +
                m.serial + ": the capture and its metadata do not belong together"};
          }
        }
        int64_t frame_id;
        if (legacy) {
          frame_id = Le<uint16_t>(p + 10);
        } else if (m.fusa_header) {
          frame_id = Le<uint32_t>(p + 4);
        } else {
          frame_id = Le<uint16_t>(p + 2);
        }
        // Check the columns before anything is decoded: a bad field skips the packet.
        bool any_seen = false;
        for (uint32_t c = 0; c < m.columns_per_packet; ++c) {
          const uint8_t* col = p + header + c * column_bytes;
          measurements[c] = Le<uint16_t>(col + 8);
          valid[c] =
              legacy ? (Le<uint32_t>(col + column_bytes - 4) & 1u) : (Le<uint16_t>(col + 10) & 1u);
          if (!valid[c]) continue;
          if (measurements[c] >= m.columns_per_frame) {
            bad(header + c * column_bytes + 8,
                "measurement id " + std::to_string(measurements[c]) + " outside the " +
                    std::to_string(m.columns_per_frame) + " columns of a frame");
            return {};
          }
          if (frame_id == current_id && seen[measurements[c]]) any_seen = true;
        }
        if (frame_id != current_id) {
          if (std::find(completed_ids.begin(), completed_ids.end(), frame_id) !=
              completed_ids.end()) {
            ++stats.late_packets;
            return {};
          }
          if (Status s = emit(); !s.ok()) return s;
          current_id = frame_id;
          f = Frame();
          f.index = emitted;
          f.start_time_s = -1;
          open = true;
          std::fill(seen.begin(), seen.end(), 0);
        } else if (any_seen) {
          ++stats.duplicates;
          return {};
        }
        ++stats.lidar_packets;
        for (uint32_t c = 0; c < m.columns_per_packet; ++c) {
          if (!valid[c]) continue;
          const uint8_t* col = p + header + c * column_bytes;
          const double t = Le<uint64_t>(col) * 1e-9;
          const uint16_t measurement = measurements[c];
          seen[measurement] = 1;
          if (f.start_time_s < 0 || t < f.start_time_s) f.start_time_s = t;
          for (uint32_t row = 0; row < m.pixels_per_column; ++row) {
            const uint8_t* px = col + pixel_at + row * m.ChannelBytes();
            const auto intensity = [&](BitField signal, uint32_t refl) {
              return signal.bits ? static_cast<double>(Get(px, signal)) : static_cast<double>(refl);
            };
            const auto r1 = static_cast<uint32_t>(Get(px, layout.range));
            if (r1 > 0) {
              const auto refl = static_cast<uint32_t>(Get(px, layout.reflectivity));
              AddOusterPoint(m, f, row, measurement, t, r1, refl, intensity(layout.signal, refl),
                             0);
            }
            if (layout.range2.bits) {
              const auto r2 = static_cast<uint32_t>(Get(px, layout.range2));
              if (r2 > 0) {
                const auto refl = static_cast<uint32_t>(Get(px, layout.reflectivity2));
                AddOusterPoint(m, f, row, measurement, t, r2, refl, intensity(layout.signal2, refl),
                               1);
              }
            }
          }
        }
        return {};
      },
      stats);
  if (!read.ok()) return read;
  if (stats.lidar_packets == 0) {
    return Error{pcap.string() + ": no lidar packet matches " + metadata_name + " (expected " +
                 expected + "; seen " + stats.SeenSummary() + ")" +
                 FamilyHint(stats, m.lidar_port)};
  }
  // A few odd packets are a field capture's lot; many mean the metadata is of another lidar
  // mode, profile or sensor, and the frames would be silently incomplete.
  if (stats.bad_packets * 9 > stats.lidar_packets) {
    return Error{pcap.string() + ": " + std::to_string(stats.bad_packets) + " of " +
                 std::to_string(stats.bad_packets + stats.lidar_packets) +
                 " packets on the lidar port cannot be decoded with " + metadata_name +
                 " (expected " + expected + "; first: " +
                 (stats.warnings.empty() ? std::string("?") : stats.warnings.front()) +
                 "): the metadata belongs to another lidar mode or sensor"};
  }
  return emit();
}

Expected<std::vector<Frame>> ReadOusterPcap(const std::filesystem::path& pcap,
                                            const OusterMetadata& m, CaptureStats* stats) {
  return CollectFrames(
      [&](const FrameSink& sink) { return ForEachOusterFrame(pcap, m, sink, stats); });
}

}  // namespace lt
