#include "rosbag/point_cloud_messages.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include "lidartwin/base/message_text.h"
#include "rosbag/cdr_reader.h"
#include "rosbag/cdr_writer.h"

namespace lt::ros {
namespace {

// sensor_msgs/msg/PointField's datatype constants.
enum Datatype : uint8_t {
  kInt8 = 1,
  kUint8 = 2,
  kInt16 = 3,
  kUint16 = 4,
  kInt32 = 5,
  kUint32 = 6,
  kFloat32 = 7,
  kFloat64 = 8
};
size_t DatatypeBytes(uint8_t t) {
  switch (t) {
    case kInt8:
    case kUint8:
      return 1;
    case kInt16:
    case kUint16:
      return 2;
    case kInt32:
    case kUint32:
    case kFloat32:
      return 4;
    case kFloat64:
      return 8;
  }
  return 0;
}

const std::string kSeparator = std::string(80, '=') + "\n";

const std::string kHeaderMsg =
    "# Standard metadata for higher-level stamped data types.\n"
    "builtin_interfaces/Time stamp\n"
    "string frame_id\n";
const std::string kTimeMsg = "int32 sec\nuint32 nanosec\n";

void WriteHeader(CdrWriter& w, int64_t stamp_ns, const std::string& frame_id) {
  const int64_t sec = stamp_ns >= 0 ? stamp_ns / 1000000000 : (stamp_ns - 999999999) / 1000000000;
  w.I32(static_cast<int32_t>(sec));
  w.U32(static_cast<uint32_t>(stamp_ns - sec * 1000000000));
  w.String(frame_id);
}

// One field of the cloud we write: its name and type, and how a point's value is read.
struct OutField {
  const char* name;
  uint8_t type;
  double (*value)(const Frame&, size_t, double t0);
  size_t (*count)(const Frame&);  // the frame's values of it: absent where not frame.size()
};

const std::vector<OutField>& OutFields() {
  // Largest types first, so every field sits at a multiple of its size (a PointCloud2Iterator
  // reads them in place) and the 48 bytes of fields make a 48-byte point.
  static const std::vector<OutField> kFields = {
      {"x", kFloat32,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.x_m[i]); },
       [](const Frame& f) { return f.x_m.size(); }},
      {"y", kFloat32,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.y_m[i]); },
       [](const Frame& f) { return f.y_m.size(); }},
      {"z", kFloat32,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.z_m[i]); },
       [](const Frame& f) { return f.z_m.size(); }},
      {"intensity", kFloat32,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.intensity[i]); },
       [](const Frame& f) { return f.intensity.size(); }},
      {"time", kFloat32, [](const Frame& f, size_t i, double t0) { return f.timestamp_s[i] - t0; },
       [](const Frame& f) { return f.timestamp_s.size(); }},
      {"range", kFloat32,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.range_m[i]); },
       [](const Frame& f) { return f.range_m.size(); }},
      {"reflectance", kFloat32,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.reflectance[i]); },
       [](const Frame& f) { return f.reflectance.size(); }},
      {"column", kUint32,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.column[i]); },
       [](const Frame& f) { return f.column.size(); }},
      {"beam_id", kUint32,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.beam_id[i]); },
       [](const Frame& f) { return f.beam_id.size(); }},
      {"instance_id", kUint32,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.instance_id[i]); },
       [](const Frame& f) { return f.instance_id.size(); }},
      {"ring", kUint16,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.channel[i]); },
       [](const Frame& f) { return f.channel.size(); }},
      {"material_id", kUint16,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.material_id[i]); },
       [](const Frame& f) { return f.material_id.size(); }},
      {"semantic_class", kUint16,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.semantic_class[i]); },
       [](const Frame& f) { return f.semantic_class.size(); }},
      {"return_index", kUint8,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.return_index[i]); },
       [](const Frame& f) { return f.return_index.size(); }},
      {"return_type", kUint8,
       [](const Frame& f, size_t i, double) { return static_cast<double>(f.return_type[i]); },
       [](const Frame& f) { return f.return_type.size(); }},
  };
  return kFields;
}

template <typename T>
void Put(uint8_t* at, double v) {
  const T t = static_cast<T>(v);
  std::memcpy(at, &t, sizeof t);
}

template <typename T>
double Get(const uint8_t* at, bool swap) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, at, sizeof(T));
  if (swap)
    for (size_t i = 0; i < sizeof(T) / 2; ++i)
      std::swap(b[i], b[sizeof(T) - 1 - i]);
  T v;
  std::memcpy(&v, b, sizeof(T));
  return static_cast<double>(v);
}

double Value(const uint8_t* at, uint8_t type, bool swap) {
  switch (type) {
    case kInt8:
      return Get<int8_t>(at, swap);
    case kUint8:
      return Get<uint8_t>(at, swap);
    case kInt16:
      return Get<int16_t>(at, swap);
    case kUint16:
      return Get<uint16_t>(at, swap);
    case kInt32:
      return Get<int32_t>(at, swap);
    case kUint32:
      return Get<uint32_t>(at, swap);
    case kFloat32:
      return Get<float>(at, swap);
    default:
      return Get<double>(at, swap);
  }
}

// A value as an unsigned field takes it: NaN and negatives 0, beyond the type its largest.
template <typename T>
T Whole(double v) {
  if (!(v > 0)) return 0;
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

struct InField {
  uint32_t offset = 0;
  uint8_t type = 0;
};

}  // namespace

bool IsPointCloudType(const std::string& type) {
  return type == kPointCloud2Type || type == "sensor_msgs/PointCloud2";
}

const std::string& PointCloud2Schema() {
  static const std::string kText =
      "std_msgs/Header header\n"
      "uint32 height\nuint32 width\n"
      "PointField[] fields\n"
      "bool    is_bigendian\nuint32  point_step\nuint32  row_step\n"
      "uint8[] data\n"
      "bool is_dense\n" +
      kSeparator + "MSG: std_msgs/Header\n" + kHeaderMsg + kSeparator +
      "MSG: builtin_interfaces/Time\n" + kTimeMsg + kSeparator + "MSG: sensor_msgs/PointField\n" +
      "uint8 INT8    = 1\nuint8 UINT8   = 2\nuint8 INT16   = 3\nuint8 UINT16  = 4\n"
      "uint8 INT32   = 5\nuint8 UINT32  = 6\nuint8 FLOAT32 = 7\nuint8 FLOAT64 = 8\n"
      "string name\nuint32 offset\nuint8  datatype\nuint32 count\n";
  return kText;
}

const std::string& TfMessageSchema() {
  static const std::string kText =
      "geometry_msgs/TransformStamped[] transforms\n" + kSeparator +
      "MSG: geometry_msgs/TransformStamped\n"
      "std_msgs/Header header\nstring child_frame_id\nTransform transform\n" +
      kSeparator + "MSG: std_msgs/Header\n" + kHeaderMsg + kSeparator +
      "MSG: builtin_interfaces/Time\n" + kTimeMsg + kSeparator +
      "MSG: geometry_msgs/Transform\nVector3 translation\nQuaternion rotation\n" + kSeparator +
      "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n" + kSeparator +
      "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n";
  return kText;
}

std::vector<uint8_t> EncodePointCloud2(const Frame& frame, int64_t stamp_ns,
                                       const std::string& frame_id) {
  // The fields the frame has (a PCD's or a bag's cloud may lack some): largest first still.
  std::vector<OutField> fields;
  for (const OutField& f : OutFields())
    if (f.count(frame) == frame.size()) fields.push_back(f);
  std::vector<uint32_t> offsets;
  uint32_t step = 0;
  for (const OutField& f : fields) {
    offsets.push_back(step);
    step += static_cast<uint32_t>(DatatypeBytes(f.type));
  }
  step = (step + 3) / 4 * 4;  // the point padded to its largest field's alignment
  const size_t n = frame.size();
  CdrWriter w;
  WriteHeader(w, stamp_ns, frame_id);
  w.U32(1);
  w.U32(static_cast<uint32_t>(n));
  w.U32(static_cast<uint32_t>(fields.size()));
  for (size_t k = 0; k < fields.size(); ++k) {
    w.String(fields[k].name);
    w.U32(offsets[k]);
    w.U8(fields[k].type);
    w.U32(1);
  }
  w.Bool(false);
  w.U32(step);
  w.U32(static_cast<uint32_t>(step * n));
  w.U32(static_cast<uint32_t>(step * n));
  std::vector<uint8_t>& out = w.bytes();
  const size_t data_at = out.size();
  out.resize(data_at + size_t{step} * n);
  const double t0 = static_cast<double>(stamp_ns) * 1e-9;
  for (size_t i = 0; i < n; ++i) {
    uint8_t* point = &out[data_at + i * step];
    for (size_t k = 0; k < fields.size(); ++k) {
      const double v = fields[k].value(frame, i, t0);
      uint8_t* at = point + offsets[k];
      switch (fields[k].type) {
        case kUint8:
          Put<uint8_t>(at, v);
          break;
        case kUint16:
          Put<uint16_t>(at, v);
          break;
        case kUint32:
          Put<uint32_t>(at, v);
          break;
        default:
          Put<float>(at, v);
      }
    }
  }
  w.Bool(true);
  return std::move(out);
}

std::vector<uint8_t> EncodeTfMessage(const std::vector<StampedTransform>& transforms) {
  CdrWriter w;
  w.U32(static_cast<uint32_t>(transforms.size()));
  for (const StampedTransform& t : transforms) {
    WriteHeader(w, t.stamp_ns, t.parent);
    w.String(t.child);
    w.F64(t.pose.translation.x);
    w.F64(t.pose.translation.y);
    w.F64(t.pose.translation.z);
    w.F64(t.pose.rotation.x);
    w.F64(t.pose.rotation.y);
    w.F64(t.pose.rotation.z);
    w.F64(t.pose.rotation.w);
  }
  return std::move(w.bytes());
}

Expected<Frame> DecodePointCloud2(const BagMessage& message, std::vector<std::string>* absent) {
  const bool ros1 = message.topic->serialization == "ros1";
  CdrReader r = ros1 ? CdrReader::Ros1(message.data) : CdrReader(message.data);
  if (ros1) r.U32();  // ROS 1's Header begins with a uint32 seq
  const int32_t sec = r.I32();
  const uint32_t nanosec = r.U32();
  r.String();
  const uint32_t height = r.U32(), width = r.U32();
  // A field is at least its name's length, offset, datatype and count: 13 bytes.
  const uint32_t count = r.Count(13);
  std::map<std::string, InField> fields;
  for (uint32_t k = 0; k < count && r.ok(); ++k) {
    const std::string name = r.String();
    InField f;
    f.offset = r.U32();
    f.type = r.U8();
    r.U32();
    if (r.ok() && !fields.emplace(name, f).second)
      return Error{message.where + " (" + message.topic->type + "): field " +
                   ShortenedForMessage(name) + " is declared twice"};
  }
  const bool big = r.Bool();
  const uint32_t step = r.U32(), row_step = r.U32();
  const uint32_t bytes = r.Count(1);
  const auto data = r.Bytes(bytes);
  const std::string where = message.where + " (" + message.topic->type + ")";
  if (!r.ok()) return Error{where + ": " + r.error()};
  const uint64_t points = uint64_t{height} * width;
  if (points > kMaxCloudPoints)
    return Error{where + ": " + std::to_string(width) + " x " + std::to_string(height) +
                 " points, more than the " + std::to_string(kMaxCloudPoints) + " a frame may hold"};
  if (points > 0 &&
      (step == 0 || uint64_t{row_step} * height > data.size() || uint64_t{step} * width > row_step))
    return Error{where + ": " + std::to_string(width) + " x " + std::to_string(height) +
                 " points of " + std::to_string(step) + " bytes in rows of " +
                 std::to_string(row_step) + " do not fit its " + std::to_string(data.size()) +
                 " bytes of data"};
  for (const auto& [name, f] : fields)
    if (DatatypeBytes(f.type) == 0)
      return Error{where + ": field " + name + " has datatype " + std::to_string(f.type) +
                   ", none of PointField's 1-8"};
    else if (f.offset + DatatypeBytes(f.type) > step)
      return Error{where + ": field " + name + " (datatype " + std::to_string(f.type) +
                   " at byte " + std::to_string(f.offset) + ") lies outside its " +
                   std::to_string(step) + "-byte point"};
  auto find = [&](std::initializer_list<const char*> names) -> std::optional<InField> {
    for (const char* n : names)
      if (auto it = fields.find(n); it != fields.end()) return it->second;
    return std::nullopt;
  };
  const auto x = find({"x"}), y = find({"y"}), z = find({"z"});
  if (!x || !y || !z) return Error{where + ": a point cloud without x, y and z fields"};
  const auto intensity = find({"intensity", "reflectivity", "signal"});
  const auto ring = find({"ring", "channel"});
  const auto time = find({"time", "t", "timestamp", "time_stamp"});
  auto ret = find({"return_index"});
  auto type = find({"return_type"});
  // Our bags before return types were kept wrote the return index as "return_type", beside our
  // own beam_id and column and without a return_index (which every frame of ours that carries
  // those has since): read it as what it was.
  if (!ret && type && find({"beam_id"}) && find({"column"})) std::swap(ret, type);
  if (absent) {
    absent->clear();
    if (!intensity) absent->push_back("intensity");
    if (!ring) absent->push_back("ring");
    if (!time) absent->push_back("time");
    if (!type) absent->push_back("return_type");
  }
  const auto range = find({"range"}), reflectance = find({"reflectance"}),
             column = find({"column"}), beam = find({"beam_id"}), material = find({"material_id"}),
             instance = find({"instance_id"}), semantic = find({"semantic_class"});
  const bool swap = big;  // the hosts we build for are little-endian
  const double stamp = sec + nanosec * 1e-9;
  Frame frame;
  frame.start_time_s = frame.end_time_s = stamp;
  for (uint32_t row = 0; row < height; ++row) {
    for (uint32_t col = 0; col < width; ++col) {
      const uint8_t* p = &data[size_t{row} * row_step + size_t{col} * step];
      auto get = [&](const std::optional<InField>& f) {
        return f ? Value(p + f->offset, f->type, swap) : 0.0;
      };
      FramePoint pt;
      pt.x_m = static_cast<float>(get(x));
      pt.y_m = static_cast<float>(get(y));
      pt.z_m = static_cast<float>(get(z));
      if (!std::isfinite(pt.x_m) || !std::isfinite(pt.y_m) || !std::isfinite(pt.z_m)) continue;
      pt.range_m = range ? static_cast<float>(get(range))
                         : std::sqrt(pt.x_m * pt.x_m + pt.y_m * pt.y_m + pt.z_m * pt.z_m);
      pt.intensity = static_cast<float>(get(intensity));
      pt.reflectance = static_cast<float>(get(reflectance));
      pt.channel = Whole<uint16_t>(get(ring));
      pt.column = column ? Whole<uint32_t>(get(column)) : col;
      if (time) {
        // Floats are seconds, integers nanoseconds; below a day, relative to the stamp.
        double t = get(time);
        if (time->type != kFloat32 && time->type != kFloat64) t *= 1e-9;
        pt.timestamp_s = t < 86400 ? stamp + t : t;
      } else {
        pt.timestamp_s = stamp;
      }
      pt.return_index = Whole<uint8_t>(get(ret));
      // nebula's codes are ours (physics/return_type.h); a code past them is kept as it is.
      if (type) pt.return_type = physics::ReturnType{Whole<uint8_t>(get(type))};
      pt.beam_id = Whole<uint32_t>(get(beam));
      pt.material_id = Whole<uint16_t>(get(material));
      pt.instance_id = Whole<uint32_t>(get(instance));
      pt.semantic_class = Whole<uint16_t>(get(semantic));
      frame.Append(pt);
    }
  }
  // What the message does not carry is absent from the frame, not zero (as a PCD's or PLY's
  // missing fields): its writers then leave it out.
  if (!intensity) frame.intensity.clear();
  if (!reflectance) frame.reflectance.clear();
  if (!ring) frame.channel.clear();
  if (!time) frame.timestamp_s.clear();
  if (!ret) frame.return_index.clear();
  if (!beam) frame.beam_id.clear();
  if (!material) frame.material_id.clear();
  if (!instance) frame.instance_id.clear();
  if (!semantic) frame.semantic_class.clear();
  return frame;
}

}  // namespace lt::ros
