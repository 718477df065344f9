// Captures made in tests: hand-made datagrams as a packet source, a datagram framed as Ethernet
// II, IPv4 and UDP, and a classic pcap of such frames.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "lidartwin/datasets/pcap.h"

namespace lt::test {

// Hand-made datagrams as a PacketSource named "made.pcap", each to its port, 2000 bytes apart
// in the "file" (the offsets messages name).
inline PacketSource Datagrams(std::vector<std::pair<uint16_t, std::vector<uint8_t>>> packets) {
  return {"made.pcap", [packets](const UdpSink& sink, CaptureStats&) -> Status {
            for (size_t i = 0; i < packets.size(); ++i) {
              UdpDatagram d;
              d.dst_port = packets[i].first;
              d.payload = packets[i].second;
              d.file_offset = 2000 * i;
              if (Status s = sink(d); !s.ok()) return s;
            }
            return {};
          }};
}

// The same, all to one port.
inline PacketSource Datagrams(uint16_t port, const std::vector<std::vector<uint8_t>>& payloads) {
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> packets;
  for (const auto& p : payloads)
    packets.emplace_back(port, p);
  return Datagrams(std::move(packets));
}

// A frame of Ethernet, IPv4 and UDP around a datagram.
inline std::vector<uint8_t> EthernetFrame(const UdpDatagram& d) {
  std::vector<uint8_t> f(14 + 20 + 8);
  f[12] = 0x08, f[13] = 0x00;
  const size_t ip_len = 20 + 8 + d.payload.size(), udp_len = 8 + d.payload.size();
  f[14] = 0x45, f[16] = static_cast<uint8_t>(ip_len >> 8), f[17] = static_cast<uint8_t>(ip_len);
  f[22] = 64, f[23] = 17;
  f[34] = static_cast<uint8_t>(d.src_port >> 8), f[35] = static_cast<uint8_t>(d.src_port);
  f[36] = static_cast<uint8_t>(d.dst_port >> 8), f[37] = static_cast<uint8_t>(d.dst_port);
  f[38] = static_cast<uint8_t>(udp_len >> 8), f[39] = static_cast<uint8_t>(udp_len);
  f.insert(f.end(), d.payload.begin(), d.payload.end());
  return f;
}

// A classic little-endian microsecond pcap of the datagrams (their capture times kept).
inline void WritePcap(const std::filesystem::path& path,
                      const std::vector<UdpDatagram>& datagrams) {
  std::ofstream out(path, std::ios::binary);
  const auto u32 = [&](uint32_t v) { out.write(reinterpret_cast<const char*>(&v), 4); };
  const auto u16 = [&](uint16_t v) { out.write(reinterpret_cast<const char*>(&v), 2); };
  u32(0xa1b2c3d4), u16(2), u16(4), u32(0), u32(0), u32(262144), u32(1);
  for (const UdpDatagram& d : datagrams) {
    const auto frame = EthernetFrame(d);
    const uint64_t us = static_cast<uint64_t>(d.capture_time_s * 1e6 + 0.5);
    u32(static_cast<uint32_t>(us / 1000000)), u32(static_cast<uint32_t>(us % 1000000));
    u32(static_cast<uint32_t>(frame.size())), u32(static_cast<uint32_t>(frame.size()));
    out.write(reinterpret_cast<const char*>(frame.data()),
              static_cast<std::streamsize>(frame.size()));
  }
}

}  // namespace lt::test
