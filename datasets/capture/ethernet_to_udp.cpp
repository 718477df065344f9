#include "capture/ethernet_to_udp.h"
#include "capture/bytes.h"

#include <cstring>

namespace lt {
namespace {

using bytes::Be16;

// Incomplete IPv4 datagrams kept for reassembly: at most this many, each for at most this
// many records after its latest fragment; older ones are dropped and counted (a lost
// fragment must not hold memory for the rest of a long capture).
constexpr size_t kMaxPendingDatagrams = 64;
constexpr uint64_t kFragmentLifetimeRecords = 1000;
constexpr size_t kMaxIpv4Datagram = 65535;

}  // namespace

// A malformed record is skipped, counted and (the first few) named.
void EthernetToUdp::Skip(uint64_t at, const std::string& what) {
  ++stats_.malformed;
  stats_.Warn(file_.string() + ": byte " + std::to_string(at) + ": " + what + "; record skipped");
}

Status EthernetToUdp::Emit(const uint8_t* udp, size_t n, double t, uint64_t at) {
  if (n < 8) {
    Skip(at, "truncated UDP header");
    return {};
  }
  const uint16_t len = Be16(udp + 4);
  if (len < 8 || len > n) {
    Skip(at, "UDP length " + std::to_string(len) + " does not fit the " + std::to_string(n) +
                 "-byte datagram");
    return {};
  }
  d_.capture_time_s = t;
  d_.src_port = Be16(udp);
  d_.dst_port = Be16(udp + 2);
  d_.file_offset = at + 8;
  d_.payload.assign(udp + 8, udp + len);
  ++stats_.udp_datagrams;
  return sink_(d_);
}

Status EthernetToUdp::Take(const uint8_t* p, size_t incl, double t, uint64_t frame_at) {
  size_t eth = 14;
  if (incl < eth) {
    Skip(frame_at, "truncated Ethernet header");
    return {};
  }
  uint16_t type = Be16(p + 12);
  while (type == 0x8100 && incl >= eth + 4) {  // 802.1Q VLAN tags
    type = Be16(p + eth + 2);
    eth += 4;
  }
  if (type != 0x0800) {  // not IPv4
    ++stats_.non_ipv4;
    return {};
  }
  if (incl < eth + 20) {
    Skip(frame_at + eth, "truncated IPv4 header");
    return {};
  }
  const uint8_t* ip = p + eth;
  const size_t ihl = (ip[0] & 0x0f) * 4u;
  const size_t ip_len = Be16(ip + 2);
  if ((ip[0] >> 4) != 4 || ihl < 20 || ip_len < ihl || eth + ip_len > incl) {
    Skip(frame_at + eth, "malformed or truncated IPv4 header");
    return {};
  }
  if (ip[9] != 17) {  // not UDP
    ++stats_.non_udp;
    return {};
  }
  const uint16_t flags = Be16(ip + 6);
  const bool more = flags & 0x2000;
  const uint32_t frag_at = (flags & 0x1fff) * 8u;
  const uint8_t* data = ip + ihl;
  const size_t n = ip_len - ihl;
  if (!more && frag_at == 0) {
    return Emit(data, n, t, frame_at + eth + ihl);
  }
  // A fragment: keep it until the datagram is whole (RFC 791 reassembly by source,
  // destination and identification), within the bounds above.
  for (auto it = partial_.begin(); it != partial_.end();) {
    if (stats_.records - it->second.last_record > kFragmentLifetimeRecords) {
      ++stats_.stale_fragments;
      it = partial_.erase(it);
    } else {
      ++it;
    }
  }
  if (frag_at + n > kMaxIpv4Datagram) {
    Skip(frame_at + eth, "IPv4 fragment beyond the 65535 bytes of a datagram");
    return {};
  }
  uint32_t src, dst;
  std::memcpy(&src, ip + 12, 4);
  std::memcpy(&dst, ip + 16, 4);
  const FragmentKey key{src, dst, Be16(ip + 4)};
  if (!partial_.count(key) && partial_.size() >= kMaxPendingDatagrams) {
    auto oldest = partial_.begin();
    for (auto it = partial_.begin(); it != partial_.end(); ++it) {
      if (it->second.last_record < oldest->second.last_record) oldest = it;
    }
    ++stats_.stale_fragments;
    partial_.erase(oldest);
  }
  Fragments& f = partial_[key];
  f.last_record = stats_.records;
  if (frag_at == 0) {
    f.time_s = t;
    f.offset = frame_at + eth + ihl;
  }
  f.pieces[frag_at].assign(data, data + n);
  if (!more) f.total = frag_at + static_cast<uint32_t>(n);
  if (f.total == 0) return {};
  std::vector<uint8_t> whole;
  for (const auto& [off, piece] : f.pieces) {
    if (off != whole.size()) break;
    whole.insert(whole.end(), piece.begin(), piece.end());
  }
  if (whole.size() != f.total) return {};
  const double time_s = f.time_s;
  const uint64_t offset = f.offset;
  partial_.erase(key);
  return Emit(whole.data(), whole.size(), time_s, offset);
}

}  // namespace lt
