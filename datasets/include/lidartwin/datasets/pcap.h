// Classic libpcap capture files (not pcapng): the UDP datagrams of Ethernet/IPv4 frames, with
// their capture time. What LiDAR vendors' tools record (Ouster Studio, VeloView, tcpdump).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "lidartwin/sim/status.h"

namespace lt {

struct UdpDatagram {
  double capture_time_s = 0;  // pcap record time (host clock)
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
  uint64_t file_offset = 0;  // of the UDP payload, for error messages
  std::vector<uint8_t> payload;
};

// All UDP datagrams in file order. Microsecond and nanosecond pcaps of either byte order;
// Ethernet link type with optional 802.1Q VLAN tags; IPv4 fragments are reassembled.
// Non-UDP and non-IPv4 frames are skipped. Truncated headers or records, an unknown magic
// or link type are errors naming the file and the byte offset.
Expected<std::vector<UdpDatagram>> ReadPcapUdp(const std::filesystem::path& file);

}  // namespace lt
