// Capture files, classic libpcap and pcapng (told apart by their first bytes): the UDP datagrams
// of Ethernet/IPv4 frames, with their capture time. What LiDAR vendors' tools record (Ouster
// Studio, VeloView, tcpdump, Wireshark).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt {

struct UdpDatagram {
  double capture_time_s = 0;  // pcap record time (host clock)
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
  uint64_t file_offset = 0;  // of the UDP payload in a capture; 0 for a bag's packet
  std::vector<uint8_t> payload;
  // Where a bag's packet came from ("FILE: message 3 of /pandar_packets (row 4), packet 17");
  // empty for a capture's datagram, which its file_offset places.
  std::string place;
};

// "FILE: byte N" of a capture's datagram, "PLACE, byte K" of a bag's packet: where the
// payload's byte `at` is, to begin a message about it.
std::string PacketPlace(const std::filesystem::path& file, const UdpDatagram& d, uint64_t at);

// What a capture reader passed over or could not use, for the notes a command prints and for
// the error that says why no lidar packet matched. The pcap layer fills the record counts;
// the packet decoders (Ouster, Velodyne) the per-datagram ones.
struct CaptureStats {
  uint64_t bytes_total = 0, bytes_read = 0;  // of the file, for progress
  uint64_t records = 0;                      // pcap records read
  uint64_t udp_datagrams = 0;                // whole (reassembled) UDP datagrams
  uint64_t non_ipv4 = 0;                     // ARP, IPv6, other EtherTypes
  uint64_t non_udp = 0;                      // TCP, ICMP, ... over IPv4
  uint64_t malformed = 0;        // records with truncated or inconsistent Ethernet/IPv4/UDP headers
  uint64_t stale_fragments = 0;  // IPv4 datagrams whose fragments never all arrived
  uint64_t lidar_packets = 0;    // decoded into frames
  uint64_t position_packets = 0;      // Velodyne position (GPS) packets, port 8308
  uint64_t imu_packets = 0;           // Ouster IMU packets, port 7503
  uint64_t device_packets = 0;        // RoboSense DIFOP (device information), port 7788
  uint64_t malformed_messages = 0;    // bag messages whose packets could not be read
  uint64_t other_streams = 0;         // OSF messages of streams other than the one read
  uint64_t other_udp = 0;             // UDP on other ports
  uint64_t bad_packets = 0;           // on the lidar port but unusable (size, a header field)
  uint64_t duplicates = 0;            // exact repeats of a packet already decoded, dropped
  uint64_t late_packets = 0;          // of a frame already completed, dropped
  std::vector<std::string> warnings;  // the first few problems, each with its byte offset
  uint64_t warnings_left_out = 0;
  // The first kSeenKinds distinct (destination port, payload bytes) of the UDP datagrams.
  struct Seen {
    uint16_t port = 0;
    size_t bytes = 0;
    uint64_t count = 0;
  };
  static constexpr size_t kSeenKinds = 8;
  std::vector<Seen> seen;
  uint64_t seen_other = 0;  // datagrams of kinds beyond the first kSeenKinds

  void Warn(std::string message);
  // A lidar packet that cannot be decoded: counted, and named by file and byte.
  void BadPacket(const std::filesystem::path& file, uint64_t at, const std::string& what);
  // The same, named by PacketPlace.
  void BadPacket(const std::string& place, const std::string& what);
  void SawUdp(uint16_t port, size_t bytes);
  // "412 UDP datagrams: 400 to port 2368 of 1206 bytes, 12 to port 8308 of 512 bytes".
  std::string SeenSummary() const;
  // One line per kind of thing skipped or dropped, for stderr; empty when nothing was.
  std::vector<std::string> Notes() const;
};

// Called once per UDP datagram, in file order; an error stops the reading and is returned.
using UdpSink = std::function<Status(const UdpDatagram&)>;

// Streams the UDP datagrams of a capture (pcap, or pcapng: capture/pcapng.h) to `sink`, reading
// the file record by record (memory
// bounded by the largest record and a bounded set of incomplete IPv4 fragments, whatever the
// capture's length). Microsecond and nanosecond pcaps of either byte order; Ethernet link type
// with optional 802.1Q VLAN tags; IPv4 fragments are reassembled. Non-IPv4 frames, non-UDP
// datagrams and records with malformed headers are skipped and counted in `stats`; so is a
// truncated last record (a capture cut while being written), with a warning naming its byte
// offset. Errors name the file and the byte offset: a capture with no records ("contains no
// packets"), a truncated global header, an unknown magic or link type, a record length no pcap
// record can have (the rest of the file cannot be framed).
Status ForEachUdpDatagram(const std::filesystem::path& file, const UdpSink& sink,
                          CaptureStats* stats = nullptr);

// Where a packet decoder's packets come from (ADR 0023): the UDP datagrams of a capture, or
// the packets of a bag's packet messages, handed over as datagrams to the vendor's data port.
// `file` names the source in messages; `read` streams the datagrams and counts what it passes
// over in the stats (bytes_total and bytes_read too, for progress).
struct PacketSource {
  std::filesystem::path file;
  std::function<Status(const UdpSink&, CaptureStats&)> read;
};

// After a packet decoder has read its source: an error naming `file` when no packet of the kind
// `expected` names ("Hesai data packet (UDP port 2368)") was decoded, saying what the capture
// held instead, or when more than one in ten could not be decoded; success otherwise.
Status CheckDecodedPackets(const std::filesystem::path& file, const CaptureStats& stats,
                           const std::string& expected);

// The datagrams of a pcap capture (ForEachUdpDatagram).
PacketSource PcapPackets(const std::filesystem::path& pcap);

// All UDP datagrams in file order (ForEachUdpDatagram into a vector; for tests and tools).
Expected<std::vector<UdpDatagram>> ReadPcapUdp(const std::filesystem::path& file,
                                               CaptureStats* stats = nullptr);

}  // namespace lt
