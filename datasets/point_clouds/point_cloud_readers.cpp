#include "lidartwin/datasets/point_cloud_readers.h"
#include "lidartwin/base/text_file.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace lt {
namespace {

// A scalar type in a file: its size, whether it is floating point / signed.
struct ScalarType {
  size_t bytes = 0;
  bool is_float = false;
  bool is_signed = false;
};

struct Column {
  std::string name;  // the frame field it fills, or "" to skip
  ScalarType type;
  size_t count = 1;  // values per point (only count 1 is read into the frame)
};

std::string FrameFieldFor(const std::string& file_name) {
  static const std::pair<const char*, const char*> kAliases[] = {{"ring", "channel"},
                                                                 {"t", "timestamp"},
                                                                 {"time", "timestamp"},
                                                                 {"reflectivity", "reflectance"}};
  for (auto [alias, field] : kAliases)
    if (file_name == alias) return field;
  for (const FieldView& v : FrameFields(Frame{}))
    if (file_name == v.name) return file_name;
  return "";
}

double Decode(const char* p, const ScalarType& t, bool big_endian) {
  char b[8];
  std::memcpy(b, p, t.bytes);
  if (big_endian != (std::endian::native == std::endian::big))
    for (size_t i = 0; i < t.bytes / 2; ++i)
      std::swap(b[i], b[t.bytes - 1 - i]);
  if (t.is_float) {
    if (t.bytes == 4) {
      float f;
      std::memcpy(&f, b, 4);
      return f;
    }
    double d;
    std::memcpy(&d, b, 8);
    return d;
  }
  switch (t.bytes) {
    case 1:
      return t.is_signed ? double(int8_t(b[0])) : double(uint8_t(b[0]));
    case 2: {
      uint16_t u;
      std::memcpy(&u, b, 2);
      return t.is_signed ? double(int16_t(u)) : double(u);
    }
    case 4: {
      uint32_t u;
      std::memcpy(&u, b, 4);
      return t.is_signed ? double(int32_t(u)) : double(u);
    }
    default: {
      uint64_t u;
      std::memcpy(&u, b, 8);
      return t.is_signed ? double(int64_t(u)) : double(u);
    }
  }
}

// Two columns filling the same field would leave it to the file's order which one counts.
Status CheckDistinctFields(const std::vector<Column>& columns, const std::string& where) {
  std::set<std::string> seen;
  for (const Column& c : columns) {
    if (!c.name.empty() && !seen.insert(c.name).second) {
      return Error{where + ": field '" + c.name + "' is given twice"};
    }
  }
  return {};
}

// Fills a frame from decoded values: values[c][i] for column c, point i.
class FrameBuilder {
 public:
  FrameBuilder(const std::vector<Column>& columns, size_t n) : n_(n) {
    for (const Column& c : columns) {
      Target t{nullptr, FieldType::kFloat32};
      if (!c.name.empty() && c.count == 1) {
        bool duplicate = false;
        for (const auto& [name, target] : names_)
          duplicate |= name == c.name;
        if (!duplicate) {
          t.data = ResizeFrameField(frame_, c.name, n, &t.type);
          names_.emplace_back(c.name, t);
        }
      }
      targets_.push_back(t);
    }
  }
  void Set(size_t column, size_t i, double v) {
    const Target& t = targets_[column];
    if (!t.data) return;
    switch (t.type) {
      case FieldType::kFloat32:
        static_cast<float*>(t.data)[i] = static_cast<float>(v);
        break;
      case FieldType::kFloat64:
        static_cast<double*>(t.data)[i] = v;
        break;
      case FieldType::kUInt8:
        static_cast<uint8_t*>(t.data)[i] = Clamp<uint8_t>(v);
        break;
      case FieldType::kUInt16:
        static_cast<uint16_t*>(t.data)[i] = Clamp<uint16_t>(v);
        break;
      case FieldType::kUInt32:
        static_cast<uint32_t*>(t.data)[i] = Clamp<uint32_t>(v);
        break;
      case FieldType::kUInt64:  // no frame field has it
        break;
    }
  }
  Expected<Frame> Finish(const std::string& file) {
    if (frame_.x_m.size() != n_ || frame_.y_m.size() != n_ || frame_.z_m.size() != n_)
      return Error{fmt::format("{}: the file has no x, y and z fields", file)};
    if (frame_.range_m.size() != n_) {
      frame_.range_m.resize(n_);
      for (size_t i = 0; i < n_; ++i)
        frame_.range_m[i] =
            std::sqrt(frame_.x_m[i] * frame_.x_m[i] + frame_.y_m[i] * frame_.y_m[i] +
                      frame_.z_m[i] * frame_.z_m[i]);
    }
    return std::move(frame_);
  }

 private:
  template <typename T>
  static T Clamp(double v) {
    if (!(v > 0)) return 0;  // NaN and negatives
    return v >= double(std::numeric_limits<T>::max()) ? std::numeric_limits<T>::max()
                                                      : static_cast<T>(v);
  }
  struct Target {
    void* data;
    FieldType type;
  };
  Frame frame_;
  size_t n_;
  std::vector<Target> targets_;
  std::vector<std::pair<std::string, Target>> names_;
};

// Header lines: reads up to and including the line that starts with `last`, returning the
// byte offset just past it.
struct HeaderLine {
  size_t number;
  std::vector<std::string> words;
};

std::vector<std::string> Words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;)
    w.push_back(s);
  return w;
}

Expected<size_t> ParseCount(const std::string& s, const std::string& what) {
  size_t v = 0;
  if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos)
    return Error{fmt::format("{}: expected a whole number, got '{}'", what, s)};
  v = std::stoull(s);
  return v;
}

// Reads whitespace-separated numbers of ascii bodies.
bool NextNumber(std::string_view body, size_t* pos, double* v) {
  while (*pos < body.size() && std::isspace(static_cast<unsigned char>(body[*pos])))
    ++*pos;
  if (*pos >= body.size()) return false;
  size_t end = *pos;
  while (end < body.size() && !std::isspace(static_cast<unsigned char>(body[end])))
    ++end;
  const std::string token(body.substr(*pos, end - *pos));
  char* stop = nullptr;
  *v = std::strtod(token.c_str(), &stop);
  if (stop != token.c_str() + token.size()) return false;
  *pos = end;
  return true;
}

// LZF decompression (the PCD binary_compressed payload; liblzf's format: literal runs of
// ctrl+1 bytes when ctrl < 32, else back references of length (ctrl >> 5) + 2, extended by a
// byte when 7, at offset ((ctrl & 31) << 8 | next) + 1).
// The most an LZF stream expands: a back reference of 3 bytes (ctrl, length byte, offset)
// stands for at most 7 + 255 + 2 = 264 bytes, 88 a byte; a literal run expands none.
constexpr uint64_t kLzfMostExpansion = 88;

bool LzfDecompress(std::string_view in, std::string* out, size_t expected) {
  out->clear();
  out->reserve(expected);
  size_t i = 0;
  while (i < in.size()) {
    const unsigned ctrl = static_cast<unsigned char>(in[i++]);
    if (ctrl < 32) {
      const size_t len = ctrl + 1;
      if (i + len > in.size() || out->size() + len > expected) return false;
      out->append(in.substr(i, len));
      i += len;
    } else {
      size_t len = ctrl >> 5;
      if (len == 7) {
        if (i >= in.size()) return false;
        len += static_cast<unsigned char>(in[i++]);
      }
      len += 2;
      if (i >= in.size()) return false;
      const size_t back = ((ctrl & 31u) << 8 | static_cast<unsigned char>(in[i++])) + 1;
      if (back > out->size() || out->size() + len > expected) return false;
      const size_t from = out->size() - back;
      for (size_t k = 0; k < len; ++k)
        out->push_back((*out)[from + k]);
    }
  }
  return out->size() == expected;
}

}  // namespace

Expected<Frame> ParsePcd(std::string_view bytes, const std::string& name) {
  std::vector<Column> columns;
  std::vector<std::string> sizes, types, counts;
  size_t width = 0, height = 1, points = 0;
  bool have_points = false, have_width = false;
  std::string data;
  size_t pos = 0, line_no = 0;
  while (data.empty()) {
    if (pos >= bytes.size())
      return Error{fmt::format("{}: header ends before its DATA line", name)};
    const size_t nl = std::min(bytes.find('\n', pos), bytes.size());
    const std::string line(bytes.substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    const auto w = Words(line);
    if (w.empty() || w[0][0] == '#') continue;
    const std::string where = fmt::format("{}: header line {} ({})", name, line_no, w[0]);
    const std::vector<std::string> rest(w.begin() + 1, w.end());
    if (w[0] == "VERSION" || w[0] == "VIEWPOINT") continue;
    if (w[0] == "FIELDS") {
      for (const auto& f : rest)
        columns.push_back({FrameFieldFor(f), {}, 1});
    } else if (w[0] == "SIZE") {
      sizes = rest;
    } else if (w[0] == "TYPE") {
      types = rest;
    } else if (w[0] == "COUNT") {
      counts = rest;
    } else if (w[0] == "WIDTH" || w[0] == "HEIGHT" || w[0] == "POINTS") {
      if (rest.size() != 1) return Error{where + ": expected one number"};
      auto v = ParseCount(rest[0], where);
      if (!v.ok()) return v.error();
      (w[0] == "WIDTH" ? width : w[0] == "HEIGHT" ? height : points) = *v;
      have_width |= w[0] == "WIDTH";
      have_points |= w[0] == "POINTS";
    } else if (w[0] == "DATA") {
      if (rest.size() != 1 ||
          (rest[0] != "ascii" && rest[0] != "binary" && rest[0] != "binary_compressed"))
        return Error{where + ": expected ascii, binary or binary_compressed"};
      data = rest[0];
    } else {
      return Error{where + ": unknown header keyword"};
    }
  }
  if (columns.empty()) return Error{fmt::format("{}: header has no FIELDS", name)};
  if (sizes.size() != columns.size() || types.size() != columns.size())
    return Error{fmt::format("{}: FIELDS lists {} fields but SIZE {} and TYPE {}", name,
                             columns.size(), sizes.size(), types.size())};
  if (!counts.empty() && counts.size() != columns.size())
    return Error{fmt::format("{}: COUNT lists {} values for {} fields", name, counts.size(),
                             columns.size())};
  if (Status s = CheckDistinctFields(columns, name + ": FIELDS"); !s.ok()) return s.error();
  if (!have_width) width = points;
  if (!have_points) points = width * height;
  if ((height != 0 && width > points / height) || width * height != points)
    return Error{
        fmt::format("{}: WIDTH x HEIGHT = {} x {} but POINTS = {}", name, width, height, points)};
  size_t record = 0;
  for (size_t c = 0; c < columns.size(); ++c) {
    auto size = ParseCount(sizes[c], fmt::format("{}: SIZE of {}", name, c));
    if (!size.ok()) return size.error();
    const char t = types[c].size() == 1 ? types[c][0] : '?';
    ScalarType st{*size, t == 'F', t == 'I'};
    const bool valid = (t == 'F' && (st.bytes == 4 || st.bytes == 8)) ||
                       ((t == 'I' || t == 'U') &&
                        (st.bytes == 1 || st.bytes == 2 || st.bytes == 4 || st.bytes == 8));
    if (!valid)
      return Error{
          fmt::format("{}: field {} has TYPE '{}' with SIZE {} (expected F 4/8, I or U "
                      "1/2/4/8)",
                      name, c, types[c], sizes[c])};
    columns[c].type = st;
    if (!counts.empty()) {
      auto count = ParseCount(counts[c], fmt::format("{}: COUNT of field {}", name, c));
      if (!count.ok()) return count.error();
      if (*count == 0 || *count > 4096)
        return Error{fmt::format("{}: COUNT of field {} is {}", name, c, *count)};
      columns[c].count = *count;
    }
    record += st.bytes * columns[c].count;
  }
  const size_t body_offset = std::min(pos, bytes.size());
  std::string_view body = bytes.substr(body_offset);
  // Bound the point count by what the body can hold before allocating anything: binary
  // records, at least two characters per ascii value, LZF's at most 88x expansion.
  size_t values = 0;
  for (const Column& c : columns)
    values += c.count;
  const size_t capacity = data == "binary" ? body.size() / std::max<size_t>(record, 1)
                          : data == "ascii"
                              ? (body.size() + 1) / (2 * values)
                              : kLzfMostExpansion * body.size() / std::max<size_t>(record, 1);
  if (points > capacity)
    return Error{fmt::format("{}: byte {}: {} points do not fit in the {} bytes of {} data", name,
                             body_offset, points, body.size(), data)};
  FrameBuilder out(columns, points);
  if (data == "ascii") {
    size_t p = 0;
    for (size_t i = 0; i < points; ++i)
      for (size_t c = 0; c < columns.size(); ++c)
        for (size_t k = 0; k < columns[c].count; ++k) {
          double v = 0;
          if (!NextNumber(body, &p, &v))
            return Error{fmt::format("{}: byte {}: point {} field {}: missing or not a number",
                                     name, body_offset + p, i, c)};
          if (k == 0) out.Set(c, i, v);
        }
    return out.Finish(name);
  }
  if (data == "binary") {
    if (body.size() < points * record)
      return Error{fmt::format("{}: byte {}: {} points of {} bytes need {} bytes, the file has {}",
                               name, body_offset, points, record, points * record, body.size())};
    for (size_t i = 0; i < points; ++i) {
      size_t off = i * record;
      for (size_t c = 0; c < columns.size(); ++c) {
        out.Set(c, i, Decode(body.data() + off, columns[c].type, false));
        off += columns[c].type.bytes * columns[c].count;
      }
    }
    return out.Finish(name);
  }
  // binary_compressed: u32 compressed size, u32 uncompressed size, LZF data holding the fields
  // one after another (all points' values of field 0, then field 1, ...).
  if (body.size() < 8)
    return Error{fmt::format("{}: byte {}: truncated compressed-data sizes", name, body_offset)};
  uint32_t compressed = 0, uncompressed = 0;
  std::memcpy(&compressed, body.data(), 4);
  std::memcpy(&uncompressed, body.data() + 4, 4);
  if (compressed > body.size() - 8)
    return Error{fmt::format("{}: byte {}: compressed size {} exceeds the {} bytes left", name,
                             body_offset, compressed, body.size() - 8)};
  if (uncompressed != points * record)
    return Error{fmt::format("{}: byte {}: uncompressed size {} but {} points x {} bytes = {}",
                             name, body_offset + 4, uncompressed, points, record, points * record)};
  // Refused before anything is allocated: LZF cannot expand its input further than this, so a
  // larger size is a corrupt (or hostile) header, as the HDF5 reader judges declared sizes.
  if (static_cast<uint64_t>(uncompressed) > kLzfMostExpansion * static_cast<uint64_t>(compressed))
    return Error{fmt::format(
        "{}: byte {}: uncompressed size {} from {} compressed bytes is more than LZF's most "
        "expansion ({}x) allows (corrupt file)",
        name, body_offset + 4, uncompressed, compressed, kLzfMostExpansion)};
  std::string raw;
  if (!LzfDecompress(body.substr(8, compressed), &raw, uncompressed))
    return Error{fmt::format("{}: byte {}: corrupt LZF data", name, body_offset + 8)};
  size_t field_start = 0;
  for (size_t c = 0; c < columns.size(); ++c) {
    const size_t b = columns[c].type.bytes * columns[c].count;
    for (size_t i = 0; i < points; ++i)
      out.Set(c, i, Decode(raw.data() + field_start + i * b, columns[c].type, false));
    field_start += b * points;
  }
  return out.Finish(name);
}

Expected<Frame> ParsePly(std::string_view bytes, const std::string& name) {
  size_t pos = 0, line_no = 0;
  auto next_line = [&]() -> std::optional<std::string> {
    if (pos >= bytes.size()) return std::nullopt;
    const size_t nl = std::min(bytes.find('\n', pos), bytes.size());
    std::string line(bytes.substr(pos, nl - pos));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    pos = nl + 1;
    ++line_no;
    return line;
  };
  auto first = next_line();
  if (!first || *first != "ply") return Error{fmt::format("{}: byte 0: not a PLY file", name)};
  std::string format;
  struct Element {
    std::string name;
    size_t count = 0;
    std::vector<Column> columns;
    bool has_list = false;
    // Bytes of one record, list properties aside.
    size_t RecordBytes() const {
      size_t bytes = 0;
      for (const Column& c : columns)
        bytes += c.type.bytes;
      return bytes;
    }
  };
  std::vector<Element> elements;
  while (true) {
    auto line = next_line();
    if (!line) return Error{fmt::format("{}: header ends before end_header", name)};
    const auto w = Words(*line);
    const std::string where = fmt::format("{}: header line {}", name, line_no);
    if (w.empty() || w[0] == "comment" || w[0] == "obj_info") continue;
    if (w[0] == "end_header") break;
    if (w[0] == "format") {
      if (w.size() != 3 ||
          (w[1] != "ascii" && w[1] != "binary_little_endian" && w[1] != "binary_big_endian"))
        return Error{where + ": expected format ascii|binary_little_endian|binary_big_endian 1.0"};
      format = w[1];
    } else if (w[0] == "element") {
      if (w.size() != 3) return Error{where + ": expected 'element NAME COUNT'"};
      auto count = ParseCount(w[2], where);
      if (!count.ok()) return count.error();
      if (w[1] == "vertex" && std::any_of(elements.begin(), elements.end(),
                                          [](const Element& e) { return e.name == "vertex"; })) {
        return Error{where + ": a second 'element vertex' (which one holds the points?)"};
      }
      elements.push_back({w[1], *count, {}, false});
    } else if (w[0] == "property") {
      if (elements.empty()) return Error{where + ": property before any element"};
      if (w.size() >= 2 && w[1] == "list") {
        elements.back().has_list = true;
        continue;
      }
      if (w.size() != 3) return Error{where + ": expected 'property TYPE NAME'"};
      static const std::pair<const char*, ScalarType> kTypes[] = {
          {"char", {1, false, true}},    {"int8", {1, false, true}},
          {"uchar", {1, false, false}},  {"uint8", {1, false, false}},
          {"short", {2, false, true}},   {"int16", {2, false, true}},
          {"ushort", {2, false, false}}, {"uint16", {2, false, false}},
          {"int", {4, false, true}},     {"int32", {4, false, true}},
          {"uint", {4, false, false}},   {"uint32", {4, false, false}},
          {"float", {4, true, true}},    {"float32", {4, true, true}},
          {"double", {8, true, true}},   {"float64", {8, true, true}}};
      const ScalarType* t = nullptr;
      for (const auto& [n, st] : kTypes)
        if (w[1] == n) t = &st;
      if (!t) return Error{fmt::format("{}: unknown property type '{}'", where, w[1])};
      elements.back().columns.push_back({FrameFieldFor(w[2]), *t, 1});
    } else {
      return Error{fmt::format("{}: unknown header keyword '{}'", where, w[0])};
    }
  }
  if (format.empty()) return Error{fmt::format("{}: header has no format line", name)};
  // Elements before the vertices must be skippable: fixed-size records in binary files.
  const size_t body_offset = std::min(pos, bytes.size());
  std::string_view body = bytes.substr(body_offset);
  size_t skip = 0;
  const Element* vertex = nullptr;
  for (const Element& e : elements) {
    if (e.name == "vertex") {
      vertex = &e;
      if (Status s = CheckDistinctFields(e.columns, name + ": element vertex"); !s.ok()) {
        return s.error();
      }
      break;
    }
    if (e.has_list || format == "ascii")
      return Error{fmt::format("{}: element '{}' comes before 'vertex' and cannot be skipped", name,
                               e.name)};
    skip += e.RecordBytes() * e.count;
  }
  if (!vertex) return Error{fmt::format("{}: no 'vertex' element", name)};
  if (vertex->has_list)
    return Error{fmt::format("{}: list properties on 'vertex' are not supported", name)};
  const auto& columns = vertex->columns;
  const size_t n = vertex->count;
  const size_t record = vertex->RecordBytes();
  if (columns.empty()) return Error{fmt::format("{}: 'vertex' has no properties", name)};
  // Bound the count by what the body can hold before allocating (ascii: two characters a
  // value at least).
  const size_t capacity = format == "ascii"    ? (body.size() + 1) / (2 * columns.size())
                          : skip > body.size() ? 0
                                               : (body.size() - skip) / record;
  if (n > capacity)
    return Error{fmt::format("{}: byte {}: {} vertices of {} bytes do not fit in the {} bytes left",
                             name, body_offset + skip, n, record,
                             body.size() - std::min(skip, body.size()))};
  // A binary body whose elements all have a fixed size must be exactly as long as the header
  // says: a deleted property line, or a smaller count, would otherwise read other bytes as
  // these values (issue 36: values up to 2.7e38 and NaN, or a silent subset).
  if (format != "ascii") {
    size_t declared = 0;
    bool fixed = true;
    for (const Element& e : elements) {
      fixed = fixed && !e.has_list;
      size_t bytes = 0;  // a count too large for size_t is no body's: SIZE_MAX never matches
      if (__builtin_mul_overflow(e.RecordBytes(), e.count, &bytes) ||
          __builtin_add_overflow(declared, bytes, &declared))
        declared = SIZE_MAX;
    }
    if (fixed && declared != body.size())
      return Error{fmt::format(
          "{}: byte {}: the header declares {} bytes of data and the file holds {} after it (a "
          "header that does not describe its body)",
          name, body_offset, declared, body.size())};
  }
  FrameBuilder out(columns, n);
  if (format == "ascii") {
    size_t p = 0;
    for (size_t i = 0; i < n; ++i)
      for (size_t c = 0; c < columns.size(); ++c) {
        double v = 0;
        if (!NextNumber(body, &p, &v))
          return Error{fmt::format("{}: byte {}: vertex {} property {}: missing or not a number",
                                   name, body_offset + p, i, c)};
        out.Set(c, i, v);
      }
    return out.Finish(name);
  }
  const bool big = format == "binary_big_endian";
  for (size_t i = 0; i < n; ++i) {
    size_t off = skip + i * record;
    for (size_t c = 0; c < columns.size(); ++c) {
      out.Set(c, i, Decode(body.data() + off, columns[c].type, big));
      off += columns[c].type.bytes;
    }
  }
  return out.Finish(name);
}

Expected<Frame> ReadPcd(const std::filesystem::path& path) {
  auto bytes = ReadTextFile(path);
  if (!bytes.ok()) return bytes.error();
  return ParsePcd(*bytes, path.string());
}

Expected<Frame> ReadPly(const std::filesystem::path& path) {
  auto bytes = ReadTextFile(path);
  if (!bytes.ok()) return bytes.error();
  return ParsePly(*bytes, path.string());
}

}  // namespace lt
