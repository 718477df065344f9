#include "chunk_codec.h"

#include "deflate_blocks.h"

#include <libdeflate.h>

#include <algorithm>
#include <array>
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

// A compressor and buffers kept by each thread: a chunk is up to 512 KiB, and allocating its
// buffers afresh for every chunk made glibc map and unmap them, so that page faults cost as much
// as the shuffle.
struct ThreadCodec {
  libdeflate_compressor* compressor = libdeflate_alloc_compressor(kTableDeflateLevel);
  std::string shuffled, out;
  ThreadCodec() = default;
  ~ThreadCodec() { libdeflate_free_compressor(compressor); }
  ThreadCodec(const ThreadCodec&) = delete;
  ThreadCodec& operator=(const ThreadCodec&) = delete;
};

// What deflate would make of a byte plane, from every 16th byte: the bits a byte would need by
// its histogram, the smaller of the bytes' and of their differences' (sequences such as a beam
// index's low byte look random by value but not by difference, and deflate finds their
// repeats), and the share of bytes equal to the byte before.
struct PlaneLook {
  double bits_per_byte = 0;
  double repeats = 1;
};

PlaneLook LookAtPlane(const unsigned char* plane, size_t n) {
  constexpr size_t kStride = 16;
  uint32_t values[256] = {}, steps[256] = {};
  size_t samples = 0;
  for (size_t i = kStride; i < n; i += kStride, ++samples) {
    ++values[plane[i]];
    ++steps[static_cast<unsigned char>(plane[i] - plane[i - 1])];
  }
  if (samples == 0) return {};
  auto entropy = [samples](const uint32_t* counts) {
    double h = 0;
    for (int v = 0; v < 256; ++v) {
      if (counts[v] == 0) continue;
      const double p = static_cast<double>(counts[v]) / static_cast<double>(samples);
      h -= p * std::log2(p);
    }
    return h;
  };
  return {std::min(entropy(values), entropy(steps)),
          static_cast<double>(steps[0]) / static_cast<double>(samples)};
}

enum class PlaneCoding { kStored, kRuns, kSearched };

PlaneCoding CodingOf(const PlaneLook& look) {
  if (look.bits_per_byte > kStoredBitsPerByte) return PlaneCoding::kStored;
  if (look.repeats >= kRunsRepeatShare) return PlaneCoding::kRuns;
  return PlaneCoding::kSearched;
}

}  // namespace

EncodedChunk EncodeChunk(const char* raw, uint64_t chunk_values, size_t value_bytes,
                         uint64_t index) {
  thread_local ThreadCodec codec;
  const size_t chunk_bytes = chunk_values * value_bytes;
  codec.shuffled.resize(chunk_bytes);
  Shuffle(raw, chunk_values, value_bytes, codec.shuffled.data());
  const auto* shuffled = reinterpret_cast<const unsigned char*>(codec.shuffled.data());
  EncodedChunk chunk;
  chunk.index = index;
  // One zlib stream (RFC 1950: what libhdf5's deflate filter reads) into a buffer of the chunk's
  // raw size, as H5Zdeflate.c does, a byte plane at a time (ADR 0021): planes that look random
  // (a float's low mantissa bytes: deflate would gain under 10 % on them, slowly) go into stored
  // blocks, planes that mostly repeat their byte before (labels, exponents) into runs written
  // directly (deflate_blocks.h), and from the first plane that needs a search for matches on,
  // the rest is deflated in one call of libdeflate, which continues the stream on a byte
  // boundary and ends it.
  std::array<PlaneCoding, 8> codings{};  // values of more than 8 bytes: all searched
  size_t searched_from = value_bytes > codings.size() ? 0 : value_bytes;
  for (size_t p = 0; p < searched_from; ++p) {
    codings[p] = CodingOf(LookAtPlane(shuffled + p * chunk_values, chunk_values));
    if (codings[p] == PlaneCoding::kSearched) searched_from = p;
  }
  constexpr size_t kHeader = 2, kTrailer = 4;  // RFC 1950: CMF and FLG; Adler-32
  codec.out.resize(chunk_bytes);
  size_t total = 0;
  if (codec.compressor && chunk_bytes > kHeader + kTrailer) {
    char* out = codec.out.data();
    // CMF 0x78: deflate with a 32 KiB window; FLG 0x01: the fastest level, no dictionary, and
    // (CMF 256 + FLG) a multiple of 31 (0x7801 = 31 * 991).
    out[0] = 0x78;
    out[1] = 0x01;
    const size_t room = chunk_bytes - kHeader - kTrailer;
    DeflateWriter blocks(out + kHeader, room);
    for (size_t p = 0; p < searched_from && !blocks.overflowed(); ++p) {
      const unsigned char* plane = shuffled + p * chunk_values;
      if (codings[p] == PlaneCoding::kStored) {
        blocks.Stored(plane, chunk_values);
      } else {
        blocks.Runs(plane, chunk_values);
      }
    }
    size_t searched = 0;
    bool fits = true;
    if (searched_from < value_bytes) {
      blocks.Align();
      const size_t left = blocks.overflowed() ? 0 : room - blocks.size();
      searched = left == 0 ? 0
                           : libdeflate_deflate_compress(codec.compressor,
                                                         shuffled + searched_from * chunk_values,
                                                         chunk_bytes - searched_from * chunk_values,
                                                         out + kHeader + blocks.size(), left);
      fits = searched > 0;  // 0: it would not fit in the room left
    } else {
      blocks.Finish();
    }
    if (fits && !blocks.overflowed()) {
      char* trailer = out + kHeader + blocks.size() + searched;
      const uint32_t adler = libdeflate_adler32(1, shuffled, chunk_bytes);
      for (int shift = 24; shift >= 0; shift -= 8)  // big-endian
        *trailer++ = static_cast<char>((adler >> shift) & 0xff);
      total = static_cast<size_t>(trailer - out);
    }
  }
  if (total > 0) {
    chunk.bytes.assign(codec.out.data(), total);
  } else {  // grew (or no compressor): stored shuffled, deflate marked as skipped
    chunk.bytes = codec.shuffled;
    chunk.filter_mask = 1u << 1;
  }
  return chunk;
}

}  // namespace lt::hdf5
