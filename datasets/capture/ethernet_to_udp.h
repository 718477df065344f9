// Captured Ethernet II frames to UDP datagrams, for the pcap and pcapng readers: 802.1Q VLAN
// tags, IPv4 (RFC 791) with bounded fragment reassembly, UDP (RFC 768). What it passes over
// (other EtherTypes, other protocols, malformed headers) is counted in the stats.
#pragma once

#include <filesystem>
#include <map>
#include <tuple>
#include <vector>

#include "lidartwin/datasets/pcap.h"

namespace lt {

class EthernetToUdp {
 public:
  EthernetToUdp(const std::filesystem::path& file, const UdpSink& sink, CaptureStats& stats)
      : file_(file), sink_(sink), stats_(stats) {}
  // One captured frame of `n` bytes at byte `at` of the file, captured at `time_s`; the
  // record is already counted (stats.records).
  Status Take(const uint8_t* p, size_t n, double time_s, uint64_t at);
  // Datagrams whose fragments never all arrived are counted.
  void Finish() { stats_.stale_fragments += partial_.size(); }

 private:
  struct Fragments {
    std::map<uint32_t, std::vector<uint8_t>> pieces;  // by byte offset
    uint32_t total = 0;                               // known once the last piece arrived
    double time_s = 0;
    uint64_t offset = 0;
    uint64_t last_record = 0;  // record number of the latest piece
  };
  using FragmentKey = std::tuple<uint32_t, uint32_t, uint16_t>;  // source, destination, id

  void Skip(uint64_t at, const std::string& what);
  Status Emit(const uint8_t* udp, size_t n, double t, uint64_t at);

  const std::filesystem::path& file_;
  const UdpSink& sink_;
  CaptureStats& stats_;
  UdpDatagram d_;  // reused: its payload keeps its capacity
  std::map<FragmentKey, Fragments> partial_;
};

}  // namespace lt
