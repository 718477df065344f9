// Fixed-width integers from a packet's or a file's bytes, whatever the host's byte order and
// the bytes' alignment: the one place the decoders read them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lt::bytes {

// A little-endian T at p.
template <typename T>
T Le(const uint8_t* p) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    v |= static_cast<T>(static_cast<T>(p[i]) << (8 * i));
  return v;
}

// A big-endian unsigned integer of n bytes (1..8) at p.
inline uint64_t Be(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i)
    v = v << 8 | p[i];
  return v;
}

inline uint16_t Be16(const uint8_t* p) {
  return static_cast<uint16_t>(Be(p, 2));
}

// A 32-bit value's bytes reversed (a capture written on a host of the other byte order).
inline uint32_t Swap32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}

// A byte as two lowercase hex digits ("1f"), for messages that quote bytes.
inline std::string HexByte(uint8_t b) {
  const char* digits = "0123456789abcdef";
  return {digits[b >> 4], digits[b & 15]};
}

}  // namespace lt::bytes
