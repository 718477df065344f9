// LAS reader (las.h): versions 1.0 to 1.4, point data record formats 0 to 10 (ASPRS LAS
// Specifications 1.0-1.4 R15, "Point Data Records"), and the Extra Bytes VLR's fields by name.
// Waveform packets (formats 4, 5, 9, 10) are referenced by their records but not decoded.
// Every offset and count is checked against the file's size before it is used, and errors
// name the file and the byte offset of the field at fault.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "las_layout.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/las.h"

namespace lt {

namespace {

template <typename T>
T Get(std::string_view b, size_t offset) {
  T v;
  std::memcpy(&v, b.data() + offset, sizeof(T));
  return v;
}

std::string Text(std::string_view b, size_t offset, size_t width) {
  std::string s(b.substr(offset, width));
  return s.substr(0, s.find('\0'));
}

struct ExtraField {
  std::string name;
  uint8_t type;
  size_t offset;  // within the point record
};

// Where a point data record format keeps what a frame takes (LAS 1.4 R15 tables 7-17).
struct RecordLayout {
  size_t bytes;     // the format's own record, before extra bytes
  bool legacy;      // formats 0-5: 3-bit return number, the class in byte 15's low 5 bits
  int gps_time_at;  // -1: the format has no GPS time
  size_t point_source_at;
};

const RecordLayout* LayoutOf(uint8_t format) {
  static constexpr RecordLayout kLayouts[11] = {
      {20, true, -1, 18},  {28, true, 20, 18},  {26, true, -1, 18},  {34, true, 20, 18},
      {57, true, 20, 18},  {63, true, 20, 18},  {30, false, 22, 20}, {36, false, 22, 20},
      {38, false, 22, 20}, {59, false, 22, 20}, {67, false, 22, 20}};
  return format <= 10 ? &kLayouts[format] : nullptr;
}

// The public header block's least size by version (1.0-1.2: 227 bytes; 1.3 adds the waveform
// data's start, 235; 1.4 the extended VLRs and 64-bit counts, 375).
size_t HeaderBytesOf(int minor) {
  return minor <= 2 ? 227 : minor == 3 ? 235 : las::kHeaderBytes;
}

}  // namespace

Expected<Frame> ParseLas(std::string_view b, const std::string& name) {
  auto at = [&](size_t offset, const std::string& what) {
    return Error{name + ": byte " + std::to_string(offset) + ": " + what};
  };
  if (b.size() < 227) {
    return Error{name + ": " + std::to_string(b.size()) +
                 " bytes, shorter than a LAS header (227 bytes at least)"};
  }
  if (b.substr(0, 4) != "LASF") return at(0, "not a LAS file (no \"LASF\" signature)");
  const int major = static_cast<uint8_t>(b[24]), minor = static_cast<uint8_t>(b[25]);
  if (major != 1 || minor > 4) {
    return at(24, "LAS version " + std::to_string(major) + "." + std::to_string(minor) +
                      "; this reader takes LAS 1.0 to 1.4");
  }
  const size_t least_header = HeaderBytesOf(minor);
  if (b.size() < least_header) {
    return Error{name + ": " + std::to_string(b.size()) + " bytes, shorter than a LAS 1." +
                 std::to_string(minor) + " header (" + std::to_string(least_header) + ")"};
  }
  const uint16_t header_size = Get<uint16_t>(b, 94);
  const uint32_t point_offset = Get<uint32_t>(b, 96);
  const uint32_t vlrs = Get<uint32_t>(b, 100);
  const uint8_t format = Get<uint8_t>(b, 104);
  const uint16_t record = Get<uint16_t>(b, 105);
  // LAS 1.4 counts points in 64 bits (its 32-bit legacy count may be 0); earlier versions in
  // 32 bits at byte 107.
  const uint64_t count64 = minor == 4 ? Get<uint64_t>(b, 247) : 0;
  const uint64_t count = count64 > 0 ? count64 : Get<uint32_t>(b, 107);
  const size_t count_at = count64 > 0 ? 247 : 107;
  if (header_size < least_header || header_size > point_offset) {
    return at(94, "header size " + std::to_string(header_size) + " (at least " +
                      std::to_string(least_header) + " in LAS 1." + std::to_string(minor) +
                      ", and before the point data at byte " + std::to_string(point_offset) + ")");
  }
  if (point_offset > b.size()) {
    return at(96, "point data at byte " + std::to_string(point_offset) + ", past the file's " +
                      std::to_string(b.size()) + " bytes");
  }
  if (format & 0xc0u) return at(104, "compressed point data (LAZ): not read; decompress it first");
  const RecordLayout* layout = LayoutOf(format);
  if (!layout) {
    return at(104, "point data record format " + std::to_string(format) +
                       "; LAS defines formats 0 to 10");
  }
  const size_t base = layout->bytes;
  if (record < base) {
    return at(105, "point records of " + std::to_string(record) + " bytes, format " +
                       std::to_string(format) + " needs " + std::to_string(base));
  }
  if (count > (b.size() - point_offset) / record) {
    return at(count_at, std::to_string(count) + " points of " + std::to_string(record) +
                            " bytes do not fit in the " + std::to_string(b.size() - point_offset) +
                            " bytes after byte " + std::to_string(point_offset));
  }
  double scale[3], offset[3];
  for (int a = 0; a < 3; ++a) {
    scale[a] = Get<double>(b, 131 + 8 * a);
    offset[a] = Get<double>(b, 155 + 8 * a);
    if (!(std::abs(scale[a]) > 0 && std::isfinite(scale[a]) && std::isfinite(offset[a]))) {
      return at(131 + 8 * a, "scale and offset must be finite, the scale non-zero");
    }
  }
  // The VLRs, between the header and the point data: the Extra Bytes descriptors and our
  // frame's description.
  std::vector<ExtraField> extra;
  size_t pos = header_size, extra_end = base;
  bool has_frame_record = false;
  Frame f;
  for (uint32_t v = 0; v < vlrs; ++v) {
    if (pos + las::kVlrHeaderBytes > point_offset) {
      return at(pos, "VLR " + std::to_string(v) + " of " + std::to_string(vlrs) +
                         " runs into the point data at byte " + std::to_string(point_offset));
    }
    const std::string user = Text(b, pos + 2, 16);
    const uint16_t id = Get<uint16_t>(b, pos + 18);
    const uint16_t length = Get<uint16_t>(b, pos + 20);
    const size_t data = pos + las::kVlrHeaderBytes;
    if (data + length > point_offset) {
      return at(pos + 20, "VLR " + std::to_string(v) + " of " + std::to_string(length) +
                              " bytes runs into the point data at byte " +
                              std::to_string(point_offset));
    }
    if (user == "LASF_Spec" && id == 4) {
      if (length % las::kExtraBytesDescriptor != 0) {
        return at(pos + 20, "Extra Bytes record of " + std::to_string(length) +
                                " bytes, not a whole number of 192-byte descriptors");
      }
      for (size_t d = data; d < data + length; d += las::kExtraBytesDescriptor) {
        const uint8_t type = Get<uint8_t>(b, d + 2);
        const uint8_t options = Get<uint8_t>(b, d + 3);
        // Type 0: opaque bytes, as many as the options field says.
        const size_t bytes = type == 0 ? options : las::ExtraTypeBytes(type);
        if (bytes == 0) {
          return at(d + 2, "extra bytes of data type " + std::to_string(type) +
                               (type == 0 ? " with no byte count" : " (unknown)"));
        }
        if (extra_end + bytes > record) {
          return at(105, "point records of " + std::to_string(record) +
                             " bytes, but the format and the extra bytes take more");
        }
        // Scalars without scale or offset (options bits 3, 4) are read; others only skipped.
        if (type >= 1 && type <= 10 && !(options & 0x18u))
          extra.push_back({Text(b, d + 4, 32), type, extra_end});
        extra_end += bytes;
      }
    }
    if (user == las::kFrameVlrUser && id == las::kFrameVlrId && length == las::kFrameRecordBytes) {
      size_t q = data;
      auto next = [&](auto v) {
        std::memcpy(&v, b.data() + q, sizeof(v));
        q += sizeof(v);
        return v;
      };
      f.index = next(uint32_t{});
      f.motion_corrected = next(uint8_t{}) != 0;
      f.start_time_s = next(0.0);
      f.end_time_s = next(0.0);
      for (physics::Pose<double>* p : {&f.pose_start, &f.pose_end}) {
        p->rotation = {next(0.0), next(0.0), next(0.0), next(0.0)};
        p->translation = {next(0.0), next(0.0), next(0.0)};
      }
      has_frame_record = true;
    }
    pos = data + length;
  }

  // Points relative to an origin near them; a foreign file's origin (georeferenced, far beyond
  // a float's precision) goes into the frame's pose instead. That origin is the file's offset,
  // or where the offset is far from the points (PDAL's test files: offset 0, points 4,602 km
  // out, which a float holds to 0.25 m), the whole metres of the first point (the header's
  // bounds are not always filled in).
  double origin[3] = {offset[0], offset[1], offset[2]};
  if (!has_frame_record) {
    for (int a = 0; a < 3; ++a) {
      const double first = count > 0 ? Get<int32_t>(b, point_offset + 4 * a) * scale[a] : 0;
      if (std::abs(first) > 1e4 && std::abs(first) < las::kMostCoordinate_m * 1e3)
        origin[a] = offset[a] + std::round(first);
    }
    f.pose_start.translation = {origin[0], origin[1], origin[2]};
    f.pose_end = f.pose_start;
    f.motion_corrected = true;
  }
  const size_t n = static_cast<size_t>(count);
  f.x_m.resize(n);
  f.y_m.resize(n);
  f.z_m.resize(n);
  f.intensity.resize(n);
  f.timestamp_s.resize(n);
  f.return_index.resize(n);
  f.semantic_class.resize(n);
  const char* p = b.data() + point_offset;
  float* xyz[3] = {f.x_m.data(), f.y_m.data(), f.z_m.data()};
  // With our frame record the points are in the sensor's frame, the offset included (ours write
  // 0; a tool that rewrote the file with another offset moved the integers by it, issue 36).
  // Without it the offset went into the pose above.
  double in_points[3] = {0, 0, 0};
  for (int a = 0; a < 3; ++a)
    in_points[a] = has_frame_record ? offset[a] : offset[a] - origin[a];
  for (size_t i = 0; i < n; ++i, p += record) {
    const std::string_view r(p, record);
    for (int a = 0; a < 3; ++a) {
      const double v = Get<int32_t>(r, 4 * a) * scale[a] + in_points[a];
      if (!(std::abs(v) <= las::kMostCoordinate_m)) {
        return at(point_offset + i * record + 4 * a,
                  "point " + std::to_string(i) + " lies " + std::to_string(v) +
                      " m from the file's origin, beyond 10,000 km");
      }
      xyz[a][i] = static_cast<float>(v);
    }
    f.intensity[i] = Get<uint16_t>(r, 12);
    // Return numbers count from 1 (0 in some writers' single returns): 3 bits in formats 0-5,
    // 4 bits in 6-10.
    const int return_number = Get<uint8_t>(r, 14) & (layout->legacy ? 0x07 : 0x0f);
    f.return_index[i] = static_cast<uint8_t>(std::max(1, return_number) - 1);
    f.semantic_class[i] = layout->legacy ? Get<uint8_t>(r, 15) & 0x1f : Get<uint8_t>(r, 16);
    f.timestamp_s[i] = layout->gps_time_at >= 0 ? Get<double>(r, layout->gps_time_at) : 0.0;
    if (i == 0 && !has_frame_record) f.index = Get<uint16_t>(r, layout->point_source_at);
  }
  // Extra fields named as ours ("lt_" + the frame's field): read into the frame when the type
  // matches our writer's. The exact intensity and class replace the record's only where they
  // still agree with it: a tool that reclassified the points or rescaled intensity and kept
  // our extra bytes has the last word.
  bool has_range = false;
  for (const ExtraField& e : extra) {
    const std::string prefix = las::kExtraPrefix;
    if (e.name.rfind(prefix, 0) != 0) continue;
    const std::string field = e.name.substr(prefix.size());
    if (las::InFormat6Record(field)) continue;
    FieldType type{};
    Frame probe;
    if (!ResizeFrameField(probe, field, 1, &type) || las::ExtraType(type) != e.type) continue;
    const char* src = b.data() + point_offset + e.offset;
    // The exact value where it still maps to the record's.
    auto keep_agreeing = [&](auto& values, auto to_record) {
      for (size_t i = 0; i < n; ++i) {
        typename std::decay_t<decltype(values)>::value_type v;
        std::memcpy(&v, src + i * record, sizeof v);
        if (to_record(v) == values[i]) values[i] = v;
      }
    };
    if (field == "intensity") {
      keep_agreeing(f.intensity, las::LasIntensity);
      continue;
    }
    if (field == "semantic_class") {
      keep_agreeing(f.semantic_class, las::Classification);
      continue;
    }
    void* dst = ResizeFrameField(f, field, n, &type);
    const size_t bytes = FieldTypeBytes(type);
    for (size_t i = 0; i < n; ++i)
      std::memcpy(static_cast<char*>(dst) + i * bytes, src + i * record, bytes);
    has_range = has_range || field == "range";
  }
  if (layout->gps_time_at < 0) DropFields(f, {"timestamp"});  // formats 0 and 2: no time
  if (!has_range) {
    f.range_m.resize(n);
    for (size_t i = 0; i < n; ++i)
      f.range_m[i] = std::sqrt(f.x_m[i] * f.x_m[i] + f.y_m[i] * f.y_m[i] + f.z_m[i] * f.z_m[i]);
  }
  return f;
}

Expected<Frame> ReadLas(const std::filesystem::path& path) {
  auto bytes = ReadTextFile(path, " LAS file");  // at most 1 GiB, as every reader here
  if (!bytes.ok()) return bytes.error();
  return ParseLas(*bytes, path.string());
}

}  // namespace lt
