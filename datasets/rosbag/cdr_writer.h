// CDR as ROS 2 writes it (cdr_reader.h has the rules): little-endian (encapsulation 0x0001),
// each primitive aligned to its size from the byte after the 4-byte header.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace lt::ros {

// The bytes are copied as the host holds them.
static_assert(std::endian::native == std::endian::little, "CdrWriter writes CDR_LE");

class CdrWriter {
 public:
  CdrWriter() : bytes_{0x00, 0x01, 0x00, 0x00} {}

  void U8(uint8_t v) { Primitive(v); }
  void U16(uint16_t v) { Primitive(v); }
  void U32(uint32_t v) { Primitive(v); }
  void I32(int32_t v) { Primitive(v); }
  void F64(double v) { Primitive(v); }
  void Bool(bool v) { U8(v ? 1 : 0); }
  void String(const std::string& s) {  // the length counts the NUL
    U32(static_cast<uint32_t>(s.size() + 1));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    bytes_.push_back(0);
  }
  void Bytes(std::span<const uint8_t> b) { bytes_.insert(bytes_.end(), b.begin(), b.end()); }
  void Align(size_t size) {
    while ((bytes_.size() - 4) % size != 0)
      bytes_.push_back(0);
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  template <typename T>
  void Primitive(T v) {
    Align(sizeof(T));
    uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    bytes_.insert(bytes_.end(), b, b + sizeof(T));
  }
  std::vector<uint8_t> bytes_;
};

}  // namespace lt::ros
