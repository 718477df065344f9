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

// A deflate stream and buffers kept by each thread: a chunk is up to 512 KiB, and allocating
// its buffers and zlib's state (about 270 KiB) afresh for every chunk made glibc map
// and unmap them, so page faults cost as much as the shuffle.
struct ThreadCodec {
  z_stream stream{};
  bool ready = false;
  std::string shuffled, out;
  ThreadCodec() { ready = deflateInit(&stream, kTableDeflateLevel) == Z_OK; }
  ~ThreadCodec() {
    if (ready) deflateEnd(&stream);
  }
  ThreadCodec(const ThreadCodec&) = delete;
  ThreadCodec& operator=(const ThreadCodec&) = delete;
};

}  // namespace

EncodedChunk EncodeChunk(const char* raw, uint64_t chunk_values, size_t value_bytes,
                         uint64_t index) {
  thread_local ThreadCodec codec;
  const size_t chunk_bytes = chunk_values * value_bytes;
  codec.shuffled.resize(chunk_bytes);
  Shuffle(raw, chunk_values, value_bytes, codec.shuffled.data());
  EncodedChunk chunk;
  chunk.index = index;
  // compress2 at the same level into a buffer of the chunk's raw size, as H5Zdeflate.c does:
  // deflateInit(level) with zlib's defaults is what compress2 runs, so the bytes are the same.
  codec.out.resize(chunk_bytes);
  bool fits = false;
  if (codec.ready && deflateReset(&codec.stream) == Z_OK) {
    codec.stream.next_in = reinterpret_cast<Bytef*>(codec.shuffled.data());
    codec.stream.avail_in = static_cast<uInt>(chunk_bytes);
    codec.stream.next_out = reinterpret_cast<Bytef*>(codec.out.data());
    codec.stream.avail_out = static_cast<uInt>(chunk_bytes);
    fits = deflate(&codec.stream, Z_FINISH) == Z_STREAM_END;
  }
  if (fits) {
    chunk.bytes.assign(codec.out.data(), codec.stream.total_out);
  } else {  // grew (or no zlib state): stored shuffled, deflate marked as skipped
    chunk.bytes = codec.shuffled;
    chunk.filter_mask = 1u << 1;
  }
  return chunk;
}

}  // namespace lt::hdf5
