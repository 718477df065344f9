// What encoding a frames file's table chunks costs (shuffle and deflate, chunk_codec), as
// export's pool threads do it, measured on one thread: `lidartwin bench --export` prints it
// beside the end-to-end figures (issue 16; ADR 0021).
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"

namespace lt {

struct EncodingFigures {
  uint32_t frames = 0;
  uint64_t chunks = 0;         // complete chunks encoded (the last, partial ones are not)
  uint64_t raw_bytes = 0;      // their values
  uint64_t encoded_bytes = 0;  // what the file stores for them
  double seconds = 0;          // encoding them, one thread, planning excluded
};

// The frames planned into chunks in order, as a shard's file would hold them, and every chunk
// they complete encoded on this thread.
Expected<EncodingFigures> MeasureEncoding(const std::vector<Frame>& frames);

}  // namespace lt
