// A recording of a vendor's packets, from a capture or a bag, decoded with the calibration its
// sidecar names: what OpenRecording and a bag's recording share.
#pragma once

#include <filesystem>
#include <string>

#include "lidartwin/datasets/recording.h"

namespace lt {

enum class PacketFamily { kVelodyne, kHesai, kRobosense };

// `container` names the source in the reader's name ("pcap", "bag": "hesai-bag"). The sidecar
// must be the family's calibration (Velodyne .yaml, Hesai or RoboSense angle .csv); its errors
// name the file. A RoboSense recording without one takes its DIFOP packet's angles. `firetime`
// (empty: none) is a Hesai unit's fire-time file.
Expected<RecordingSource> OpenPacketRecording(PacketFamily family, PacketSource packets,
                                              const std::filesystem::path& sidecar,
                                              const std::filesystem::path& firetime,
                                              const std::string& container, Recording header);

// The error for a pcap given no sidecar whose packets do not carry their angles either (`why`:
// the RoboSense DIFOP search's error).
Error PcapWithoutSidecar(const std::filesystem::path& pcap, const std::string& why);

// The family a sidecar's extension and content name (.yaml Velodyne; .csv Hesai's three columns
// or RoboSense's two), or an error saying what it expected.
Expected<PacketFamily> PacketFamilyOfSidecar(const std::filesystem::path& sidecar);

}  // namespace lt
