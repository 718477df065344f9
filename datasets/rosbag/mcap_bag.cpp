#include "rosbag/mcap_bag.h"

#include "capture/bytes.h"
#include "rosbag/lz4_frames.h"
#include "rosbag/mcap_records.h"
#include "rosbag/pass_bag.h"

#include <libdeflate.h>
#include <zstd.h>

#include "lidartwin/base/message_text.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>

namespace lt::ros {
namespace {

using namespace mcap;  // NOLINT: the format's own names

// Memory for a chunk's records, grown as needed and never zero-filled (a chunk's stated size is
// checked before it is taken).
class ChunkBuffer {
 public:
  uint8_t* Reserve(uint64_t n) {
    if (n > capacity_) {
      data_ = std::make_unique_for_overwrite<uint8_t[]>(n);
      capacity_ = n;
    }
    return data_.get();
  }

 private:
  std::unique_ptr<uint8_t[]> data_;
  uint64_t capacity_ = 0;
};

// A chunk decompresses into memory whole; larger ones are refused (writers use about 1-8 MB).
constexpr uint64_t kMaxChunkBytes = uint64_t{1} << 30;

// Little-endian fields of one record's content, bounds-checked; the first failure sticks.
class Fields {
 public:
  explicit Fields(std::span<const uint8_t> b) : b_(b) {}
  bool ok() const { return ok_; }
  uint16_t U16() { return static_cast<uint16_t>(Uint(2)); }
  uint32_t U32() { return static_cast<uint32_t>(Uint(4)); }
  uint64_t U64() { return Uint(8); }
  std::span<const uint8_t> Bytes(uint64_t n) {
    if (!ok_ || n > b_.size() - at_) {
      ok_ = false;
      return {};
    }
    auto out = b_.subspan(at_, n);
    at_ += n;
    return out;
  }
  std::string String() {
    const auto s = Bytes(U32());
    return {reinterpret_cast<const char*>(s.data()), s.size()};
  }
  std::span<const uint8_t> Rest() { return Bytes(b_.size() - at_); }

 private:
  uint64_t Uint(size_t n) {
    const auto s = Bytes(n);
    uint64_t v = 0;
    for (size_t i = 0; i < s.size(); ++i)
      v |= uint64_t{s[i]} << (8 * i);
    return v;
  }
  std::span<const uint8_t> b_;
  uint64_t at_ = 0;
  bool ok_ = true;
};

// LZ4's output is at most 255 times its input (a match of 255-byte lengths per byte), so a chunk
// that claims more is a lie; a zstd frame states its content size, which must agree before any
// memory is taken for it (frames without one, or several, are held to 1024 times their input).
constexpr uint64_t kLz4MaxRatio = 255, kZstdUnstatedMaxRatio = 1024;

// A chunk's records, decompressed into `out` (reused; never zero-filled). The output never
// grows past the size the chunk states, and that size is checked against what the compressed
// bytes can hold first.
Expected<std::span<const uint8_t>> Decompress(const std::string& compression,
                                              std::span<const uint8_t> in, uint64_t size,
                                              const std::string& where, ChunkBuffer& out) {
  const std::string claim =
      where + ": a chunk that says it holds " + std::to_string(size) + " bytes uncompressed";
  if (size > kMaxChunkBytes)
    return Error{claim + ", more than the " + std::to_string(kMaxChunkBytes) + " a chunk may"};
  if (compression.empty()) {
    if (in.size() != size) return Error{claim + " in " + std::to_string(in.size())};
    return in;
  }
  if (compression == "zstd") {
    // The first frame's stated size (a chunk is one frame as writers make it; several frames,
    // or one that states nothing, are held to the ratio above).
    const unsigned long long stated = ZSTD_getFrameContentSize(in.data(), in.size());
    if (stated == ZSTD_CONTENTSIZE_ERROR) return Error{claim + ": its zstd frame is damaged"};
    const bool known = stated != ZSTD_CONTENTSIZE_UNKNOWN;
    if ((known && stated > size) ||
        ((!known || stated < size) && size > kZstdUnstatedMaxRatio * in.size() + 4096))
      return Error{claim + " in " + std::to_string(in.size()) + " zstd bytes" +
                   (known ? " whose frame states " + std::to_string(stated) : std::string())};
    uint8_t* to = out.Reserve(size);
    const size_t n = ZSTD_decompress(to, size, in.data(), in.size());
    if (ZSTD_isError(n) || n != size)
      return Error{claim + "; zstd gives " +
                   (ZSTD_isError(n) ? std::string(ZSTD_getErrorName(n)) : std::to_string(n))};
    return std::span<const uint8_t>(to, size);
  }
  if (compression == "lz4") {
    if (size > kLz4MaxRatio * in.size() + 4096)
      return Error{claim + " in " + std::to_string(in.size()) + " lz4 bytes (LZ4 gives at most " +
                   std::to_string(kLz4MaxRatio) + " times its input)"};
    uint8_t* to = out.Reserve(size);
    std::string why;
    const size_t produced = DecompressLz4Frames(in, to, size, &why);
    if (!why.empty() || produced != size)
      return Error{claim + "; lz4 gives " + std::to_string(produced) +
                   (why.empty() ? std::string() : " (" + why + ")")};
    return std::span<const uint8_t>(to, size);
  }
  return Error{where + ": chunk compression '" + ShortenedForMessage(compression) +
               "' (expected none, zstd or lz4)"};
}

class McapBag : public PassBag {
 public:
  static Expected<std::unique_ptr<RosBag>> Open(const std::filesystem::path& path,
                                                const std::vector<std::filesystem::path>& files) {
    auto bag = std::make_unique<McapBag>();
    bag->path_ = path;
    bag->storage_ = "mcap";
    for (const auto& f : files) {
      std::error_code ec;
      const uint64_t bytes = std::filesystem::file_size(f, ec);
      if (ec) return Error{f.string() + ": " + ec.message()};
      bag->bytes_total_ += bytes;
      bag->files_.push_back(f);
    }
    // The topics and counts: one pass without a sink (the summary section would save it; a
    // pass also proves every record frames before any frame is decoded).
    if (Status s = bag->Pass(nullptr, {}); !s.ok()) return s.error();
    return std::unique_ptr<RosBag>(std::move(bag));
  }

 private:
  struct ChannelInfo {
    size_t topic = 0;  // index in topics_
    uint64_t seen = 0;
  };
  struct State {                                                      // per file pass
    std::map<uint16_t, std::pair<std::string, std::string>> schemas;  // id -> name, encoding
    std::map<uint16_t, ChannelInfo> channels;
    uint64_t index = 0;
  };

  // Reads every file; with a sink, streams the chosen topics' messages to it, else counts.
  Status Pass(const BagMessageSink* sink, const std::vector<std::string>& names) override {
    bytes_read_ = 0;
    warnings_.clear();
    uint64_t index = 0;
    for (const auto& file : files_) {
      if (Status s = PassFile(file, sink, names, index); !s.ok()) return s;
    }
    return {};
  }

  Status PassFile(const std::filesystem::path& file, const BagMessageSink* sink,
                  const std::vector<std::string>& names, uint64_t& index) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return Error{file.string() + ": cannot open"};
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(file, ec);
    uint8_t magic[8] = {};
    if (!in.read(reinterpret_cast<char*>(magic), 8) || std::memcmp(magic, kMagic, 8) != 0)
      return Error{file.string() + ": not an MCAP file (no MCAP magic at byte 0)"};
    State state;
    uint64_t at = 8;
    std::vector<uint8_t> content;
    bool data_ended = false;
    while (!data_ended) {
      // A file cut short (a recorder killed) keeps what came before, with a warning.
      if (size - at < 9) {
        warnings_.push_back(file.string() + ": byte " + std::to_string(at) + ": the file ends " +
                            (size == at ? std::string("without its DataEnd and Footer records")
                                        : "inside a record header") +
                            " (a recording cut short); the messages before it are read");
        break;
      }
      uint8_t head[9];
      if (!in.read(reinterpret_cast<char*>(head), 9))
        return Error{file.string() + ": byte " + std::to_string(at) + ": cannot read"};
      uint64_t length = 0;
      for (int i = 0; i < 8; ++i)
        length |= uint64_t{head[1 + i]} << (8 * i);
      const std::string where = file.string() + ": record at byte " + std::to_string(at);
      if (length > size - at - 9) {
        warnings_.push_back(where + " (opcode 0x" + bytes::HexByte(head[0]) + ") claims " +
                            std::to_string(length) + " bytes; the file has " +
                            std::to_string(size - at - 9) +
                            " left (a recording cut short); the messages before it are read");
        break;
      }
      const uint8_t op = head[0];
      if (op != kChunk && op != kSchema && op != kChannel && op != kMessage) {
        // Indexes, attachments, metadata, statistics: passed over without reading them.
        data_ended = op == kDataEnd || op == kFooter;
        in.seekg(static_cast<std::streamoff>(length), std::ios::cur);
        at += 9 + length;
        bytes_read_ += 9 + length;
        continue;
      }
      // A message or chunk larger than any this reader takes is refused before it is read.
      const uint64_t limit = op == kChunk ? kMaxChunkBytes + 4096 : kMaxMessageBytes + 4096;
      if (length > limit)
        return Error{where + " (opcode 0x" + bytes::HexByte(op) + "): " + std::to_string(length) +
                     " bytes, more than the " + std::to_string(limit) + " such a record may have"};
      content.resize(length);
      if (!in.read(reinterpret_cast<char*>(content.data()), static_cast<std::streamsize>(length)))
        return Error{where + ": cannot read its " + std::to_string(length) + " bytes"};
      at += 9 + length;
      bytes_read_ += 9 + length;
      switch (head[0]) {
        case kChunk: {
          Fields f(content);
          f.U64(), f.U64();
          const uint64_t uncompressed = f.U64();
          const uint32_t crc = f.U32();
          const std::string compression = f.String();
          const auto records = f.Bytes(f.U64());
          if (!f.ok()) return Error{where + ": a Chunk record cut short"};
          auto plain = Decompress(compression, records, uncompressed, where, chunk_buffer_);
          if (!plain.ok()) return plain.error();
          if (crc != 0 && libdeflate_crc32(0, plain->data(), plain->size()) != crc)
            return Error{where + ": the chunk's CRC-32 does not match its records (damaged)"};
          if (Status s = ChunkRecords(*plain, where + " (chunk)", state, sink, names, index);
              !s.ok())
            return s;
          break;
        }
        case kDataEnd:
          data_ended = true;
          break;
        case kFooter:
          data_ended = true;
          break;
        default:
          if (Status s = Record(head[0], content, where, state, sink, names, index); !s.ok())
            return s;
      }
    }
    return {};
  }

  // The records of a chunk (decompressed); `where` names the chunk.
  Status ChunkRecords(std::span<const uint8_t> bytes, const std::string& where, State& state,
                      const BagMessageSink* sink, const std::vector<std::string>& names,
                      uint64_t& index) {
    uint64_t at = 0;
    while (at < bytes.size()) {
      const std::string here = where + ", its byte " + std::to_string(at);
      if (bytes.size() - at < 9) return Error{here + ": a record header cut short"};
      Fields head(bytes.subspan(at + 1, 8));
      const uint8_t op = bytes[at];
      const uint64_t length = head.U64();
      if (length > bytes.size() - at - 9)
        return Error{here + " (opcode 0x" + bytes::HexByte(op) + ") claims " +
                     std::to_string(length) + " bytes; " + std::to_string(bytes.size() - at - 9) +
                     " are left"};
      if (Status s = Record(op, bytes.subspan(at + 9, length), here, state, sink, names, index);
          !s.ok())
        return s;
      at += 9 + length;
    }
    return {};
  }

  // One record: a schema and a channel remembered, a message counted or handed on; the rest
  // (indexes, attachments, metadata, statistics) carry nothing read here.
  Status Record(uint8_t op, std::span<const uint8_t> content, const std::string& where,
                State& state, const BagMessageSink* sink, const std::vector<std::string>& names,
                uint64_t& index) {
    Fields f(content);
    if (op == kSchema) {
      const uint16_t id = f.U16();
      std::string name = f.String(), encoding = f.String();
      if (!f.ok()) return Error{where + ": a Schema record cut short"};
      state.schemas[id] = {name, encoding};
    } else if (op == kChannel) {
      const uint16_t id = f.U16(), schema = f.U16();
      std::string topic = f.String(), encoding = f.String();
      if (!f.ok()) return Error{where + ": a Channel record cut short"};
      const auto s = state.schemas.find(schema);
      if (schema != 0 && s == state.schemas.end())
        return Error{where + ": channel " + topic + " names schema " + std::to_string(schema) +
                     ", which no earlier Schema record defines"};
      // rosbag2 writes message encoding "cdr"; the topic's serialization is that encoding.
      auto known = TopicOf(topic, s == state.schemas.end() ? "" : s->second.first, encoding, where);
      if (!known.ok()) return known.error();
      if (const auto c = state.channels.find(id);
          c != state.channels.end() && c->second.topic != *known)
        return Error{where + ": channel " + std::to_string(id) +
                     " is defined again for another "
                     "topic"};
      state.channels[id] = {*known, 0};
    } else if (op == kMessage) {
      const uint16_t channel = f.U16();
      f.U32();  // sequence
      const uint64_t log_time = f.U64();
      f.U64();  // publish time
      const auto data = f.Rest();
      if (!f.ok()) return Error{where + ": a Message record cut short"};
      const auto c = state.channels.find(channel);
      if (c == state.channels.end())
        return Error{where + ": a message on channel " + std::to_string(channel) +
                     ", which no earlier Channel record defines"};
      return Deliver(c->second.topic, c->second.seen++, static_cast<int64_t>(log_time), data, where,
                     sink, names, index);
    }
    return {};
  }

  std::vector<std::filesystem::path> files_;
  ChunkBuffer chunk_buffer_;
};

}  // namespace

Expected<std::unique_ptr<RosBag>> OpenMcapBag(const std::filesystem::path& path,
                                              const std::vector<std::filesystem::path>& files) {
  return McapBag::Open(path, files);
}

}  // namespace lt::ros
