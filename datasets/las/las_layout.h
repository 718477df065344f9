// What the LAS writer and reader share (ASPRS LAS Specification 1.4 R15): the sizes of the
// header block, the VLR header, the Extra Bytes descriptor and the format 6 record, and which
// frame fields travel as extra bytes, with their LAS data types (table 25).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"

namespace lt::las {

inline constexpr size_t kHeaderBytes = 375;
inline constexpr size_t kVlrHeaderBytes = 54;
inline constexpr size_t kExtraBytesDescriptor = 192;
inline constexpr size_t kFormat6Bytes = 30;
inline constexpr size_t kFormat7Bytes = 36;  // format 6 and red, green, blue
inline constexpr uint16_t kWktBit = 1u << 4;
// Our extra fields are named "lt_" + the frame's field name: PDAL matches extra dimensions to
// its own by name, case-insensitively, and would merge "intensity" into its Intensity.
inline constexpr const char* kExtraPrefix = "lt_";
// The frame's own description: VLR "lidartwin" record 1, kFrameRecordBytes: frame index
// (uint32), motion_corrected (uint8), start and end time (2 double), pose_start and pose_end
// (each quaternion w x y z and translation x y z, 7 double).
inline constexpr const char* kFrameVlrUser = "lidartwin";
inline constexpr uint16_t kFrameVlrId = 1;
inline constexpr size_t kFrameRecordBytes = 4 + 1 + 16 + 2 * 56;
// Points farther than this from the file's offset are refused (docs/robustness.md: positions
// within 10,000 km).
inline constexpr double kMostCoordinate_m = 1e7;

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
    case FieldType::kUInt64:  // LAS type 6 is unsigned long long; frames carry none
      return 6;
  }
  return 9;
}

// The width of an extra-bytes data type: 1..10 scalars, 11..20 and 21..30 (deprecated in
// R15, still found) arrays of two and three of them; 0 for type 0 and unknown types.
inline size_t ExtraTypeBytes(uint8_t type) {
  static constexpr size_t kBytes[11] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  if (type >= 1 && type <= 10) return kBytes[type];
  if (type >= 11 && type <= 20) return 2 * kBytes[type - 10];
  if (type >= 21 && type <= 30) return 3 * kBytes[type - 20];
  return 0;
}

// The LAS class of a semantic class: ours are LAS codes; 65535, a detector's noise echo, is
// 18 (high noise); other classes above 255 are 1 (unclassified).
inline uint8_t Classification(uint16_t semantic_class) {
  if (semantic_class <= 255) return static_cast<uint8_t>(semantic_class);
  return semantic_class == 65535 ? 18 : 1;
}

// The LAS intensity of a frame's intensity: rounded and clamped to 0..65535 (NaN: 0).
inline uint16_t LasIntensity(float v) {
  if (!(v == v) || v <= 0) return 0;
  return v >= 65535.0f ? 65535 : static_cast<uint16_t>(v + 0.5f);
}

// The frame's fields the format 6 record holds itself (x y z, GPS time, return number).
inline bool InFormat6Record(const std::string& field) {
  return field == "x" || field == "y" || field == "z" || field == "timestamp" ||
         field == "return_index";
}

// The frame's fields that the format 6 record does not hold (x, y, z, timestamp and
// return_index it does), present ones only: each goes out as extra bytes.
inline std::vector<FieldView> ExtraFields(const Frame& f) {
  std::vector<FieldView> out;
  for (const FieldView& v : FrameFields(f)) {
    if (!InFormat6Record(v.name) && v.size == f.size() && v.size > 0) out.push_back(v);
  }
  return out;
}

}  // namespace lt::las
