// LZ4 frames (the LZ4 Frame Format specification) decompressed into a buffer of the size a
// container states, for MCAP's and ROS 1's lz4 chunks: one frame or several after one another
// (a frame's end leaves the context ready for the next), never writing past `size`.
#pragma once

#include <lz4frame.h>

#include <cstdint>
#include <span>
#include <string>

namespace lt::ros {

// The bytes produced (== size when the frames hold exactly that), or an LZ4 error's name in
// `error`.
inline size_t DecompressLz4Frames(std::span<const uint8_t> in, uint8_t* out, size_t size,
                                  std::string* error) {
  LZ4F_dctx* ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) {
    *error = "no LZ4 context";
    return 0;
  }
  size_t produced = 0, consumed = 0, hint = 0;
  while (consumed < in.size()) {
    size_t dst = size - produced, src = in.size() - consumed;
    hint = LZ4F_decompress(ctx, out + produced, &dst, in.data() + consumed, &src, nullptr);
    if (LZ4F_isError(hint)) {
      *error = LZ4F_getErrorName(hint);
      break;
    }
    produced += dst;
    consumed += src;
    if (dst == 0 && src == 0) break;  // no progress: the output is full or the input bad
  }
  LZ4F_freeDecompressionContext(ctx);
  if (error->empty() && hint != 0) *error = "the last frame is cut short";
  return produced;
}

}  // namespace lt::ros
