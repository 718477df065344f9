#include "deflate_blocks.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace lt::hdf5 {

namespace {

// RFC 1951 sec. 3.2.6: the fixed literal/length code of each symbol 0..287, its bits reversed
// (Huffman codes are packed from their most significant bit, the stream from the least).
struct FixedCode {
  uint16_t bits;
  uint8_t length;
};

constexpr uint16_t Reversed(uint32_t code, int length) {
  uint32_t r = 0;
  for (int i = 0; i < length; ++i)
    r |= ((code >> i) & 1u) << (length - 1 - i);
  return static_cast<uint16_t>(r);
}

constexpr std::array<FixedCode, 288> MakeFixedCodes() {
  std::array<FixedCode, 288> t{};
  for (uint32_t s = 0; s < 288; ++s) {
    uint32_t code = 0;
    int length = 0;
    if (s < 144) {
      code = 0x30 + s, length = 8;
    } else if (s < 256) {
      code = 0x190 + (s - 144), length = 9;
    } else if (s < 280) {
      code = s - 256, length = 7;
    } else {
      code = 0xC0 + (s - 280), length = 8;
    }
    t[s] = {Reversed(code, length), static_cast<uint8_t>(length)};
  }
  return t;
}
constexpr std::array<FixedCode, 288> kFixedCodes = MakeFixedCodes();

// Sec. 3.2.5: length codes 257..285, each a base length and extra bits. 258 has its own code
// (285), although 284's range would reach it.
constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};

struct LengthCode {
  uint16_t symbol;
  uint8_t extra_bits;
  uint8_t extra;
};

constexpr std::array<LengthCode, 259> MakeLengthCodes() {
  std::array<LengthCode, 259> t{};
  for (uint32_t length = 3; length <= 258; ++length) {
    int i = 28;
    while (kLengthBase[i] > length)
      --i;
    t[length] = {static_cast<uint16_t>(257 + i), kLengthExtra[i],
                 static_cast<uint8_t>(length - kLengthBase[i])};
  }
  return t;
}
constexpr std::array<LengthCode, 259> kLengthCodes = MakeLengthCodes();

constexpr uint32_t kEndOfBlock = 256;
constexpr size_t kMaxStored = 65535;  // sec. 3.2.4: LEN is 16 bits
constexpr size_t kMaxMatch = 258;

// How many of bytes[0, n) equal b, 8 at a time.
size_t RunOf(const unsigned char* bytes, size_t n, unsigned char b) {
  const uint64_t pattern = 0x0101010101010101ull * b;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes + i, 8);
    const uint64_t differ = word ^ pattern;
    if (differ != 0) return i + static_cast<size_t>(__builtin_ctzll(differ)) / 8;  // little-endian
  }
  while (i < n && bytes[i] == b)
    ++i;
  return i;
}

}  // namespace

void DeflateWriter::Byte(unsigned char b) {
  if (size_ >= capacity_) {
    overflowed_ = true;
    return;
  }
  out_[size_++] = static_cast<char>(b);
}

void DeflateWriter::Put(uint32_t value, int bits) {
  bits_ |= static_cast<uint64_t>(value) << pending_;
  pending_ += bits;
  while (pending_ >= 8) {
    Byte(static_cast<unsigned char>(bits_ & 0xff));
    bits_ >>= 8;
    pending_ -= 8;
  }
}

void DeflateWriter::PadToByte() {
  if (pending_ > 0) Put(0, 8 - pending_);
}

void DeflateWriter::Symbol(uint32_t symbol) {
  Put(kFixedCodes[symbol].bits, kFixedCodes[symbol].length);
}

void DeflateWriter::Match(uint32_t length) {
  const LengthCode& c = kLengthCodes[length];
  Symbol(c.symbol);
  if (c.extra_bits > 0) Put(c.extra, c.extra_bits);
  Put(0, 5);  // distance 1: distance code 0, five bits, no extra bits
}

void DeflateWriter::EndBlock() {
  if (!open_) return;
  Symbol(kEndOfBlock);
  open_ = false;
}

void DeflateWriter::Stored(const unsigned char* bytes, size_t n) {
  EndBlock();
  for (size_t at = 0; at < n && !overflowed_; at += kMaxStored) {
    const auto len = static_cast<uint16_t>(std::min(kMaxStored, n - at));
    Put(0, 3);  // BFINAL 0, BTYPE 00
    PadToByte();
    const auto inverse = static_cast<uint16_t>(~len);
    Byte(static_cast<unsigned char>(len & 0xff));
    Byte(static_cast<unsigned char>(len >> 8));
    Byte(static_cast<unsigned char>(inverse & 0xff));
    Byte(static_cast<unsigned char>(inverse >> 8));
    if (size_ + len > capacity_) {
      overflowed_ = true;
      return;
    }
    std::memcpy(out_ + size_, bytes + at, len);
    size_ += len;
  }
}

void DeflateWriter::Runs(const unsigned char* bytes, size_t n) {
  if (n == 0) return;
  if (!open_) {
    Put(0, 1);  // BFINAL 0
    Put(1, 2);  // BTYPE 01: fixed Huffman codes
    open_ = true;
  }
  Symbol(bytes[0]);
  for (size_t i = 1; i < n && !overflowed_;) {
    const size_t run = RunOf(bytes + i, std::min(kMaxMatch, n - i), bytes[i - 1]);
    if (run >= 3) {
      Match(static_cast<uint32_t>(run));
      i += run;
    } else {
      Symbol(bytes[i]);
      ++i;
    }
  }
}

void DeflateWriter::Align() {
  EndBlock();
  if (pending_ == 0) return;  // the last block ended on a byte boundary
  // An empty stored block: its header and padding, LEN 0 and NLEN 0xffff.
  Put(0, 3);
  PadToByte();
  Byte(0);
  Byte(0);
  Byte(0xff);
  Byte(0xff);
}

void DeflateWriter::Finish() {
  EndBlock();
  Put(1, 1);  // BFINAL 1
  Put(1, 2);  // BTYPE 01
  Symbol(kEndOfBlock);
  PadToByte();
}

}  // namespace lt::hdf5
