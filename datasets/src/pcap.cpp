// pcap format: https://wiki.wireshark.org/Development/LibpcapFileFormat (24-byte global header,
// 16-byte record headers); Ethernet II, IPv4 (RFC 791) and UDP (RFC 768) headers.
#include "lidartwin/datasets/pcap.h"
#include "lidartwin/sim/text_file.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <tuple>

namespace lt {

namespace {

constexpr uint32_t kMagicMicro = 0xa1b2c3d4, kMagicNano = 0xa1b23c4d;
constexpr uint32_t kLinkEthernet = 1;

uint32_t Swap32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}
uint16_t Be16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] << 8 | p[1]);
}

struct Fragments {
  std::map<uint32_t, std::vector<uint8_t>> pieces;  // by byte offset
  uint32_t total = 0;                               // known once the last piece arrived
  double time_s = 0;
  uint64_t offset = 0;
};

}  // namespace

Expected<std::vector<UdpDatagram>> ReadPcapUdp(const std::filesystem::path& file) {
  // Regular files only (a directory or device is refused, not streamed).
  auto bytes = ReadTextFile(file, "", UINT64_MAX);
  if (!bytes.ok()) return bytes.error();
  const std::vector<uint8_t> b(bytes->begin(), bytes->end());
  const auto fail = [&](uint64_t at, const std::string& what) {
    return Error{file.string() + ": byte " + std::to_string(at) + ": " + what};
  };
  if (b.size() < 24) return fail(0, "truncated pcap global header (24 bytes expected)");
  uint32_t magic = 0;
  std::memcpy(&magic, b.data(), 4);
  const bool swap = magic == Swap32(kMagicMicro) || magic == Swap32(kMagicNano);
  if (swap) magic = Swap32(magic);
  if (magic != kMagicMicro && magic != kMagicNano) {
    return fail(0, "not a classic pcap file (magic number not recognised; pcapng is not read)");
  }
  const double sub_unit = magic == kMagicNano ? 1e-9 : 1e-6;
  const auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, b.data() + at, 4);
    return swap ? Swap32(v) : v;
  };
  if (u32(20) != kLinkEthernet) {
    return fail(20, "link type " + std::to_string(u32(20)) + " is not Ethernet (1)");
  }
  std::vector<UdpDatagram> out;
  std::map<std::tuple<uint32_t, uint32_t, uint16_t>, Fragments> partial;
  const auto emit_udp = [&](const uint8_t* udp, size_t n, double t, uint64_t at) -> Status {
    if (n < 8) return fail(at, "truncated UDP header");
    const uint16_t len = Be16(udp + 4);
    if (len < 8 || len > n)
      return fail(at, "UDP length " + std::to_string(len) + " exceeds the datagram");
    UdpDatagram d;
    d.capture_time_s = t;
    d.src_port = Be16(udp);
    d.dst_port = Be16(udp + 2);
    d.file_offset = at + 8;
    d.payload.assign(udp + 8, udp + len);
    out.push_back(std::move(d));
    return {};
  };
  size_t at = 24;
  while (at < b.size()) {
    if (b.size() - at < 16) return fail(at, "truncated pcap record header");
    const double t = u32(at) + u32(at + 4) * sub_unit;
    const uint32_t incl = u32(at + 8);
    if (incl > b.size() - at - 16) {
      return fail(at, "record of " + std::to_string(incl) + " bytes runs past the end of the file");
    }
    const uint8_t* p = b.data() + at + 16;
    const uint64_t frame_at = at + 16;
    at += 16 + incl;
    size_t eth = 14;
    if (incl < eth) return fail(frame_at, "truncated Ethernet header");
    uint16_t type = Be16(p + 12);
    while (type == 0x8100 && incl >= eth + 4) {  // 802.1Q VLAN tags
      type = Be16(p + eth + 2);
      eth += 4;
    }
    if (type != 0x0800) continue;  // not IPv4
    if (incl < eth + 20) return fail(frame_at + eth, "truncated IPv4 header");
    const uint8_t* ip = p + eth;
    const size_t ihl = (ip[0] & 0x0f) * 4u;
    const size_t ip_len = Be16(ip + 2);
    if ((ip[0] >> 4) != 4 || ihl < 20 || ip_len < ihl || eth + ip_len > incl) {
      return fail(frame_at + eth, "malformed or truncated IPv4 header");
    }
    if (ip[9] != 17) continue;  // not UDP
    const uint16_t flags = Be16(ip + 6);
    const bool more = flags & 0x2000;
    const uint32_t frag_at = (flags & 0x1fff) * 8u;
    const uint8_t* data = ip + ihl;
    const size_t n = ip_len - ihl;
    if (!more && frag_at == 0) {
      if (Status s = emit_udp(data, n, t, frame_at + eth + ihl); !s.ok()) return s.error();
      continue;
    }
    // A fragment: keep it until the datagram is whole (RFC 791 reassembly by source,
    // destination and identification).
    uint32_t src, dst;
    std::memcpy(&src, ip + 12, 4);
    std::memcpy(&dst, ip + 16, 4);
    Fragments& f = partial[{src, dst, Be16(ip + 4)}];
    if (frag_at == 0) {
      f.time_s = t;
      f.offset = frame_at + eth + ihl;
    }
    f.pieces[frag_at].assign(data, data + n);
    if (!more) f.total = frag_at + static_cast<uint32_t>(n);
    if (f.total == 0) continue;
    std::vector<uint8_t> whole;
    for (const auto& [off, piece] : f.pieces) {
      if (off != whole.size()) break;
      whole.insert(whole.end(), piece.begin(), piece.end());
    }
    if (whole.size() != f.total) continue;
    if (Status s = emit_udp(whole.data(), whole.size(), f.time_s, f.offset); !s.ok()) {
      return s.error();
    }
    partial.erase({src, dst, Be16(ip + 4)});
  }
  return out;
}

}  // namespace lt
