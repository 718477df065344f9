// Velodyne data packets (VLP-16 manual sec. 9, HDL-32E manual appendix E): 12 blocks of
// [0xFFEE flag, azimuth u16 in 0.01 deg, 32 x (distance u16 in 2 mm, reflectivity u8)],
// then a u32 timestamp (us past the hour), the return mode and the product id.
#include "lidartwin/datasets/velodyne.h"
#include "lidartwin/sim/text_file.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "lidartwin/datasets/pcap.h"

namespace lt {

namespace {

constexpr size_t kPacketBytes = 1206, kBlockBytes = 100, kBlocks = 12;
constexpr uint16_t kDataPort = 2368;
constexpr uint8_t kDualReturn = 0x39, kHdl32e = 0x21, kVlp16 = 0x22;
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

Expected<VelodyneCalibration> LoadVelodyneCalibration(const std::filesystem::path& file) {
  auto text = ReadTextFile(file, " Velodyne calibration");
  if (!text.ok()) return text.error();
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return Error{file.string() + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
  if (!root.IsMap()) return Error{file.string() + ": expected a mapping with a 'lasers' list"};
  const YAML::Node lasers = root["lasers"];
  if (!lasers || !lasers.IsSequence() || lasers.size() == 0) {
    return Error{file.string() + ": key 'lasers' is missing or empty"};
  }
  VelodyneCalibration c;
  c.lasers.resize(lasers.size());
  std::vector<bool> seen(lasers.size(), false);
  for (size_t i = 0; i < lasers.size(); ++i) {
    const YAML::Node l = lasers[i];
    const std::string where = file.string() + ": lasers[" + std::to_string(i) + "]";
    try {
      if (!l["laser_id"] || !l["rot_correction"] || !l["vert_correction"]) {
        return Error{where + ": needs laser_id, rot_correction and vert_correction"};
      }
      const int id = l["laser_id"].as<int>();
      if (id < 0 || id >= static_cast<int>(lasers.size()) || seen[id]) {
        return Error{where + ": key 'laser_id': " + std::to_string(id) +
                     " is out of range or repeated"};
      }
      seen[id] = true;
      VelodyneLaser& v = c.lasers[id];
      v.rot_correction_rad = l["rot_correction"].as<double>();
      v.vert_correction_rad = l["vert_correction"].as<double>();
      if (l["dist_correction"]) v.dist_correction_m = l["dist_correction"].as<double>();
      if (l["vert_offset_correction"]) v.vert_offset_m = l["vert_offset_correction"].as<double>();
      if (l["horiz_offset_correction"])
        v.horiz_offset_m = l["horiz_offset_correction"].as<double>();
      if (!(std::abs(v.vert_correction_rad) <= kPi / 2) ||
          !(std::abs(v.rot_correction_rad) <= 2 * kPi) || !std::isfinite(v.dist_correction_m) ||
          !std::isfinite(v.vert_offset_m) || !std::isfinite(v.horiz_offset_m)) {
        return Error{where +
                     ": angles must be in radians (|vert| <= pi/2, |rot| <= 2 pi) and "
                     "offsets finite"};
      }
    } catch (const YAML::Exception& e) {
      return Error{where + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg};
    }
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
  if (!(c.distance_resolution_m > 0) || !std::isfinite(c.distance_resolution_m))
    return Error{file.string() + ": key 'distance_resolution' must be a positive number"};
  return c;
}

Expected<std::vector<Frame>> ReadVelodynePcap(const std::filesystem::path& pcap,
                                              const VelodyneCalibration& cal) {
  auto datagrams = ReadPcapUdp(pcap);
  if (!datagrams.ok()) return datagrams.error();
  std::vector<Frame> frames;
  double last_azimuth = -1;
  uint32_t sequence_in_frame = 0;
  for (const UdpDatagram& d : datagrams.value()) {
    if (d.dst_port != kDataPort) continue;
    const auto at = [&](size_t k) { return std::to_string(d.file_offset + k); };
    if (d.payload.size() != kPacketBytes) {
      return Error{pcap.string() + ": byte " + at(0) + ": data packet of " +
                   std::to_string(d.payload.size()) + " bytes (1206 expected)"};
    }
    const uint8_t* p = d.payload.data();
    const uint8_t product = p[1205];
    const bool dual = p[1204] == kDualReturn;
    Timing timing;
    if (product == kVlp16) {
      timing = kVlp16Timing;
    } else if (product == kHdl32e) {
      timing = kHdl32eTiming;
    } else {
      return Error{pcap.string() + ": byte " + at(1205) + ": product id 0x" + Hex(product) +
                   " is not a VLP-16 (0x22) or HDL-32E (0x21)"};
    }
    if (static_cast<int>(cal.lasers.size()) != timing.lasers) {
      return Error{pcap.string() + ": the capture is from a " +
                   std::string(product == kVlp16 ? "VLP-16" : "HDL-32E") +
                   " but the calibration has " + std::to_string(cal.lasers.size()) + " lasers"};
    }
    const double packet_time = Le<uint32_t>(p + 1200) * 1e-6;
    const double block_s = timing.sequences * timing.sequence_s;
    for (size_t b = 0; b < kBlocks; ++b) {
      const uint8_t* blk = p + b * kBlockBytes;
      if (Le<uint16_t>(blk) != 0xEEFF) {
        return Error{pcap.string() + ": byte " + at(b * kBlockBytes) + ": block flag 0x" +
                     Hex(Le<uint16_t>(blk)) + " is not 0xEEFF"};
      }
      const double azimuth = Le<uint16_t>(blk + 2) * 0.01;  // deg
      if (azimuth >= 360) {
        return Error{pcap.string() + ": byte " + at(b * kBlockBytes + 2) + ": azimuth " +
                     std::to_string(azimuth) + " deg is not below 360"};
      }
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
        if (frames.empty() || azimuth < last_azimuth) {
          Frame f;
          f.index = static_cast<uint32_t>(frames.size());
          f.start_time_s = packet_time + firing_block * block_s;
          frames.push_back(std::move(f));
          sequence_in_frame = 0;
        }
        last_azimuth = azimuth;
      }
      Frame& f = frames.back();
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
          const double cv = std::cos(l.vert_correction_rad), sv = std::sin(l.vert_correction_rad);
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
  }
  return frames;
}

}  // namespace lt
