// Hesai data packets to frames. Layouts, formulas and the families' tells are in
// docs/formats/hesai-answer-keys.md (from the Hesai manuals and SDK's protocol headers, checked
// against nebula's decodes of the shared bags).
#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <numbers>

#include "capture/bytes.h"
#include "hesai/hesai_at128.h"
#include "lidartwin/datasets/hesai.h"

namespace lt {
namespace {

using bytes::Le;

constexpr uint16_t kDataPort = 2368;
constexpr size_t kSequenceBytes = 4;  // the optional UDP sequence number after the tail

std::string Hex2(uint8_t a, uint8_t b) {
  return "0x" + bytes::HexByte(a) + bytes::HexByte(b);
}

// "an " before a name said with a vowel (AT128, OT128), else "a ".
std::string Article(const std::string& name) {
  return !name.empty() && (name[0] == 'A' || name[0] == 'O') ? "an " : "a ";
}

// Where a family keeps what the decoder reads, as offsets into the packet.
struct Layout {
  std::string name;  // "Pandar40P", "PandarXT16"
  int lasers = 0, blocks = 0;
  size_t body_at = 0;  // first block
  size_t block_bytes = 0;
  size_t azimuth_at = 0;  // within a block
  size_t units_at = 0;    // the first unit, within a block (after the azimuth, an AT128's fine
                          // azimuth byte too)
  size_t unit_bytes = 3;  // distance u16, reflectivity u8 (+ a confidence byte)
  uint32_t unit_mm = 4;
  size_t return_mode_at = 0, date_at = 0, micros_at = 0;
  size_t bytes = 0;            // without the optional UDP sequence number
  float min_m = 0, max_m = 0;  // the unit's own range limits (data sheets)
  // The header's flags fix the size, the UDP sequence number included (protocols 1.4, 3.2, 4.3).
  bool exact_size = false;
  bool mirror = false;  // an AT128: angles from its mirror correction, azimuth in 1/25600 deg

  bool operator==(const Layout& o) const {
    return name == o.name && bytes == o.bytes && unit_mm == o.unit_mm && lasers == o.lasers &&
           blocks == o.blocks && unit_bytes == o.unit_bytes;
  }
};

// Protocols 1.4 (Pandar128E3X; OT128 where pre-header byte 4 is above 127) and 3.2 (QT128C2X):
// 128 channels in 2 blocks of a u16 azimuth and units of distance u16, reflectivity u8 and
// (header flag bits 4-6 on 1.4) one byte more each; the body's CRC; 17 bytes of functional
// safety (flag bit 2); a 26-byte tail (return mode at 12, date at 15, microseconds at 21); the UDP
// sequence number (bit 0), 1.4's 22-byte IMU block (bit 1), the tail's CRC, a 32-byte signature
// (bit 3). The QT128's unit is 4 bytes in its manual and nebula, 3 + bit 4 in the SDK: the one
// the packet's length fits is taken. docs/formats/hesai-answer-keys.md, "Protocols 1.4 and 3.2".
Layout FlaggedLayout(const std::vector<uint8_t>& p, bool v14) {
  const int lasers = p[6], blocks = p[7];
  const uint8_t flags = p[11];
  const auto bit = [&](int b) { return static_cast<size_t>((flags >> b) & 1); };
  const auto size_with = [&](size_t unit) {
    const size_t block = 2 + unit * static_cast<size_t>(lasers);
    return 12 + block * static_cast<size_t>(blocks) + 4 + 17 * bit(2) + 26 + 4 * bit(0) +
           (v14 ? 22 * bit(1) : 0) + 4 + 32 * bit(3);
  };
  std::vector<size_t> units;
  if (v14) {
    units = {3 + bit(4) + bit(5) + bit(6)};
  } else {
    units = {4, 3 + bit(4)};
  }
  size_t unit = units[0];
  for (size_t u : units)
    if (size_with(u) == p.size()) unit = u;
  Layout l;
  l.name = v14 ? (p[4] > 127 ? "OT128" : "Pandar128E3X") : "PandarQT128";
  l.lasers = lasers;
  l.blocks = blocks;
  l.body_at = 12;
  l.block_bytes = 2 + unit * static_cast<size_t>(lasers);
  l.azimuth_at = 0;
  l.units_at = 2;
  l.unit_bytes = unit;
  l.unit_mm = p[9];
  const size_t tail = 12 + l.block_bytes * static_cast<size_t>(blocks) + 4 + 17 * bit(2);
  l.return_mode_at = tail + 12;
  l.date_at = tail + 15;
  l.micros_at = tail + 21;
  l.bytes = size_with(unit);
  // nebula's limits (the data sheets give 0.3-200 m at 10 % and 0.05-50 m).
  l.min_m = v14 ? 0.1f : 0.05f;
  l.max_m = v14 ? 230.f : 50.f;
  l.exact_size = true;
  return l;
}

// Protocol 4.3 (AT128E2X): 128 channels in 2 blocks of a u16 azimuth in 0.01 deg, a fine
// azimuth byte (1/256 of that) and 4-byte units; the body's CRC; a 32-byte tail (microseconds at
// 20, return mode at 24, date at 26); the UDP sequence number (flag bit 0), the tail's CRC, a
// 32-byte signature (bit 3). docs/formats/hesai-answer-keys.md, "AT128".
Layout At128Layout(const std::vector<uint8_t>& p) {
  const uint8_t flags = p[11];
  Layout l;
  l.name = "AT128";
  l.lasers = p[6];
  l.blocks = p[7];
  l.body_at = 12;
  l.block_bytes = 3 + 4 * static_cast<size_t>(l.lasers);
  l.azimuth_at = 0;
  l.units_at = 3;
  l.unit_bytes = 4;
  l.unit_mm = p[9];
  const size_t tail = 12 + l.block_bytes * static_cast<size_t>(l.blocks) + 4;
  l.micros_at = tail + 20;
  l.return_mode_at = tail + 24;
  l.date_at = tail + 26;
  l.bytes = tail + 32 + 4 * (flags & 1) + 4 + 32 * ((flags >> 3) & 1);
  l.min_m = 1.f;  // nebula's limits
  l.max_m = 180.f;
  l.exact_size = true;
  l.mirror = true;
  return l;
}

// The family a packet's bytes name, or why it names none.
Expected<Layout> LayoutOf(const std::vector<uint8_t>& p) {
  const size_t n = p.size();
  if (n < 12) return Error{"packet of " + std::to_string(n) + " bytes, too short for Hesai"};
  Layout l;
  if (p[0] == 0xFF && p[1] == 0xEE) {  // Pandar40P: no header, block 0's start bytes
    l = {"Pandar40P", 40, 10, 0, 124, 2, 4, 3, 4, 1254, 1256, 1250, 1262, 0.3f, 200.f};
  } else if (p[0] == 0xEE && p[1] == 0xFF && p[2] == 64 && p[3] == 6) {  // Pandar64's 8 bytes
    if (p[5] == 0) return Error{"Pandar64 header: distance unit 0 mm"};
    l = {"Pandar64", 64, 6, 8, 194, 0, 2, 3, p[5], 1186, 1188, 1182, 1194, 0.3f, 200.f};
  } else if (p[0] == 0xEE && p[1] == 0xFF) {  // the 12-byte header of protocols 1.4 to 6.1
    const int major = p[2], minor = p[3], lasers = p[6], blocks = p[7];
    const std::string version = std::to_string(major) + "." + std::to_string(minor);
    if (lasers == 0 || blocks == 0 || p[9] == 0)
      return Error{"Hesai protocol " + version + " header: " + std::to_string(lasers) +
                   " lasers, " + std::to_string(blocks) + " blocks, distance unit " +
                   std::to_string(p[9]) + " mm"};
    const size_t block = 2 + size_t{4} * lasers;
    const size_t tail = 12 + block * blocks;
    if (major == 3 && minor == 1) {  // PandarQT64
      l = {"PandarQT" + std::to_string(lasers),
           lasers,
           blocks,
           12,
           block,
           0,
           2,
           4,
           p[9],
           tail + 16,
           tail + 18,
           tail + 12,
           tail + 24,
           0.1f,
           60.f};
    } else if (major == 6 && minor == 1) {  // PandarXT16, XT32
      l = {"PandarXT" + std::to_string(lasers),
           lasers,
           blocks,
           12,
           block,
           0,
           2,
           4,
           p[9],
           tail + 10,
           tail + 13,
           tail + 19,
           tail + 24,
           0.05f,
           120.f};
    } else if (major == 4 && minor == 3) {
      l = At128Layout(p);
    } else if ((major == 1 && minor == 4) || (major == 3 && minor == 2)) {
      l = FlaggedLayout(p, major == 1);
    } else {
      const char* family = major == 1   ? "the Pandar128/OT128 family"
                           : major == 3 ? "the PandarQT family"
                           : major == 4 ? "the AT family"
                           : major == 7 ? "the FT family"
                                        : "an unknown family";
      return Error{"Hesai protocol " + version + " (" + family +
                   ") is not decoded by this build (it decodes the Pandar40P, Pandar64, "
                   "protocols 1.4 (Pandar128E3X, OT128), 3.1 (QT64), 3.2 (QT128), 4.3 (AT128) "
                   "and 6.1 (XT16/XT32))"};
    }
  } else {
    return Error{"starts " + Hex2(p[0], p[1]) + ", not a Hesai data packet (FF EE or EE FF)"};
  }
  if (n != l.bytes && (l.exact_size || n != l.bytes + kSequenceBytes))
    return Error{l.name + " packet of " + std::to_string(n) + " bytes (expected " +
                 std::to_string(l.bytes) +
                 (l.exact_size ? std::string(", as its header's flags give")
                               : " or " + std::to_string(l.bytes + kSequenceBytes)) +
                 ")"};
  return l;
}

// Returns per firing of a return mode byte (docs/formats/hesai-answer-keys.md), 0 if unknown.
int ReturnsOf(uint8_t mode) {
  switch (mode) {
    case 0x33:
    case 0x34:
    case 0x37:
    case 0x38:
      return 1;
    case 0x39:
    case 0x3a:
    case 0x3b:
    case 0x3c:
    case 0x3e:
      return 2;
    case 0x3d:
      return 3;
  }
  return 0;
}

// The kind of return r of a firing's n in return mode `mode` (the mode's returns in the order its
// name gives them, as nebula reads the user manuals' "Return mode" tables): a dual mode's
// strongest by reflectivity among the firing's returns (ties: both). Repeats are the caller's.
physics::ReturnType HesaiReturnType(uint8_t mode, int r, int n, const uint16_t* raw,
                                    const uint8_t* refl) {
  using T = physics::ReturnType;
  bool strongest = true;
  for (int k = 0; k < n; ++k)
    if (k != r && raw[k] != 0 && refl[k] > refl[r]) strongest = false;
  switch (mode) {
    case 0x33:
      return T::kFirst;
    case 0x34:
      return T::kSecond;
    case 0x37:
      return T::kStrongest;
    case 0x38:
      return T::kLast;
    case 0x39:  // last, strongest
      return r == 0 ? (strongest ? T::kLastStrongest : T::kLast)
                    : (strongest ? T::kStrongest : T::kSecondStrongest);
    case 0x3a:  // first, second
      return r == 0 ? T::kFirst : T::kSecond;
    case 0x3b:  // first, last
      return r == 0 ? T::kFirst : T::kLast;
    case 0x3c:  // first, strongest
      return r == 0 ? (strongest ? T::kFirstStrongest : T::kFirst)
                    : (strongest ? T::kStrongest : T::kSecondStrongest);
    case 0x3d:  // first, last, strongest
      return r == 0 ? T::kFirst : r == 1 ? T::kLast : T::kStrongest;
    case 0x3e:  // strongest, second strongest
      return r == 0 ? T::kStrongest : T::kSecondStrongest;
  }
  return T::kUnknown;
}

// Whether a channel's azimuth went from `before` to `now` into a new revolution: a step back of
// more than a quarter turn, across 0 deg or back to the start of a field-of-view window the unit
// sends part of each revolution of (a small step back is a packet out of order).
bool Wrapped(double before_deg, double now_deg) {
  return now_deg + 90 < before_deg;
}

// A frame longer than this is cut whatever the azimuths say (a motor spinning up or stopped):
// the slowest units turn at 5 Hz.
constexpr double kMaxFrameSeconds = 1.0;

// The packet's UTC date (year byte: 2000 + y below 100, else 1900 + y, as the Hesai SDK reads
// it; a first byte 0: Unix seconds in bytes 1-5) and microseconds, in seconds.
double PacketTime(const std::vector<uint8_t>& p, const Layout& l) {
  const uint8_t* d = &p[l.date_at];
  // The "epoch" form some firmware sends (nebula's AT128): bytes 1-5 are Unix seconds,
  // big-endian, whose top byte is 0 until 2106; the date form's month is never 0 (its year byte
  // 0 is 2000, a unit that never got a time).
  if (d[0] == 0 && d[1] == 0) {
    const uint64_t s = uint64_t{d[1]} << 32 | uint64_t{d[2]} << 24 | uint64_t{d[3]} << 16 |
                       uint64_t{d[4]} << 8 | d[5];
    return static_cast<double>(s) + Le<uint32_t>(&p[l.micros_at]) * 1e-6;
  }
  std::tm t{};
  t.tm_year = (d[0] < 100 ? 2000 + d[0] : 1900 + d[0]) - 1900;
  t.tm_mon = d[1] - 1;
  t.tm_mday = d[2];
  t.tm_hour = d[3];
  t.tm_min = d[4];
  t.tm_sec = d[5];
  return static_cast<double>(timegm(&t)) + Le<uint32_t>(&p[l.micros_at]) * 1e-6;
}

// The fire-time file for messages: its path where known.
std::string FiretimeFileName(const HesaiCalibration& cal) {
  return cal.firetime_file.empty() ? std::string("the fire-time file") : cal.firetime_file.string();
}

// Whether this decoder times a family's blocks (BlockOffsetUs): the Pandar40P, Pandar64,
// PandarQT64 and PandarXT16/32, whose blocks fire at fixed steps. The 1.4, 3.2 and 4.3 families'
// timing depends on their operating state (hesai-answer-keys.md): their points keep the packet's.
bool BlockTimed(const Layout& l) {
  return l.name == "Pandar40P" || l.name == "Pandar64" || l.name == "PandarQT64" ||
         l.name.rfind("PandarXT", 0) == 0;
}

// When the firing of blocks `first_block`.. starts, in us from the packet's timestamp, with `n`
// returns a firing (a dual firing's blocks share its time). Hesai's SDK 2.0 parsers and nebula
// agree (docs/formats/hesai-answer-keys.md, "Point time"): the Pandar40P's and Pandar64's
// timestamp marks the end of the packet, 55.56 us a block back from its last (28.58 and 42.58
// us more); the QT64's its start, 25.71 us then 166.67 us a block on; the XT's its last block,
// 50 us a block back (the XT fire-time files hold the rest, 5.632 us + the channel's firing).
double BlockOffsetUs(const Layout& l, int first_block, int n) {
  const int from_last = (l.blocks - 1 - first_block) / n;
  if (l.name == "Pandar40P") return -(28.58 + 55.56 * from_last);
  if (l.name == "Pandar64") return -(42.58 + 55.56 * from_last);
  if (l.name == "PandarQT64") return 25.71 + 500.0 / 3 * (first_block / n);
  if (l.name.rfind("PandarXT", 0) == 0) return -50.0 * from_last;
  return 0;
}

// What is wrong with a packet's date and microseconds (a month 13, a 25th hour: a damaged
// packet, not a time to normalise), or empty; `at` is the field's offset.
std::string DateProblem(const std::vector<uint8_t>& p, const Layout& l, size_t* at) {
  const uint8_t* d = &p[l.date_at];
  *at = l.micros_at;
  if (Le<uint32_t>(&p[l.micros_at]) >= 1000000)
    return "microseconds " + std::to_string(Le<uint32_t>(&p[l.micros_at])) +
           " are a second or more";
  *at = l.date_at;
  if (d[0] == 0 && d[1] == 0) return "";  // the epoch form
  if (d[1] < 1 || d[1] > 12 || d[2] < 1 || d[2] > 31 || d[3] > 23 || d[4] > 59 || d[5] > 60)
    return "date " + std::to_string(d[0]) + "-" + std::to_string(d[1]) + "-" +
           std::to_string(d[2]) + " " + std::to_string(d[3]) + ":" + std::to_string(d[4]) + ":" +
           std::to_string(d[5]) + " is no date (year byte, month, day, hour, minute, second)";
  return "";
}

class HesaiStream {
 public:
  HesaiStream(const PacketSource& source, const HesaiCalibration& cal, const FrameSink& sink,
              CaptureStats& stats)
      : source_(source), cal_(cal), sink_(sink), stats_(stats) {
    const size_t n = cal.elevation_deg.size();
    // nebula's float arithmetic (the keys are bit-exact with it): the angles in float, sin and
    // cos of floats.
    const float deg = static_cast<float>(std::numbers::pi / 180);
    for (size_t c = 0; c < n; ++c) {
      const float e = static_cast<float>(cal.elevation_deg[c]) * deg;
      cos_e_.push_back(std::cos(e));
      sin_e_.push_back(std::sin(e));
      offset_rad_.push_back(static_cast<float>(cal.azimuth_offset_deg[c]) * deg);
      if (cal.azimuth_offset_deg[c] < cal.azimuth_offset_deg[last_channel_]) last_channel_ = c;
    }
    last_u_.assign(n, -1);
    crossed_.assign(n, 0);
    recent_.fill(~uint64_t{0});
  }

  Status Take(const UdpDatagram& d);
  // The frame in hand and the start of the next (both partial revolutions), if any.
  Status Finish() {
    if (cur_.size() > 0)
      if (Status s = Emit(cur_); !s.ok()) return s;
    if (next_.size() > 0) return Emit(next_);
    return {};
  }

 private:
  Status Decode(const std::vector<uint8_t>& p, const UdpDatagram& d);
  // A frame handed on (an empty one is dropped, so frames are numbered without gaps).
  Status Emit(Frame& f) {
    Frame out = std::move(f);
    f = Frame{};
    if (out.size() == 0) return {};
    out.index = frames_++;
    out.start_time_s = out.timestamp_s.front();
    out.end_time_s = out.timestamp_s.back();
    return sink_(std::move(out));
  }

  const PacketSource& source_;
  const HesaiCalibration& cal_;
  const FrameSink& sink_;
  CaptureStats& stats_;
  bool have_layout_ = false;
  Layout layout_;
  std::vector<float> cos_e_, sin_e_, offset_rad_;
  At128Firing mirror_;            // an AT128's angles of the firing in hand
  uint64_t outside_faces_ = 0;    // an AT128's firings between its mirror's faces
  size_t last_channel_ = 0;       // the channel of the smallest offset: the last to cross 0 deg
  std::vector<double> last_u_;    // each channel's last corrected azimuth, (0, 360] deg
  std::vector<uint8_t> crossed_;  // crossed 0 deg since the frame in hand began
  Frame cur_, next_;
  uint32_t cur_firings_ = 0, next_firings_ = 0, frames_ = 0;
  std::array<uint64_t, 32> recent_;  // (time, first azimuth) of recent packets
  size_t recent_next_ = 0;
};

Status HesaiStream::Take(const UdpDatagram& d) {
  stats_.SawUdp(d.dst_port, d.payload.size());
  if (d.dst_port != kDataPort) {
    ++stats_.other_udp;
    return {};
  }
  auto layout = LayoutOf(d.payload);
  if (!layout.ok()) {
    stats_.BadPacket(PacketPlace(source_.file, d, 0), layout.message());
    return {};
  }
  if (!have_layout_) {
    if (static_cast<size_t>(layout->lasers) != cal_.elevation_deg.size())
      return Error{PacketPlace(source_.file, d, 0) + ": the packets are from " +
                   Article(layout->name) + layout->name + " (" + std::to_string(layout->lasers) +
                   " lasers) but " + cal_.file.string() + " has " +
                   std::to_string(cal_.elevation_deg.size()) + " channels"};
    if (layout->mirror != !cal_.mirror.empty())
      return Error{PacketPlace(source_.file, d, 0) + ": the packets are from " +
                   Article(layout->name) + layout->name +
                   (layout->mirror ? ", whose angles come from its angle-correction .dat, not "
                                   : ", whose angles come from an angle-correction .csv, not ") +
                   cal_.file.string()};
    if (!cal_.firetime_us.empty() && !BlockTimed(*layout))
      return Error{PacketPlace(source_.file, d, 0) + ": " + Article(layout->name) + layout->name +
                   "'s fire times depend on its operating state; " + FiretimeFileName(cal_) +
                   " is not applied to it"};
    if (!cal_.firetime_us.empty() && cal_.firetime_us.size() != static_cast<size_t>(layout->lasers))
      return Error{PacketPlace(source_.file, d, 0) + ": the packets are from " +
                   Article(layout->name) + layout->name + " (" + std::to_string(layout->lasers) +
                   " lasers) but " + FiretimeFileName(cal_) + " has " +
                   std::to_string(cal_.firetime_us.size()) + " channels"};
    layout_ = *layout;
    have_layout_ = true;
  } else if (!(*layout == layout_)) {
    stats_.BadPacket(PacketPlace(source_.file, d, 0), Article(layout->name) + layout->name +
                                                          " packet in a stream of " + layout_.name +
                                                          " packets");
    return {};
  }
  return Decode(d.payload, d);
}

Status HesaiStream::Decode(const std::vector<uint8_t>& p, const UdpDatagram& d) {
  const Layout& l = layout_;
  const uint8_t mode = p[l.return_mode_at];
  const int n = ReturnsOf(mode);
  if (n == 0 || l.blocks % n != 0) {
    stats_.BadPacket(PacketPlace(source_.file, d, l.return_mode_at),
                     "return mode 0x" + Hex2(0, p[l.return_mode_at]).substr(4) + " (" +
                         std::to_string(n) + " returns per firing in " + std::to_string(l.blocks) +
                         " blocks)");
    return {};
  }
  size_t date_at = 0;
  if (const std::string problem = DateProblem(p, l, &date_at); !problem.empty()) {
    stats_.BadPacket(PacketPlace(source_.file, d, date_at), problem);
    return {};
  }
  for (int b = 0; b < l.blocks; ++b) {
    const size_t at = l.body_at + b * l.block_bytes;
    if (l.azimuth_at == 2 && (p[at] != 0xFF || p[at + 1] != 0xEE)) {
      stats_.BadPacket(
          PacketPlace(source_.file, d, at),
          "block " + std::to_string(b) + " starts " + Hex2(p[at], p[at + 1]) + ", not FF EE");
      return {};
    }
    if (Le<uint16_t>(&p[at + l.azimuth_at]) >= 36000) {
      stats_.BadPacket(PacketPlace(source_.file, d, at + l.azimuth_at),
                       "block " + std::to_string(b) + " azimuth " +
                           std::to_string(Le<uint16_t>(&p[at + l.azimuth_at])) +
                           " (0.01 deg) is not below 36000");
      return {};
    }
  }
  const uint64_t key =
      uint64_t{Le<uint32_t>(&p[l.micros_at])} << 16 | Le<uint16_t>(&p[l.body_at + l.azimuth_at]);
  if (std::find(recent_.begin(), recent_.end(), key) != recent_.end()) {
    ++stats_.duplicates;
    return {};
  }
  recent_[recent_next_++ % recent_.size()] = key;
  ++stats_.lidar_packets;
  const double time = PacketTime(p, l);
  if (cur_.size() > 0 && time - cur_.timestamp_s.front() > kMaxFrameSeconds) {
    if (Status s = Finish(); !s.ok()) return s;
    cur_firings_ = next_firings_ = 0;
    std::fill(crossed_.begin(), crossed_.end(), 0);
  }
  const size_t lasers = static_cast<size_t>(l.lasers);
  for (int g = 0; g < l.blocks / n; ++g) {
    const size_t first_block = l.body_at + static_cast<size_t>(g * n) * l.block_bytes;
    const double block_us = BlockOffsetUs(l, g * n, n);
    const uint16_t azimuth = Le<uint16_t>(&p[first_block + l.azimuth_at]);
    // An AT128's angles: from the encoder angle (with its fine byte) and the mirror face; a
    // firing between faces is none of the field of view.
    if (l.mirror &&
        !At128FiringAngles(cal_.mirror.front(),
                           int64_t{azimuth} * 256 + p[first_block + l.azimuth_at + 2], mirror_)) {
      if (outside_faces_++ == 0)
        stats_.Warn(PacketPlace(source_.file, d, first_block) +
                    ": a firing at an encoder angle outside every face of the mirror correction "
                    "(" +
                    cal_.file.string() + "): such firings give no points");
      continue;
    }
    // A frame ends where the channel of the smallest offset crosses 0 deg (an AT128's, where
    // its field of view starts again on the next face); the channels that crossed before it
    // already fill the next frame.
    auto corrected = [&](size_t c) {
      double u = l.mirror ? mirror_.azimuth_deg[c]
                          : std::fmod(azimuth / 100.0 + cal_.azimuth_offset_deg[c], 360.0);
      return u <= 0 ? u + 360.0 : u;  // (0, 360]: a point exactly at 0 deg ends its frame
    };
    bool emitted = false;
    const double u_last = corrected(last_channel_);
    if (last_u_[last_channel_] >= 0 && Wrapped(last_u_[last_channel_], u_last)) {
      if (Status s = Emit(cur_); !s.ok()) return s;
      std::swap(cur_, next_);
      cur_firings_ = next_firings_;
      next_firings_ = 0;
      std::fill(crossed_.begin(), crossed_.end(), 0);
      emitted = true;
    }
    const uint32_t cur_column = cur_firings_++;
    bool any_crossed = false;
    const float block_rad = static_cast<float>(azimuth / 100.0 * (std::numbers::pi / 180));
    for (size_t c = 0; c < lasers; ++c) {
      const double u = corrected(c);
      if (!emitted && last_u_[c] >= 0 && Wrapped(last_u_[c], u)) crossed_[c] = 1;
      last_u_[c] = u;
      any_crossed |= crossed_[c] != 0;
    }
    const uint32_t next_column = any_crossed ? next_firings_++ : 0;
    for (size_t c = 0; c < lasers; ++c) {
      Frame& target = crossed_[c] ? next_ : cur_;
      const uint32_t column = crossed_[c] ? next_column : cur_column;
      // The returns of this firing and channel: distance (float, as nebula), reflectivity.
      std::array<float, 3> dist{};
      std::array<uint16_t, 3> raw{};
      std::array<uint8_t, 3> refl{};
      for (int r = 0; r < n; ++r) {
        const uint8_t* u = &p[first_block + static_cast<size_t>(r) * l.block_bytes + l.units_at +
                              c * l.unit_bytes];
        raw[r] = Le<uint16_t>(u);
        refl[r] = u[2];
        dist[r] = static_cast<float>(raw[r] * static_cast<double>(l.unit_mm) / 1000.0);
      }
      const float a = l.mirror
                          ? static_cast<float>(mirror_.azimuth_deg[c] * (std::numbers::pi / 180))
                          : block_rad + offset_rad_[c];
      const float sin_a = std::sin(a), cos_a = std::cos(a);
      const float cos_e = l.mirror ? mirror_.cos_e[c] : cos_e_[c];
      const float sin_e = l.mirror ? mirror_.sin_e[c] : sin_e_[c];
      uint8_t kept = 0;  // the firing's returns kept so far: a point's return index
      for (int r = 0; r < n; ++r) {
        if (raw[r] == 0 || dist[r] < l.min_m || dist[r] > l.max_m) continue;
        // A return that repeats another of its firing (the same echo reported twice, as dual
        // modes do when there is one): only the last is kept, and it is then identical.
        bool repeat = false, repeated = false;
        for (int k = 0; k < n; ++k) {
          if (k == r || raw[k] == 0 || std::abs(dist[r] - dist[k]) >= 0.1f) continue;
          (k > r ? repeat : repeated) = true;
        }
        if (repeat) continue;
        const float xy = dist[r] * cos_e;
        FramePoint pt;
        pt.x_m = xy * cos_a;     // Hesai's +Y (0 deg) is ROS's x
        pt.y_m = -(xy * sin_a);  // Hesai's +X (clockwise, right) is ROS's -y
        pt.z_m = dist[r] * sin_e;
        pt.range_m = dist[r];
        pt.intensity = refl[r];
        pt.channel = static_cast<uint16_t>(c);
        pt.column = column;
        pt.timestamp_s =
            time + (block_us + (cal_.firetime_us.empty() ? 0 : cal_.firetime_us[c])) * 1e-6;
        pt.return_index = kept++;
        pt.return_type = repeated ? physics::ReturnType::kIdentical
                                  : HesaiReturnType(mode, r, n, raw.data(), refl.data());
        pt.beam_id = column * static_cast<uint32_t>(lasers) + static_cast<uint32_t>(c);
        target.Append(pt);
      }
    }
  }
  return {};
}

}  // namespace

bool LooksLikeHesaiPacket(const std::vector<uint8_t>& payload) {
  return payload.size() >= 12 &&
         ((payload[0] == 0xFF && payload[1] == 0xEE) || (payload[0] == 0xEE && payload[1] == 0xFF));
}

Status ForEachHesaiFrame(const PacketSource& packets, const HesaiCalibration& cal,
                         const FrameSink& sink, CaptureStats* stats_out) {
  CaptureStats local;
  CaptureStats& stats = stats_out ? *stats_out : local;
  if (cal.elevation_deg.empty()) return Error{cal.file.string() + ": no channels"};
  HesaiStream stream(packets, cal, sink, stats);
  Status read = packets.read([&](const UdpDatagram& d) { return stream.Take(d); }, stats);
  if (!read.ok()) return read;
  if (Status s = CheckDecodedPackets(packets.file, stats, "Hesai data packet (UDP port 2368)");
      !s.ok())
    return s;
  return stream.Finish();
}

}  // namespace lt
