#include "capture/pcapng.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "capture/bytes.h"
#include "capture/ethernet_to_udp.h"

namespace lt {
namespace {

using bytes::Swap32;

constexpr uint32_t kByteOrderMagic = 0x1A2B3C4D;
enum BlockType : uint32_t {
  kInterfaceDescription = 0x00000001,
  kObsoletePacket = 0x00000002,
  kSimplePacket = 0x00000003,
  kEnhancedPacket = 0x00000006,
};
constexpr uint16_t kLinkEthernet = 1;
// A block holds at most a frame of libpcap's largest snapshot and its headers and options.
constexpr uint32_t kMaxBlockBytes = 262144 + 4096;

struct Interface {
  uint16_t link = 0;
  uint32_t snap = 0;
  double tick_s = 1e-6;  // if_tsresol; microseconds by default
  bool warned = false;
};

}  // namespace

Status ForEachPcapngDatagram(const std::filesystem::path& file, std::ifstream& in, uint64_t size,
                             const UdpSink& sink, CaptureStats& stats) {
  const auto fail = [&](uint64_t at, const std::string& what) {
    return Error{file.string() + ": byte " + std::to_string(at) + ": " + what};
  };
  EthernetToUdp link(file, sink, stats);
  std::vector<Interface> interfaces;
  std::vector<uint8_t> block;
  bool swap = false;
  uint64_t at = 0;
  in.clear();
  in.seekg(0);
  while (at < size) {
    stats.bytes_read = at;
    if (size - at < 12) {
      stats.Warn(file.string() + ": byte " + std::to_string(at) + ": truncated last block (" +
                 std::to_string(size - at) + " bytes); ignored");
      break;
    }
    uint8_t head[12];
    in.read(reinterpret_cast<char*>(head), 12);
    if (in.gcount() != 12) return fail(at, "cannot read the block header");
    uint32_t type, length, magic;
    std::memcpy(&type, head, 4);
    std::memcpy(&length, head + 4, 4);
    std::memcpy(&magic, head + 8, 4);
    if (type == kPcapngSectionHeader) {  // the byte order is the section's own
      if (magic != kByteOrderMagic && Swap32(magic) != kByteOrderMagic)
        return fail(at + 8, "section header without the byte-order magic 1A2B3C4D");
      swap = magic != kByteOrderMagic;
      interfaces.clear();
    }
    if (swap) type = Swap32(type), length = Swap32(length);
    if (length < 12 || length % 4 != 0 || length > kMaxBlockBytes)
      return fail(at + 4, "block length " + std::to_string(length) +
                              " (a block is 12 bytes or more, a multiple of 4, at most " +
                              std::to_string(kMaxBlockBytes) + ")");
    if (length > size - at) {
      stats.Warn(file.string() + ": byte " + std::to_string(at) + ": truncated last block (" +
                 std::to_string(size - at) + " of " + std::to_string(length) +
                 " bytes; the capture was cut); it is dropped");
      break;
    }
    block.resize(length);
    std::memcpy(block.data(), head, 12);
    in.read(reinterpret_cast<char*>(block.data() + 12), length - 12);
    if (static_cast<uint32_t>(in.gcount()) != length - 12) return fail(at, "cannot read the block");
    const uint64_t block_at = at;
    at += length;
    const auto u16 = [&](size_t i) {
      uint16_t v;
      std::memcpy(&v, &block[i], 2);
      return swap ? static_cast<uint16_t>(v >> 8 | v << 8) : v;
    };
    const auto u32 = [&](size_t i) {
      uint32_t v;
      std::memcpy(&v, &block[i], 4);
      return swap ? Swap32(v) : v;
    };
    if (u32(length - 4) != length)
      return fail(block_at + length - 4,
                  "the block's trailing length differs from its leading " + std::to_string(length));
    const size_t body_end = length - 4;
    if (type == kInterfaceDescription) {
      if (length < 20) return fail(block_at, "interface description shorter than 20 bytes");
      Interface i;
      i.link = u16(8);
      i.snap = u32(12);
      // Options: code, length, value padded to 4; if_tsresol (9): 10^-v, or 2^-v with the top
      // bit set.
      for (size_t o = 16; o + 4 <= body_end;) {
        const uint16_t code = u16(o), n = u16(o + 2);
        if (code == 0 || o + 4 + n > body_end) break;
        if (code == 9 && n >= 1) {
          const uint8_t r = block[o + 4];
          const int e = r & 0x7f;
          i.tick_s = (r & 0x80) ? std::ldexp(1.0, -e) : std::pow(10.0, -e);
        }
        o += 4 + (n + 3u) / 4 * 4;
      }
      interfaces.push_back(i);
      continue;
    }
    if (type != kEnhancedPacket && type != kSimplePacket && type != kObsoletePacket) continue;
    uint32_t iface = 0, captured = 0;
    uint64_t ticks = 0;
    size_t data_at = 0;
    if (type == kEnhancedPacket) {
      if (length < 32) return fail(block_at, "enhanced packet block shorter than 32 bytes");
      iface = u32(8);
      ticks = uint64_t{u32(12)} << 32 | u32(16);
      captured = u32(20);
      data_at = 28;
    } else if (type == kObsoletePacket) {
      if (length < 32) return fail(block_at, "packet block shorter than 32 bytes");
      iface = u16(8);
      ticks = uint64_t{u32(12)} << 32 | u32(16);
      captured = u32(20);
      data_at = 28;
    } else {  // simple: the original length, the frame up to the interface's snapshot length
      if (length < 16) return fail(block_at, "simple packet block shorter than 16 bytes");
      captured = u32(8);
      data_at = 12;
      if (!interfaces.empty() && interfaces[0].snap > 0)
        captured = std::min(captured, interfaces[0].snap);
      captured = std::min<uint32_t>(captured, static_cast<uint32_t>(body_end - data_at));
    }
    if (captured > body_end - data_at)
      return fail(block_at + data_at - 8, "captured length " + std::to_string(captured) +
                                              " does not fit its " + std::to_string(length) +
                                              "-byte block");
    if (iface >= interfaces.size())
      return fail(block_at + 8, "packet of interface " + std::to_string(iface) +
                                    ", which no interface description before it defines");
    ++stats.records;
    Interface& i = interfaces[iface];
    if (i.link != kLinkEthernet) {
      ++stats.non_ipv4;
      if (!i.warned)
        stats.Warn(file.string() + ": byte " + std::to_string(block_at) + ": interface " +
                   std::to_string(iface) + " has link type " + std::to_string(i.link) +
                   ", not Ethernet (1); its packets are skipped");
      i.warned = true;
      continue;
    }
    const double t = static_cast<double>(ticks) * i.tick_s;
    if (Status s = link.Take(&block[data_at], captured, t, block_at + data_at); !s.ok()) return s;
  }
  stats.bytes_read = size;
  link.Finish();
  if (stats.records == 0) return Error{file.string() + ": contains no packets (pcapng)"};
  return {};
}

}  // namespace lt
