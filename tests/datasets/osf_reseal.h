// OSF files changed on purpose (tests and the fuzzer): every block's CRC made right again after
// its bytes were changed, so that a change reaches the flatbuffers and the field images rather
// than stopping at the CRC check. An OSF file's blocks lie one after another from byte 0:
// [u32 size][size bytes][u32 CRC-32 (zlib's) of both] (docs/formats/ouster-osf.md).
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace lt::test {

inline void ResealOsfBlocks(std::vector<uint8_t>& bytes) {
  for (size_t at = 0; at + 8 <= bytes.size();) {
    uint32_t size = 0;
    std::memcpy(&size, bytes.data() + at, 4);
    if (size > bytes.size() - at - 8) return;
    const auto crc = static_cast<uint32_t>(crc32(0, bytes.data() + at, 4 + size));
    std::memcpy(bytes.data() + at + 4 + size, &crc, 4);
    at += 8 + size_t{size};
  }
}

}  // namespace lt::test
