// pcap format: https://wiki.wireshark.org/Development/LibpcapFileFormat (24-byte global header,
// 16-byte record headers); Ethernet II, IPv4 (RFC 791) and UDP (RFC 768) headers.
#include "lidartwin/datasets/pcap.h"
#include "capture/bytes.h"
#include "capture/ethernet_to_udp.h"
#include "capture/pcapng.h"
#include "lidartwin/base/text_file.h"

#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

namespace lt {

namespace {

using bytes::Swap32;

constexpr uint32_t kMagicMicro = 0xa1b2c3d4, kMagicNano = 0xa1b23c4d;
constexpr uint32_t kLinkEthernet = 1;
// libpcap's MAXIMUM_SNAPLEN: no record of a real capture is longer.
constexpr uint32_t kMaxRecordBytes = 262144;
constexpr size_t kMaxWarnings = 8;

}  // namespace

void CaptureStats::BadPacket(const std::filesystem::path& file, uint64_t at,
                             const std::string& what) {
  ++bad_packets;
  Warn(file.string() + ": byte " + std::to_string(at) + ": " + what + "; packet skipped");
}

void CaptureStats::BadPacket(const std::string& place, const std::string& what) {
  ++bad_packets;
  Warn(place + ": " + what + "; packet skipped");
}

std::string PacketPlace(const std::filesystem::path& file, const UdpDatagram& d, uint64_t at) {
  if (d.place.empty()) return file.string() + ": byte " + std::to_string(d.file_offset + at);
  return d.place + ", byte " + std::to_string(at);
}

Status CheckDecodedPackets(const std::filesystem::path& file, const CaptureStats& stats,
                           const std::string& expected) {
  if (stats.lidar_packets == 0)
    return Error{
        file.string() + ": no " + expected + " " +
        (stats.bad_packets ? "could be decoded" : "in the capture") + " (seen " +
        stats.SeenSummary() +
        (stats.warnings.empty() ? std::string() : "; first problem: " + stats.warnings[0]) + ")"};
  if (stats.bad_packets * 9 > stats.lidar_packets)
    return Error{file.string() + ": " + std::to_string(stats.bad_packets) + " of " +
                 std::to_string(stats.bad_packets + stats.lidar_packets) +
                 " data packets cannot be decoded (first: " + stats.warnings.front() + ")"};
  return {};
}

PacketSource PcapPackets(const std::filesystem::path& pcap) {
  return {pcap, [pcap](const UdpSink& sink, CaptureStats& stats) {
            return ForEachUdpDatagram(pcap, sink, &stats);
          }};
}

void CaptureStats::Warn(std::string message) {
  if (warnings.size() < kMaxWarnings) {
    warnings.push_back(std::move(message));
  } else {
    ++warnings_left_out;
  }
}

void CaptureStats::SawUdp(uint16_t port, size_t bytes) {
  for (Seen& s : seen) {
    if (s.port == port && s.bytes == bytes) {
      ++s.count;
      return;
    }
  }
  if (seen.size() < kSeenKinds) {
    seen.push_back({port, bytes, 1});
  } else {
    ++seen_other;
  }
}

std::string CaptureStats::SeenSummary() const {
  std::string s = std::to_string(udp_datagrams) + " UDP datagram(s)";
  for (size_t k = 0; k < seen.size(); ++k) {
    s += (k == 0 ? ": " : ", ") + std::to_string(seen[k].count) + " to port " +
         std::to_string(seen[k].port) + " of " + std::to_string(seen[k].bytes) + " bytes";
  }
  if (seen_other) s += ", " + std::to_string(seen_other) + " of other ports and sizes";
  if (non_ipv4 + non_udp) {
    s += "; " + std::to_string(non_ipv4 + non_udp) + " non-UDP or non-IPv4 record(s)";
  }
  return s;
}

std::vector<std::string> CaptureStats::Notes() const {
  std::vector<std::string> notes;
  const uint64_t skipped =
      position_packets + imu_packets + device_packets + other_udp + non_ipv4 + non_udp;
  if (skipped) {
    std::string s = "skipped " + std::to_string(skipped) + " non-lidar packet(s) (";
    std::string sep;
    const auto part = [&](uint64_t n, const char* what) {
      if (!n) return;
      s += sep + std::to_string(n) + " " + what;
      sep = ", ";
    };
    part(position_packets, "Velodyne position packet(s) on port 8308");
    part(imu_packets, "Ouster IMU packet(s)");
    part(device_packets, "RoboSense DIFOP packet(s), read for the return mode and spin rate");
    part(other_udp, "UDP on other ports");
    part(non_udp, "non-UDP IPv4");
    part(non_ipv4, "non-IPv4 (ARP, IPv6, ...)");
    notes.push_back(s + ")");
  }
  if (malformed) {
    notes.push_back("skipped " + std::to_string(malformed) +
                    " record(s) with malformed Ethernet/IPv4/UDP headers");
  }
  if (other_streams) {
    notes.push_back("skipped " + std::to_string(other_streams) +
                    " message(s) of other streams (IMU, other sensors)");
  }
  if (malformed_messages) {
    notes.push_back("skipped " + std::to_string(malformed_messages) +
                    " bag message(s) that could not be read (the first named among the warnings)");
  }
  if (stale_fragments) {
    notes.push_back("dropped " + std::to_string(stale_fragments) +
                    " IPv4 datagram(s) whose fragments never all arrived");
  }
  if (bad_packets) {
    notes.push_back("skipped " + std::to_string(bad_packets) +
                    " lidar packet(s) that could not be decoded (see the warnings)");
  }
  if (duplicates) {
    notes.push_back("dropped " + std::to_string(duplicates) +
                    " duplicated lidar packet(s) (the same packet captured twice)");
  }
  if (late_packets) {
    notes.push_back("dropped " + std::to_string(late_packets) +
                    " late lidar packet(s) of a frame already completed");
  }
  for (const std::string& w : warnings)
    notes.push_back("warning: " + w);
  if (warnings_left_out) {
    notes.push_back("(" + std::to_string(warnings_left_out) + " more warning(s) left out)");
  }
  return notes;
}

namespace {

// The offset of the next plausible record header at or after `from` (within 4 MiB), or 0: a
// header whose lengths fit (captured <= original, both within a record's limit, inside the file)
// and whose time is within an hour of the last good record's, followed by another such header
// or the end of the file.
uint64_t FindNextRecord(std::ifstream& in, uint64_t from, uint64_t size, uint32_t last_second,
                        bool swap, uint32_t fraction_limit) {
  constexpr uint64_t kWindow = 4u << 20;
  const uint64_t end = std::min(size, from + kWindow + 2 * (16 + kMaxRecordBytes));
  if (from >= end) return 0;
  std::vector<uint8_t> buf(end - from);
  in.clear();
  in.seekg(static_cast<std::streamoff>(from));
  in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
  buf.resize(static_cast<size_t>(in.gcount()));
  const auto u32 = [&](size_t i) {
    uint32_t v;
    std::memcpy(&v, buf.data() + i, 4);
    return swap ? Swap32(v) : v;
  };
  const auto plausible = [&](size_t i) {
    if (i + 16 > buf.size()) return false;
    const uint32_t second = u32(i), incl = u32(i + 8), orig = u32(i + 12);
    return incl <= kMaxRecordBytes && orig >= incl && orig <= kMaxRecordBytes &&
           u32(i + 4) < fraction_limit &&
           (last_second == 0 ||
            (uint64_t{second} + 3600 >= last_second && second <= uint64_t{last_second} + 3600)) &&
           from + i + 16 + incl <= size;
  };
  for (size_t i = 0; i + 16 <= buf.size() && i < kWindow; ++i) {
    if (!plausible(i)) continue;
    const size_t next = i + 16 + u32(i + 8);
    if (from + next == size || plausible(next)) return from + i;
  }
  return 0;
}

}  // namespace

Status ForEachUdpDatagram(const std::filesystem::path& file, const UdpSink& sink,
                          CaptureStats* stats_out) {
  CaptureStats local;
  CaptureStats& stats = stats_out ? *stats_out : local;
  if (Status s = CheckReadableFile(file); !s.ok()) return s;
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(file, ec);
  if (ec) return Error{file.string() + ": cannot read its size (" + ec.message() + ")"};
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{file.string() + ": cannot open: " + CannotOpenReason(file)};
  stats.bytes_total = size;
  const auto fail = [&](uint64_t at, const std::string& what) {
    return Error{file.string() + ": byte " + std::to_string(at) + ": " + what};
  };
  const auto read = [&](uint8_t* to, size_t n) {
    in.read(reinterpret_cast<char*>(to), static_cast<std::streamsize>(n));
    return static_cast<size_t>(in.gcount()) == n;
  };
  uint8_t global[24];
  if (size < 24 || !read(global, 24)) {
    return fail(0, "truncated pcap global header (24 bytes expected)");
  }
  uint32_t magic = 0;
  std::memcpy(&magic, global, 4);
  const bool swap = magic == Swap32(kMagicMicro) || magic == Swap32(kMagicNano);
  if (swap) magic = Swap32(magic);
  if (magic != kMagicMicro && magic != kMagicNano) {
    if (magic == kPcapngSectionHeader) return ForEachPcapngDatagram(file, in, size, sink, stats);
    return fail(0, "not a pcap or pcapng file (magic number not recognised)");
  }
  const double sub_unit = magic == kMagicNano ? 1e-9 : 1e-6;
  const auto u32 = [&](const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return swap ? Swap32(v) : v;
  };
  if (u32(global + 20) != kLinkEthernet) {
    return fail(20, "link type " + std::to_string(u32(global + 20)) + " is not Ethernet (1)");
  }

  EthernetToUdp link(file, sink, stats);
  std::vector<uint8_t> record;
  uint64_t at = 24;
  uint32_t last_second = 0;  // of the last good record, to recognise the next one after damage
  const uint32_t fraction_limit = magic == kMagicNano ? 1000000000u : 1000000u;
  while (at < size) {
    stats.bytes_read = at;
    if (size - at < 16) {
      stats.Warn(file.string() + ": byte " + std::to_string(at) +
                 ": truncated last pcap record header (" + std::to_string(size - at) +
                 " of 16 bytes); ignored");
      break;
    }
    uint8_t header[16];
    if (!read(header, 16)) return fail(at, "cannot read the record header");
    const double t = u32(header) + u32(header + 4) * sub_unit;
    const uint32_t incl = u32(header + 8);
    // A header is plausible when its lengths fit and, after the first, its time lies within an
    // hour of the last good one's and its sub-second count below one second: a length damaged
    // to a small number makes the next "header" come from inside packet data.
    const uint32_t second = u32(header), fraction = u32(header + 4);
    const bool time_plausible =
        fraction < fraction_limit && (last_second == 0 || (uint64_t{second} + 3600 >= last_second &&
                                                           second <= uint64_t{last_second} + 3600));
    if (incl > kMaxRecordBytes || u32(header + 12) < incl || !time_plausible) {
      // A corrupt record header: look for the next plausible one (what came before is kept).
      const uint64_t bad_at = at;
      const uint64_t next = FindNextRecord(in, at + 1, size, last_second, swap, fraction_limit);
      if (next == 0) {
        stats.Warn(file.string() + ": byte " + std::to_string(bad_at) +
                   ": implausible record header (" + std::to_string(incl) + " bytes at time " +
                   std::to_string(second) +
                   " s); no plausible record follows, the rest of the capture (" +
                   std::to_string(size - bad_at) + " bytes) is skipped");
        ++stats.malformed;
        break;
      }
      stats.Warn(file.string() + ": byte " + std::to_string(bad_at) +
                 ": implausible record header (" + std::to_string(incl) + " bytes, at most " +
                 std::to_string(kMaxRecordBytes) + ", at time " + std::to_string(second) +
                 " s); skipped " + std::to_string(next - bad_at) + " bytes to the next record");
      ++stats.malformed;
      at = next;
      in.clear();
      in.seekg(static_cast<std::streamoff>(at));
      continue;
    }
    last_second = u32(header);
    if (incl > size - at - 16) {
      stats.Warn(file.string() + ": byte " + std::to_string(at) + ": truncated last record (" +
                 std::to_string(size - at - 16) + " of " + std::to_string(incl) +
                 " bytes; the capture was cut); it is dropped");
      break;
    }
    record.resize(incl);
    if (incl && !read(record.data(), incl)) return fail(at + 16, "cannot read the record");
    ++stats.records;
    const uint64_t frame_at = at + 16;
    at += 16 + incl;
    if (Status s = link.Take(record.data(), incl, t, frame_at); !s.ok()) return s;
  }
  stats.bytes_read = size;
  link.Finish();
  if (stats.records == 0) {
    return Error{
        file.string() + ": contains no packets" +
        (stats.warnings.empty() ? " (a pcap header only)" : " (its only record is truncated)")};
  }
  return {};
}

Expected<std::vector<UdpDatagram>> ReadPcapUdp(const std::filesystem::path& file,
                                               CaptureStats* stats) {
  std::vector<UdpDatagram> out;
  Status s = ForEachUdpDatagram(
      file,
      [&](const UdpDatagram& d) -> Status {
        out.push_back(d);
        return {};
      },
      stats);
  if (!s.ok()) return s.error();
  return out;
}

}  // namespace lt
