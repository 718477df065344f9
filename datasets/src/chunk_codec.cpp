#include "chunk_codec.h"

#include <zlib.h>

#include <cstring>

namespace lt::hdf5 {

namespace {

// H5Zshuffle.c: byte j of value i goes to j * n + i. Written plane by plane, so the stores run
// contiguously.
template <size_t kSize>
void ShuffleFixed(const unsigned char* raw, size_t n, unsigned char* out) {
  for (size_t j = 0; j < kSize; ++j) {
    unsigned char* plane = out + j * n;
    for (size_t i = 0; i < n; ++i)
      plane[i] = raw[i * kSize + j];
  }
}

void Shuffle(const char* raw, size_t n, size_t size, char* out) {
  const auto* in = reinterpret_cast<const unsigned char*>(raw);
  auto* o = reinterpret_cast<unsigned char*>(out);
  switch (size) {
    case 1:
      std::memcpy(out, raw, n);
      return;
    case 2:
      return ShuffleFixed<2>(in, n, o);
    case 4:
      return ShuffleFixed<4>(in, n, o);
    case 8:
      return ShuffleFixed<8>(in, n, o);
    default:
      for (size_t j = 0; j < size; ++j)
        for (size_t i = 0; i < n; ++i)
          o[j * n + i] = in[i * size + j];
  }
}

}  // namespace

EncodedChunk EncodeChunk(const char* raw, uint64_t chunk_values, size_t value_bytes,
                         uint64_t index) {
  const size_t chunk_bytes = chunk_values * value_bytes;
  std::string shuffled(chunk_bytes, '\0');
  Shuffle(raw, chunk_values, value_bytes, shuffled.data());
  EncodedChunk chunk;
  chunk.index = index;
  chunk.bytes.resize(chunk_bytes);
  uLongf out_bytes = chunk_bytes;
  const int status =
      compress2(reinterpret_cast<Bytef*>(chunk.bytes.data()), &out_bytes,
                reinterpret_cast<const Bytef*>(shuffled.data()), chunk_bytes, kTableDeflateLevel);
  if (status == Z_OK) {
    chunk.bytes.resize(out_bytes);
  } else {  // grew (Z_BUF_ERROR): stored shuffled, deflate marked as skipped
    chunk.bytes = std::move(shuffled);
    chunk.filter_mask = 1u << 1;
  }
  return chunk;
}

}  // namespace lt::hdf5
