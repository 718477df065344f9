#include "chunk_codec.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
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
  int level = kTableDeflateLevel;  // the level the last chunk's stream ended at
  std::string shuffled, out;
  ThreadCodec() { ready = deflateInit(&stream, kTableDeflateLevel) == Z_OK; }
  ~ThreadCodec() {
    if (ready) deflateEnd(&stream);
  }
  ThreadCodec(const ThreadCodec&) = delete;
  ThreadCodec& operator=(const ThreadCodec&) = delete;
  // A stream for the next chunk, at kTableDeflateLevel: reset when the last ended there, made
  // afresh when it ended on a stored plane (deflateReset keeps the level; a deflateParams after
  // it flushes into the last chunk's buffer in zlib 1.2.9 to 1.2.11). The same bytes either way.
  bool Start() {
    if (ready && level == kTableDeflateLevel) return deflateReset(&stream) == Z_OK;
    if (ready) deflateEnd(&stream);
    stream = z_stream{};
    ready = deflateInit(&stream, kTableDeflateLevel) == Z_OK;
    level = kTableDeflateLevel;
    return ready;
  }
};

// Bits a byte of a plane would need by its histogram, the smaller of the bytes' and of their
// differences' (sequences such as a beam index's low byte look random by value but not by
// difference, and deflate finds their repeats), from every 16th byte.
double PlaneBitsPerByte(const unsigned char* plane, size_t n) {
  constexpr size_t kStride = 16;
  uint32_t values[256] = {}, steps[256] = {};
  size_t samples = 0;
  for (size_t i = kStride; i < n; i += kStride, ++samples) {
    ++values[plane[i]];
    ++steps[static_cast<unsigned char>(plane[i] - plane[i - 1])];
  }
  if (samples == 0) return 0;
  auto entropy = [samples](const uint32_t* counts) {
    double h = 0;
    for (int v = 0; v < 256; ++v) {
      if (counts[v] == 0) continue;
      const double p = static_cast<double>(counts[v]) / static_cast<double>(samples);
      h -= p * std::log2(p);
    }
    return h;
  };
  return std::min(entropy(values), entropy(steps));
}

}  // namespace

EncodedChunk EncodeChunk(const char* raw, uint64_t chunk_values, size_t value_bytes,
                         uint64_t index) {
  thread_local ThreadCodec codec;
  const size_t chunk_bytes = chunk_values * value_bytes;
  codec.shuffled.resize(chunk_bytes);
  Shuffle(raw, chunk_values, value_bytes, codec.shuffled.data());
  EncodedChunk chunk;
  chunk.index = index;
  // One zlib stream (what libhdf5's deflate filter reads) into a buffer of the chunk's raw size,
  // as H5Zdeflate.c does, a byte plane at a time: planes that look random (a float's low
  // mantissa bytes: deflate would gain under 10 % on them, slowly) go into stored blocks
  // (level 0), the others are deflated at kTableDeflateLevel.
  codec.out.resize(chunk_bytes);
  // Every chunk starts at kTableDeflateLevel, so its bytes do not depend on what this thread
  // encoded before.
  bool fits = codec.Start();
  z_stream& z = codec.stream;
  z.next_out = reinterpret_cast<Bytef*>(codec.out.data());
  z.avail_out = static_cast<uInt>(chunk_bytes);
  int level = kTableDeflateLevel;
  for (size_t plane = 0; fits && plane < value_bytes; ++plane) {
    auto* bytes = reinterpret_cast<Bytef*>(codec.shuffled.data()) + plane * chunk_values;
    const int want =
        PlaneBitsPerByte(bytes, chunk_values) > kStoredBitsPerByte ? 0 : kTableDeflateLevel;
    if (want != level) {
      fits = deflateParams(&z, want, Z_DEFAULT_STRATEGY) == Z_OK;
      level = want;
      codec.level = want;
    }
    z.next_in = bytes;
    z.avail_in = static_cast<uInt>(chunk_values);
    const bool last = plane + 1 == value_bytes;
    const int status = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
    fits = fits && (last ? status == Z_STREAM_END : status == Z_OK && z.avail_in == 0);
  }
  if (fits) {
    chunk.bytes.assign(codec.out.data(), z.total_out);
  } else {  // grew (or no zlib state): stored shuffled, deflate marked as skipped
    chunk.bytes = codec.shuffled;
    chunk.filter_mask = 1u << 1;
  }
  return chunk;
}

}  // namespace lt::hdf5
