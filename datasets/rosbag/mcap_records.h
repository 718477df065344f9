// MCAP's magic and record opcodes (mcap.dev/spec, "Magic" and "Records"), for its reader and
// writer.
#pragma once

#include <cstdint>

namespace lt::ros::mcap {

inline constexpr uint8_t kMagic[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

enum Op : uint8_t {
  kHeader = 0x01,
  kFooter = 0x02,
  kSchema = 0x03,
  kChannel = 0x04,
  kMessage = 0x05,
  kChunk = 0x06,
  kMessageIndex = 0x07,
  kChunkIndex = 0x08,
  kStatistics = 0x0B,
  kSummaryOffset = 0x0E,
  kDataEnd = 0x0F,
};

}  // namespace lt::ros::mcap
