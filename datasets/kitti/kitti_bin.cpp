#include "lidartwin/datasets/kitti_bin.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/datasets/scan_lines.h"

#include <cmath>
#include <cstring>
#include <string>

#include "lidartwin/base/text_file.h"
#include "lidartwin/physics/link_budget.h"

namespace lt {

namespace {

constexpr size_t kKittiBytes = 16, kNuscenesBytes = 20;
constexpr size_t kHdl64Lasers = 64;  // KITTI's sensor, a Velodyne HDL-64E
constexpr float kMaxRing = 1023;     // VLS-128 has 128; anything far beyond is not a ring index

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Reads `file` as float32 records of `Floats` values; `point` fills a point from one record
// (an error string when the record is not plausible).
template <size_t Floats, typename Fill>
Expected<Frame> ReadFloatRecords(const std::filesystem::path& file, Fill fill) {
  constexpr size_t kBytes = Floats * 4;
  // Regular files only (a directory or device is refused, not streamed), and no more points
  // than a frames file holds (what we read, we can write).
  auto bytes = ReadTextFile(
      file, " point file (at most " + std::to_string(kMaxHdf5PointsPerFrame) + " points)",
      kMaxHdf5PointsPerFrame * kBytes);
  if (!bytes.ok()) return bytes.error();
  const std::string& b = *bytes;
  if (b.size() % kBytes != 0) {
    return Error{file.string() + ": byte " + std::to_string(b.size() - b.size() % kBytes) +
                 ": truncated point (the file size " + std::to_string(b.size()) +
                 " is not a multiple of " + std::to_string(kBytes) + " bytes)"};
  }
  Frame f;
  const size_t n = b.size() / kBytes;
  f.Reserve(n);
  for (size_t i = 0; i < n; ++i) {
    float v[Floats];
    std::memcpy(v, b.data() + kBytes * i, kBytes);
    std::string problem;
    for (float x : v) {
      if (!std::isfinite(x)) problem = "is not finite";
    }
    FramePoint p;
    if (problem.empty()) {
      p.x_m = v[0];
      p.y_m = v[1];
      p.z_m = v[2];
      p.range_m = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      p.beam_id = static_cast<uint32_t>(i);
      problem = fill(v, p);
    }
    if (!problem.empty()) {
      return Error{file.string() + ": byte " + std::to_string(kBytes * i) + ": point " +
                   std::to_string(i) + " " + problem};
    }
    f.Append(p);
  }
  return f;
}

// A .bin holds x, y, z and one value a point (and a ring for nuScenes): no firing time, column,
// return or beam number (the point's index is not one), and no labels.
void DropWhatBinsLack(Frame& f) {
  DropFields(f, {"column", "timestamp", "return_index", "beam_id"});
  DropFields(f, kLabelFields);
}

}  // namespace

Expected<Frame> ReadKittiBin(const std::filesystem::path& file) {
  auto f = ReadFloatRecords<4>(file, [](const float* v, FramePoint& p) {
    p.reflectance = v[3];
    p.intensity = physics::ReportedIntensity(v[3]);  // KITTI stores reflectance 0..1
    return std::string();
  });
  if (!f.ok()) return f;
  DropWhatBinsLack(*f);
  if (!NumberScanLines(*f, kHdl64Lasers)) DropFields(*f, {"channel"});
  return f;
}

Expected<Frame> ReadNuscenesBin(const std::filesystem::path& file) {
  auto f = ReadFloatRecords<5>(file, [](const float* v, FramePoint& p) {
    if (!(v[4] >= 0 && v[4] <= kMaxRing && v[4] == std::floor(v[4]))) {
      return "has ring index " + std::to_string(v[4]) +
             ", not a laser number (is this a nuScenes .pcd.bin?)";
    }
    p.intensity = v[3];
    p.channel = static_cast<uint16_t>(v[4]);
    return std::string();
  });
  if (!f.ok()) return f;
  DropWhatBinsLack(*f);
  DropFields(*f, {"reflectance"});  // nuScenes' 0..255 intensity is not a calibrated one
  return f;
}

Expected<BinLayout> ChooseBinLayout(const std::filesystem::path& file, const std::string& format,
                                    std::string* note) {
  if (format == "kitti") return BinLayout::kKitti;
  if (format == "nuscenes") return BinLayout::kNuscenes;
  if (!format.empty()) {
    return Error{"format " + format + ": unknown point file layout (kitti or nuscenes)"};
  }
  const std::string name = file.filename().string();
  if (EndsWith(name, ".pcd.bin")) return BinLayout::kNuscenes;
  const auto parent = file.parent_path();
  if (parent.filename() == "velodyne" ||
      (parent.filename() == "data" && parent.parent_path().filename() == "velodyne_points")) {
    return BinLayout::kKitti;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) return Error{file.string() + ": is a directory"};
  const uint64_t size = std::filesystem::file_size(file, ec);
  if (ec) return Error{file.string() + ": cannot open (" + ec.message() + ")"};
  const bool kitti = size % kKittiBytes == 0, nuscenes = size % kNuscenesBytes == 0;
  const std::string rule =
      " (a nuScenes file is named *.pcd.bin, a KITTI scan lies in a velodyne/ folder; "
      "otherwise give the format: kitti or nuscenes)";
  if (kitti && nuscenes) {
    return Error{file.string() + ": " + std::to_string(size) +
                 " bytes fit both KITTI's 16-byte points (x, y, z, reflectance) and nuScenes' "
                 "20-byte points (x, y, z, intensity, ring), and the name does not say which" +
                 rule};
  }
  if (!kitti && !nuscenes) {
    return Error{file.string() + ": " + std::to_string(size) +
                 " bytes is a multiple of neither 16 (KITTI points) nor 20 (nuScenes points): "
                 "truncated, or not a point file"};
  }
  if (note) {
    *note = file.string() + ": read as " +
            (kitti ? std::string("KITTI (16-byte points: x, y, z, reflectance)")
                   : std::string("nuScenes (20-byte points: x, y, z, intensity, ring)")) +
            ", the only layout its size fits" + rule;
  }
  return kitti ? BinLayout::kKitti : BinLayout::kNuscenes;
}

}  // namespace lt
