// An OSF file's header and metadata (lidartwin/datasets/osf.h), and its blocks.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/osf.h"
#include "ouster/osf_blocks.h"
#include "ouster/osf_generated.h"

namespace lt {
namespace osf {

Expected<Block> ReadBlock(std::ifstream& in, const std::filesystem::path& file, uint64_t offset,
                          uint64_t end, uint64_t max_bytes, const std::string& what,
                          bool* crc_failed) {
  const std::string where = file.string() + ": " + what + " at byte " + std::to_string(offset);
  if (offset > end || end - offset < 12)
    return Error{where + ": its section ends at byte " + std::to_string(end) +
                 ", too soon for a block"};
  uint32_t size = 0;
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  if (!in.read(reinterpret_cast<char*>(&size), 4)) return Error{where + ": cannot read its size"};
  if (size < 8 || uint64_t{size} + 8 > end - offset || size > max_bytes) {
    return Error{where + ": a block of " + std::to_string(size) + " bytes, " +
                 (size < 8 ? std::string("too small for a flatbuffer")
                  : size > max_bytes
                      ? "more than the " + std::to_string(max_bytes) + " such a block may hold"
                      : "past the end of its section at byte " + std::to_string(end))};
  }
  Block b;
  b.offset = offset;
  b.bytes.resize(4 + size_t{size});
  std::memcpy(b.bytes.data(), &size, 4);
  uint32_t stored = 0;
  if (!in.read(reinterpret_cast<char*>(b.bytes.data() + 4), size) ||
      !in.read(reinterpret_cast<char*>(&stored), 4)) {
    return Error{where + ": cannot read its " + std::to_string(size) + " bytes"};
  }
  const auto computed = static_cast<uint32_t>(
      crc32(crc32(0, nullptr, 0), b.bytes.data(), static_cast<uInt>(b.bytes.size())));
  if (computed != stored) {
    if (crc_failed) {
      *crc_failed = true;
    } else {
      return Error{where +
                   fmt::format(": CRC-32 {:08x} where the block stores {:08x}", computed, stored) +
                   " (the file is corrupt)"};
    }
  }
  b.next = offset + 8 + size;
  return b;
}

}  // namespace osf

namespace {

constexpr uint64_t kMaxHeaderBytes = 1 << 10;       // 52 in OSF 2.x
constexpr uint64_t kMaxMetadataBytes = 1ull << 28;  // sensor JSONs of ~10 KB, a stream index
// A sensor's metadata JSON is about 10 KB; parsing costs tens of times its size in memory.
constexpr size_t kMaxSensorJsonBytes = 4u << 20;
constexpr char kLidarSensor[] = "ouster/v1/os_sensor/LidarSensor";
constexpr char kLidarScanStream[] = "ouster/v1/os_sensor/LidarScanStream";

// "2.1" from OSF's version field: 20 / 21 in 2.0 and 2.1, major << 48 | minor << 32 | patch
// << 16 from then on.
std::string VersionText(uint64_t v) {
  if (v < 100) return std::to_string(v / 10) + "." + std::to_string(v % 10);
  return std::to_string(v >> 48) + "." + std::to_string((v >> 32) & 0xFFFF) + "." +
         std::to_string((v >> 16) & 0xFFFF);
}

bool IsVersion2(uint64_t v) {
  return (v >= 20 && v < 30) || (v >> 48) == 2;
}

template <typename T>
Expected<const T*> NestedTable(const flatbuffers::Vector<uint8_t>* buffer, const char* identifier,
                               const std::string& where) {
  if (!buffer) return Error{where + ": no buffer"};
  if (Status s = osf::VerifySizePrefixed<T>(buffer->data(), buffer->size(), identifier, where);
      !s.ok()) {
    return s.error();
  }
  return flatbuffers::GetSizePrefixedRoot<T>(buffer->data());
}

}  // namespace

Expected<OsfFile> OpenOsf(const std::filesystem::path& path) {
  if (Status s = CheckReadableFile(path); !s.ok()) return s.error();
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return Error{path.string() + ": cannot read its size: " + ec.message()};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path.string() + ": cannot open it"};
  OsfFile osf;
  osf.file = path;
  char magic[12] = {};
  if (size < 12 || !in.read(magic, 12) || std::memcmp(magic + 8, "OSF$", 4) != 0) {
    return Error{path.string() + ": not an Ouster OSF v2 file (no 'OSF$' header at byte 8)"};
  }
  auto header_block = osf::ReadBlock(in, path, 0, size, kMaxHeaderBytes, "the header");
  if (!header_block.ok()) return header_block.error();
  const std::string header_where = path.string() + ": the header";
  if (Status s = osf::VerifySizePrefixed<osf::Header>(
          header_block->bytes.data(), header_block->bytes.size(), "OSF$", header_where);
      !s.ok()) {
    return s.error();
  }
  const auto* header = flatbuffers::GetSizePrefixedRoot<osf::Header>(header_block->bytes.data());
  osf.version = header->version();
  if (!IsVersion2(osf.version)) {
    return Error{header_where + ": OSF version " + VersionText(osf.version) +
                 (osf.version < 20 ? " (OSF v1, an older format)" : "") +
                 "; this reader reads OSF 2.x"};
  }
  if (header->status() != 2) {
    return Error{header_where + ": status " + std::to_string(header->status()) +
                 (header->status() == 1
                      ? " (invalid: its writer never closed it, so it has no metadata with the "
                        "sensor's calibration; a recording cut off)"
                      : " (not a finished recording)")};
  }
  if (header->file_length() != size) {
    return Error{header_where + ": the file is " + std::to_string(size) + " bytes where its " +
                 "header says " + std::to_string(header->file_length()) +
                 (size < header->file_length() ? " (cut short: copy it again)" : "")};
  }
  osf.chunks_begin = header_block->next;
  osf.chunks_end = header->metadata_offset();
  if (osf.chunks_end < osf.chunks_begin || osf.chunks_end >= size) {
    return Error{header_where + ": metadata at byte " + std::to_string(osf.chunks_end) +
                 ", outside the file's " + std::to_string(osf.chunks_begin) + ".." +
                 std::to_string(size)};
  }
  auto meta_block =
      osf::ReadBlock(in, path, osf.chunks_end, size, kMaxMetadataBytes, "the metadata");
  if (!meta_block.ok()) return meta_block.error();
  const std::string meta_where =
      path.string() + ": the metadata at byte " + std::to_string(osf.chunks_end);
  if (meta_block->next != size) {
    return Error{meta_where + ": it ends at byte " + std::to_string(meta_block->next) +
                 " but the file goes on to " + std::to_string(size)};
  }
  if (Status s = osf::VerifySizePrefixed<osf::Metadata>(
          meta_block->bytes.data(), meta_block->bytes.size(), "OSF#", meta_where);
      !s.ok()) {
    return s.error();
  }
  const auto* meta = flatbuffers::GetSizePrefixedRoot<osf::Metadata>(meta_block->bytes.data());
  struct Sensor {
    uint32_t id;
    OusterMetadata metadata;
  };
  std::vector<Sensor> sensors;
  std::vector<std::pair<uint32_t, uint32_t>> streams;  // (stream id, sensor id)
  if (meta->entries()) {
    for (const osf::MetadataEntry* entry : *meta->entries()) {
      const std::string type = entry->type() ? entry->type()->str() : "";
      const std::string where = meta_where + ", entry " + std::to_string(entry->id()) + " (" +
                                (type.empty() ? "no type" : type) + ")";
      if (type == kLidarSensor) {
        auto sensor = NestedTable<osf::LidarSensor>(entry->buffer(), nullptr, where);
        if (!sensor.ok()) return sensor.error();
        if (!(*sensor)->metadata()) return Error{where + ": no sensor metadata JSON"};
        if ((*sensor)->metadata()->size() > kMaxSensorJsonBytes) {
          return Error{where + ": a sensor metadata JSON of " +
                       std::to_string((*sensor)->metadata()->size()) + " bytes (at most " +
                       std::to_string(kMaxSensorJsonBytes) + ")"};
        }
        auto m = ParseOusterMetadata((*sensor)->metadata()->str(),
                                     path.string() + " (entry " + std::to_string(entry->id()) +
                                         ", the sensor's metadata JSON)");
        if (!m.ok()) return m.error();
        sensors.push_back({entry->id(), std::move(m.value())});
      } else if (type == kLidarScanStream) {
        auto stream = NestedTable<osf::LidarScanStream>(entry->buffer(), nullptr, where);
        if (!stream.ok()) return stream.error();
        streams.emplace_back(entry->id(), (*stream)->sensor_id());
      } else {
        osf.other_entries.push_back(std::to_string(entry->id()) + ": " + type);
      }
    }
  }
  for (size_t k = 0; k < sensors.size(); ++k)
    for (size_t j = 0; j < k; ++j)
      if (sensors[j].id == sensors[k].id)
        return Error{meta_where + ": two sensor entries have id " + std::to_string(sensors[k].id)};
  for (const auto& stream : streams) {
    const uint32_t id = stream.first, sensor_id = stream.second;
    if (std::count_if(streams.begin(), streams.end(),
                      [&](const auto& other) { return other.first == id; }) > 1) {
      return Error{meta_where + ": two lidar stream entries have id " + std::to_string(id)};
    }
    const auto sensor = std::find_if(sensors.begin(), sensors.end(),
                                     [&](const Sensor& s) { return s.id == sensor_id; });
    if (sensor == sensors.end()) {
      return Error{meta_where + ": lidar stream " + std::to_string(id) + " scans with sensor " +
                   std::to_string(sensor_id) + ", which the metadata does not hold"};
    }
    osf.streams.push_back({id, sensor_id, sensor->metadata});
  }
  if (osf.streams.empty()) {
    return Error{meta_where + ": no lidar scan stream (" +
                 (osf.other_entries.empty()
                      ? std::string("no other entries either")
                      : "entries: " + fmt::format("{}", fmt::join(osf.other_entries, ", "))) +
                 ")"};
  }
  std::sort(osf.streams.begin(), osf.streams.end(),
            [](const OsfScanStream& a, const OsfScanStream& b) { return a.id < b.id; });
  return osf;
}

Expected<const OsfScanStream*> ChooseOsfStream(const OsfFile& osf, const std::string& stream) {
  std::string listed;
  std::vector<const OsfScanStream*> matches;
  for (const OsfScanStream& s : osf.streams) {
    listed += (listed.empty() ? "" : ", ") + std::to_string(s.id) + " (" + s.sensor.product + " " +
              s.sensor.serial + ")";
    if (stream.empty() || stream == std::to_string(s.id) || stream == s.sensor.serial ||
        stream == s.sensor.product) {
      matches.push_back(&s);
    }
  }
  if (matches.size() == 1) return matches[0];
  const std::string what = matches.empty()  ? "no lidar stream '" + stream + "'"
                           : stream.empty() ? std::string("several lidar streams")
                                            : "several lidar streams match '" + stream + "'";
  return Error{osf.file.string() + ": " + what +
               "; name one by its id, the sensor's serial number or product line: " + listed};
}

}  // namespace lt
