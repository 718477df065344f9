// Velodyne data packets (VLP-16 manual sec. 9, HDL-32E manual appendix E, VLP-32C and VLS-128
// manuals "Data packet format"): 12 blocks of [flag, azimuth u16 in 0.01 deg, 32 x (distance
// u16, reflectivity u8)], then a u32 timestamp (us past the hour), the return mode and the
// product id. The flag is 0xFFEE, or on a VLS-128 the bank of 32 lasers the block holds
// (0xFFEE, 0xFFDD, 0xFFCC, 0xFFBB: four blocks make one firing of its 128 lasers), or on an
// HDL-64E S2/S3 its upper (0xFFEE, lasers 0-31) or lower (0xFFDD, 32-63) bank, fired together;
// an HDL-64E's last two bytes are a status message's, not a return mode and product id (S3
// manual, "Data packet format", "Status bytes"): its dual return is told by blocks 0 and 2
// sharing an azimuth.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>

#include "capture/bytes.h"
#include "lidartwin/datasets/pcap.h"
#include "lidartwin/datasets/velodyne.h"
#include "lidartwin/physics/units.h"
#include "velodyne_hdl64e.h"
#include "velodyne_models.h"

namespace lt {

namespace {

using bytes::Le;

constexpr size_t kPacketBytes = 1206, kBlockBytes = 100, kBlocks = 12;
constexpr uint16_t kDataPort = 2368, kPositionPort = 8308;
// Factory bytes: return mode (0x37 strongest, 0x38 last, 0x39 dual) and product id.
constexpr uint8_t kStrongestReturn = 0x37, kLastReturn = 0x38, kDualReturn = 0x39;
// Packets whose timing judges the model, and how many wait to be put in time order: a
// capture's own reorderings are of a packet or two (issue 36 item 11: two swapped packets
// split a frame); 16 packets are 8.8 ms of an HDL-32E, 21 ms of a VLP-16.
constexpr size_t kJudgedPackets = 24, kReorderWindow = 16;
constexpr double kHourS = 3600;
// A packet older by more than this than one already decoded is no reordering but the clock
// stepping back (a GPS lock taken mid-capture, a power cycle) or the capture repeating itself.
constexpr double kClockStepS = 1;
// A frame is cut after this long whatever the azimuths say (a motor stopped or spinning
// slower than 1 Hz would otherwise grow one frame without bound); every model spins at 5 Hz
// or faster.
constexpr double kLongestFrameS = 1;

struct DataPacket {
  std::array<uint8_t, kPacketBytes> bytes;
  uint64_t offset = 0;  // of the payload in the capture
  double time_s = 0;    // the packet's timestamp, hours unwrapped
  bool dual = false;    // DualReturn's
  uint8_t mode = 0;     // the return mode byte; 0 on an HDL-64E (its data packets have none)
};

// Whether a data packet holds two returns a firing: its return mode byte, or on an HDL-64E (no
// such byte) the second pair of blocks at the first pair's azimuth and the third pair on (a
// motor that stopped puts every block at one azimuth: single return).
bool DualReturn(const uint8_t* p, bool hdl64e) {
  const auto azimuth = [&](size_t b) { return Le<uint16_t>(p + b * kBlockBytes + 2); };
  return hdl64e ? azimuth(0) == azimuth(2) && azimuth(4) != azimuth(0) : p[1204] == kDualReturn;
}

// The kind of the return measured at `m` (distance u16, reflectivity u8) in return mode `mode`;
// `other` is the same laser's measure of the firing's other return (dual only). A dual pair is
// labelled with nebula's codes: nearer/farther and stronger/weaker (equal reflectivities: the
// farther the stronger); one echo reported twice, or alone (the other block empty), identical.
// An HDL-64E's (mode 0) is unknown: its return mode is in the status cycle, and which of its
// dual blocks is which no manual we read says.
physics::ReturnType ReturnTypeOf(uint8_t mode, const uint8_t* m, const uint8_t* other) {
  using physics::ReturnType;
  if (mode == kStrongestReturn) return ReturnType::kStrongest;
  if (mode == kLastReturn) return ReturnType::kLast;
  if (mode != kDualReturn) return ReturnType::kUnknown;
  const uint16_t raw = Le<uint16_t>(m), other_raw = Le<uint16_t>(other);
  if (other_raw == 0) return ReturnType::kIdentical;
  ReturnType near = ReturnType::kUnknown, far = ReturnType::kUnknown;
  if (raw <= other_raw) {
    physics::NearFarTypes(raw, other_raw, m[2], other[2], &near, &far);
    return near;
  }
  physics::NearFarTypes(other_raw, raw, other[2], m[2], &near, &far);
  return far;
}

// Blocks a packet fills: all 12, but where a dual-return firing spans several blocks (a
// VLS-128's four banks twice over: 8; the manual's blocks 8-11 then carry no firing).
size_t UsedBlocks(bool dual, int banks) {
  const size_t firing_blocks = dual ? kBlocks / 2 : kBlocks;
  return firing_blocks / banks * banks * (dual ? 2 : 1);
}

// Whether a data packet is an HDL-64E's, in a capture judged so far to be of `capture` (null:
// not yet known).
bool Hdl64ePacketIn(const uint8_t* p, const VelodyneModel* capture) {
  // Within an HDL-64E capture every packet is judged as one (a damaged flag is named as such,
  // not as a product id).
  return capture == &VelodyneHdl64e() || IsHdl64ePacket(p);
}

// The model a data packet's bytes name: an HDL-64E's block flags, else the product id.
const VelodyneModel* ModelOfPacket(const uint8_t* p, const VelodyneModel* capture) {
  return Hdl64ePacketIn(p, capture) ? &VelodyneHdl64e() : VelodyneModelOf(p[1205]);
}

// What is wrong with a data packet's fields, or empty; `bad_at` is the field's offset.
std::string ProblemOf(const uint8_t* p, const VelodyneModel* capture, size_t* bad_at) {
  if (Hdl64ePacketIn(p, capture)) {
    const VelodyneModel& model = VelodyneHdl64e();
    *bad_at = 1200;
    if (Le<uint32_t>(p + 1200) >= 3600000000u)
      return "timestamp " + std::to_string(Le<uint32_t>(p + 1200)) + " us is not within the hour";
    const bool dual = DualReturn(p, true);
    for (size_t b = 0; b < kBlocks; ++b) {
      const uint8_t* blk = p + b * kBlockBytes;
      *bad_at = b * kBlockBytes;
      const int bank = model.timing->BankOfBlock(b, dual);
      if (VelodyneBankOfFlag(Le<uint16_t>(blk)) != bank)
        return "block flag " + HexText(Le<uint16_t>(blk)) + " where an HDL-64E's block " +
               std::to_string(b) + " has " + HexText(bank == 0 ? 0xEEFF : 0xDDFF);
      *bad_at += 2;
      if (Le<uint16_t>(blk + 2) >= 36000)
        return "azimuth " + std::to_string(Le<uint16_t>(blk + 2) * 0.01) + " deg is not below 360";
    }
    return "";
  }
  const uint8_t product = p[1205];
  *bad_at = 1205;
  if (!VelodyneModelOf(product))
    return "product id " + HexText(product) + " is not a Velodyne model this reader knows";
  const uint8_t mode = p[1204];
  *bad_at = 1204;
  if (mode < kStrongestReturn || mode > kDualReturn)
    return "return mode " + HexText(mode) + " is not 0x37, 0x38 or 0x39";
  *bad_at = 1200;
  if (Le<uint32_t>(p + 1200) >= 3600000000u)
    return "timestamp " + std::to_string(Le<uint32_t>(p + 1200)) + " us is not within the hour";
  const VelodyneModel* model = VelodyneModelOf(product);
  const int banks = model->timing ? model->timing->blocks : 1;
  const bool dual = mode == kDualReturn;
  for (size_t b = 0; b < UsedBlocks(dual, banks); ++b) {
    const uint8_t* blk = p + b * kBlockBytes;
    *bad_at = b * kBlockBytes;
    const int bank = VelodyneBankOfFlag(Le<uint16_t>(blk));
    const int expected = model->timing ? model->timing->BankOfBlock(b, dual) : 0;
    if (bank != expected) {
      return "block flag " + HexText(Le<uint16_t>(blk)) + " where a " + model->name + "'s block " +
             std::to_string(b) + " has " +
             HexText(std::array<unsigned, 4>{0xEEFF, 0xDDFF, 0xCCFF, 0xBBFF}[expected]);
    }
    *bad_at += 2;
    if (Le<uint16_t>(blk + 2) >= 36000)
      return "azimuth " + std::to_string(Le<uint16_t>(blk + 2) * 0.01) + " deg is not below 360";
  }
  return "";
}

// Median time per firing block between consecutive packets (12 firing blocks a packet in
// single return, 6 in dual, 4 of a VLS-128's in dual: UsedBlocks); 0 where fewer than four gaps
// were seen. `banks`: blocks a firing takes, by the packets' product id.
double BlockSeconds(const std::deque<DataPacket>& packets, int banks) {
  std::vector<double> per_block;
  for (size_t k = 1; k < packets.size(); ++k) {
    const double gap = packets[k].time_s - packets[k - 1].time_s;
    const bool dual = packets[k].dual;
    const double firing_blocks = static_cast<double>(UsedBlocks(dual, banks)) / (dual ? 2 : 1);
    if (gap > 0) per_block.push_back(gap / firing_blocks);
  }
  if (per_block.size() < 4) return 0;
  std::nth_element(per_block.begin(), per_block.begin() + per_block.size() / 2, per_block.end());
  return per_block[per_block.size() / 2];
}

// Time-ordered packets into frames, split where the azimuth wraps.
class FrameAssembler {
 public:
  FrameAssembler(const VelodyneCalibration& cal, const VelodyneModel& model, const FrameSink& sink)
      : cal_(cal),
        timing_(*model.timing),
        corrects_intensity_(model.corrects_intensity),
        sink_(sink),
        distance_unit_m_(model.distance_unit_m > 0 ? model.distance_unit_m
                                                   : cal.distance_resolution_m) {}

  Status Add(const DataPacket& packet);
  Status Finish() { return Emit(); }

 private:
  Status Emit() {
    if (!open_) return {};
    ++emitted_;
    open_ = false;
    return sink_(std::move(frame_));
  }
  void AddBlock(const uint8_t* blk, int bank, double azimuth, double gap, double block_time,
                uint8_t ret, bool dual, uint8_t mode, const uint8_t* partner);

  const VelodyneCalibration& cal_;
  const VelodyneTiming& timing_;
  const bool corrects_intensity_;
  const FrameSink& sink_;
  const double distance_unit_m_;
  Frame frame_;
  bool open_ = false;
  uint32_t emitted_ = 0;
  double last_azimuth_ = -1;
  uint32_t sequence_in_frame_ = 0;
};

Status FrameAssembler::Add(const DataPacket& packet) {
  const uint8_t* p = packet.bytes.data();
  const bool dual = packet.dual;
  const int banks = timing_.blocks;
  const double sequence_s = timing_.SequenceSeconds(dual);
  // A firing: `banks` blocks (twice that in dual return: each bank's last, then strongest
  // return, fired at the same time; an HDL-64E's banks' first returns, then their second) at
  // the azimuth of its first block.
  const size_t per_firing = static_cast<size_t>(banks) * (dual ? 2 : 1);
  const size_t firings = UsedBlocks(dual, banks) / per_firing;
  auto azimuth_of = [&](size_t firing) {  // deg
    return Le<uint16_t>(p + firing * per_firing * kBlockBytes + 2) * 0.01;
  };
  for (size_t f = 0; f < firings; ++f) {
    const double azimuth = azimuth_of(f);
    // Azimuth advance over one firing block: to the next firing (or from the previous one).
    double gap = f + 1 < firings ? azimuth_of(f + 1) - azimuth
                 : f > 0         ? azimuth - azimuth_of(f - 1)
                                 : 0;
    if (gap < 0) gap += 360;
    const double block_time = packet.time_s + f * timing_.sequences * sequence_s;
    if (!open_ || azimuth < last_azimuth_ || block_time - frame_.start_time_s > kLongestFrameS) {
      if (Status s = Emit(); !s.ok()) return s;
      frame_ = Frame();
      frame_.index = emitted_;
      frame_.start_time_s = block_time;
      open_ = true;
      sequence_in_frame_ = 0;
    }
    last_azimuth_ = azimuth;
    for (size_t k = 0; k < per_firing; ++k) {
      const size_t b = f * per_firing + k;
      const uint8_t* blk = p + b * kBlockBytes;
      // In dual return, the block of the same bank's other return.
      const uint8_t ret = timing_.ReturnOfBlock(b, dual);
      const size_t partner = !dual                    ? b
                             : timing_.banks_together ? (ret == 0 ? b + banks : b - banks)
                                                      : b ^ 1;
      AddBlock(blk, timing_.BankOfBlock(b, dual), azimuth, gap, block_time, ret, dual, packet.mode,
               p + partner * kBlockBytes);
    }
    sequence_in_frame_ += timing_.sequences;
    frame_.end_time_s = block_time + timing_.sequences * sequence_s;
  }
  return {};
}

void FrameAssembler::AddBlock(const uint8_t* blk, int bank, double azimuth, double gap,
                              double block_time, uint8_t ret, bool dual, uint8_t mode,
                              const uint8_t* partner) {
  const double sequence_s = timing_.SequenceSeconds(dual);
  const double firing_s = timing_.sequences * sequence_s;    // the gap's time
  const int block_lasers = timing_.lasers / timing_.blocks;  // per sequence, in this block
  for (int s = 0; s < timing_.sequences; ++s) {
    for (int k = 0; k < block_lasers; ++k) {
      const uint8_t* m = blk + 4 + 3 * (s * block_lasers + k);
      const uint16_t raw = Le<uint16_t>(m);
      if (raw == 0) continue;  // no return
      // One echo reported twice in dual return (the strongest is also the last): the last
      // return alone stands for it, marked identical, as nebula and our Hesai and RoboSense
      // decoders do; kept twice, it would count as two returns in every comparison.
      const uint8_t* other = partner + 4 + 3 * (s * block_lasers + k);
      if (dual && ret == 1 && Le<uint16_t>(other) == raw) continue;
      const int laser = bank * block_lasers + k;
      const double dt = s * sequence_s + timing_.FiringOffset(laser, dual);
      const double az = (azimuth + gap * dt / firing_s) * physics::kDegToRad;
      const VelodyneLaser& l = cal_.lasers[laser];
      const double dist = raw * distance_unit_m_ + l.dist_correction_m;
      const double rot = az - l.rot_correction_rad;
      const double cv = std::cos(l.vert_correction_rad);
      const double sv = std::sin(l.vert_correction_rad);
      const double xy = dist * cv - l.vert_offset_m * sv;
      // Velodyne's frame (azimuth clockwise from +y) turned to ROS (x forward, y left).
      double vx = xy * std::sin(rot) - l.horiz_offset_m * std::cos(rot);
      double vy = xy * std::cos(rot) + l.horiz_offset_m * std::sin(rot);
      double vz = dist * sv + l.vert_offset_m * cv;
      if (l.two_point) Hdl64eTwoPointCorrection(l, dist, cv, sv, rot, vx, vy, vz);
      FramePoint pt;
      pt.x_m = static_cast<float>(vy);
      pt.y_m = static_cast<float>(-vx);
      pt.z_m = static_cast<float>(vz);
      pt.range_m = static_cast<float>(dist);
      pt.intensity = corrects_intensity_ ? Hdl64eCorrectedIntensity(l, raw, m[2]) : m[2];
      pt.channel = static_cast<uint16_t>(laser);
      pt.column = sequence_in_frame_ + s;
      pt.timestamp_s = block_time + dt;
      pt.return_index = ret;
      pt.return_type = ReturnTypeOf(mode, m, other);
      pt.beam_id = (sequence_in_frame_ + s) * timing_.lasers + laser;
      frame_.Append(pt);
    }
  }
}

// The data packets of a capture, checked, unwrapped in time, judged for their model, put in
// time order and handed to the assembler.
class PacketStream {
 public:
  PacketStream(const std::filesystem::path& pcap, const VelodyneCalibration& cal,
               const FrameSink& sink, CaptureStats& stats)
      : pcap_(pcap), cal_(cal), sink_(sink), stats_(stats) {
    recent_.fill(~uint64_t{0});
  }
  Status Take(const UdpDatagram& d);
  Status Finish();

 private:
  Status Judge();
  Status Release(bool all);
  double Unwrapped(uint32_t us);
  // A packet older than what is decoded (not a repeat: Take drops those): dropped as late, or
  // (the clock stepped back) the start of a new stretch. Returns whether the packet is dropped.
  Expected<bool> Older(double t, const std::string& where);

  const std::filesystem::path& pcap_;
  const VelodyneCalibration& cal_;
  const FrameSink& sink_;
  CaptureStats& stats_;
  VelodynePacketEvidence evidence_;
  const VelodyneModel* model_ = nullptr;  // judged; null until kJudgedPackets were seen
  std::unique_ptr<FrameAssembler> assembler_;
  std::deque<DataPacket> waiting_;  // in time order
  double hours_ = 0, last_arrival_s_ = 0, last_released_s_ = 0;
  // last_released_s_ holds a decoded packet's time (times may be negative: a straggler from
  // before the hour at the start of a capture), so it is never a sentinel (found by
  // fuzz_recording_files: a packet older than -1 s reached the clock-step path undecoded).
  bool released_any_ = false;
  bool any_arrived_ = false;           // last_arrival_s_ holds a packet's time
  uint64_t first_key_ = ~uint64_t{0};  // the capture's first packet: a repeat starts with it
  // Dropping a repeat of the capture, until a packet comes later than any decoded.
  bool repeating_ = false;
  double latest_released_s_ = -std::numeric_limits<double>::infinity();
  // (timestamp, first azimuth) of recent packets: a repeat is a duplicated packet.
  std::array<uint64_t, 32> recent_;
  size_t recent_next_ = 0;
};

Status PacketStream::Take(const UdpDatagram& d) {
  stats_.SawUdp(d.dst_port, d.payload.size());
  if (d.dst_port == kPositionPort) {
    ++stats_.position_packets;
    return {};
  }
  if (d.dst_port != kDataPort) {
    ++stats_.other_udp;
    return {};
  }
  if (d.payload.size() != kPacketBytes) {
    stats_.BadPacket(PacketPlace(pcap_, d, 0), "data packet of " +
                                                   std::to_string(d.payload.size()) + " bytes (" +
                                                   std::to_string(kPacketBytes) + " expected)");
    return {};
  }
  const uint8_t* p = d.payload.data();
  size_t bad_at = 0;
  if (const std::string problem = ProblemOf(p, evidence_.by_byte, &bad_at); !problem.empty()) {
    stats_.BadPacket(PacketPlace(pcap_, d, bad_at), problem);
    return {};
  }
  const VelodyneModel* byte = ModelOfPacket(p, evidence_.by_byte);
  if (!evidence_.by_byte) {
    evidence_.by_byte = byte;
    evidence_.where = PacketPlace(pcap_, d, byte->product_id ? 1205 : 0);
  } else if (byte != evidence_.by_byte) {
    stats_.BadPacket(
        PacketPlace(pcap_, d, byte->product_id ? 1205 : 0),
        ModelIdText(*byte) + " (" + byte->name + ") in a capture of a " + evidence_.by_byte->name);
    return {};
  }
  DataPacket packet;
  std::copy(p, p + kPacketBytes, packet.bytes.begin());
  packet.offset = d.file_offset;
  packet.time_s = Unwrapped(Le<uint32_t>(p + 1200));
  packet.dual = DualReturn(p, byte == &VelodyneHdl64e());
  packet.mode = byte == &VelodyneHdl64e() ? 0 : p[1204];
  const uint64_t key = uint64_t{Le<uint32_t>(p + 1200)} << 16 | Le<uint16_t>(p + 2);
  if (first_key_ == ~uint64_t{0}) {
    first_key_ = key;
  } else if (key == first_key_ && !repeating_) {  // the capture again, from its first packet
    stats_.Warn(PacketPlace(pcap_, d, 1200) +
                ": the capture repeats itself from here (its first packet again): the repeat "
                "is dropped");
    repeating_ = true;
  }
  if (repeating_ && packet.time_s <= latest_released_s_) {
    ++stats_.late_packets;
    return {};
  }
  repeating_ = false;
  if (released_any_ && packet.time_s < last_released_s_) {
    auto dropped = Older(packet.time_s, PacketPlace(pcap_, d, 1200));
    if (!dropped.ok()) return dropped.error();
    if (*dropped) return {};
  }
  const double t = packet.time_s;
  // Checked after lateness: the ring then holds the last packets taken, the window's among them.
  if (std::find(recent_.begin(), recent_.end(), key) != recent_.end()) {
    ++stats_.duplicates;
    return {};
  }
  recent_[recent_next_++ % recent_.size()] = key;
  const auto later =
      std::upper_bound(waiting_.begin(), waiting_.end(), t,
                       [](double time, const DataPacket& q) { return time < q.time_s; });
  waiting_.insert(later, std::move(packet));
  ++stats_.lidar_packets;
  if (!model_ && waiting_.size() >= kJudgedPackets) {
    if (Status s = Judge(); !s.ok()) return s;
  }
  return model_ ? Release(false) : Status{};
}

// Microseconds past the hour, unwrapped: the time of t - 1 h, t, t + 1 h nearest the last
// packet's. Only a step into the next hour moves the hour on; a straggler from before the hour
// arriving after it keeps its own hour.
double PacketStream::Unwrapped(uint32_t us) {
  double t = us * 1e-6 + hours_ * kHourS;
  if (any_arrived_) {
    if (std::abs(t + kHourS - last_arrival_s_) < std::abs(t - last_arrival_s_)) {
      t += kHourS;
      hours_ += 1;
    } else if (std::abs(t - kHourS - last_arrival_s_) < std::abs(t - last_arrival_s_)) {
      t -= kHourS;
    }
  }
  last_arrival_s_ = t;
  any_arrived_ = true;
  return t;
}

Expected<bool> PacketStream::Older(double t, const std::string& where) {
  if (t >= last_released_s_ - kClockStepS) {  // a packet reordered too far
    if (++stats_.late_packets == 1)
      stats_.Warn(where +
                  ": a data packet older than those already decoded (reordered by more "
                  "than " +
                  std::to_string(kReorderWindow) + " packets)");
    return true;
  }
  // The clock stepped back: what is decoded so far is finished, and decoding goes on from here.
  stats_.Warn(where + ": the packet clock steps back by " + std::to_string(last_released_s_ - t) +
              " s (a clock reset or a GPS lock taken mid-capture): a new frame starts here");
  if (Status s = Release(true); !s.ok()) return s.error();
  if (assembler_) {
    if (Status s = assembler_->Finish(); !s.ok()) return s.error();
  }
  released_any_ = false;
  return false;
}

Status PacketStream::Judge() {
  const VelodyneTiming* byte_timing = evidence_.by_byte->timing;
  evidence_.block_s = BlockSeconds(waiting_, byte_timing ? byte_timing->blocks : 1);
  std::string note;
  auto model = JudgeVelodyneModel(evidence_, cal_, pcap_.string(), &note);
  if (!model.ok()) return model.error();
  if (!note.empty()) stats_.Warn(note);
  model_ = *model;
  assembler_ = std::make_unique<FrameAssembler>(cal_, *model_, sink_);
  return {};
}

Status PacketStream::Release(bool all) {
  while (!waiting_.empty() && (all || waiting_.size() > kReorderWindow)) {
    last_released_s_ = waiting_.front().time_s;
    latest_released_s_ = std::max(latest_released_s_, last_released_s_);
    released_any_ = true;
    if (Status s = assembler_->Add(waiting_.front()); !s.ok()) return s;
    waiting_.pop_front();
  }
  return {};
}

Status PacketStream::Finish() {
  if (stats_.lidar_packets == 0) return {};
  if (!model_) {
    if (Status s = Judge(); !s.ok()) return s;
  }
  if (Status s = Release(true); !s.ok()) return s;
  return assembler_->Finish();
}

Status NoPacketError(const std::filesystem::path& pcap, const VelodyneCalibration& cal,
                     const CaptureStats& stats) {
  std::string hint;
  for (const CaptureStats::Seen& s : stats.seen) {
    if (s.port == 7502 || s.port == 7503) {
      hint =
          ": this looks like an Ouster capture (port 7502); read it with its Ouster metadata "
          "(.json) instead";
    }
  }
  const std::string cal_name = cal.file.empty() ? "the calibration" : cal.file.string();
  return Error{pcap.string() + ": no Velodyne data packet (UDP port 2368, 1206 bytes) " +
               (stats.bad_packets ? "could be decoded" : "in the capture") + " for " + cal_name +
               " (seen " + stats.SeenSummary() +
               (stats.warnings.empty() ? std::string() : "; first problem: " + stats.warnings[0]) +
               ")" + hint};
}

}  // namespace

Status ForEachVelodyneFrame(const std::filesystem::path& pcap, const VelodyneCalibration& cal,
                            const FrameSink& sink, CaptureStats* stats) {
  return ForEachVelodyneFrame(PcapPackets(pcap), cal, sink, stats);
}

Status ForEachVelodyneFrame(const PacketSource& packets, const VelodyneCalibration& cal,
                            const FrameSink& sink, CaptureStats* stats_out) {
  CaptureStats local;
  CaptureStats& stats = stats_out ? *stats_out : local;
  const std::filesystem::path& pcap = packets.file;
  PacketStream stream(pcap, cal, sink, stats);
  Status read = packets.read([&](const UdpDatagram& d) { return stream.Take(d); }, stats);
  if (!read.ok()) return read;
  if (stats.lidar_packets == 0) return NoPacketError(pcap, cal, stats);
  if (Status s = CheckDecodedPackets(pcap, stats, "Velodyne data packet"); !s.ok()) return s;
  return stream.Finish();
}

Expected<std::vector<Frame>> ReadVelodynePcap(const std::filesystem::path& pcap,
                                              const VelodyneCalibration& cal, CaptureStats* stats) {
  return CollectFrames(
      [&](const FrameSink& sink) { return ForEachVelodyneFrame(pcap, cal, sink, stats); });
}

}  // namespace lt
