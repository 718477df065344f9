#include "lidartwin/datasets/point_cloud_writers.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "lidartwin/base/atomic_file.h"

namespace lt {

namespace {

const char* PlyType(FieldType t) {
  switch (t) {
    case FieldType::kFloat32:
      return "float";
    case FieldType::kFloat64:
      return "double";
    case FieldType::kUInt8:
      return "uchar";
    case FieldType::kUInt16:
      return "ushort";
    case FieldType::kUInt32:
      return "uint";
    case FieldType::kUInt64:  // no PLY type; frames carry none
      break;
  }
  return "float";
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
// formats' binary variants here are declared).
void WriteRecords(std::ofstream& out, const Frame& f, const std::vector<FieldView>& fields) {
  size_t record = 0;
  for (const auto& v : fields)
    record += FieldTypeBytes(v.type);
  std::string buf(record * f.size(), '\0');
  size_t offset = 0;
  for (const auto& v : fields) {
    const size_t b = FieldTypeBytes(v.type);
    const auto* src = static_cast<const char*>(v.data);
    for (size_t i = 0; i < f.size(); ++i) {
      std::memcpy(&buf[i * record + offset], src + i * b, b);
    }
    offset += b;
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
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
  WriteRecords(out, frame, fields);
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
  WriteRecords(out, frame, fields);
  return Finish(out, output);
}

}  // namespace lt
