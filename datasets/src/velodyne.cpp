// Velodyne data packets (VLP-16 manual sec. 9, HDL-32E manual appendix E): 12 blocks of
// [0xFFEE flag, azimuth u16 in 0.01 deg, 32 x (distance u16 in 2 mm, reflectivity u8)],
// then a u32 timestamp (us past the hour), the return mode and the product id.
#include "lidartwin/datasets/velodyne.h"
#include "lidartwin/sim/config_check.h"
#include "lidartwin/sim/text_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "lidartwin/datasets/pcap.h"

namespace lt {

namespace {

constexpr size_t kPacketBytes = 1206, kBlockBytes = 100, kBlocks = 12;
constexpr uint16_t kDataPort = 2368, kPositionPort = 8308;
// Factory bytes: return mode (0x37 strongest, 0x38 last, 0x39 dual) and product id.
constexpr uint8_t kStrongestReturn = 0x37, kDualReturn = 0x39;
constexpr double kPi = 3.14159265358979323846;

struct Timing {
  int lasers;         // per firing sequence
  int sequences;      // firing sequences per block
  double sequence_s;  // duration of one sequence
  double laser_s;     // between lasers within a sequence
};
// VLP-16: 16 lasers every 2.304 us, sequences every 55.296 us, two per block.
// HDL-32E: 32 lasers every 1.152 us, one 46.080 us sequence per block.
constexpr Timing kVlp16Timing{16, 2, 55.296e-6, 2.304e-6};
constexpr Timing kHdl32eTiming{32, 1, 46.080e-6, 1.152e-6};

// Product ids of the factory bytes (VLP-16, Puck Hi-Res, VLP-32C and VLS-128 user manuals,
// "Factory bytes"); `timing` null where this reader does not decode the model's firing order.
struct Model {
  uint8_t product_id;
  const char* name;
  int lasers;
  const Timing* timing;
};
constexpr Model kModels[] = {
    {0x21, "HDL-32E", 32, &kHdl32eTiming},    {0x22, "VLP-16", 16, &kVlp16Timing},
    {0x24, "Puck Hi-Res", 16, &kVlp16Timing}, {0x28, "VLP-32C", 32, nullptr},
    {0xA1, "VLS-128", 128, nullptr},
};

const Model* ModelOf(uint8_t product_id) {
  for (const Model& m : kModels) {
    if (m.product_id == product_id) return &m;
  }
  return nullptr;
}

std::string Hex(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02X", v);
  return buf;
}

template <typename T>
T Le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace

// The model a calibration table is for, where its elevations say so unambiguously (the
// nominal tables of the ros-drivers and VeloView: VLP-16 +-15 deg, Puck Hi-Res +-10 deg,
// HDL-32E -30.67..+10.67 deg, VLP-32C -25..+15 deg); 0 where they do not.
uint8_t VelodyneCalibrationProduct(const VelodyneCalibration& c) {
  double lo = 90, hi = -90;
  for (const VelodyneLaser& l : c.lasers) {
    lo = std::min(lo, l.vert_correction_rad * 180 / kPi);
    hi = std::max(hi, l.vert_correction_rad * 180 / kPi);
  }
  const auto near = [](double a, double b) { return std::abs(a - b) < 1.0; };
  if (c.lasers.size() == 16 && near(lo, -15) && near(hi, 15)) return 0x22;
  if (c.lasers.size() == 16 && near(lo, -10) && near(hi, 10)) return 0x24;
  if (c.lasers.size() == 32 && near(lo, -30.67) && near(hi, 10.67)) return 0x21;
  if (c.lasers.size() == 32 && near(lo, -25) && near(hi, 15)) return 0x28;
  return 0;
}

namespace {

constexpr double kMaxCorrectionM = 10;

// "key 'X' (line N) appears twice (first at line M)" for the first repeated key of any map
// under `node`, or empty: YAML readers keep one of two equal keys silently. `budget` counts the
// nodes still to be visited: a tree read from n bytes has at most about n nodes ("a:" is two)
// unless aliases (*name) share subtrees, and nested aliases ("b: &b [*a, *a]", 40 deep) would make
// the walk take 2^40 steps (found by fuzz_recording_files in CI). Past the budget the walk stops
// with that message.
std::string DuplicateKey(const YAML::Node& node, size_t& budget) {
  if (budget == 0)
    return "YAML aliases (*name) repeat more nodes than a calibration of this size can hold";
  --budget;
  if (node.IsSequence()) {
    for (const auto& item : node)
      if (auto d = DuplicateKey(item, budget); !d.empty()) return d;
  } else if (node.IsMap()) {
    std::map<std::string, int> lines;
    for (const auto& kv : node) {
      const int line = kv.first.Mark().line + 1;
      if (!kv.first.IsScalar()) return "line " + std::to_string(line) + ": a key is a list or map";
      const auto [it, inserted] = lines.emplace(kv.first.Scalar(), line);
      if (!inserted) {
        return "key '" + kv.first.Scalar() + "' (line " + std::to_string(line) +
               ") appears twice (first at line " + std::to_string(it->second) + ")";
      }
      if (auto d = DuplicateKey(kv.second, budget); !d.empty()) return d;
    }
  }
  return "";
}

}  // namespace

Expected<VelodyneCalibration> LoadVelodyneCalibration(const std::filesystem::path& file) {
  auto text = ReadTextFile(file, " Velodyne calibration");
  if (!text.ok()) return text.error();
  if (Status s = CheckYamlCharacters(*text, file.string()); !s.ok()) return s.error();
  YAML::Node root;
  try {
    const std::vector<YAML::Node> documents = YAML::LoadAll(*text);
    if (documents.size() > 1) {
      return Error{file.string() + ": holds " + std::to_string(documents.size()) +
                   " YAML documents (separated by ---); a calibration is one"};
    }
    if (!documents.empty()) root = documents.front();
  } catch (const YAML::Exception& e) {
    return Error{file.string() + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
  if (!root.IsMap()) return Error{file.string() + ": expected a mapping with a 'lasers' list"};
  const YAML::Node lasers = root["lasers"];
  if (!lasers || !lasers.IsSequence() || lasers.size() == 0) {
    return Error{file.string() + ": key 'lasers' is missing or empty"};
  }
  size_t node_budget = 2 * text->size() + 16;  // twice the most a tree without aliases holds
  if (auto dup = DuplicateKey(root, node_budget); !dup.empty()) {
    return Error{file.string() + ": " + dup};
  }
  VelodyneCalibration c;
  c.file = file;
  c.lasers.resize(lasers.size());
  std::vector<bool> seen(lasers.size(), false);
  for (size_t i = 0; i < lasers.size(); ++i) {
    const YAML::Node l = lasers[i];
    const std::string where = file.string() + ": lasers[" + std::to_string(i) + "]";
    if (!l.IsMap() || !l["laser_id"] || !l["rot_correction"] || !l["vert_correction"]) {
      return Error{where + ": needs laser_id, rot_correction and vert_correction"};
    }
    // A number under `key`, or the error naming the key and its line.
    std::string problem;
    const auto number = [&](const char* key, double fallback) {
      const YAML::Node n = l[key];
      if (!n) return fallback;
      try {
        const double v = n.as<double>();
        if (std::isfinite(v)) return v;
      } catch (const YAML::Exception&) {
      }
      if (problem.empty()) {
        problem = where + ": key '" + key + "' (line " + std::to_string(n.Mark().line + 1) +
                  "): expected a finite number";
      }
      return fallback;
    };
    const double id_value = number("laser_id", -1);
    if (!problem.empty()) return Error{problem};
    // Range first: casting a double beyond int's range is undefined (found by UBSan in CI).
    const bool whole_in_range = id_value >= 0 && id_value < static_cast<double>(lasers.size()) &&
                                id_value == std::floor(id_value);
    const size_t id = whole_in_range ? static_cast<size_t>(id_value) : 0;
    if (!whole_in_range || seen[id]) {
      return Error{where + ": key 'laser_id': " + NumberText(id_value) +
                   " is out of range or repeated"};
    }
    seen[id] = true;
    VelodyneLaser& v = c.lasers[id];
    v.rot_correction_rad = number("rot_correction", 0);
    v.vert_correction_rad = number("vert_correction", 0);
    v.dist_correction_m = number("dist_correction", 0);
    v.vert_offset_m = number("vert_offset_correction", 0);
    v.horiz_offset_m = number("horiz_offset_correction", 0);
    if (!problem.empty()) return Error{problem};
    if (!(std::abs(v.vert_correction_rad) <= kPi / 2) ||
        !(std::abs(v.rot_correction_rad) <= 2 * kPi)) {
      return Error{where + ": angles must be in radians (|vert| <= pi/2, |rot| <= 2 pi)"};
    }
    // Corrections of a few centimetres to tens of centimetres in real calibrations; 10 m
    // would move points by more than the sensor's own size allows.
    for (const auto& [key, value] : {std::pair{"dist_correction", v.dist_correction_m},
                                     std::pair{"vert_offset_correction", v.vert_offset_m},
                                     std::pair{"horiz_offset_correction", v.horiz_offset_m}}) {
      if (!(std::abs(value) <= kMaxCorrectionM)) {
        return Error{where + ": key '" + key + "': " + NumberText(value) +
                     " m is beyond the 10 m a calibration correction may be"};
      }
    }
  }
  // Lasers at one elevation scan one cone, not a sensor's fan: a table whose every
  // vert_correction is the same (all 0: a template never filled in) is no calibration.
  if (c.lasers.size() > 1 &&
      std::all_of(c.lasers.begin(), c.lasers.end(), [&](const VelodyneLaser& l) {
        return l.vert_correction_rad == c.lasers.front().vert_correction_rad;
      })) {
    return Error{file.string() + ": every one of the " + std::to_string(c.lasers.size()) +
                 " lasers has vert_correction " + NumberText(c.lasers.front().vert_correction_rad) +
                 " rad; a calibration gives each laser its own elevation"};
  }
  try {
    if (root["num_lasers"] && root["num_lasers"].as<size_t>() != c.lasers.size()) {
      return Error{file.string() + ": key 'num_lasers' disagrees with the " +
                   std::to_string(c.lasers.size()) + " lasers listed"};
    }
    if (root["distance_resolution"])
      c.distance_resolution_m = root["distance_resolution"].as<double>();
  } catch (const YAML::Exception& e) {
    return Error{file.string() + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
  if (!(c.distance_resolution_m > 0 && c.distance_resolution_m <= 1))
    return Error{file.string() + ": key 'distance_resolution' must be in (0, 1] m, got " +
                 NumberText(c.distance_resolution_m)};
  return c;
}

Status ForEachVelodyneFrame(const std::filesystem::path& pcap, const VelodyneCalibration& cal,
                            const FrameSink& sink, CaptureStats* stats_out) {
  CaptureStats local;
  CaptureStats& stats = stats_out ? *stats_out : local;
  const std::string cal_name = cal.file.empty() ? "the calibration" : cal.file.string();
  const Model* model = nullptr;  // of the capture, from its first data packet
  Frame f;
  bool open = false;
  uint32_t emitted = 0;
  double last_azimuth = -1;
  uint32_t sequence_in_frame = 0;
  // (timestamp, first azimuth) of recent packets: a repeat is a duplicated packet.
  std::array<uint64_t, 32> recent;
  recent.fill(~uint64_t{0});
  size_t recent_next = 0;
  const auto emit = [&]() -> Status {
    if (!open) return {};
    ++emitted;
    open = false;
    return sink(std::move(f));
  };
  const auto bad = [&](uint64_t at, const std::string& what) { stats.BadPacket(pcap, at, what); };
  Status read = ForEachUdpDatagram(
      pcap,
      [&](const UdpDatagram& d) -> Status {
        stats.SawUdp(d.dst_port, d.payload.size());
        if (d.dst_port == kPositionPort) {
          ++stats.position_packets;
          return {};
        }
        if (d.dst_port != kDataPort) {
          ++stats.other_udp;
          return {};
        }
        const auto at = [&](size_t k) { return d.file_offset + k; };
        if (d.payload.size() != kPacketBytes) {
          bad(at(0), "data packet of " + std::to_string(d.payload.size()) + " bytes (" +
                         std::to_string(kPacketBytes) + " expected)");
          return {};
        }
        const uint8_t* p = d.payload.data();
        const uint8_t product = p[1205];
        const Model* m = ModelOf(product);
        if (!m) {
          bad(at(1205),
              "product id 0x" + Hex(product) + " is not a Velodyne model this reader knows");
          return {};
        }
        if (!model) {
          // The first data packet names the model: check it against the calibration.
          if (static_cast<size_t>(m->lasers) != cal.lasers.size()) {
            return Error{pcap.string() + ": byte " + std::to_string(at(1205)) +
                         ": the capture is from a " + m->name + " but the calibration has " +
                         std::to_string(cal.lasers.size()) + " lasers (product id 0x" +
                         Hex(product) + "; a " + m->name + " has " + std::to_string(m->lasers) +
                         "; " + cal_name + ")"};
          }
          const uint8_t cal_product = VelodyneCalibrationProduct(cal);
          if (cal_product && cal_product != product) {
            const Model* c = ModelOf(cal_product);
            return Error{pcap.string() + ": byte " + std::to_string(at(1205)) +
                         ": the capture is from a " + m->name + " (product id 0x" + Hex(product) +
                         ") but " + cal_name + " is a " + c->name +
                         "'s calibration (by its laser elevations)"};
          }
          if (!m->timing) {
            return Error{pcap.string() + ": byte " + std::to_string(at(1205)) +
                         ": the capture is from a " + m->name + " (product id 0x" + Hex(product) +
                         "), whose firing order this reader does not decode (it reads VLP-16, "
                         "Puck Hi-Res and HDL-32E)"};
          }
          model = m;
        } else if (m != model) {
          bad(at(1205), "product id 0x" + Hex(product) + " (" + m->name + ") in a capture of a " +
                            model->name);
          return {};
        }
        const uint8_t mode = p[1204];
        if (mode < kStrongestReturn || mode > kDualReturn) {
          bad(at(1204), "return mode 0x" + Hex(mode) + " is not 0x37, 0x38 or 0x39");
          return {};
        }
        for (size_t b = 0; b < kBlocks; ++b) {
          const uint8_t* blk = p + b * kBlockBytes;
          if (Le<uint16_t>(blk) != 0xEEFF) {
            bad(at(b * kBlockBytes), "block flag 0x" + Hex(Le<uint16_t>(blk)) + " is not 0xEEFF");
            return {};
          }
          if (Le<uint16_t>(blk + 2) >= 36000) {
            bad(at(b * kBlockBytes + 2), "azimuth " + std::to_string(Le<uint16_t>(blk + 2) * 0.01) +
                                             " deg is not below 360");
            return {};
          }
        }
        const uint64_t key = uint64_t{Le<uint32_t>(p + 1200)} << 16 | Le<uint16_t>(p + 2);
        if (std::find(recent.begin(), recent.end(), key) != recent.end()) {
          ++stats.duplicates;
          return {};
        }
        recent[recent_next++ % recent.size()] = key;
        ++stats.lidar_packets;
        const Timing& timing = *model->timing;
        const bool dual = mode == kDualReturn;
        const double packet_time = Le<uint32_t>(p + 1200) * 1e-6;
        const double block_s = timing.sequences * timing.sequence_s;
        for (size_t b = 0; b < kBlocks; ++b) {
          const uint8_t* blk = p + b * kBlockBytes;
          const double azimuth = Le<uint16_t>(blk + 2) * 0.01;  // deg
          // Dual return: blocks come in pairs (last, strongest) fired at the same time.
          const size_t firing_block = dual ? b / 2 : b;
          const uint8_t ret = dual ? static_cast<uint8_t>(b % 2) : 0;
          // Azimuth advance over one block: to the next distinct block (or the previous one).
          const size_t step = dual ? 2 : 1;
          double gap;
          if (b + step < kBlocks) {
            gap = Le<uint16_t>(p + (b + step) * kBlockBytes + 2) * 0.01 - azimuth;
          } else {
            gap = azimuth - Le<uint16_t>(p + (b - step) * kBlockBytes + 2) * 0.01;
          }
          if (gap < 0) gap += 360;
          if (ret == 0) {
            if (!open || azimuth < last_azimuth) {
              if (Status s = emit(); !s.ok()) return s;
              f = Frame();
              f.index = emitted;
              f.start_time_s = packet_time + firing_block * block_s;
              open = true;
              sequence_in_frame = 0;
            }
            last_azimuth = azimuth;
          }
          for (int s = 0; s < timing.sequences; ++s) {
            for (int k = 0; k < timing.lasers; ++k) {
              const uint8_t* m = blk + 4 + 3 * (s * timing.lasers + k);
              const uint16_t raw = Le<uint16_t>(m);
              if (raw == 0) continue;  // no return
              const double dt = s * timing.sequence_s + k * timing.laser_s;
              const double t = packet_time + firing_block * block_s + dt;
              const double az = (azimuth + gap * dt / block_s) * kPi / 180;
              const VelodyneLaser& l = cal.lasers[k];
              const double dist = raw * cal.distance_resolution_m + l.dist_correction_m;
              const double rot = az - l.rot_correction_rad;
              const double cv = std::cos(l.vert_correction_rad);
              const double sv = std::sin(l.vert_correction_rad);
              const double xy = dist * cv - l.vert_offset_m * sv;
              // Velodyne's frame (azimuth clockwise from +y) turned to ROS (x forward, y left).
              const double vx = xy * std::sin(rot) - l.horiz_offset_m * std::cos(rot);
              const double vy = xy * std::cos(rot) + l.horiz_offset_m * std::sin(rot);
              FramePoint pt;
              pt.x_m = static_cast<float>(vy);
              pt.y_m = static_cast<float>(-vx);
              pt.z_m = static_cast<float>(dist * sv + l.vert_offset_m * cv);
              pt.range_m = static_cast<float>(dist);
              pt.intensity = m[2];
              pt.channel = static_cast<uint16_t>(k);
              pt.column = sequence_in_frame + s;
              pt.timestamp_s = t;
              pt.return_index = ret;
              pt.beam_id = (sequence_in_frame + s) * timing.lasers + k;
              f.Append(pt);
            }
          }
          if (!dual || ret == 1) sequence_in_frame += timing.sequences;
          f.end_time_s = packet_time + (firing_block + 1) * block_s;
        }
        return {};
      },
      &stats);
  if (!read.ok()) return read;
  if (stats.lidar_packets == 0) {
    std::string hint;
    for (const CaptureStats::Seen& s : stats.seen) {
      if (s.port == 7502 || s.port == 7503) {
        hint =
            ": this looks like an Ouster capture (port 7502); give its metadata (--metadata "
            "OUSTER.json) instead";
      }
    }
    return Error{
        pcap.string() + ": no Velodyne data packet (UDP port 2368, 1206 bytes) " +
        (stats.bad_packets ? "could be decoded" : "in the capture") + " for " + cal_name +
        " (seen " + stats.SeenSummary() +
        (stats.warnings.empty() ? std::string() : "; first problem: " + stats.warnings[0]) + ")" +
        hint};
  }
  if (stats.bad_packets * 9 > stats.lidar_packets) {
    return Error{pcap.string() + ": " + std::to_string(stats.bad_packets) + " of " +
                 std::to_string(stats.bad_packets + stats.lidar_packets) +
                 " data packets cannot be decoded (first: " + stats.warnings.front() + ")"};
  }
  return emit();
}

Expected<std::vector<Frame>> ReadVelodynePcap(const std::filesystem::path& pcap,
                                              const VelodyneCalibration& cal, CaptureStats* stats) {
  return CollectFrames(
      [&](const FrameSink& sink) { return ForEachVelodyneFrame(pcap, cal, sink, stats); });
}

}  // namespace lt
