// The blocks of an OSF file (docs/formats/ouster-osf.md): [u32 size][a flatbuffer of that many
// bytes][u32 CRC-32 (zlib's) of the size and the flatbuffer], the header at byte 0, the chunks
// after it up to the metadata, the metadata last.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt::osf {

// A block read whole: `bytes` holds its size prefix and flatbuffer (the CRC checked and
// dropped), `next` the offset after it.
struct Block {
  uint64_t offset = 0;
  std::vector<uint8_t> bytes;
  uint64_t next = 0;
};

// Reads the block at `offset`, which must end by `end` and hold at most `max_bytes`. `what`
// names it in messages ("the header", "chunk"). A size that cannot be is an error whose text
// says so; `crc_failed` (when given) is set instead of failing where only the CRC is wrong, so
// that a walker can skip the block.
Expected<Block> ReadBlock(std::ifstream& in, const std::filesystem::path& file, uint64_t offset,
                          uint64_t end, uint64_t max_bytes, const std::string& what,
                          bool* crc_failed = nullptr);

// Verifies a size-prefixed flatbuffer of table T (with its identifier where given) held by
// `data`; on failure an error naming `where`.
template <typename T>
Status VerifySizePrefixed(const uint8_t* data, size_t size, const char* identifier,
                          const std::string& where) {
  // Depth and table counts bound the verifier's work on a crafted buffer.
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/16, /*max_tables=*/1'000'000);
  if (!verifier.template VerifySizePrefixedBuffer<T>(identifier)) {
    return Error{where + ": its flatbuffer does not verify (cut, corrupt or not this format" +
                 std::string(identifier ? std::string(" '") + identifier + "'" : "") + ")"};
  }
  return {};
}

}  // namespace lt::osf
