#include "lidartwin/datasets/frame_journal.h"

#include <fcntl.h>
#include <libdeflate.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>
#include <vector>

#include "lidartwin/datasets/hdf5_frames.h"

namespace lt {

namespace {

constexpr char kMagic[8] = {'L', 'T', 'J', 'R', 'N', 'L', '2', '\n'};
// Version 1 journals held raw frames; their records are not what version 2 replays.
constexpr char kMagicVersion1[8] = {'L', 'T', 'J', 'R', 'N', 'L', '1', '\n'};
constexpr uint32_t kRecordMagic = 0x5246544C;  // "LTFR" read as a little-endian u32
constexpr uint64_t kRecordHead = 4 + 4 + 8;    // magic, frame index, payload bytes
constexpr uint64_t kMaxHeaderBytes = 1 << 20;
// A record holds what a frame added to its file (export_record.h): an OS0-128 lab frame's is
// 0.44 MB; a frame of 2^26 points of every field (the most the HDF5 reader accepts) compresses
// to at most 3.5 GB plus waveforms. Larger is corruption.
constexpr uint64_t kMaxPayloadBytes = uint64_t{8} << 30;

// CRC-32 of ISO 3309 / ITU-T V.42 (zlib's and gzip's), by libdeflate: five times zlib's speed
// with the carry-less multiply instructions (0.014 against 0.075 ms a lab frame's record on the
// build machine), the same values.
uint32_t Crc32(const void* data, uint64_t n) {
  return libdeflate_crc32(0, data, static_cast<size_t>(n));
}

std::string SystemError(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

Status WriteAll(int fd, const std::string& where, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Error{SystemError(where + ": cannot write")};
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return {};
}

// Writes every byte of `io` (pieces of one record), IOV_MAX pieces a call at most, resuming
// after short writes.
Status WriteAllV(int fd, const std::string& where, std::vector<iovec> io) {
  size_t first = 0;
  while (first < io.size()) {
    const int count = static_cast<int>(std::min<size_t>(io.size() - first, IOV_MAX));
    ssize_t w = ::writev(fd, io.data() + first, count);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Error{SystemError(where + ": cannot write")};
    }
    while (first < io.size() && static_cast<size_t>(w) >= io[first].iov_len) {
      w -= static_cast<ssize_t>(io[first].iov_len);
      ++first;
    }
    if (first < io.size()) {
      io[first].iov_base = static_cast<char*>(io[first].iov_base) + w;
      io[first].iov_len -= static_cast<size_t>(w);
    }
  }
  return {};
}

// Reads exactly n bytes at offset; false at the end of the file (a torn record).
Expected<bool> ReadAt(int fd, const std::string& where, uint64_t offset, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Error{SystemError(where + ": cannot read at byte " + std::to_string(offset))};
    }
    if (r == 0) return false;
    p += r;
    offset += static_cast<uint64_t>(r);
    n -= static_cast<size_t>(r);
  }
  return true;
}

// One writer a journal: a second process on the same shard (a Slurm task requeued while the
// first still runs, two runs started by hand) is refused, not interleaved. The lock dies with
// its process, kill -9 included.
Status LockJournal(int fd, const std::string& where) {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return {};
  if (errno == EWOULDBLOCK) {
    return Error{where + ": another process is writing this shard (its journal is locked)"};
  }
  return Error{SystemError(where + ": cannot lock journal")};
}

template <typename T>
void Put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

}  // namespace

FrameJournal::FrameJournal(FrameJournal&& o) noexcept
    : path_(std::move(o.path_)),
      fd_(std::exchange(o.fd_, -1)),
      header_(std::move(o.header_)),
      header_end_(o.header_end_),
      frames_(o.frames_),
      next_index_(o.next_index_),
      truncated_(o.truncated_) {}

FrameJournal& FrameJournal::operator=(FrameJournal&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    fd_ = std::exchange(o.fd_, -1);
    header_ = std::move(o.header_);
    header_end_ = o.header_end_;
    frames_ = o.frames_;
    next_index_ = o.next_index_;
    truncated_ = o.truncated_;
  }
  return *this;
}

FrameJournal::~FrameJournal() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<FrameJournal> FrameJournal::Create(const std::filesystem::path& path,
                                            const std::string& header) {
  const std::string where = path.string();
  FrameJournal j;
  j.path_ = path;
  // Locked before it is emptied: a journal another process is writing is left alone.
  j.fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (j.fd_ < 0) return Error{SystemError(where + ": cannot create journal")};
  if (Status s = LockJournal(j.fd_, where); !s.ok()) return s.error();
  if (Status s = j.Start(header); !s.ok()) return s.error();
  return j;
}

// Empties the (locked) file and writes the header.
Status FrameJournal::Start(const std::string& header) {
  const std::string where = path_.string();
  if (header.size() > kMaxHeaderBytes) return Error{where + ": journal header too long"};
  // An empty file (a new journal) is not truncated: on ext4, truncating a file to 0 bytes marks
  // it to have its delayed allocations written out when it is closed (auto_da_alloc, against
  // files replaced by truncation coming back empty after a crash), so a journal the finished
  // shard removes was first written to disk whole. On the H100 machine (ext4 mounted with
  // discard) removing a 2000-frame export's 900 MB journal took 0.5 s that way against 0.05 s;
  // here 0.12 against 0.007 s for 200 MB (bench/RESULTS.md, fifth step).
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return Error{SystemError(where + ": cannot read its size")};
  if ((st.st_size > 0 && ::ftruncate(fd_, 0) != 0) || ::lseek(fd_, 0, SEEK_SET) < 0) {
    return Error{SystemError(where + ": cannot empty journal")};
  }
  header_ = header;
  frames_ = 0;
  next_index_ = 0;
  std::string head(kMagic, sizeof(kMagic));
  Put(head, static_cast<uint32_t>(header.size()));
  head += header;
  Put(head, Crc32(header.data(), header.size()));
  if (Status s = WriteAll(fd_, where, head.data(), head.size()); !s.ok()) return s;
  header_end_ = head.size();
  return {};
}

namespace {

// True when every byte of [offset, size) is zero: a tail some file systems leave after a crash
// (the size was updated, the data never written), torn like a short one.
Expected<bool> ZerosToEnd(int fd, const std::string& where, uint64_t offset, uint64_t size) {
  std::vector<char> buffer(1 << 16);
  while (offset < size) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), size - offset));
    auto ok = ReadAt(fd, where, offset, buffer.data(), n);
    if (!ok.ok()) return ok.error();
    if (!*ok) return true;
    for (size_t i = 0; i < n; ++i)
      if (buffer[i] != 0) return false;
    offset += n;
  }
  return true;
}

}  // namespace

// The header; false when the file holds no complete header (a run killed while creating it).
Expected<bool> FrameJournal::ReadHeader(uint64_t size) {
  const std::string where = path_.string();
  char magic[sizeof(kMagic)];
  uint32_t header_bytes = 0;
  if (size < 12) return false;
  auto ok = ReadAt(fd_, where, 0, magic, sizeof(magic));
  if (!ok.ok()) return ok.error();
  if (std::memcmp(magic, kMagicVersion1, sizeof(kMagic)) == 0) {
    return Error{where +
                 ": a journal of an earlier lidartwin (raw frames); remove it to start the shard "
                 "over"};
  }
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) {
    return Error{where + ": not a lidartwin frame journal (byte 0)"};
  }
  ok = ReadAt(fd_, where, 8, &header_bytes, 4);
  if (!ok.ok()) return ok.error();
  if (header_bytes > kMaxHeaderBytes) return Error{where + ": journal header corrupt (byte 8)"};
  if (12 + uint64_t{header_bytes} + 4 > size) return false;
  header_.resize(header_bytes);
  uint32_t crc = 0;
  if (!ReadAt(fd_, where, 12, header_.data(), header_bytes).ok() ||
      !ReadAt(fd_, where, 12 + header_bytes, &crc, 4).ok() ||
      crc != Crc32(header_.data(), header_bytes)) {
    return Error{where + ": journal header fails its checksum (byte 12)"};
  }
  header_end_ = 12 + uint64_t{header_bytes} + 4;
  return true;
}

// Walks the records; the first incomplete one (or a zero-filled tail) ends the journal. Returns
// the end of the last complete record.
Expected<uint64_t> FrameJournal::ScanRecords(uint64_t size) {
  const std::string where = path_.string();
  uint64_t offset = header_end_;
  std::string payload;
  while (offset < size) {
    uint32_t magic_word = 0, index = 0, payload_crc = 0;
    uint64_t bytes = 0;
    if (size - offset < kRecordHead + 4) break;
    if (!ReadAt(fd_, where, offset, &magic_word, 4).ok() ||
        !ReadAt(fd_, where, offset + 4, &index, 4).ok() ||
        !ReadAt(fd_, where, offset + 8, &bytes, 8).ok()) {
      return Error{where + ": cannot read the record at byte " + std::to_string(offset)};
    }
    if (magic_word != kRecordMagic || bytes > kMaxPayloadBytes) {
      auto zeros = ZerosToEnd(fd_, where, offset, size);
      if (!zeros.ok()) return zeros.error();
      if (*zeros) break;
      // A record's head is written in one write(2) with its payload; anything else here is
      // not a torn write but a damaged file.
      return Error{where + ": byte " + std::to_string(offset) +
                   ": not a frame record (damaged journal; delete it to start the shard over)"};
    }
    if (size - offset - kRecordHead - 4 < bytes) break;  // torn: payload or CRC missing
    payload.resize(bytes);
    if (!ReadAt(fd_, where, offset + kRecordHead, payload.data(), bytes).ok() ||
        !ReadAt(fd_, where, offset + kRecordHead + bytes, &payload_crc, 4).ok()) {
      return Error{where + ": cannot read the record at byte " + std::to_string(offset)};
    }
    if (payload_crc != Crc32(payload.data(), bytes)) break;  // torn inside the payload
    if (frames_ > 0 && index != next_index_) {
      return Error{where + ": byte " + std::to_string(offset) + ": frame " + std::to_string(index) +
                   " where frame " + std::to_string(next_index_) + " was expected"};
    }
    next_index_ = index + 1;
    ++frames_;
    offset += kRecordHead + bytes + 4;
  }
  return offset;
}

Expected<FrameJournal> FrameJournal::Open(const std::filesystem::path& path) {
  return OpenFile(path, nullptr);
}

Expected<FrameJournal> FrameJournal::OpenOrCreate(const std::filesystem::path& path,
                                                  const std::string& header) {
  return OpenFile(path, &header);
}

Expected<FrameJournal> FrameJournal::OpenFile(const std::filesystem::path& path,
                                              const std::string* create_header) {
  const std::string where = path.string();
  FrameJournal j;
  j.path_ = path;
  // Not through a symbolic link: a journal planted as a link to a file elsewhere would have the
  // run write (and create) that file (found by a hostile-input pass).
  j.fd_ =
      ::open(path.c_str(),
             O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (create_header ? O_CREAT : 0), 0644);
  if (j.fd_ < 0 && errno == ELOOP) {
    return Error{where + ": is a symbolic link; a journal is a regular file in its export folder"};
  }
  if (j.fd_ < 0) return Error{SystemError(where + ": cannot open journal")};
  if (Status s = LockJournal(j.fd_, where); !s.ok()) return s.error();
  struct stat st {};
  if (::fstat(j.fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error{where + ": not a regular file"};
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  auto header = j.ReadHeader(size);
  if (!header.ok()) return header.error();
  if (!*header) {
    if (!create_header) return Error{where + ": journal header cut short (byte 8)"};
    // New, or its creation was killed before the header was whole: start it (again).
    if (Status s = j.Start(*create_header); !s.ok()) return s.error();
    j.truncated_ = size;
    return j;
  }
  auto end = j.ScanRecords(size);
  if (!end.ok()) return end.error();
  if (*end < size) {
    j.truncated_ = size - *end;
    if (::ftruncate(j.fd_, static_cast<off_t>(*end)) != 0) {
      return Error{
          SystemError(where + ": cannot cut off the torn record at byte " + std::to_string(*end))};
    }
  }
  if (::lseek(j.fd_, static_cast<off_t>(*end), SEEK_SET) < 0) {
    return Error{SystemError(where + ": cannot seek")};
  }
  return j;
}

Expected<uint64_t> FrameJournal::CountFrames(const std::filesystem::path& path) {
  const std::string where = path.string();
  FrameJournal j;
  j.path_ = path;
  // Neither through a link nor blocking on a FIFO (the join counts the frames of unfinished
  // shards, holding the folder's lock).
  j.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (j.fd_ < 0 && errno == ELOOP) return Error{where + ": is a symbolic link, not a journal"};
  if (j.fd_ < 0) return Error{SystemError(where + ": cannot open journal")};
  struct stat st {};
  if (::fstat(j.fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error{where + ": not a regular file"};
  }
  auto header = j.ReadHeader(static_cast<uint64_t>(st.st_size));
  if (!header.ok()) return header.error();
  if (!*header) return uint64_t{0};
  auto end = j.ScanRecords(static_cast<uint64_t>(st.st_size));
  if (!end.ok()) return end.error();
  return j.frames_;
}

FrameJournal::Record FrameJournal::Record::Start(uint32_t index) {
  Record r;
  r.index = index;
  r.Copy(&kRecordMagic, 4);
  r.Copy(&index, 4);
  const uint64_t bytes = 0;  // the payload's, set by Finish
  r.Copy(&bytes, 8);
  return r;
}

void FrameJournal::Record::Copy(const void* p, size_t n) {
  if (!pieces.empty() && pieces.back().owned) {
    pieces.back().size += n;
  } else {
    pieces.push_back({true, small.size(), nullptr, n});
  }
  small.append(static_cast<const char*>(p), n);
}

void FrameJournal::Record::Borrow(const void* p, size_t n) {
  if (n > 0) pieces.push_back({false, 0, static_cast<const char*>(p), n});
}

void FrameJournal::Record::Finish() {
  uint64_t payload = 0;
  uint32_t crc = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const uint64_t skip = i == 0 ? kRecordHead : 0;  // the head is not payload
    payload += pieces[i].size - skip;
    crc = libdeflate_crc32(crc, Data(pieces[i]) + skip, static_cast<size_t>(pieces[i].size - skip));
  }
  std::memcpy(small.data() + 8, &payload, sizeof(payload));
  Copy(&crc, 4);
}

std::string FrameJournal::Record::Bytes() const {
  std::string bytes;
  for (const Piece& p : pieces)
    bytes.append(Data(p), p.size);
  return bytes;
}

Status FrameJournal::AppendRecord(uint32_t frame_index, const std::string& bytes) {
  Record r;
  r.index = frame_index;
  r.small = bytes;
  r.pieces.push_back({true, 0, nullptr, bytes.size()});
  return AppendRecord(r);
}

Status FrameJournal::AppendRecord(const Record& record) {
  const std::string where = path_.string();
  if (frames_ > 0 && record.index != next_index_) {
    return Error{where + ": frame " + std::to_string(record.index) + " appended where frame " +
                 std::to_string(next_index_) + " is next"};
  }
  // Head, payload and CRC gathered by writev(2), in one call when the kernel takes it whole.
  const off_t before = ::lseek(fd_, 0, SEEK_CUR);
  std::vector<iovec> io;
  for (const Record::Piece& p : record.pieces) {
    io.push_back({const_cast<char*>(record.Data(p)), p.size});
  }
  if (Status s = WriteAllV(fd_, where, io); !s.ok()) {
    // Leave no torn record behind a failure we saw (a full disk): cut back to the last one.
    if (before >= 0) {
      (void)!::ftruncate(fd_, before);
      ::lseek(fd_, before, SEEK_SET);
    }
    return s;
  }
  next_index_ = record.index + 1;
  ++frames_;
  return {};
}

Status FrameJournal::Replay(const RecordSink& sink) const {
  const std::string where = path_.string();
  uint64_t offset = header_end_;
  for (uint64_t k = 0; k < frames_; ++k) {
    uint64_t bytes = 0;
    uint32_t index = 0;
    if (!ReadAt(fd_, where, offset + 4, &index, 4).ok() ||
        !ReadAt(fd_, where, offset + 8, &bytes, 8).ok()) {
      return Error{where + ": cannot read the record at byte " + std::to_string(offset)};
    }
    std::string payload(bytes, '\0');
    auto ok = ReadAt(fd_, where, offset + kRecordHead, payload.data(), bytes);
    if (!ok.ok() || !*ok) {
      return Error{where + ": record at byte " + std::to_string(offset) + " vanished"};
    }
    if (Status s = sink(index, std::move(payload)); !s.ok()) {
      return Error{where + ": record at byte " + std::to_string(offset) + " (frame " +
                   std::to_string(index) + "): " + s.message()};
    }
    offset += kRecordHead + bytes + 4;
  }
  return {};
}

Status FrameJournal::Sync() {
  if (::fdatasync(fd_) != 0) return Error{SystemError(path_.string() + ": cannot sync")};
  return {};
}

}  // namespace lt
