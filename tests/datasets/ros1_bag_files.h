// ROS 1 bags made in tests (wiki.ros.org/Bags/Format/2.0): the magic line, then one
// uncompressed chunk record holding the connection records and the message data records. No
// bag header, chunk info or index records: our reader passes over them, and the format lets a
// reader rebuild them (`rosbag reindex`).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace lt::test {

struct Ros1Connection {
  std::string topic, type;
  std::string definition;  // the connection's message_definition (none when empty)
};

struct Ros1Message {
  uint32_t connection = 0;  // index into the connections
  int64_t time_ns = 0;
  std::vector<uint8_t> data;  // the message in ROS 1's serialization
};

// Little-endian fields of ROS 1's serialization (and of the records' headers).
class Ros1Bytes {
 public:
  Ros1Bytes& U8(uint8_t v) { return Raw(&v, 1); }
  Ros1Bytes& U32(uint32_t v) { return Raw(&v, 4); }
  Ros1Bytes& U64(uint64_t v) { return Raw(&v, 8); }
  // time: uint32 sec, uint32 nsec.
  Ros1Bytes& Time(int64_t ns) {
    return U32(static_cast<uint32_t>(ns / 1000000000)).U32(static_cast<uint32_t>(ns % 1000000000));
  }
  Ros1Bytes& String(const std::string& s) {
    U32(static_cast<uint32_t>(s.size()));
    return Raw(s.data(), s.size());
  }
  // std_msgs/Header: uint32 seq, time stamp, string frame_id.
  Ros1Bytes& Header(uint32_t seq, int64_t stamp_ns, const std::string& frame_id) {
    return U32(seq).Time(stamp_ns).String(frame_id);
  }
  Ros1Bytes& Raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
    return *this;
  }
  // A record header field: uint32 length, "name=" and the value's bytes.
  Ros1Bytes& Field(const std::string& name, const void* value, size_t n) {
    U32(static_cast<uint32_t>(name.size() + 1 + n));
    Raw(name.data(), name.size());
    U8('=');
    return Raw(value, n);
  }
  std::vector<uint8_t> bytes;
};

// A record: its header's length and fields, its data's length and bytes.
inline void Ros1Record(Ros1Bytes& out, const Ros1Bytes& header, const std::vector<uint8_t>& data) {
  out.U32(static_cast<uint32_t>(header.bytes.size())).Raw(header.bytes.data(), header.bytes.size());
  out.U32(static_cast<uint32_t>(data.size())).Raw(data.data(), data.size());
}

// The chunk's records as stored: `compress` turns them into a compressed chunk's bytes (none:
// stored as they are) under the name `compression`, and `stated_size` (0: the records' own)
// is the size the chunk's header gives.
struct Ros1Chunking {
  std::string compression = "none";
  std::vector<uint8_t> (*compress)(const std::vector<uint8_t>&) = nullptr;
  uint32_t stated_size = 0;
};

inline std::vector<uint8_t> Ros1BagBytes(const std::vector<Ros1Connection>& connections,
                                         const std::vector<Ros1Message>& messages,
                                         const Ros1Chunking& chunking = {}) {
  Ros1Bytes chunk;
  for (uint32_t c = 0; c < connections.size(); ++c) {
    const uint8_t op = 0x07;
    Ros1Bytes header, info;
    header.Field("op", &op, 1).Field("conn", &c, 4);
    header.Field("topic", connections[c].topic.data(), connections[c].topic.size());
    info.Field("topic", connections[c].topic.data(), connections[c].topic.size());
    info.Field("type", connections[c].type.data(), connections[c].type.size());
    if (!connections[c].definition.empty())
      info.Field("message_definition", connections[c].definition.data(),
                 connections[c].definition.size());
    Ros1Record(chunk, header, info.bytes);
  }
  for (const Ros1Message& m : messages) {
    const uint8_t op = 0x02;
    const uint64_t time = static_cast<uint64_t>(m.time_ns / 1000000000) |
                          static_cast<uint64_t>(m.time_ns % 1000000000) << 32;
    Ros1Bytes header;
    header.Field("op", &op, 1).Field("conn", &m.connection, 4).Field("time", &time, 8);
    Ros1Record(chunk, header, m.data);
  }
  Ros1Bytes bag;
  const std::string magic = "#ROSBAG V2.0\n";
  bag.Raw(magic.data(), magic.size());
  const uint8_t op = 0x05;
  const uint32_t size =
      chunking.stated_size ? chunking.stated_size : static_cast<uint32_t>(chunk.bytes.size());
  Ros1Bytes header;
  header.Field("op", &op, 1)
      .Field("compression", chunking.compression.data(), chunking.compression.size())
      .Field("size", &size, 4);
  Ros1Record(bag, header, chunking.compress ? chunking.compress(chunk.bytes) : chunk.bytes);
  return bag.bytes;
}

}  // namespace lt::test
