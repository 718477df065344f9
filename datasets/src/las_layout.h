// What the LAS writer and reader share (ASPRS LAS Specification 1.4 R15): the sizes of the
// header block, the VLR header, the Extra Bytes descriptor and the format 6 record, and which
// frame fields travel as extra bytes, with their LAS data types (table 25).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "lidartwin/sim/frame.h"

namespace lt::las {

inline constexpr size_t kHeaderBytes = 375;
inline constexpr size_t kVlrHeaderBytes = 54;
inline constexpr size_t kExtraBytesDescriptor = 192;
inline constexpr size_t kFormat6Bytes = 30;
inline constexpr size_t kFormat7Bytes = 36;  // format 6 and red, green, blue
inline constexpr uint16_t kWktBit = 1u << 4;

inline size_t FieldBytes(FieldType t) {
  switch (t) {
    case FieldType::kFloat32:
    case FieldType::kUInt32:
      return 4;
    case FieldType::kFloat64:
      return 8;
    case FieldType::kUInt8:
      return 1;
    case FieldType::kUInt16:
      return 2;
  }
  return 4;
}

// LAS extra-bytes data types: 1 unsigned char, 3 unsigned short, 5 unsigned long, 9 float,
// 10 double.
inline uint8_t ExtraType(FieldType t) {
  switch (t) {
    case FieldType::kUInt8:
      return 1;
    case FieldType::kUInt16:
      return 3;
    case FieldType::kUInt32:
      return 5;
    case FieldType::kFloat32:
      return 9;
    case FieldType::kFloat64:
      return 10;
  }
  return 9;
}

// The size of an extra-bytes data type 1..10 (0 for others, which this reader skips by their
// descriptor's width only when it is one of these).
inline size_t ExtraTypeBytes(uint8_t type) {
  static constexpr size_t kBytes[11] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  return type <= 10 ? kBytes[type] : 0;
}

// The frame's fields that the format 6 record does not hold (x, y, z, timestamp and
// return_index it does), present ones only: each goes out as extra bytes.
inline std::vector<FieldView> ExtraFields(const Frame& f) {
  std::vector<FieldView> out;
  for (const FieldView& v : FrameFields(f)) {
    const bool core = !std::strcmp(v.name, "x") || !std::strcmp(v.name, "y") ||
                      !std::strcmp(v.name, "z") || !std::strcmp(v.name, "timestamp") ||
                      !std::strcmp(v.name, "return_index");
    if (!core && v.size == f.size() && v.size > 0) out.push_back(v);
  }
  return out;
}

}  // namespace lt::las
