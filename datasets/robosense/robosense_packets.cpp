// RoboSense MSOP and DIFOP packets to frames: the RS-LiDAR-16 and -32 and the Helios (32) from
// RoboSense's manuals and rs_driver, the Helios-16P as nebula (tier4, c60082d5; derived from
// rs_driver) decodes it. docs/formats/velodyne-robosense-answer-keys.md has the Helios-16P's
// layouts and what each rule was checked against, docs/formats/robosense-models.md the others.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <optional>
#include <sstream>
#include <utility>

#include "capture/bytes.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/robosense.h"
#include "robosense_models.h"

namespace lt {
namespace {

using bytes::Be;

constexpr int kBlocks = 12, kChannels = 32;
constexpr size_t kFirstBlock = 42, kBlockBytes = 100;

// A single-return mode's kind from DIFOP byte 300 (RS-LiDAR: 1 strongest, 2 last; Helios: 4
// strongest, 5 last, 6 first; docs/formats/robosense-models.md). In dual return (0) the first
// of a pair is the strongest and the second the last (nebula's reading of the manuals), or both
// identical where they are one echo.
physics::ReturnType SingleReturnType(uint8_t mode) {
  switch (mode) {
    case 1:
    case 4:
      return physics::ReturnType::kStrongest;
    case 2:
    case 5:
      return physics::ReturnType::kLast;
    case 6:
      return physics::ReturnType::kFirst;
  }
  return physics::ReturnType::kUnknown;
}

// float sin and cos of 0.01 deg steps over [-90, 450) deg, as the driver tabulates them.
class Trig {
 public:
  Trig() {
    for (int i = kMin; i < kMax; ++i) {
      const double rad = i * 0.01 * std::numbers::pi / 180;
      sin_[i - kMin] = static_cast<float>(std::sin(rad));
      cos_[i - kMin] = static_cast<float>(std::cos(rad));
    }
  }
  float Sin(int cdeg) const { return sin_[Index(cdeg)]; }
  float Cos(int cdeg) const { return cos_[Index(cdeg)]; }

 private:
  static constexpr int kMin = -9000, kMax = 45000;
  // An angle beyond the table (a horizontal offset past -90 deg) is taken a turn round.
  static size_t Index(int a) {
    if (a < kMin || a >= kMax) a = (a % 36000 + 36000) % 36000;
    return static_cast<size_t>(a - kMin);
  }
  std::array<float, kMax - kMin> sin_{}, cos_{};
};

class RobosenseStream {
 public:
  RobosenseStream(const PacketSource& source, const RobosenseCalibration& cal,
                  const FrameSink& sink, CaptureStats& stats)
      : source_(source), cal_(cal), sink_(sink), stats_(stats) {}

  Status Take(const UdpDatagram& d) {
    stats_.SawUdp(d.dst_port, d.payload.size());
    if (d.dst_port == kRobosenseDifopPort) return Difop(d);
    if (d.dst_port != kRobosenseMsopPort) {
      ++stats_.other_udp;
      return {};
    }
    const auto& p = d.payload;
    if (p.size() != kRobosensePacketBytes) {
      stats_.BadPacket(PacketPlace(source_.file, d, 0),
                       "MSOP packet of " + std::to_string(p.size()) + " bytes (1248 expected)");
      return {};
    }
    if (!HasRobosenseMsopId(p)) {
      stats_.BadPacket(PacketPlace(source_.file, d, 0),
                       "MSOP packet without its id (55 AA 05 0A 5A A5 50 A0 or 55 AA 05 5A)");
      return {};
    }
    size_t model_at = 0;
    bool pairing = false;
    auto model = RobosenseModelOf(p, cal_.vertical_cdeg.size(), &model_at, &pairing);
    if (!model.ok()) {
      // The first well-formed packet's model decides: a capture and an angle file that do not
      // belong together end the reading; a damaged packet, or a later one of another model, is
      // skipped.
      if (!model_ && pairing)
        return Error{PacketPlace(source_.file, d, model_at) + ": " + model.message() + " (" +
                     cal_.file.string() + ")"};
      stats_.BadPacket(PacketPlace(source_.file, d, model_at), model.message());
      return {};
    }
    if (model_ && *model != model_) {
      stats_.BadPacket(
          PacketPlace(source_.file, d, 30),
          std::string("an ") + (*model)->name + " packet in a capture of an " + model_->name);
      return {};
    }
    model_ = *model;
    WarnOfOtherLasers();
    // A packet seen again (its time and first azimuth those of a recent one) is dropped.
    const uint64_t key = Be(&p[20], 6) << 20 ^ Be(&p[26], 4) << 16 ^ Be(&p[kFirstBlock + 2], 2);
    if (std::find(recent_.begin(), recent_.end(), key) != recent_.end()) {
      ++stats_.duplicates;
      return {};
    }
    recent_[recent_next_++ % recent_.size()] = key;
    ++stats_.lidar_packets;
    return Msop(p);
  }

  Status Finish() { return cur_.size() > 0 ? Emit() : Status{}; }

 private:
  // DIFOP: the return mode (byte 300: 0x00 dual in every model; the others name strongest, last
  // or first) and the spin rate (bytes 8-9, rpm).
  Status Difop(const UdpDatagram& d) {
    const auto& p = d.payload;
    if (p.size() != kRobosensePacketBytes || !HasRobosenseDifopId(p)) {
      stats_.BadPacket(
          PacketPlace(source_.file, d, 0),
          "DIFOP packet of " + std::to_string(p.size()) + " bytes without its A5 FF 00 5A id");
      return {};
    }
    ++stats_.device_packets;
    // A Helios's DIFOP lists its lasers' angles: an angle file of another count decodes half the
    // channels as other lasers (the shared Helios bag's 16-line file against its DIFOP's 32).
    // Judged once the packets say they are a Helios's.
    if (!difop_lasers_) {
      auto difop = RobosenseDifopCalibration(p, PacketPlace(source_.file, d, 468));
      if (difop.ok()) difop_lasers_ = {difop->vertical_cdeg.size(), difop->file.string()};
      WarnOfOtherLasers();
    }
    dual_ = p[300] == 0x00;
    single_type_ = SingleReturnType(p[300]);
    const uint64_t rpm = Be(&p[8], 2);
    if (rpm >= 60) rps_ = static_cast<double>(rpm / 60);
    return {};
  }

  // Once, where a Helios's DIFOP lists another number of lasers than the angle file.
  void WarnOfOtherLasers() {
    if (warned_lasers_ || !difop_lasers_ || !model_ || model_->ymd_time) return;
    if (difop_lasers_->first == cal_.vertical_cdeg.size()) return;
    warned_lasers_ = true;
    stats_.Warn(fmt::format(
        "{}: the DIFOP's angle table lists {} lasers but {} has {}: channels are decoded as "
        "the angle file's lasers (the recording read without an angle file takes the DIFOP's)",
        difop_lasers_->second, difop_lasers_->first, cal_.file.string(),
        cal_.vertical_cdeg.size()));
  }

  Status Msop(const std::vector<uint8_t>& p) {
    const RobosenseModel& m = *model_;
    const double packet_s = RobosensePacketSeconds(m, p);
    const float unit_m = RobosenseDistanceUnit(m, p);
    std::array<int, kBlocks> az{};
    for (int b = 0; b < kBlocks; ++b)
      az[b] = static_cast<int>(Be(&p[kFirstBlock + kBlockBytes * b + 2], 2));
    // Each block's azimuth step to the next (the firings' azimuths are interpolated over it) and
    // its time: a step over 1 deg is a gap (a field-of-view window), taken as the usual step
    // (the spin rate's over one step's time). In dual return a block pair is one firing where
    // the model pairs its blocks.
    const int stride = dual_ && m.dual_block_pairs ? 2 : 1;
    std::array<int, kBlocks> step{};
    std::array<double, kBlocks> block_t{};
    double t = 0;
    const double block_s = static_cast<double>((dual_ ? m.firing_us : m.single_block_us) / 1e6f);
    const int default_az_diff = static_cast<int>(std::lround(36000 * rps_ * block_s));
    for (int b = 0; b < kBlocks; b += stride) {
      int dd = default_az_diff;
      double dt = block_s;
      if (b + stride < kBlocks) {
        dd = az[b + stride] - az[b];
        if (dd < 0) dd += 36000;
        if (dd > 100) dd = default_az_diff, dt = 0;
      }
      for (int k = 0; k < stride; ++k)
        step[b + k] = dd, block_t[b + k] = t;
      t += dt;
    }
    for (int b = 0; b < kBlocks; ++b) {
      const size_t at = kFirstBlock + kBlockBytes * b;
      if (p[at] != 0xFF || p[at + 1] != 0xEE) break;  // the rest of the packet holds no block
      if (az[b] >= 36000) break;
      // A frame ends at the block whose azimuth passes 0 deg, or returns to the start of the
      // field-of-view window the unit sends: a step back of more than a quarter turn (a small
      // one is a packet out of order); or when it has lasted a second (a motor stopped).
      if ((last_az_ >= 0 && az[b] + 9000 < last_az_) ||
          (cur_.size() > 0 && packet_s - cur_.timestamp_s.front() > 1.0)) {
        if (Status s = Emit(); !s.ok()) return s;
      }
      last_az_ = az[b];
      for (int c = 0; c < kChannels; ++c) {
        const int laser = c % m.lasers;
        const uint8_t* u = &p[at + 4 + 3 * c];
        const float d = static_cast<float>(Be(u, 2)) * unit_m;
        if (!(d >= m.min_m && d <= m.max_m)) continue;
        // Single return: the block's firings in turn. Dual: one firing, its second return in
        // channels 16-31 or in the pair's second block.
        const float fire_us = m.channel_us[dual_ ? laser : c];
        const float share = dual_
                                ? fire_us / m.firing_us
                                : fire_us / (m.firing_us * static_cast<float>(m.firings_per_block));
        const int theta = az[b] + static_cast<int>(std::trunc(static_cast<float>(step[b]) * share));
        const int theta_f = theta + cal_.horizontal_cdeg[laser];
        const int v = cal_.vertical_cdeg[laser];
        FramePoint pt;
        pt.x_m = d * trig_.Cos(v) * trig_.Cos(theta_f) + m.lens_offset_m * trig_.Cos(theta);
        pt.y_m = -d * trig_.Cos(v) * trig_.Sin(theta_f) - m.lens_offset_m * trig_.Sin(theta);
        pt.z_m = d * trig_.Sin(v);
        pt.range_m = d;
        pt.intensity = u[2];
        pt.channel = static_cast<uint16_t>(laser);
        pt.column = columns_;
        pt.timestamp_s = packet_s + block_t[b] + static_cast<double>(fire_us) * 1e-6;
        const int ret = !dual_ ? 0 : m.dual_channel_halves ? (c >= m.lasers ? 1 : 0) : b % 2;
        pt.return_index = static_cast<uint8_t>(ret);
        if (!dual_) {
          pt.return_type = single_type_;
        } else {
          // The same laser's other return: the other channel half, or the pair's other block.
          const size_t other =
              m.dual_channel_halves
                  ? at + 4 + 3 * static_cast<size_t>(ret ? c - m.lasers : c + m.lasers)
                  : kFirstBlock + kBlockBytes * static_cast<size_t>(b ^ 1) + 4 +
                        3 * static_cast<size_t>(c);
          const uint64_t other_raw = Be(&p[other], 2);
          pt.return_type = other_raw == 0 || Be(u, 2) == other_raw ? physics::ReturnType::kIdentical
                           : ret == 0                              ? physics::ReturnType::kStrongest
                                                                   : physics::ReturnType::kLast;
        }
        pt.beam_id = columns_ * kChannels + static_cast<uint32_t>(c);
        cur_.Append(pt);
      }
      // A block pair of one firing's two returns is one column (both returns of a beam).
      if (!(dual_ && m.dual_block_pairs && b % 2 == 0)) ++columns_;
    }
    return {};
  }

  Status Emit() {
    Frame f = std::move(cur_);
    cur_ = Frame{};
    columns_ = 0;
    if (f.size() == 0) return {};
    f.index = frames_++;
    f.start_time_s = f.timestamp_s.front();
    f.end_time_s = f.timestamp_s.back();
    return sink_(std::move(f));
  }

  const PacketSource& source_;
  const RobosenseCalibration& cal_;
  const FrameSink& sink_;
  CaptureStats& stats_;
  Trig trig_;
  const RobosenseModel* model_ = nullptr;  // the first MSOP packet's
  bool dual_ = false;                      // single return until a DIFOP says otherwise
  bool warned_lasers_ = false;             // a DIFOP's angle table of other lasers, said once
  // The first readable DIFOP's laser count and where its table lies.
  std::optional<std::pair<size_t, std::string>> difop_lasers_;
  // A single return's kind: the DIFOP's, unknown until one is seen.
  physics::ReturnType single_type_ = physics::ReturnType::kUnknown;
  double rps_ = 10;  // the spin rate until a DIFOP says otherwise
  int last_az_ = -1;
  uint32_t columns_ = 0, frames_ = 0;
  Frame cur_;
  std::array<uint64_t, 32> recent_ = [] {
    std::array<uint64_t, 32> a;
    a.fill(~uint64_t{0});
    return a;
  }();
  size_t recent_next_ = 0;
};

}  // namespace

std::vector<double> RobosenseFiringUs(size_t lasers) {
  const RobosenseModel& m = lasers == 32 ? RobosenseHelios() : RobosenseHelios16P();
  return std::vector<double>(m.channel_us.begin(), m.channel_us.begin() + m.lasers);
}

Expected<RobosenseCalibration> LoadRobosenseCalibration(const std::filesystem::path& file) {
  auto text = ReadTextFile(file);
  if (!text.ok()) return text.error();
  RobosenseCalibration c;
  c.file = file;
  std::istringstream in(*text);
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    while (!line.empty() && (line.back() == '\r' || line.back() == '\t' || line.back() == ' '))
      line.pop_back();
    if (line.empty()) continue;
    float vertical = 0, horizontal = 0;
    char comma = 0, extra = 0;
    std::istringstream fields(line);
    // "vertical,horizontal", or a vertical angle alone (ros_rslidar's RS-LiDAR-16 angle.csv).
    const bool read = static_cast<bool>(fields >> vertical) &&
                      (!(fields >> comma) || (comma == ',' && (fields >> horizontal)));
    if (!read || (fields >> extra) || std::abs(vertical) > 90 || std::abs(horizontal) > 180)
      return Error{fmt::format("{}: line {}: expected 'vertical,horizontal' in degrees",
                               file.string(), line_no)};
    // The driver's 0.01 deg integers: the float value x 100, truncated (8.90 -> 889).
    c.vertical_cdeg.push_back(static_cast<int32_t>(vertical * 100.f));
    c.horizontal_cdeg.push_back(static_cast<int32_t>(horizontal * 100.f));
  }
  if (c.vertical_cdeg.size() != 16 && c.vertical_cdeg.size() != 32)
    return Error{fmt::format("{}: {} lasers; RoboSense's angle files have 16 or 32 lines",
                             file.string(), c.vertical_cdeg.size())};
  return c;
}

Status ForEachRobosenseFrame(const PacketSource& packets, const RobosenseCalibration& cal,
                             const FrameSink& sink, CaptureStats* stats_out) {
  CaptureStats local;
  CaptureStats& stats = stats_out ? *stats_out : local;
  if (cal.vertical_cdeg.size() != 16 && cal.vertical_cdeg.size() != 32)
    return Error{cal.file.string() + ": not a 16- or 32-laser calibration"};
  RobosenseStream stream(packets, cal, sink, stats);
  Status read = packets.read([&](const UdpDatagram& d) { return stream.Take(d); }, stats);
  if (!read.ok()) return read;
  if (Status s = CheckDecodedPackets(packets.file, stats,
                                     "RoboSense MSOP packet (UDP port 6699, 1248 bytes)");
      !s.ok())
    return s;
  return stream.Finish();
}

}  // namespace lt
