// A bounds-checked reader of CDR, the encoding of ROS 2 messages (OMG DDS-XTypes 1.3, sec.
// 7.4.3 "Extended CDR encoding version 1"; ROS 2 uses plain CDR, encapsulation kinds CDR_BE
// 0x0000 and CDR_LE 0x0001). A message is a 4-byte encapsulation header (2 bytes of kind, 2
// of options) and then the fields in declaration order, each primitive aligned to its own size
// counted from the byte after the header; strings are a uint32 length that counts the
// terminating NUL, the bytes and the NUL; sequences a uint32 count and the elements; fixed
// arrays the elements alone.
//
// ROS 1's encoding is read by the same class (CdrReader::Ros1). The first failure sticks (the
// reads after it return zeros): a message is read field by field
// and checked once, and the error names the byte where the message stopped making sense.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "capture/bytes.h"
#include "lidartwin/base/status.h"

namespace lt::ros {

class CdrReader {
 public:
  // ROS 1's serialization (wiki.ros.org/msg "Serialization"): little-endian, no header, no
  // alignment, strings without their NUL.
  static CdrReader Ros1(std::span<const uint8_t> message) {
    CdrReader r(message, true);
    return r;
  }

  explicit CdrReader(std::span<const uint8_t> message) : data_(message) {
    if (data_.size() < 4) {
      Fail(0, "shorter than the 4-byte CDR encapsulation header");
    } else if (data_[0] != 0 || data_[1] > 1) {
      Fail(0, "encapsulation kind 0x" + bytes::HexByte(data_[0]) + bytes::HexByte(data_[1]) +
                  " is not plain CDR (0x0000 big-endian, 0x0001 little-endian)");
    } else {
      little_ = data_[1] == 1;
      at_ = 4;
    }
  }

  bool ok() const { return error_.empty(); }
  // "byte N: what" for the first failure.
  const std::string& error() const { return error_; }
  size_t offset() const { return at_; }
  size_t remaining() const { return ok() ? data_.size() - at_ : 0; }

  uint8_t U8() { return Primitive<uint8_t>(); }
  uint16_t U16() { return Primitive<uint16_t>(); }
  uint32_t U32() { return Primitive<uint32_t>(); }
  int32_t I32() { return Primitive<int32_t>(); }
  uint64_t U64() { return Primitive<uint64_t>(); }
  float F32() { return Primitive<float>(); }
  double F64() { return Primitive<double>(); }
  bool Bool() { return U8() != 0; }

  std::string String() {
    Align(4);
    const size_t at = at_;
    const uint32_t n = U32();
    if (!ok()) return {};
    if (ros1_) {
      const auto b = Bytes(n);
      return {reinterpret_cast<const char*>(b.data()), b.size()};
    }
    if (n == 0) return {};  // some writers send 0 for the empty string
    if (n > remaining()) {
      Fail(at, "string of " + std::to_string(n) + " bytes, only " + std::to_string(remaining()) +
                   " left in the message");
      return {};
    }
    std::string s(reinterpret_cast<const char*>(&data_[at_]), n - 1);
    at_ += n;
    return s;
  }

  // `n` raw bytes (a fixed uint8 array, or a sequence's elements once its count is read).
  std::span<const uint8_t> Bytes(size_t n) {
    if (!ok()) return {};
    if (n > remaining()) {
      Fail(at_, "needs " + std::to_string(n) + " bytes, only " + std::to_string(remaining()) +
                    " left in the message");
      return {};
    }
    const auto out = data_.subspan(at_, n);
    at_ += n;
    return out;
  }

  // A sequence's count, refused when its elements (at least `element_bytes` each) cannot fit
  // in what is left: a count that lies never sizes an allocation.
  uint32_t Count(size_t element_bytes) {
    Align(4);
    const size_t at = at_;
    const uint32_t n = U32();
    if (ok() && element_bytes > 0 && n > remaining() / element_bytes) {
      Fail(at, "a sequence of " + std::to_string(n) + " elements of " +
                   std::to_string(element_bytes) + " bytes cannot fit in the " +
                   std::to_string(remaining()) + " bytes left");
      return 0;
    }
    return ok() ? n : 0;
  }

  void Align(size_t size) {
    if (!ok() || ros1_) return;
    const size_t body = at_ - 4;
    const size_t padded = (body + size - 1) / size * size + 4;
    if (padded > data_.size()) {
      Fail(at_, "ends inside the padding before a " + std::to_string(size) + "-byte field");
      return;
    }
    at_ = padded;
  }

  void Fail(size_t at, const std::string& what) {
    if (ok()) error_ = "byte " + std::to_string(at) + ": " + what;
  }

 private:
  template <typename T>
  T Primitive() {
    Align(sizeof(T));
    if (!ok()) return T{};
    if (sizeof(T) > data_.size() - at_) {
      Fail(at_, "needs " + std::to_string(sizeof(T)) + " bytes, only " +
                    std::to_string(data_.size() - at_) + " left in the message");
      return T{};
    }
    uint8_t bytes[sizeof(T)];
    std::memcpy(bytes, &data_[at_], sizeof(T));
    if (little_ != (std::endian::native == std::endian::little)) {
      for (size_t i = 0; i < sizeof(T) / 2; ++i)
        std::swap(bytes[i], bytes[sizeof(T) - 1 - i]);
    }
    at_ += sizeof(T);
    T v;
    std::memcpy(&v, bytes, sizeof(T));
    return v;
  }

  CdrReader(std::span<const uint8_t> message, bool ros1) : data_(message), ros1_(ros1) {}

  std::span<const uint8_t> data_;
  size_t at_ = 0;
  bool little_ = true;
  bool ros1_ = false;
  std::string error_;
};

}  // namespace lt::ros
