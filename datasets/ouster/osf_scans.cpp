// The scans of an OSF lidar stream as frames (lidartwin/datasets/osf.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <numeric>
#include <optional>

#include "lidartwin/datasets/osf.h"
#include "ouster/osf_blocks.h"
#include "ouster/osf_generated.h"
#include "ouster/osf_png.h"
#include "ouster/ouster_points.h"

namespace lt {
namespace {

// A chunk holds the messages of about a second; one of 1 GiB is not a recording's.
constexpr uint64_t kMaxChunkBytes = 1ull << 30;

// ouster-sdk's ChanField numbers of the fields a frame takes.
enum Field : uint8_t {
  kRange = 1,
  kRange2 = 2,
  kSignal = 3,
  kSignal2 = 4,
  kReflectivity = 5,
  kReflectivity2 = 6
};

// Bytes of a ChanFieldType's unsigned values (1 u8, 2 u16, 3 u32, 4 u64), 0 for the others.
int BytesOfType(uint8_t type) {
  switch (type) {
    case 1:
      return 1;
    case 2:
      return 2;
    case 3:
      return 4;
    case 4:
      return 8;
    default:
      return 0;
  }
}

// One scan's fields in measurement order (rows x columns), those it has.
struct ScanFields {
  std::optional<std::vector<uint64_t>> range[2], signal[2], reflectivity[2];
};

// The images of the fields a frame takes, decoded and staggered back: the writer stores each
// destaggered (column v of row u moved by pixel_shift_by_row[u]), the measurement order is
// S[u][v] = D[u][(v + shift[u]) mod W].
Expected<ScanFields> DecodeFields(const osf::LidarScanMsg& scan, const OusterMetadata& m) {
  const uint32_t w = m.columns_per_frame, h = m.pixels_per_column;
  if (!scan.channels() || !scan.field_types() ||
      scan.channels()->size() != scan.field_types()->size()) {
    return Error{"its field images and field types do not pair up"};
  }
  ScanFields fields;
  for (flatbuffers::uoffset_t i = 0; i < scan.channels()->size(); ++i) {
    const osf::ChannelField* type = scan.field_types()->Get(i);
    std::optional<std::vector<uint64_t>>* slot = nullptr;
    switch (type->chan_field()) {
      case kRange:
        slot = &fields.range[0];
        break;
      case kRange2:
        slot = &fields.range[1];
        break;
      case kSignal:
        slot = &fields.signal[0];
        break;
      case kSignal2:
        slot = &fields.signal[1];
        break;
      case kReflectivity:
        slot = &fields.reflectivity[0];
        break;
      case kReflectivity2:
        slot = &fields.reflectivity[1];
        break;
      default:
        continue;  // near-IR, flags, raw words: not a frame's
    }
    const int bytes = BytesOfType(type->chan_field_type());
    if (bytes == 0) {
      return Error{"field " + std::to_string(type->chan_field()) + " has value type " +
                   std::to_string(type->chan_field_type()) + ", not an unsigned integer"};
    }
    const auto* image = scan.channels()->Get(i)->buffer();
    if (!image) return Error{"field " + std::to_string(type->chan_field()) + " has no image"};
    auto values = osf::DecodeFieldImage(image->data(), image->size(), w, h, bytes);
    if (!values.ok()) {
      return Error{"field " + std::to_string(type->chan_field()) + "'s image: " + values.message()};
    }
    std::vector<uint64_t> staggered(values->size());
    for (uint32_t u = 0; u < h; ++u) {
      const int64_t shift = m.pixel_shift_by_row[u];
      for (uint32_t v = 0; v < w; ++v) {
        const int64_t from = ((static_cast<int64_t>(v) + shift) % w + w) % w;
        staggered[size_t{u} * w + v] = (*values)[size_t{u} * w + static_cast<uint32_t>(from)];
      }
    }
    *slot = std::move(staggered);
  }
  if (!fields.range[0]) return Error{"it has no RANGE field"};
  return fields;
}

// A scan as a frame; an error (without the place) says why it is unusable.
Expected<Frame> ScanFrame(const osf::LidarScanMsg& scan, const OusterMetadata& m, uint32_t index) {
  const uint32_t w = m.columns_per_frame, h = m.pixels_per_column;
  const auto* times = scan.header_timestamp();
  const auto* status = scan.header_status();
  if (!times || !status || times->size() != w || status->size() != w) {
    return Error{"its column headers do not hold " + std::to_string(w) +
                 " columns (the sensor's columns_per_frame)"};
  }
  if (m.pixel_shift_by_row.size() != h) {
    return Error{"the sensor's metadata has " + std::to_string(m.pixel_shift_by_row.size()) +
                 " pixel shifts for " + std::to_string(h) + " rows"};
  }
  auto fields = DecodeFields(scan, m);
  if (!fields.ok()) return fields.error();
  Frame f;
  f.index = index;
  f.start_time_s = -1;
  for (uint32_t v = 0; v < w; ++v) {
    if (!(status->Get(v) & 1)) continue;  // a column the sensor did not send
    const double t = static_cast<double>(times->Get(v)) * 1e-9;
    if (f.start_time_s < 0 || t < f.start_time_s) f.start_time_s = t;
    for (uint32_t u = 0; u < h; ++u) {
      const size_t at = size_t{u} * w + v;
      for (int ret = 0; ret < 2; ++ret) {
        if (!fields->range[ret]) continue;
        const uint64_t range = (*fields->range[ret])[at];
        if (range == 0 || range > UINT32_MAX) continue;
        const auto& refl_field = fields->reflectivity[ret];
        const auto refl = static_cast<uint32_t>(refl_field ? (*refl_field)[at] : 0);
        const auto& signal = fields->signal[ret];
        const double intensity = signal ? static_cast<double>((*signal)[at]) : refl;
        AddOusterPoint(m, f, u, v, t, static_cast<uint32_t>(range), refl, intensity,
                       static_cast<uint8_t>(ret));
      }
    }
  }
  if (f.start_time_s < 0) return Error{"it has no valid column"};
  f.end_time_s = f.start_time_s + 1.0 / m.rotation_rate_hz;  // one revolution, as from packets
  return f;
}

// Whether two of the chunk's messages share bytes: a writer gives each its own, a crafted chunk
// could list one scan a million times (its flatbuffer verifies) to be decoded a million times.
bool MessagesShareBytes(const flatbuffers::Vector<flatbuffers::Offset<osf::StampedMessage>>& ms) {
  std::vector<std::pair<const uint8_t*, const uint8_t*>> spans;
  for (const osf::StampedMessage* m : ms) {
    if (m->buffer())
      spans.emplace_back(m->buffer()->data(), m->buffer()->data() + m->buffer()->size());
  }
  std::sort(spans.begin(), spans.end());
  for (size_t k = 1; k < spans.size(); ++k)
    if (spans[k].first < spans[k - 1].second) return true;
  return false;
}

}  // namespace

Status ForEachOsfFrame(const OsfFile& osf, const OsfScanStream& stream, const FrameSink& sink,
                       CaptureStats* stats_out) {
  CaptureStats local;
  CaptureStats& stats = stats_out ? *stats_out : local;
  const std::filesystem::path& path = osf.file;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path.string() + ": cannot open it"};
  stats.bytes_total = osf.chunks_end;
  uint32_t emitted = 0;
  // A chunk or scan that cannot be read: skipped, counted, the first few named.
  const auto skip = [&](const std::string& where, const std::string& what) {
    ++stats.bad_packets;
    stats.Warn(where + ": " + what);
  };
  // A scan's buffer is only 4-byte aligned within its chunk; its 8-byte fields are read from
  // an aligned copy where it is not 8-byte aligned in memory.
  std::vector<uint64_t> aligned;
  for (uint64_t at = osf.chunks_begin; at < osf.chunks_end;) {
    bool crc_failed = false;
    auto block = osf::ReadBlock(in, path, at, osf.chunks_end, kMaxChunkBytes, "chunk", &crc_failed);
    if (!block.ok()) return block.error();  // its size is wrong: the chunks after are lost
    const std::string where = path.string() + ": chunk at byte " + std::to_string(at);
    at = block->next;
    stats.bytes_read = at;
    if (crc_failed) {
      skip(where, "its CRC-32 does not match (corrupt): its scans are skipped");
      continue;
    }
    if (Status s = osf::VerifySizePrefixed<osf::Chunk>(block->bytes.data(), block->bytes.size(),
                                                       "OSF!", where);
        !s.ok()) {
      skip(where, "its flatbuffer does not verify: its scans are skipped");
      continue;
    }
    const auto* chunk = flatbuffers::GetSizePrefixedRoot<osf::Chunk>(block->bytes.data());
    if (!chunk->messages()) continue;
    if (MessagesShareBytes(*chunk->messages())) {
      skip(where, "two of its messages share bytes (not a writer's chunk): its scans are skipped");
      continue;
    }
    // A chunk's messages need not be in time order.
    const auto* messages = chunk->messages();
    std::vector<flatbuffers::uoffset_t> order(messages->size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
      return messages->Get(a)->ts() < messages->Get(b)->ts();
    });
    for (const flatbuffers::uoffset_t k : order) {
      const osf::StampedMessage* message = messages->Get(k);
      if (message->id() != stream.id) {
        ++stats.other_streams;
        continue;
      }
      const std::string scan_where = where + ", message " + std::to_string(k);
      const auto* buffer = message->buffer();
      if (!buffer) {
        skip(scan_where, "a message without a scan: skipped");
        continue;
      }
      const uint8_t* data = buffer->data();
      if (reinterpret_cast<uintptr_t>(data) % 8 != 0) {
        aligned.assign((buffer->size() + 7) / 8, 0);
        std::memcpy(aligned.data(), data, buffer->size());
        data = reinterpret_cast<const uint8_t*>(aligned.data());
      }
      if (!osf::VerifySizePrefixed<osf::LidarScanMsg>(data, buffer->size(), nullptr, scan_where)
               .ok()) {
        skip(scan_where, "its scan's flatbuffer does not verify: skipped");
        continue;
      }
      const auto* scan = flatbuffers::GetSizePrefixedRoot<osf::LidarScanMsg>(data);
      auto frame = ScanFrame(*scan, stream.sensor, emitted);
      if (!frame.ok()) {
        skip(scan_where, "the scan of frame id " + std::to_string(scan->frame_id()) + ": " +
                             frame.message() + "; skipped");
        continue;
      }
      ++stats.lidar_packets;
      ++emitted;
      DropFields(frame.value(), kLabelFields);  // a recording has no labels
      if (Status s = sink(std::move(frame.value())); !s.ok()) return s;
    }
  }
  // The warnings name the file, the chunk's byte and the message.
  if (stats.lidar_packets == 0) {
    return Error{stats.bad_packets ? "no scan of lidar stream " + std::to_string(stream.id) +
                                         " could be read; first problem: " + stats.warnings[0]
                                   : path.string() + ": no scan of lidar stream " +
                                         std::to_string(stream.id) + " in the file"};
  }
  if (stats.bad_packets * 9 > stats.lidar_packets) {
    return Error{std::to_string(stats.bad_packets) + " chunks or scans of " + path.string() +
                 " cannot be read (" + std::to_string(stats.lidar_packets) +
                 " could); first: " + stats.warnings.front()};
  }
  return {};
}

}  // namespace lt
