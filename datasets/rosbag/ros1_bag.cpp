#include "rosbag/ros1_bag.h"

#include <bzlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>

#include "lidartwin/base/message_text.h"
#include "rosbag/lz4_frames.h"
#include "rosbag/pass_bag.h"

namespace lt::ros {
namespace {

constexpr char kMagic[] = "#ROSBAG V2.0\n";
constexpr size_t kMagicBytes = sizeof(kMagic) - 1;
// Record ops (the header's "op" field).
constexpr uint8_t kMessageData = 0x02, kChunk = 0x05, kConnection = 0x07;
// A record's header holds a few fields (a connection's its message definition, a few kB).
constexpr uint32_t kMaxHeaderBytes = 1u << 20;
constexpr uint64_t kMaxChunkBytes = uint64_t{1} << 30;

// A record header's fields.
using Fields = std::map<std::string, std::string>;

Expected<Fields> ParseFields(std::span<const uint8_t> b, const std::string& where) {
  Fields out;
  size_t at = 0;
  while (at < b.size()) {
    if (b.size() - at < 4) return Error{where + ": a header field's length cut short"};
    uint32_t n;
    std::memcpy(&n, &b[at], 4);
    at += 4;
    if (n > b.size() - at)
      return Error{where + ": a header field of " + std::to_string(n) + " bytes in " +
                   std::to_string(b.size() - at) + " left"};
    const std::string field(reinterpret_cast<const char*>(&b[at]), n);
    at += n;
    const size_t eq = field.find('=');
    if (eq == std::string::npos)
      return Error{where + ": header field '" + ShortenedForMessage(field) + "' has no '='"};
    out[field.substr(0, eq)] = field.substr(eq + 1);
  }
  return out;
}

template <typename T>
bool FieldValue(const Fields& f, const char* name, T* v) {
  const auto it = f.find(name);
  if (it == f.end() || it->second.size() != sizeof(T)) return false;
  std::memcpy(v, it->second.data(), sizeof(T));
  return true;
}

// A bz2 chunk into `out`, which grows only as the stream gives bytes (a small chunk that says it
// holds a gigabyte takes no gigabyte before its bytes say otherwise).
Status DecompressBz2(std::span<const uint8_t> in, uint32_t size, const std::string& where,
                     std::vector<uint8_t>& out) {
  bz_stream z{};
  if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK)
    return Error{where + ": cannot start a bzip2 decompressor"};
  z.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data()));
  z.avail_in = static_cast<unsigned int>(in.size());
  out.resize(std::min<size_t>(size, in.size() * size_t{8} + 4096));
  int rc = BZ_OK;
  size_t produced = 0;
  while (rc == BZ_OK) {
    if (produced == out.size()) {
      if (out.size() == size) break;  // full, and the stream not at its end: too long
      out.resize(std::min<size_t>(size, out.size() * 2));
    }
    z.next_out = reinterpret_cast<char*>(out.data() + produced);
    z.avail_out = static_cast<unsigned int>(out.size() - produced);
    rc = BZ2_bzDecompress(&z);
    produced = out.size() - z.avail_out;
    if (rc == BZ_OK && z.avail_in == 0 && z.avail_out > 0) break;  // input ended early
  }
  BZ2_bzDecompressEnd(&z);
  if (rc != BZ_STREAM_END || produced != size)
    return Error{where + ": bz2 chunk does not decompress to its " + std::to_string(size) +
                 " bytes (" + std::to_string(produced) + " came, bzip2 status " +
                 std::to_string(rc) + ")"};
  return {};
}

// A chunk's records, decompressed into `out` (none, bz2, lz4 frames).
Status Decompress(const std::string& compression, std::span<const uint8_t> in, uint32_t size,
                  const std::string& where, std::vector<uint8_t>& out) {
  if (size > kMaxChunkBytes)
    return Error{where + ": a chunk of " + std::to_string(size) + " bytes uncompressed"};
  if (compression == "none") {
    if (in.size() != size)
      return Error{where + ": an uncompressed chunk of " + std::to_string(in.size()) +
                   " bytes that says it has " + std::to_string(size)};
    out.assign(in.begin(), in.end());
    return {};
  }
  // bz2 and LZ4 give at most about 45 000 and 255 times their input: a stated size beyond that
  // is a lie, refused before memory is taken for it.
  const uint64_t ratio = compression == "bz2" ? 46000 : 255;
  if (size > ratio * in.size() + 4096)
    return Error{where + ": a " + compression + " chunk of " + std::to_string(in.size()) +
                 " bytes cannot hold the " + std::to_string(size) + " it says it does"};
  if (compression == "bz2") return DecompressBz2(in, size, where, out);
  out.resize(size);
  if (compression == "lz4") {
    std::string why;
    const size_t produced = DecompressLz4Frames(in, out.data(), size, &why);
    if (!why.empty() || produced != size)
      return Error{where + ": lz4 chunk does not decompress to its " + std::to_string(size) +
                   " bytes" + (why.empty() ? std::string() : " (" + why + ")")};
    return {};
  }
  return Error{where + ": chunk compression '" + ShortenedForMessage(compression) +
               "' (expected none, bz2 or lz4)"};
}

class Ros1Bag : public PassBag {
 public:
  static Expected<std::unique_ptr<RosBag>> Open(const std::filesystem::path& path) {
    auto bag = std::make_unique<Ros1Bag>();
    bag->path_ = path;
    bag->storage_ = "rosbag-v2.0";
    std::error_code ec;
    bag->bytes_total_ = std::filesystem::file_size(path, ec);
    if (ec) return Error{path.string() + ": " + ec.message()};
    if (Status s = bag->Pass(nullptr, {}); !s.ok()) return s.error();
    return std::unique_ptr<RosBag>(std::move(bag));
  }

 private:
  struct Connection {
    size_t topic = 0;
    uint64_t seen = 0;
  };

  Status Pass(const BagMessageSink* sink, const std::vector<std::string>& names) override {
    bytes_read_ = 0;
    warnings_.clear();
    connections_.clear();
    unknown_connection_messages_ = 0;
    const std::string file = path_.string();
    std::ifstream in(path_, std::ios::binary);
    char magic[kMagicBytes] = {};
    if (!in.read(magic, kMagicBytes) || std::memcmp(magic, kMagic, kMagicBytes) != 0)
      return Error{file + ": not a ROS 1 bag (no \"#ROSBAG V2.0\" at byte 0)"};
    const uint64_t size = bytes_total_;
    uint64_t at = kMagicBytes, index = 0;
    std::vector<uint8_t> header, data, plain;
    while (at < size) {
      const std::string where = file + ": record at byte " + std::to_string(at);
      uint32_t header_len = 0, data_len = 0;
      if (size - at < 4 || !in.read(reinterpret_cast<char*>(&header_len), 4) ||
          header_len > kMaxHeaderBytes || header_len > size - at - 4) {
        warnings_.push_back(where +
                            ": the file ends inside this record (a recording cut "
                            "short); the messages before it are read");
        break;
      }
      header.resize(header_len);
      in.read(reinterpret_cast<char*>(header.data()), header_len);
      if (size - at - 4 - header_len < 4 || !in.read(reinterpret_cast<char*>(&data_len), 4) ||
          data_len > size - at - 8 - header_len) {
        warnings_.push_back(where +
                            ": the file ends inside this record (a recording cut "
                            "short); the messages before it are read");
        break;
      }
      auto fields = ParseFields(header, where);
      if (!fields.ok()) return fields.error();
      uint8_t op = 0;
      if (!FieldValue(*fields, "op", &op)) return Error{where + ": a header without its op"};
      at += 8 + header_len + data_len;
      bytes_read_ = at;
      if (op != kChunk && op != kConnection) {  // bag header, index, chunk info: passed over
        in.seekg(data_len, std::ios::cur);
        continue;
      }
      if (op == kChunk && data_len > kMaxChunkBytes)
        return Error{where + ": a chunk of " + std::to_string(data_len) + " bytes"};
      data.resize(data_len);
      if (!in.read(reinterpret_cast<char*>(data.data()), data_len))
        return Error{where + ": cannot read its " + std::to_string(data_len) + " bytes"};
      if (op == kConnection) {
        if (Status s = AddConnection(*fields, data, where); !s.ok()) return s;
        continue;
      }
      uint32_t uncompressed = 0;
      if (!FieldValue(*fields, "size", &uncompressed))
        return Error{where + ": a chunk without its size"};
      const auto compression = fields->find("compression");
      if (Status s = Decompress(compression == fields->end() ? "none" : compression->second, data,
                                uncompressed, where, plain);
          !s.ok())
        return s;
      if (Status s = ChunkRecords(plain, where + " (chunk)", sink, names, index); !s.ok()) return s;
    }
    return {};
  }

  // A connection: its id, topic and type (the data is itself a list of header fields).
  Status AddConnection(const Fields& fields, std::span<const uint8_t> data,
                       const std::string& where) {
    uint32_t id = 0;
    if (!FieldValue(fields, "conn", &id)) return Error{where + ": a connection without its id"};
    auto info = ParseFields(data, where);
    if (!info.ok()) return info.error();
    const auto topic = fields.find("topic");
    const auto type = info->find("type");
    if (topic == fields.end() || type == info->end())
      return Error{where + ": connection " + std::to_string(id) + " without its topic or type"};
    auto known = TopicOf(topic->second, type->second, "ros1", where);
    if (!known.ok()) return known.error();
    if (const auto def = info->find("message_definition"); def != info->end())
      topics_[*known].definition = def->second;
    if (!connections_.count(id)) connections_[id] = {*known, 0};
    return {};
  }

  Status ChunkRecords(std::span<const uint8_t> b, const std::string& where,
                      const BagMessageSink* sink, const std::vector<std::string>& names,
                      uint64_t& index) {
    size_t at = 0;
    while (at < b.size()) {
      const std::string here = where + ", its byte " + std::to_string(at);
      uint32_t header_len = 0, data_len = 0;
      if (b.size() - at < 4) return Error{here + ": a record cut short"};
      std::memcpy(&header_len, &b[at], 4);
      if (header_len > b.size() - at - 4 || b.size() - at - 4 - header_len < 4)
        return Error{here + ": a record header of " + std::to_string(header_len) +
                     " bytes does not fit the chunk"};
      std::memcpy(&data_len, &b[at + 4 + header_len], 4);
      if (data_len > b.size() - at - 8 - header_len)
        return Error{here + ": a record of " + std::to_string(data_len) +
                     " bytes does not fit the chunk"};
      auto fields = ParseFields(b.subspan(at + 4, header_len), here);
      if (!fields.ok()) return fields.error();
      const auto data = b.subspan(at + 8 + header_len, data_len);
      at += 8 + header_len + data_len;
      uint8_t op = 0;
      FieldValue(*fields, "op", &op);
      if (op == kConnection) {
        if (Status s = AddConnection(*fields, data, here); !s.ok()) return s;
      } else if (op == kMessageData) {
        uint32_t conn = 0;
        uint64_t time = 0;
        if (!FieldValue(*fields, "conn", &conn) || !FieldValue(*fields, "time", &time))
          return Error{here + ": a message without its connection or time"};
        const auto c = connections_.find(conn);
        if (c == connections_.end()) {
          // A damaged id (one flipped bit) loses this message, not the bag: skipped, and the
          // first few named.
          if (unknown_connection_messages_++ < kNamedSkips)
            warnings_.push_back(here + ": a message on connection " + std::to_string(conn) +
                                ", which no earlier connection record defines: skipped");
          continue;
        }
        // ROS 1's time: u32 seconds, then u32 nanoseconds.
        const int64_t time_ns =
            static_cast<int64_t>(time & 0xffffffff) * 1000000000 + static_cast<int64_t>(time >> 32);
        if (Status s =
                Deliver(c->second.topic, c->second.seen++, time_ns, data, here, sink, names, index);
            !s.ok())
          return s;
      }
    }
    return {};
  }

  std::map<uint32_t, Connection> connections_;
  static constexpr uint64_t kNamedSkips = 3;
  uint64_t unknown_connection_messages_ = 0;
};

}  // namespace

Expected<std::unique_ptr<RosBag>> OpenRos1Bag(const std::filesystem::path& path) {
  return Ros1Bag::Open(path);
}

}  // namespace lt::ros
