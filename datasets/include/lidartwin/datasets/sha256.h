// SHA-256 (OpenSSL's libcrypto, ADR 0007): the export manifest's checksums and the lab
// folder's fingerprint.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt {

// A digest fed piece by piece; Hex() ends it (lower-case hex, 64 digits).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Add(const void* data, size_t n);
  std::string Hex();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// Hex SHA-256 of bytes, and of a file read in 1 MiB pieces (errors name the file).
std::string Sha256Hex(const std::string& bytes);
Expected<std::string> Sha256OfFile(const std::filesystem::path& file);

// The export's checksums (docs/datasets.md): a file as consecutive pieces of piece_bytes, the
// last one shorter, each with its own SHA-256, so that the pieces are hashed on several threads.
// One SHA-256 runs at about 1.2 GB/s on a core of the H100 machine: a shard of 0.9 GB took 0.75 s
// to hash whole, a quarter of a 2000-frame export (3.1 s). A file of one piece (at most
// piece_bytes, and an empty file) has one digest: its plain SHA-256, as sha256sum prints it.
inline constexpr uint64_t kHashPieceBytes = uint64_t{64} << 20;
// The pieces of a file of `bytes` bytes (an empty file has one); piece_bytes > 0.
inline uint64_t HashPieceCount(uint64_t bytes, uint64_t piece_bytes) {
  return bytes == 0 ? 1 : (bytes - 1) / piece_bytes + 1;
}
// Whether `text` is a digest as Sha256Hex writes it: 64 lower-case hex digits.
inline bool IsSha256Hex(const std::string& text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}
struct FilePieceHashes {
  uint64_t piece_bytes = kHashPieceBytes;
  uint64_t bytes = 0;               // the file's size when hashed
  std::vector<std::string> sha256;  // one a piece, in order
};
// Threads hashing one file's pieces at most, whatever the cores.
inline constexpr unsigned kMostHashThreads = 16;
// On `threads` threads (0: one a core the process may use), at most kMostHashThreads. Errors
// name the file and the offset that failed.
Expected<FilePieceHashes> HashFilePieces(const std::filesystem::path& file,
                                         uint64_t piece_bytes = kHashPieceBytes,
                                         unsigned threads = 0);

}  // namespace lt
