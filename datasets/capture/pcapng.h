// pcapng capture files (IETF draft-ietf-opsawg-pcapng, "PCAP Next Generation Dump File
// Format"): Wireshark's and tcpdump's default. Sections of blocks: the Section Header sets the
// byte order, Interface Descriptions give each interface's link type and timestamp resolution,
// Enhanced, Simple and (obsolete) Packet Blocks hold the frames; every other block is passed
// over.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "lidartwin/datasets/pcap.h"

namespace lt {

inline constexpr uint32_t kPcapngSectionHeader = 0x0A0D0D0A;

// The UDP datagrams of a pcapng file (`in` open on it, `size` its bytes), as
// ForEachUdpDatagram gives a classic pcap's.
Status ForEachPcapngDatagram(const std::filesystem::path& file, std::ifstream& in, uint64_t size,
                             const UdpSink& sink, CaptureStats& stats);

}  // namespace lt
