#include "rosbag/mcap_writer.h"

#include "rosbag/mcap_records.h"

#include <libdeflate.h>
#include <zstd.h>

#include <fstream>
#include <vector>

#include "lidartwin/base/atomic_file.h"

namespace lt::ros {
namespace {

using namespace mcap;  // NOLINT: the format's own names
// rosbag2's mcap storage writes chunks of about 1 MiB (its default chunk_size 786432 rounded).
constexpr size_t kChunkBytes = size_t{1} << 20;
// zstd level 1: a lidar frame's floats compress little, so the fastest level loses least.
constexpr int kZstdLevel = 1;

// A record's fields, little-endian.
struct Bytes {
  std::vector<uint8_t> b;
  void U8(uint8_t v) { b.push_back(v); }
  void U16(uint16_t v) { Uint(v, 2); }
  void U32(uint32_t v) { Uint(v, 4); }
  void U64(uint64_t v) { Uint(v, 8); }
  void Uint(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void String(const std::string& s) {
    U32(static_cast<uint32_t>(s.size()));
    b.insert(b.end(), s.begin(), s.end());
  }
  void Raw(std::span<const uint8_t> s) { b.insert(b.end(), s.begin(), s.end()); }
  // A record: opcode, u64 length, the content.
  void Record(uint8_t op, const Bytes& content) {
    U8(op);
    U64(content.b.size());
    Raw(content.b);
  }
};

}  // namespace

std::string QosProfiles(bool transient_local) {
  // rosbag2's YAML of rmw_qos_profile_t (history keep last 1, reliable, volatile or transient
  // local, default deadlines), as `ros2 bag record` writes for a publisher.
  return std::string("- history: 3\n  depth: 0\n  reliability: 1\n  durability: ") +
         (transient_local ? "1" : "2") +
         "\n  deadline:\n    sec: 9223372036\n    nsec: 854775807\n  lifespan:\n"
         "    sec: 9223372036\n    nsec: 854775807\n  liveliness: 1\n"
         "  liveliness_lease_duration:\n    sec: 9223372036\n    nsec: 854775807\n"
         "  avoid_ros_namespace_conventions: false";
}

struct McapWriter::Impl {
  AtomicOutput output;
  std::ofstream out;
  uint64_t written = 0;
  Bytes schemas, channels;  // their records, again for the summary
  uint16_t next_schema = 1, next_channel = 0;
  // The chunk in hand: its records, times, and each channel's (time, offset) index.
  Bytes chunk;
  uint64_t chunk_start = 0, chunk_end = 0;
  std::map<uint16_t, std::vector<std::pair<uint64_t, uint64_t>>> chunk_index;
  Bytes chunk_indexes;  // ChunkIndex records for the summary
  uint32_t chunks = 0;
  uint64_t messages = 0, first_time = 0, last_time = 0;
  std::map<uint16_t, uint64_t> per_channel;
  std::map<uint16_t, uint32_t> sequence;

  explicit Impl(const std::filesystem::path& target) : output(target) {}

  Status Put(const Bytes& b) {
    out.write(reinterpret_cast<const char*>(b.b.data()), static_cast<std::streamsize>(b.b.size()));
    written += b.b.size();
    if (!out) return Error{output.target().string() + ": write failed (disk full?)"};
    return {};
  }

  Status FlushChunk() {
    if (chunk.b.empty()) return {};
    const size_t bound = ZSTD_compressBound(chunk.b.size());
    std::vector<uint8_t> packed(bound);
    const size_t n =
        ZSTD_compress(packed.data(), bound, chunk.b.data(), chunk.b.size(), kZstdLevel);
    if (ZSTD_isError(n)) return Error{output.target().string() + ": zstd: " + ZSTD_getErrorName(n)};
    packed.resize(n);
    Bytes c;
    c.U64(chunk_start);
    c.U64(chunk_end);
    c.U64(chunk.b.size());
    c.U32(libdeflate_crc32(0, chunk.b.data(), chunk.b.size()));
    c.String("zstd");
    c.U64(packed.size());
    c.Raw(packed);
    Bytes record;
    record.Record(kChunk, c);
    const uint64_t chunk_at = written;
    if (Status s = Put(record); !s.ok()) return s;
    // A message index per channel, after its chunk.
    const uint64_t indexes_at = written;
    Bytes offsets;  // map<u16 channel, u64 offset of its MessageIndex>
    for (const auto& [channel, entries] : chunk_index) {
      Bytes m;
      m.U16(channel);
      m.U32(static_cast<uint32_t>(entries.size() * 16));
      for (const auto& [time, offset] : entries) {
        m.U64(time);
        m.U64(offset);
      }
      offsets.U16(channel);
      offsets.U64(written);
      Bytes r;
      r.Record(kMessageIndex, m);
      if (Status s = Put(r); !s.ok()) return s;
    }
    Bytes ci;
    ci.U64(chunk_start);
    ci.U64(chunk_end);
    ci.U64(chunk_at);
    ci.U64(record.b.size());
    ci.U32(static_cast<uint32_t>(offsets.b.size()));
    ci.Raw(offsets.b);
    ci.U64(written - indexes_at);
    ci.String("zstd");
    ci.U64(packed.size());
    ci.U64(chunk.b.size());
    chunk_indexes.Record(kChunkIndex, ci);
    ++chunks;
    chunk.b.clear();
    chunk_index.clear();
    return {};
  }
};

McapWriter::McapWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
McapWriter::~McapWriter() = default;

Expected<std::unique_ptr<McapWriter>> McapWriter::Create(const std::filesystem::path& target) {
  if (Status s = CheckOutputTarget(target); !s.ok()) return s.error();
  auto impl = std::make_unique<Impl>(target);
  impl->out.open(impl->output.temp_path(), std::ios::binary | std::ios::trunc);
  if (!impl->out) return Error{target.string() + ": cannot create its temporary file"};
  Bytes head;
  head.Raw(kMagic);
  Bytes h;
  h.String("ros2");
  h.String(std::string("lidartwin ") + LT_VERSION);
  head.Record(kHeader, h);
  if (Status s = impl->Put(head); !s.ok()) return s.error();
  return std::unique_ptr<McapWriter>(new McapWriter(std::move(impl)));
}

uint16_t McapWriter::AddSchema(const std::string& name, const std::string& text) {
  const uint16_t id = impl_->next_schema++;
  Bytes s;
  s.U16(id);
  s.String(name);
  s.String("ros2msg");
  s.U32(static_cast<uint32_t>(text.size()));
  s.Raw({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  impl_->schemas.Record(kSchema, s);
  Bytes r;
  r.Record(kSchema, s);
  impl_->chunk.Raw(r.b);  // in the data too, ahead of any message of it
  return id;
}

uint16_t McapWriter::AddChannel(uint16_t schema, const std::string& topic,
                                const std::string& qos_yaml) {
  const uint16_t id = impl_->next_channel++;
  Bytes c;
  c.U16(id);
  c.U16(schema);
  c.String(topic);
  c.String("cdr");
  Bytes meta;
  meta.String("offered_qos_profiles");
  meta.String(qos_yaml);
  c.U32(static_cast<uint32_t>(meta.b.size()));
  c.Raw(meta.b);
  impl_->channels.Record(kChannel, c);
  Bytes r;
  r.Record(kChannel, c);
  impl_->chunk.Raw(r.b);
  impl_->per_channel[id] = 0;
  return id;
}

Status McapWriter::Write(uint16_t channel, int64_t time_ns, std::span<const uint8_t> cdr) {
  Impl& m = *impl_;
  const uint64_t t = static_cast<uint64_t>(time_ns);
  if (m.chunk_index.empty()) m.chunk_start = m.chunk_end = t;
  m.chunk_start = std::min(m.chunk_start, t);
  m.chunk_end = std::max(m.chunk_end, t);
  m.chunk_index[channel].emplace_back(t, m.chunk.b.size());
  Bytes msg;
  msg.U16(channel);
  msg.U32(m.sequence[channel]++);
  msg.U64(t);
  msg.U64(t);
  msg.Raw(cdr);
  m.chunk.Record(kMessage, msg);
  if (m.messages == 0) m.first_time = m.last_time = t;
  m.first_time = std::min(m.first_time, t);
  m.last_time = std::max(m.last_time, t);
  ++m.messages;
  ++m.per_channel[channel];
  if (m.chunk.b.size() >= kChunkBytes) return m.FlushChunk();
  return {};
}

Status McapWriter::Close() {
  Impl& m = *impl_;
  if (Status s = m.FlushChunk(); !s.ok()) return s;
  Bytes end;
  Bytes d;
  d.U32(0);  // data_section_crc: 0, "not available" (the summary's own CRC is written)
  end.Record(kDataEnd, d);
  if (Status s = m.Put(end); !s.ok()) return s;
  // The summary: schemas, channels, statistics, chunk indexes; each group's place for the
  // SummaryOffset records after it.
  const uint64_t summary_start = m.written;
  Bytes summary;
  std::vector<std::pair<uint8_t, std::pair<uint64_t, uint64_t>>> groups;
  auto group = [&](uint8_t op, const Bytes& records) {
    if (records.b.empty()) return;
    groups.push_back({op, {summary_start + summary.b.size(), records.b.size()}});
    summary.Raw(records.b);
  };
  group(kSchema, m.schemas);
  group(kChannel, m.channels);
  Bytes stats;
  stats.U64(m.messages);
  stats.U16(static_cast<uint16_t>(m.next_schema - 1));
  stats.U32(m.next_channel);
  stats.U32(0);  // attachments
  stats.U32(0);  // metadata
  stats.U32(m.chunks);
  stats.U64(m.first_time);
  stats.U64(m.last_time);
  Bytes counts;
  for (const auto& [channel, n] : m.per_channel) {
    counts.U16(channel);
    counts.U64(n);
  }
  stats.U32(static_cast<uint32_t>(counts.b.size()));
  stats.Raw(counts.b);
  Bytes stats_record;
  stats_record.Record(kStatistics, stats);
  group(kStatistics, stats_record);
  group(kChunkIndex, m.chunk_indexes);
  const uint64_t offsets_start = summary_start + summary.b.size();
  for (const auto& [op, place] : groups) {
    Bytes o;
    o.U8(op);
    o.U64(place.first);
    o.U64(place.second);
    summary.Record(kSummaryOffset, o);
  }
  // The footer; its CRC covers the summary through its own summary_offset_start field.
  Bytes footer;
  footer.U8(kFooter);
  footer.U64(8 + 8 + 4);
  footer.U64(summary_start);
  footer.U64(offsets_start);
  Bytes crc_input = summary;
  crc_input.Raw(footer.b);
  footer.U32(libdeflate_crc32(0, crc_input.b.data(), crc_input.b.size()));
  summary.Raw(footer.b);
  summary.Raw(kMagic);
  if (Status s = m.Put(summary); !s.ok()) return s;
  m.out.close();
  if (!m.out) return Error{m.output.target().string() + ": write failed (disk full?)"};
  return m.output.Commit();
}

}  // namespace lt::ros
