#include "lidartwin/base/frame.h"

#include <cstring>

#include "lidartwin/base/status.h"

namespace lt {

void Frame::Reserve(size_t n) {
  x_m.reserve(n);
  y_m.reserve(n);
  z_m.reserve(n);
  range_m.reserve(n);
  intensity.reserve(n);
  reflectance.reserve(n);
  channel.reserve(n);
  column.reserve(n);
  timestamp_s.reserve(n);
  return_index.reserve(n);
  material_id.reserve(n);
  instance_id.reserve(n);
  semantic_class.reserve(n);
  beam_id.reserve(n);
  return_type.reserve(n);
}

void Frame::Resize(size_t n) {
  x_m.resize(n);
  y_m.resize(n);
  z_m.resize(n);
  range_m.resize(n);
  intensity.resize(n);
  reflectance.resize(n);
  channel.resize(n);
  column.resize(n);
  timestamp_s.resize(n);
  return_index.resize(n);
  material_id.resize(n);
  instance_id.resize(n);
  semantic_class.resize(n);
  beam_id.resize(n);
}

void Frame::Append(const FramePoint& p) {
  x_m.push_back(p.x_m);
  y_m.push_back(p.y_m);
  z_m.push_back(p.z_m);
  range_m.push_back(p.range_m);
  intensity.push_back(p.intensity);
  reflectance.push_back(p.reflectance);
  channel.push_back(p.channel);
  column.push_back(p.column);
  timestamp_s.push_back(p.timestamp_s);
  return_index.push_back(p.return_index);
  material_id.push_back(p.material_id);
  instance_id.push_back(p.instance_id);
  semantic_class.push_back(p.semantic_class);
  beam_id.push_back(p.beam_id);
  if (p.return_type) return_type.push_back(physics::Code(*p.return_type));
}

namespace {
template <typename T>
constexpr FieldType TypeOf();
template <>
constexpr FieldType TypeOf<float>() {
  return FieldType::kFloat32;
}
template <>
constexpr FieldType TypeOf<double>() {
  return FieldType::kFloat64;
}
template <>
constexpr FieldType TypeOf<uint8_t>() {
  return FieldType::kUInt8;
}
template <>
constexpr FieldType TypeOf<uint16_t>() {
  return FieldType::kUInt16;
}
template <>
constexpr FieldType TypeOf<uint32_t>() {
  return FieldType::kUInt32;
}

// Calls fn(name, unit, vector&) for every per-point field; the single list of fields.
template <typename FrameT, typename Fn>
void ForEachField(FrameT& f, Fn&& fn) {
  fn("x", "m", f.x_m);
  fn("y", "m", f.y_m);
  fn("z", "m", f.z_m);
  fn("range", "m", f.range_m);
  fn("intensity", "percent", f.intensity);
  fn("reflectance", "fraction", f.reflectance);
  fn("channel", "index", f.channel);
  fn("column", "index", f.column);
  fn("timestamp", "s", f.timestamp_s);
  fn("return_index", "index", f.return_index);
  fn("echo_pulse_width", "ns", f.echo_pulse_width_ns);
  fn("material_id", "index", f.material_id);
  fn("instance_id", "id", f.instance_id);
  fn("semantic_class", "class", f.semantic_class);
  fn("beam_id", "index", f.beam_id);
  // Last: the frames file's export records name columns by their place in this list.
  fn("return_type", "code", f.return_type);
}
}  // namespace

std::vector<FieldView> FrameFields(const Frame& f) {
  std::vector<FieldView> out;
  ForEachField(f, [&](const char* name, const char* unit, const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    out.push_back({name, unit, TypeOf<T>(), v.data(), v.size()});
  });
  return out;
}

bool IsOptionalFrameField(const char* name) {
  return std::strcmp(name, "echo_pulse_width") == 0 || std::strcmp(name, "return_type") == 0;
}

std::vector<std::string> AbsentFields(const Frame& f) {
  std::vector<std::string> out;
  if (f.size() == 0) return out;
  for (const FieldView& v : FrameFields(f)) {
    if (v.size != f.size()) out.push_back(v.name);
  }
  return out;
}

void DropFields(Frame& f, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    bool known = false;
    ForEachField(f, [&](const char* field_name, const char*, auto& v) {
      if (std::strcmp(name, field_name) != 0) return;
      known = true;
      v.clear();
      v.shrink_to_fit();
    });
    LT_CHECK(known);
  }
}

void KeepPoints(Frame& f, const std::vector<bool>& keep) {
  LT_CHECK(keep.size() == f.size());
  ForEachField(f, [&](const char*, const char*, auto& v) {
    if (v.size() != keep.size()) return;  // an absent field stays absent
    size_t kept = 0;
    for (size_t i = 0; i < v.size(); ++i)
      if (keep[i]) v[kept++] = v[i];
    v.resize(kept);
  });
}

void* ResizeFrameField(Frame& f, const std::string& name, size_t n, FieldType* type_out) {
  void* result = nullptr;
  ForEachField(f, [&](const char* field_name, const char*, auto& v) {
    if (name == field_name) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      v.assign(n, T{});
      *type_out = TypeOf<T>();
      result = v.data();
    }
  });
  return result;
}

}  // namespace lt
