#include "lidartwin/datasets/point_cloud_writers.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "lidartwin/base/atomic_file.h"

namespace lt {

namespace {

// How a field is stored in a file: as it is, or widened to a type the common readers load.
enum class Stored { kAsIs, kInt32, kFloat64 };

// PLY property types that Open3D's attribute reader loads (0.16: uchar, int, float, double; it
// skips ushort and uint, which dropped every label column: issue 39). uint16 widens to int,
// exactly; uint32 to double, exactly (an int would not hold values from 2^31 up).
Stored PlyStored(FieldType t) {
  if (t == FieldType::kUInt16) return Stored::kInt32;
  if (t == FieldType::kUInt32) return Stored::kFloat64;
  return Stored::kAsIs;
}

const char* PlyType(FieldType t) {
  switch (PlyStored(t)) {
    case Stored::kInt32:
      return "int";
    case Stored::kFloat64:
      return "double";
    case Stored::kAsIs:
      break;
  }
  switch (t) {
    case FieldType::kFloat32:
      return "float";
    case FieldType::kFloat64:
      return "double";
    case FieldType::kUInt8:
      return "uchar";
    default:  // kUInt64: no PLY type; frames carry none
      break;
  }
  return "float";
}

size_t StoredBytes(FieldType t, Stored stored) {
  return stored == Stored::kInt32 ? 4 : stored == Stored::kFloat64 ? 8 : FieldTypeBytes(t);
}

// One value of field v widened as `stored` says, into dst.
void StoreValue(const FieldView& v, size_t i, Stored stored, char* dst) {
  uint32_t u = 0;
  if (v.type == FieldType::kUInt16) u = static_cast<const uint16_t*>(v.data)[i];
  if (v.type == FieldType::kUInt32) u = static_cast<const uint32_t*>(v.data)[i];
  if (stored == Stored::kInt32) {
    const int32_t value = static_cast<int32_t>(u);  // a uint16: always fits
    std::memcpy(dst, &value, 4);
  } else {
    const double value = u;
    std::memcpy(dst, &value, 8);
  }
}

char PcdType(FieldType t) {
  return (t == FieldType::kFloat32 || t == FieldType::kFloat64) ? 'F' : 'U';
}

// The fields present in this frame (a field with no values is left out).
std::vector<FieldView> PresentFields(const Frame& f) {
  std::vector<FieldView> out;
  for (const FieldView& v : FrameFields(f)) {
    if (v.size == f.size() && (v.size > 0 || f.size() == 0)) out.push_back(v);
  }
  return out;
}

// Interleaves the fields point by point (x86-64 and aarch64 are little-endian, as both
// formats' binary variants here are declared); `widen` says how each field is stored.
void WriteRecords(std::ofstream& out, const Frame& f, const std::vector<FieldView>& fields,
                  Stored (*widen)(FieldType)) {
  size_t record = 0;
  for (const auto& v : fields)
    record += StoredBytes(v.type, widen(v.type));
  std::string buf(record * f.size(), '\0');
  size_t offset = 0;
  for (const auto& v : fields) {
    const Stored stored = widen(v.type);
    const size_t b = FieldTypeBytes(v.type);
    const auto* src = static_cast<const char*>(v.data);
    for (size_t i = 0; i < f.size(); ++i) {
      if (stored == Stored::kAsIs) {
        std::memcpy(&buf[i * record + offset], src + i * b, b);
      } else {
        StoreValue(v, i, stored, &buf[i * record + offset]);
      }
    }
    offset += StoredBytes(v.type, stored);
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

Stored AsIs(FieldType) {
  return Stored::kAsIs;
}

Status Finish(std::ofstream& out, AtomicOutput& output) {
  out.close();
  if (!out) return Error{output.target().string() + ": write failed: " + std::strerror(errno)};
  return output.Commit();
}

}  // namespace

Status WritePly(const Frame& frame, const std::filesystem::path& path) {
  AtomicOutput output(path);
  std::ofstream out(output.temp_path(), std::ios::binary);
  if (!out) return Error{path.string() + ": cannot create file: " + std::strerror(errno)};
  const auto fields = PresentFields(frame);
  out << "ply\nformat binary_little_endian 1.0\ncomment lidartwin frame " << frame.index << "\n"
      << "element vertex " << frame.size() << "\n";
  for (const auto& v : fields)
    out << "property " << PlyType(v.type) << " " << v.name << "\n";
  out << "end_header\n";
  WriteRecords(out, frame, fields, PlyStored);
  return Finish(out, output);
}

Status WritePcd(const Frame& frame, const std::filesystem::path& path) {
  AtomicOutput output(path);
  std::ofstream out(output.temp_path(), std::ios::binary);
  if (!out) return Error{path.string() + ": cannot create file: " + std::strerror(errno)};
  const auto fields = PresentFields(frame);
  out << "# .PCD v0.7 - lidartwin frame " << frame.index << "\nVERSION 0.7\nFIELDS";
  for (const auto& v : fields)
    out << " " << v.name;
  out << "\nSIZE";
  for (const auto& v : fields)
    out << " " << FieldTypeBytes(v.type);
  out << "\nTYPE";
  for (const auto& v : fields)
    out << " " << PcdType(v.type);
  out << "\nCOUNT";
  for (size_t i = 0; i < fields.size(); ++i)
    out << " 1";
  out << "\nWIDTH " << frame.size() << "\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS "
      << frame.size() << "\nDATA binary\n";
  WriteRecords(out, frame, fields, AsIs);
  return Finish(out, output);
}

}  // namespace lt
