// LAS 1.4 writer (las.h): the public header block (375 bytes), one Extra Bytes VLR and point
// data records of format 6 with the frame's other fields appended. Offsets and sizes follow
// the ASPRS LAS Specification 1.4 R15, tables 3 (header), 24 (extra bytes) and 7 (format 6).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "las_layout.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/datasets/las.h"
#include "lidartwin/physics/units.h"

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

// The file's creation date: SOURCE_DATE_EPOCH when set (reproducible builds' convention, so
// that two runs give the same bytes), else today (UTC).
std::tm CreationDate() {
  std::time_t t = std::time(nullptr);
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH")) {
    char* end = nullptr;
    const long long v = std::strtoll(e, &end, 10);
    if (end != e && *end == '\0' && v >= 0) t = static_cast<std::time_t>(v);
  }
  std::tm utc{};
  gmtime_r(&t, &utc);
  return utc;
}

void PutVlrHeader(std::string& b, const char* user, uint16_t id, size_t length,
                  const char* description) {
  Put(b, uint16_t{0});
  PutText(b, user, 16);
  Put(b, id);
  Put(b, static_cast<uint16_t>(length));
  PutText(b, description, 32);
}

// The coordinate system LAS 1.4 asks formats 6-10 to give as OGC WKT: the sensor's own frame.
constexpr const char* kSensorFrameWkt =
    "LOCAL_CS[\"lidartwin sensor frame (x forward, y left, z up)\",LOCAL_DATUM[\"sensor\",0],"
    "UNIT[\"metre\",1],AXIS[\"x\",OTHER],AXIS[\"y\",OTHER],AXIS[\"z\",OTHER]]";

void PutPose(std::string& b, const physics::Pose<double>& p) {
  for (double v : {p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z, p.translation.x,
                   p.translation.y, p.translation.z})
    Put(b, v);
}

}  // namespace

Status WriteLas(const Frame& f, const std::filesystem::path& path) {
  if (Status s = CheckOutputTarget(path); !s.ok()) return s;
  const size_t n = f.size();
  if (f.y_m.size() != n || f.z_m.size() != n) {
    return Error{path.string() + ": the frame's x, y and z have different lengths"};
  }
  const std::vector<FieldView> extra = las::ExtraFields(f);
  size_t extra_bytes = 0;
  for (const FieldView& v : extra)
    extra_bytes += FieldTypeBytes(v.type);
  const size_t record = las::kFormat6Bytes + extra_bytes;
  if (record > 65535)
    return Error{path.string() + ": a point record of " + std::to_string(record) +
                 " bytes exceeds LAS's 65535"};
  const size_t wkt_bytes = std::strlen(kSensorFrameWkt) + 1;
  const size_t vlr_bytes =
      2 * las::kVlrHeaderBytes + wkt_bytes + las::kFrameRecordBytes +
      (extra.empty() ? 0 : las::kVlrHeaderBytes + las::kExtraBytesDescriptor * extra.size());
  const uint32_t point_offset = static_cast<uint32_t>(las::kHeaderBytes + vlr_bytes);

  // Points first, for the header's bounds and counts. A point without finite coordinates has
  // no place in LAS's integers: it is left out (organised clouds' NaN points, for one).
  std::unordered_map<uint32_t, uint32_t> echoes_of_beam;
  if (f.beam_id.size() == n)
    for (uint32_t b : f.beam_id)
      ++echoes_of_beam[b];
  std::string points;
  points.reserve(record * n);
  int32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  uint64_t by_return[15] = {}, written = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(f.x_m[i]) || !std::isfinite(f.y_m[i]) || !std::isfinite(f.z_m[i])) continue;
    const int32_t q[3] = {Scaled(f.x_m[i]), Scaled(f.y_m[i]), Scaled(f.z_m[i])};
    for (int a = 0; a < 3; ++a) {
      lo[a] = written == 0 ? q[a] : std::min(lo[a], q[a]);
      hi[a] = written == 0 ? q[a] : std::max(hi[a], q[a]);
      Put(points, q[a]);
    }
    ++written;
    Put(points, las::LasIntensity(f.intensity.size() == n ? f.intensity[i] : 0.0f));
    const int ret = std::min(15, (f.return_index.size() == n ? f.return_index[i] : 0) + 1);
    int count = ret;
    if (f.beam_id.size() == n)
      count = std::max<int>(ret, std::min<uint32_t>(15, echoes_of_beam[f.beam_id[i]]));
    ++by_return[ret - 1];
    Put(points, static_cast<uint8_t>(ret | (count << 4)));
    Put(points, uint8_t{0});  // classification flags, scanner channel, scan direction, edge
    Put(points, las::Classification(f.semantic_class.size() == n ? f.semantic_class[i] : 0));
    Put(points, uint8_t{0});  // user data
    // Scan angle as the specification defines it with x along track: 0 straight down (-z),
    // rotating about x, in 0.006 degree steps, +-90 degrees level.
    const double angle_deg = std::atan2(-double(f.y_m[i]), -double(f.z_m[i])) / physics::kDegToRad;
    Put(points, static_cast<int16_t>(std::clamp(std::lround(angle_deg / 0.006), -30000L, 30000L)));
    Put(points, static_cast<uint16_t>(f.index & 0xffffu));
    Put(points, f.timestamp_s.size() == n ? f.timestamp_s[i] : 0.0);
    for (const FieldView& v : extra) {
      const size_t b = FieldTypeBytes(v.type);
      points.append(static_cast<const char*>(v.data) + i * b, b);
    }
  }

  std::string header;
  PutText(header, "LASF", 4);
  Put(header, static_cast<uint16_t>(f.index & 0xffffu));  // file source ID: the frame
  Put(header, uint16_t{las::kWktBit});                    // global encoding: WKT (formats 6-10)
  PutText(header, "", 16);                                // project GUID
  Put(header, uint8_t{1});                                // version major
  Put(header, uint8_t{4});                                // version minor
  PutText(header, "lidartwin simulation", 32);
  PutText(header, "lidartwin", 32);
  const std::tm date = CreationDate();
  Put(header, static_cast<uint16_t>(date.tm_yday + 1));
  Put(header, static_cast<uint16_t>(date.tm_year + 1900));
  Put(header, static_cast<uint16_t>(las::kHeaderBytes));
  Put(header, point_offset);
  Put(header, static_cast<uint32_t>(extra.empty() ? 2 : 3));  // VLRs
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
  Put(header, written);
  for (uint64_t c : by_return)
    Put(header, c);

  // VLRs: the WKT coordinate system, the frame's description, the extra fields' descriptors.
  PutVlrHeader(header, "LASF_Projection", 2112, wkt_bytes, "OGC WKT coordinate system");
  header.append(kSensorFrameWkt, wkt_bytes);
  PutVlrHeader(header, las::kFrameVlrUser, las::kFrameVlrId, las::kFrameRecordBytes,
               "lidartwin frame");
  Put(header, f.index);
  Put(header, static_cast<uint8_t>(f.motion_corrected ? 1 : 0));
  Put(header, f.start_time_s);
  Put(header, f.end_time_s);
  PutPose(header, f.pose_start);
  PutPose(header, f.pose_end);
  if (!extra.empty()) {
    PutVlrHeader(header, "LASF_Spec", 4, las::kExtraBytesDescriptor * extra.size(),
                 "lidartwin per-point fields");
    for (const FieldView& v : extra) {
      Put(header, uint16_t{0});
      Put(header, las::ExtraType(v.type));
      Put(header, uint8_t{0});  // options: no no-data, min, max, scale or offset
      PutText(header, std::string(las::kExtraPrefix) + v.name, 32);
      PutText(header, "", 4 + 8 + 16 + 8 + 16 + 8 + 16 + 8 + 16 + 8 + 16);
      PutText(header, v.unit, 32);
    }
  }
  if (header.size() != point_offset) {
    return Error{path.string() + ": internal error: LAS header of " +
                 std::to_string(header.size()) + " bytes, expected " +
                 std::to_string(point_offset)};
  }
  AtomicOutput output(path);
  std::ofstream out(output.temp_path(), std::ios::binary);
  if (!out) return Error{path.string() + ": cannot create file: " + std::strerror(errno)};
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(points.data(), static_cast<std::streamsize>(points.size()));
  out.close();
  if (!out) return Error{path.string() + ": write failed: " + std::strerror(errno)};
  return output.Commit();
}

}  // namespace lt
