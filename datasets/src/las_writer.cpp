// LAS 1.4 writer (las.h): the public header block (375 bytes), one Extra Bytes VLR and point
// data records of format 6 with the frame's other fields appended. Offsets and sizes follow
// the ASPRS LAS Specification 1.4 R15, tables 3 (header), 24 (extra bytes) and 7 (format 6).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "las_layout.h"
#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/datasets/las.h"

namespace lt {

namespace {

// Little-endian appends (x86-64 and aarch64 are little-endian, as LAS is).
template <typename T>
void Put(std::string& b, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  b.append(bytes, sizeof(T));
}
void PutText(std::string& b, const std::string& s, size_t width) {
  std::string field = s.substr(0, width);
  field.resize(width, '\0');
  b += field;
}

int32_t Scaled(float v) {
  const double q = std::round(double(v) / kLasScale_m);
  return static_cast<int32_t>(std::clamp(q, -2147483648.0, 2147483647.0));
}

uint8_t Classification(uint16_t semantic_class) {
  if (semantic_class <= 255) return static_cast<uint8_t>(semantic_class);
  return semantic_class == 65535 ? 18 : 1;  // a noise echo: high noise; else unclassified
}

}  // namespace

Status WriteLas(const Frame& f, const std::filesystem::path& path) {
  if (Status s = CheckOutputTarget(path); !s.ok()) return s;
  const size_t n = f.size();
  const std::vector<FieldView> extra = las::ExtraFields(f);
  size_t extra_bytes = 0;
  for (const FieldView& v : extra)
    extra_bytes += las::FieldBytes(v.type);
  const size_t record = las::kFormat6Bytes + extra_bytes;
  if (record > 65535)
    return Error{path.string() + ": a point record of " + std::to_string(record) +
                 " bytes exceeds LAS's 65535"};
  const size_t vlr_bytes = las::kVlrHeaderBytes + las::kExtraBytesDescriptor * extra.size();
  const uint32_t point_offset = static_cast<uint32_t>(las::kHeaderBytes + vlr_bytes);

  // Points first, for the header's bounds and counts.
  std::unordered_map<uint32_t, uint8_t> echoes_of_beam;
  if (f.beam_id.size() == n)
    for (uint32_t b : f.beam_id)
      ++echoes_of_beam[b];
  std::string points;
  points.reserve(record * n);
  int32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  uint64_t by_return[15] = {};
  for (size_t i = 0; i < n; ++i) {
    const int32_t q[3] = {Scaled(f.x_m[i]), Scaled(f.y_m[i]), Scaled(f.z_m[i])};
    for (int a = 0; a < 3; ++a) {
      lo[a] = i == 0 ? q[a] : std::min(lo[a], q[a]);
      hi[a] = i == 0 ? q[a] : std::max(hi[a], q[a]);
      Put(points, q[a]);
    }
    const float intensity = f.intensity.size() == n ? f.intensity[i] : 0.0f;
    Put(points, static_cast<uint16_t>(std::clamp(std::round(double(intensity)), 0.0, 65535.0)));
    const int ret = std::min(15, (f.return_index.size() == n ? f.return_index[i] : 0) + 1);
    int count = ret;
    if (f.beam_id.size() == n)
      count = std::max(ret, std::min(15, int(echoes_of_beam[f.beam_id[i]])));
    ++by_return[ret - 1];
    Put(points, static_cast<uint8_t>(ret | (count << 4)));
    Put(points, uint8_t{0});  // classification flags, scanner channel, scan direction, edge
    Put(points, Classification(f.semantic_class.size() == n ? f.semantic_class[i] : 0));
    Put(points, uint8_t{0});  // user data
    const double elevation_deg =
        std::atan2(double(f.z_m[i]), std::hypot(double(f.x_m[i]), double(f.y_m[i]))) * 180 /
        3.14159265358979323846;
    Put(points, static_cast<int16_t>(std::lround(elevation_deg / 0.006)));
    Put(points, static_cast<uint16_t>(f.index & 0xffffu));
    Put(points, f.timestamp_s.size() == n ? f.timestamp_s[i] : 0.0);
    for (const FieldView& v : extra) {
      const size_t b = las::FieldBytes(v.type);
      points.append(static_cast<const char*>(v.data) + i * b, b);
    }
  }

  std::string header;
  PutText(header, "LASF", 4);
  Put(header, uint16_t{0});             // file source ID
  Put(header, uint16_t{las::kWktBit});  // global encoding: WKT (formats 6-10)
  PutText(header, "", 16);              // project GUID
  Put(header, uint8_t{1});              // version major
  Put(header, uint8_t{4});              // version minor
  PutText(header, "lidartwin simulation", 32);
  PutText(header, "lidartwin", 32);
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  Put(header, static_cast<uint16_t>(utc.tm_yday + 1));
  Put(header, static_cast<uint16_t>(utc.tm_year + 1900));
  Put(header, static_cast<uint16_t>(las::kHeaderBytes));
  Put(header, point_offset);
  Put(header, uint32_t{1});  // VLRs: the extra bytes' descriptors
  Put(header, uint8_t{6});
  Put(header, static_cast<uint16_t>(record));
  Put(header, uint32_t{0});  // legacy point count: 0 for formats 6-10
  for (int k = 0; k < 5; ++k)
    Put(header, uint32_t{0});
  for (int a = 0; a < 3; ++a)
    Put(header, kLasScale_m);
  for (int a = 0; a < 3; ++a)
    Put(header, 0.0);  // offsets
  for (int a = 0; a < 3; ++a) {
    Put(header, hi[a] * kLasScale_m);
    Put(header, lo[a] * kLasScale_m);
  }
  Put(header, uint64_t{0});  // start of waveform data packets
  Put(header, uint64_t{0});  // start of the first EVLR
  Put(header, uint32_t{0});  // EVLRs
  Put(header, static_cast<uint64_t>(n));
  for (uint64_t c : by_return)
    Put(header, c);

  // The Extra Bytes VLR: a 54-byte header, then a 192-byte descriptor a field.
  Put(header, uint16_t{0});
  PutText(header, "LASF_Spec", 16);
  Put(header, uint16_t{4});
  Put(header, static_cast<uint16_t>(las::kExtraBytesDescriptor * extra.size()));
  PutText(header, "lidartwin per-point fields", 32);
  for (const FieldView& v : extra) {
    Put(header, uint16_t{0});
    Put(header, las::ExtraType(v.type));
    Put(header, uint8_t{0});  // options: no no-data, min, max, scale or offset
    PutText(header, v.name, 32);
    PutText(header, "", 4 + 8 + 16 + 8 + 16 + 8 + 16 + 8 + 16 + 8 + 16);
    PutText(header, v.unit, 32);
  }

  if (header.size() != point_offset) {
    return Error{path.string() + ": internal error: LAS header of " +
                 std::to_string(header.size()) + " bytes, expected " +
                 std::to_string(point_offset)};
  }
  AtomicOutput output(path);
  std::ofstream out(output.temp_path(), std::ios::binary);
  if (!out) return Error{path.string() + ": cannot create file"};
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(points.data(), static_cast<std::streamsize>(points.size()));
  out.close();
  if (!out) return Error{path.string() + ": write failed (disk full?)"};
  return output.Commit();
}

}  // namespace lt
